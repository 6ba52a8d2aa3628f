import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The Ogg page reading done by hand (`OggLinks`): where a file's links lie, and whether its
/// Vorbis headers' page carries audio, on files ffmpeg writes (one stream, two streams
/// multiplexed) and on their pages changed byte by byte.
@Suite struct OggPageTests {
  let dir = TemporaryDirectory()

  func ffmpeg(_ arguments: [String], _ name: String) throws -> String {
    let path = dir.file(name)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-v", "error", "-nostdin", "-y"] + arguments + [path]
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    return path
  }

  func tone(_ frequency: Int) -> [String] {
    ["-f", "lavfi", "-i", "sine=frequency=\(frequency):sample_rate=44100:duration=1"]
  }

  /// The file's pages: where each starts, and its segment table.
  func pages(_ bytes: [UInt8]) -> [(at: Int, lacing: [UInt8])] {
    var pages: [(at: Int, lacing: [UInt8])] = []
    var at = 0
    while at + 27 <= bytes.count {
      let lacing = Array(bytes[(at + 27)..<(at + 27 + Int(bytes[at + 26]))])
      pages.append((at, lacing))
      at += 27 + lacing.count + lacing.reduce(0) { $0 + Int($1) }
    }
    return pages
  }

  @Test func aFileAsFFmpegWritesItHasNoAudioOnItsHeadersPageAndOneLink() throws {
    let plain = try ffmpeg(tone(440) + ["-c:a", "libvorbis"], "plain.ogg")
    #expect(!OggLinks.audioOnHeaderPage(plain))
    #expect(OggLinks.ranges(plain).count == 1)
    // Two Vorbis streams in one link: the second's headers are not the first's.
    let two = try ffmpeg(
      tone(440) + tone(660) + ["-map", "0:a", "-map", "1:a", "-c:a", "libvorbis"], "two.ogg")
    #expect(!OggLinks.audioOnHeaderPage(two))
    #expect(OggLinks.ranges(two).count == 1)
  }

  /// The page where the headers end, given a granule position, holds audio by the spec's
  /// own count (it says how far the audio has come), though its packets end with the third.
  @Test func aGranulePositionOnTheHeadersPageCountsAsAudio() throws {
    let plain = try ffmpeg(tone(440) + ["-c:a", "libvorbis"], "plain.ogg")
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
    let found = pages(bytes)
    try #require(found.count > 2)
    // ffmpeg: the identification header alone, then the comment and setup headers.
    let headers = found[1]
    try #require(headers.lacing.filter { $0 < 255 }.count == 2 && headers.lacing.last! < 255)
    bytes[headers.at + 6] = 1
    let changed = dir.file("granule.ogg")
    try Data(bytes).write(to: URL(fileURLWithPath: changed))
    #expect(OggLinks.audioOnHeaderPage(changed))
  }
}
