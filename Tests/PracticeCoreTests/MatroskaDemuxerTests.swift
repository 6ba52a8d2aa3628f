import Foundation
@testable import PracticeCore
import TestSupport
import Testing

/// The hand-written Matroska/WebM demuxer with libopus (neither libavformat nor libavcodec):
/// the song FFmpeg's own path gives, placed and cut alike, and no trap, no hang on a cut or
/// damaged file.
@Suite struct MatroskaDemuxerTests {
  let dir = TemporaryDirectory()

  /// A 3-second stereo 48 kHz sweep-and-noise WAV encoded by `ffmpeg` with `arguments`.
  func encoded(_ name: String, _ arguments: [String]) throws -> String {
    let wav = dir.file(name + ".wav")
    var samples = Synth.sine(frequency: 440, seconds: 3, sampleRate: 48000, channels: 2)
    var state: UInt64 = 7
    for i in stride(from: 1, to: samples.count, by: 2) {
      state = state &* 6_364_136_223_846_793_005 &+ 1
      samples[i] = 0.2 * Float(Int64(bitPattern: state) >> 40) / Float(1 << 23)
    }
    try Synth.write(Synth.quantized16(samples), to: wav, sampleRate: 48000, channels: 2)
    let path = dir.file(name)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-v", "error", "-nostdin", "-y", "-i", wav] + arguments + [path]
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    return path
  }


  /// libopus and FFmpeg's own Opus decoder are not bit for bit alike, but agree closely; the
  /// length (pre-skip and DiscardPadding removed) and the placement are the same.
  @Test(arguments: [
    (["-c:a", "libopus", "-b:a", "128k"], "opus.webm"),
    (["-c:a", "libopus", "-ac", "1", "-frame_duration", "60"], "mono60.webm"),
    (["-c:a", "libopus", "-frame_duration", "2.5"], "short.mka"),
    (["-c:a", "libopus", "-cluster_time_limit", "200000"], "big-clusters.webm"),
  ])
  func theSongIsTheOneFFmpegsOwnPathGives(arguments: [String], name: String) throws {
    let path = try encoded(name, arguments)
    let native = try PacketDecoder(path: path, source: MatroskaDemuxer(path: path))
    let reference = try FFmpegDecoder(path: path)
    #expect(native.info.frames == reference.info.frames)
    #expect(native.info.sampleRate == 48000)
    #expect(native.info.channels == reference.info.channels)
    let got = DemuxerChecks.decodeAll(native)
    let want = DemuxerChecks.decodeAll(reference)
    #expect(got.count == want.count)
    let worst = zip(got, want).map { abs($0 - $1) }.max() ?? 0
    #expect(worst < 0.01, "\(name): \(worst)")
    #expect(SoundFile.nativeDecoder(path) != nil)
  }

  /// A range decodes the same packets as the whole file from the start (seeks near the
  /// start restart from the first packet), so a range cut early is the whole's, sample
  /// for sample; later ones agree with it closely, on the exact frame.
  @Test func aSeekLandsOnTheExactFrame() throws {
    let path = try encoded("seek.webm", ["-c:a", "libopus"])
    let decoder = try PacketDecoder(path: path, source: MatroskaDemuxer(path: path))
    let whole = DemuxerChecks.decodeAll(decoder)
    for frame: Int64 in [0, 1, 311, 5000, 48000, 100_001, 12345, 3, 143_000] {
      try decoder.seek(to: frame)
      var got = [Float](repeating: 0, count: 2000 * 2)
      let n = got.withUnsafeMutableBufferPointer { decoder.read(into: $0.baseAddress!, frames: 2000) }
      #expect(n == min(2000, whole.count / 2 - Int(frame)))
      let want = whole[(Int(frame) * 2)..<(Int(frame) * 2 + n * 2)]
      let worst = zip(got.prefix(n * 2), want).map { abs($0 - $1) }.max() ?? 0
      if frame < 8000 {
        #expect(worst == 0, "at \(frame)")
      } else {
        #expect(worst < 0.01, "at \(frame): \(worst)")
      }
    }
  }

  @Test func otherCodecsAndLayoutsAreLeftToLibavformat() throws {
    let vorbis = try encoded("v.mka", ["-c:a", "libvorbis"])
    #expect(throws: DemuxError.self) { try MatroskaDemuxer(path: vorbis) }
    #expect(SoundFile.nativeDecoder(vorbis) == nil)
    #expect(try SoundFile(path: vorbis).info.frames > 0)
    let surround = try encoded("s.webm", ["-af", "pan=5.1|FL=c0|FR=c1", "-c:a", "libopus"])
    #expect(SoundFile.nativeDecoder(surround) == nil)
    #expect(try SoundFile(path: surround).info.channels == 2)
  }


  @Test func aCutOrDamagedFileNeverTraps() throws {
    let path = try encoded("d.webm", ["-c:a", "libopus", "-cluster_time_limit", "500"])
    let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    for fraction in [0.0005, 0.002, 0.01, 0.1, 0.35, 0.6, 0.9, 0.99, 0.999] {
      try survive(Array(whole.prefix(Int(Double(whole.count) * fraction))), "cut at \(fraction)")
    }
    var generator = SeededRandom()
    func random(_ bound: Int) -> Int { generator.next(bound) }
    for round in 0..<120 {
      var bytes = whole
      // Most rounds in the head (EBML header, Info, Tracks, Tags) and the Cues at the end.
      let region = round % 3
      for _ in 0..<(1 + random(6)) {
        let at =
          region == 0
          ? random(min(600, whole.count))
          : region == 1 ? whole.count - 1 - random(min(2000, whole.count)) : random(whole.count)
        bytes[at] = round % 5 == 0 ? 0xFF : UInt8(truncatingIfNeeded: random(256))
      }
      try survive(bytes, "round \(round)")
    }
  }

  func survive(_ bytes: [UInt8], _ label: String) throws {
    try DemuxerChecks.survive(bytes, at: dir.file("damaged.webm"), label) {
      try PacketDecoder(path: $0, source: MatroskaDemuxer(path: $0))
    }
  }
}
