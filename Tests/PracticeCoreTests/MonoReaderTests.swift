import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// What the analyses hear of a file (`MonoReader`): the channels' mean or the one asked
/// for, their energies, the rate (a file at exactly `lowest` is still converted), the whole
/// converted length, progress that ends at 1, and a decoding error said, not passed over.
@Suite struct MonoReaderTests {
  let dir = TemporaryDirectory()

  /// A tone on the left (peak 0.4), silence on the right, one second at `rate`.
  func leftOnly(rate: Int) throws -> String {
    let path = dir.file("left-\(rate).wav")
    let tone = Synth.sine(frequency: 441, seconds: 1, sampleRate: rate, amplitude: 0.4)
    try Synth.write(
      tone.flatMap { [$0, 0] }, to: path, sampleRate: rate, channels: 2, bitDepth: 24)
    return path
  }

  @Test func theMonoIsTheChannelsMeanOrTheOneAskedFor() throws {
    let path = try leftOnly(rate: 48000)
    var heard: [Float] = []
    let mean = try MonoReader(file: SoundFile(path: path), rate: 48000).read(name: "left") {
      heard += $0
    }
    #expect(heard.count == 48000 && mean.frames == 48000)
    #expect(abs(mean.peak - 0.2) < 0.001, "peak \(mean.peak)")
    // The mean of a tone and silence has a quarter of the tone's energy, the channels half.
    #expect(abs(mean.channelEnergy / mean.monoEnergy - 2) < 0.001)
    var right: [Float] = []
    let alone = try MonoReader(file: SoundFile(path: path), rate: 48000, channel: 1)
      .read(name: "left") { right += $0 }
    #expect(alone.peak == 0 && right.allSatisfy { $0 == 0 })
  }

  @Test func aFileIsConvertedWholeAndOneAtTheLowestRateIsConvertedToo() throws {
    let path = try leftOnly(rate: 48000)
    let reader = MonoReader(file: try SoundFile(path: path), rate: 44100, lowest: 48000)
    #expect(reader.rate == 44100)
    var count = 0
    _ = try reader.read(name: "left") { count += $0.count }
    #expect(abs(count - 44100) <= 1, "\(count) samples")
    let low = try leftOnly(rate: 22050)
    #expect(MonoReader(file: try SoundFile(path: low), rate: 44100, lowest: 22050).rate == 44100)
    #expect(MonoReader(file: try SoundFile(path: low), rate: 44100, lowest: 22051).rate == 22050)
  }

  /// 150 blocks and a few frames: the last block adds less than a hundredth, and the
  /// progress still ends at 1.
  @Test func progressEndsAtOneAfterALastSmallBlock() throws {
    let path = dir.file("long.wav")
    try Synth.write(
      Synth.sine(frequency: 441, seconds: Double(8192 * 150 + 100) / 8000, sampleRate: 8000),
      to: path, sampleRate: 8000)
    var reports: [Double] = []
    _ = try MonoReader(file: SoundFile(path: path), rate: 8000).read(
      name: "long", progress: { reports.append($0) }) { _ in }
    #expect(reports.last == 1 && reports.count > 50)
  }

  /// An AAC file with a thousand bytes zeroed half-way: the decoder's error ends the read
  /// as bad data (it was heard as noise, "cannot find the beat").
  @Test func aDecodingErrorEndsTheReadAsBadData() throws {
    let path = dir.file("tone.m4a")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = [
      "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=6",
      "-c:a", "aac", "-movflags", "+faststart", path,
    ]
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let middle = bytes.count / 2
    bytes.replaceSubrange(middle..<(middle + 1000), with: [UInt8](repeating: 0, count: 1000))
    let damaged = dir.file("damaged.m4a")
    try Data(bytes).write(to: URL(fileURLWithPath: damaged))
    let reader = MonoReader(file: try SoundFile(path: damaged), rate: 44100)
    #expect {
      _ = try reader.read(name: "damaged") { _ in }
    } throws: { error in
      (error as? SoundFileError)?.category == .badData
    }
  }
}
