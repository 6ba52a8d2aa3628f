import Foundation
import PracticeCore
import TestSupport
import Testing

/// Files made at test time by the `ffmpeg` command from a synthetic source, decoded through
/// `SoundFile` (libsndfile refuses them, so FFmpeg decodes them).
@Suite struct DecoderTests {
  let dir = TemporaryDirectory()
  static let rate = 48000
  static let seconds = 3.0

  /// A stereo source no lag can fake: a rising sweep on the left, noise bursts on the right.
  static let source: [Float] = {
    let frames = Int(seconds * Double(rate))
    var samples = [Float](repeating: 0, count: frames * 2)
    var seed: UInt32 = 12345
    for i in 0..<frames {
      let t = Double(i) / Double(rate)
      let phase = 2 * Double.pi * (150 * t + 500 * t * t)  // 150 Hz rising 1 kHz a second
      samples[i * 2] = Float(0.4 * sin(phase))
      seed = seed &* 1_103_515_245 &+ 12345
      let noise = Float(Int32(bitPattern: seed >> 1) % 20000) / 20000
      let inBurst = (i % (rate / 4)) < rate / 50
      samples[i * 2 + 1] = inBurst ? 0.3 * noise : Float(0.1 * sin(2 * Double.pi * 330 * t))
    }
    return Synth.quantized16(samples)
  }()

  /// The source as a 16-bit WAV.
  func wav() throws -> String {
    let path = dir.file("source.wav")
    if !FileManager.default.fileExists(atPath: path) {
      try Synth.write(DecoderTests.source, to: path, sampleRate: DecoderTests.rate, channels: 2)
    }
    return path
  }

  /// Runs `ffmpeg -y ARGS OUT` and returns OUT.
  @discardableResult
  func ffmpeg(_ arguments: [String], _ output: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-v", "error", "-nostdin", "-y"] + arguments + [dir.file(output)]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "ffmpeg \(arguments) failed")
    return dir.file(output)
  }

  func encode(_ codec: [String], _ output: String) throws -> String {
    try ffmpeg(["-i", try wav()] + codec, output)
  }

  /// The lag (in frames) of `decoded` against `reference` on one channel where they
  /// correlate best, over ±`range` frames, measured on the middle second.
  func bestLag(_ decoded: [Float], _ reference: [Float], channel: Int, range: Int = 1500) -> Int {
    let start = DecoderTests.rate
    let length = 4096
    var best = (lag: 0, score: -Double.infinity)
    for lag in -range...range {
      var sum = 0.0
      for i in start..<(start + length) {
        let j = i + lag
        guard j >= 0, j * 2 + channel < decoded.count else { continue }
        sum += Double(reference[i * 2 + channel]) * Double(decoded[j * 2 + channel])
      }
      if sum > best.score { best = (lag, sum) }
    }
    return best.lag
  }

  /// Where two sample arrays first differ (index, got, want), or nil if they are equal.
  func firstDifference(_ got: [Float], _ want: [Float]) -> String? {
    if got.count != want.count { return "lengths \(got.count) and \(want.count)" }
    guard let i = got.indices.first(where: { got[$0] != want[$0] }) else { return nil }
    return "sample \(i): \(got[i]) against \(want[i])"
  }

  /// Seeks to `frame` and reads `count` frames.
  func slice(_ path: String, from frame: Int64, count: Int) throws -> [Float] {
    let file = try SoundFile(path: path)
    try file.seek(to: frame)
    var samples = [Float](repeating: 0, count: count * file.info.channels)
    var total = 0
    samples.withUnsafeMutableBufferPointer { buffer in
      while total < count {
        let n = file.read(
          into: buffer.baseAddress! + total * file.info.channels, frames: count - total)
        if n <= 0 { break }
        total += n
      }
    }
    return Array(samples.prefix(total * file.info.channels))
  }

  @Test func alacIsBitIdenticalToTheWAVItWasMadeFrom() throws {
    let alac = try encode(["-c:a", "alac"], "alac.m4a")
    let (info, decoded) = try Synth.read(alac)
    #expect(info.sampleRate == DecoderTests.rate && info.channels == 2)
    #expect(info.frames == Int64(DecoderTests.source.count / 2))
    #expect(info.formatName.contains("ALAC"))
    #expect(firstDifference(decoded, DecoderTests.source) == nil)
  }

  @Test(arguments: [
    (["-c:a", "aac", "-b:a", "192k"], "aac.m4a"),
    (["-c:a", "libopus", "-b:a", "160k"], "opus.webm"),
    (["-c:a", "libvorbis", "-q:a", "6"], "vorbis.mka"),
  ])
  func lossyFilesAreAlignedToTheirSourceWithinOneFrame(codec: [String], name: String) throws {
    let path = try encode(codec, name)
    let (info, decoded) = try Synth.read(path)
    #expect(info.sampleRate == DecoderTests.rate && info.channels == 2)
    // Priming and padding removed: the length is the source's (Matroska's to the ms).
    #expect(abs(info.frames - Int64(DecoderTests.source.count / 2)) <= 48, "\(info.frames)")
    #expect(abs(decoded.count - DecoderTests.source.count) <= 2 * 48)
    for channel in 0..<2 {
      let lag = bestLag(decoded, DecoderTests.source, channel: channel)
      #expect(abs(lag) <= 1, "\(name) channel \(channel) is \(lag) frames off")
    }
  }

  @Test(arguments: [
    (["-c:v", "mpeg4", "-c:a", "aac"], "video.mp4"),
    (["-c:v", "mpeg4", "-c:a", "libopus"], "video.mkv"),
    (["-c:v", "libvpx", "-c:a", "libopus"], "video.webm"),
  ])
  func theSoundOfAVideoFileIsItsFirstAudioStream(codec: [String], name: String) throws {
    let path = try ffmpeg(
      [
        "-f", "lavfi", "-i", "color=c=blue:s=64x48:r=10:d=4", "-i", try wav(), "-map", "0:v",
        "-map", "1:a",
      ]
        + codec, name)
    let (info, decoded) = try Synth.read(path)
    #expect(info.sampleRate == DecoderTests.rate && info.channels == 2)
    #expect(abs(decoded.count - DecoderTests.source.count) <= 2 * 48, "\(decoded.count)")
    // The video is a second longer: the song is as long as its sound.
    #expect(abs(info.frames - Int64(DecoderTests.source.count / 2)) <= 48, "\(info.frames)")
    #expect(abs(bestLag(decoded, DecoderTests.source, channel: 0)) <= 1)
  }

  @Test(arguments: [
    (["-c:a", "alac"], "seek.m4a"), (["-c:a", "aac", "-aac_pns", "0"], "seek-aac.m4a"),
  ])
  func aSeekLandsOnTheExactFrame(codec: [String], name: String) throws {
    let path = try encode(codec, name)
    let (_, whole) = try Synth.read(path)
    for frame: Int64 in [0, 1, 1023, 1024, 4097, 70001, 100_000, 143_000, 1000, 0] {
      let count = min(5000, whole.count / 2 - Int(frame))
      let got = try slice(path, from: frame, count: count)
      let want = Array(whole[(Int(frame) * 2)..<(Int(frame) * 2 + count * 2)])
      #expect(firstDifference(got, want) == nil, "\(name) at frame \(frame)")
    }
  }

  /// Raw elementary streams have no index to seek in before they are read, and AC-3's
  /// timestamps (90 kHz) drift from its frames: both open, and a seek is still exact.
  @Test(arguments: [
    (["-c:a", "aac", "-aac_pns", "0", "-f", "adts"], "raw.aac"), (["-c:a", "ac3"], "raw.ac3"),
  ])
  func rawStreamsOpenAndSeekExactly(codec: [String], name: String) throws {
    let path = try encode(codec, name)
    let (info, whole) = try Synth.read(path)
    #expect(info.sampleRate == DecoderTests.rate && info.channels == 2)
    // No priming is declared in a raw stream: the encoder's delay stays, under 2 frames' worth.
    #expect(abs(info.frames - Int64(DecoderTests.source.count / 2)) <= 3072, "\(info.frames)")
    for frame: Int64 in [70001, 1000, 100_000, 0] {
      let count = 5000
      let got = try slice(path, from: frame, count: count)
      let want = Array(whole[(Int(frame) * 2)..<(Int(frame) * 2 + count * 2)])
      #expect(firstDifference(got, want) == nil, "\(name) at frame \(frame)")
    }
  }

  @Test func seeksBackAndForthInOneFileStayExact() throws {
    let path = try encode(["-c:a", "aac", "-aac_pns", "0"], "back.m4a")
    let (_, whole) = try Synth.read(path)
    let file = try SoundFile(path: path)
    var buffer = [Float](repeating: 0, count: 2000 * 2)
    for frame: Int64 in [90_000, 10, 91_000, 89_000, 140_000, 5] {
      try file.seek(to: frame)
      let n = buffer.withUnsafeMutableBufferPointer {
        file.read(into: $0.baseAddress!, frames: 2000)
      }
      #expect(n == 2000)
      let want = Array(whole[(Int(frame) * 2)..<(Int(frame) * 2 + 4000)])
      #expect(firstDifference(buffer, want) == nil, "at \(frame)")
    }
  }

  /// Matroska's timestamps are in milliseconds: the frame is placed on Opus's 2.5 ms grid.
  /// Opus's decoder state after a seek converges on, but is not bit for bit, the state
  /// of a decode from the start: the samples agree to well under 1 %.
  @Test func opusSeeksInWebMLandOnTheExactFrame() throws {
    let path = try encode(["-c:a", "libopus"], "seek.webm")
    let (_, whole) = try Synth.read(path)
    for frame: Int64 in [0, 7777, 48000, 100_001, 12345, 3] {
      let got = try slice(path, from: frame, count: 4000)
      var best = (lag: 0, error: Float.infinity)
      for lag in -48...48 {
        let start = Int(frame) + lag
        guard start >= 0 else { continue }
        var error: Float = 0
        for i in 0..<4000 { error = max(error, abs(got[i * 2] - whole[(start + i) * 2])) }
        if error < best.error { best = (lag, error) }
      }
      #expect(best.lag == 0 && best.error < 0.01, "at \(frame): \(best)")
    }
  }

  @Test(arguments: ["tags.m4a", "tags.webm"])
  func tagsComeFromTheContainer(name: String) throws {
    let path = try ffmpeg(
      [
        "-i", try wav(), "-metadata", "title=Verse Study", "-metadata", "artist=The Band",
        "-metadata", "album=Practice Tapes",
      ] + (name.hasSuffix("m4a") ? ["-c:a", "aac"] : ["-c:a", "libopus"]), name)
    let info = try SoundFile(path: path).info
    #expect(info.title == "Verse Study")
    #expect(info.artist == "The Band")
    #expect(info.album == "Practice Tapes")
  }

  /// A FLAC cut about a tenth of a second short (a copy stopped near its end) is measured at
  /// what decodes, and it ends early: more than a container's 20 ms of rounding is missing
  /// (planted bug M187).
  @Test func aFLACCutATenthOfASecondShortEndsEarly() throws {
    let whole = try encode(["-c:a", "flac", "-frame_size", "1152"], "tenth.flac")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    let cut = dir.file("tenth-cut.flac")
    try bytes.prefix(bytes.count * 98 / 100).write(to: URL(fileURLWithPath: cut))
    let file = try SoundFile(path: cut)
    try file.measureLength()
    let missing = Int64(DecoderTests.seconds) * Int64(DecoderTests.rate) - file.info.frames
    try #require(missing > 48 * 50 && missing < 48 * 150, "\(missing) frames missing")
    #expect(file.endsEarly)
  }

  /// A stored length shorter than what decodes (measured by an older version) is not taken:
  /// the whole file plays; one within a rounding of the file's is (planted bug M190).
  @Test func aStoredLengthShorterThanWhatDecodesIsNotTaken() throws {
    let file = try SoundFile(path: try wav())
    let full = file.info.frames
    try file.trustDecodedLength(full - 4800)
    #expect(file.info.frames == full)
    try file.trustDecodedLength(full - 100)
    #expect(file.info.frames == full - 100)
  }

  @Test func surroundIsMixedDownToStereoByTheDocumentedRule() throws {
    // A tone in the centre channel of 5.1 only.
    let tone = Synth.sine(frequency: 440, seconds: 1, sampleRate: DecoderTests.rate, amplitude: 0.5)
    let mono = dir.file("centre.wav")
    try Synth.write(tone, to: mono, sampleRate: DecoderTests.rate, channels: 1)
    let path = try ffmpeg(
      ["-i", mono, "-af", "pan=5.1|FC=c0", "-c:a", "alac"], "surround.m4a")
    let (info, decoded) = try Synth.read(path)
    #expect(info.channels == 2)
    // Centre at -3 dB into both sides, each side's gains (1 + 0.707 + 0.707) scaled to 1.
    let gain = Float(0.7071 / (1 + 0.7071 + 0.7071))
    var worst: Float = 0
    for i in 1000..<40000 {
      worst = max(
        worst, abs(decoded[i * 2] - gain * tone[i]), abs(decoded[i * 2 + 1] - gain * tone[i]))
    }
    #expect(worst < 0.002, "\(worst)")
  }

  @Test func aFileNeitherLibraryCanReadIsBadDataNamingBoth() throws {
    let path = dir.file("noise.m4a")
    try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(
      to: URL(fileURLWithPath: path))
    #expect {
      _ = try SoundFile(path: path)
    } throws: { error in
      guard let failure = error as? PracticeFailure else { return false }
      let text = failure.description
      return failure.category == .badData && text.contains("libsndfile") && text.contains("FFmpeg")
        && !text.contains("\n")
    }
  }
}
