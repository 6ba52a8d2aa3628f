import Foundation
@testable import PracticeCore
import TestSupport
import Testing

/// The hand-written MP4 demuxer (libfaad2 or libavcodec, without libavformat): the samples
/// FFmpeg's own demuxer gives, and no trap, no hang on a cut or damaged file.
@Suite struct MP4DemuxerTests {
  let dir = TemporaryDirectory()

  /// A 3-second stereo 44.1 kHz chord-and-noise WAV encoded by `ffmpeg` with `codec`.
  func encoded(_ name: String, _ codec: [String], _ extra: [String] = []) throws -> String {
    let wav = dir.file(name + ".wav")
    var samples = Synth.sine(frequency: 440, seconds: 3, channels: 2)
    var state: UInt64 = 99
    for i in stride(from: 1, to: samples.count, by: 2) {
      state = state &* 6_364_136_223_846_793_005 &+ 1
      samples[i] = 0.2 * Float(Int64(bitPattern: state) >> 40) / Float(1 << 23)
    }
    try Synth.write(Synth.quantized16(samples), to: wav, channels: 2)
    let path = dir.file(name)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-v", "error", "-nostdin", "-y", "-i", wav] + codec + extra + [path]
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    return path
  }


  @Test(arguments: [
    (["-c:a", "aac", "-b:a", "160k", "-aac_pns", "0"], "aac.m4a"), (["-c:a", "alac"], "alac.m4a"),
    (["-c:a", "alac", "-sample_fmt", "s32p"], "alac24.m4a"),
    (["-c:a", "aac", "-aac_pns", "0", "-movflags", "+faststart"], "fast.mp4"),
  ])
  func theDemuxerGivesTheSamplesFFmpegsOwnDemuxerGives(codec: [String], name: String) throws {
    // ALAC through libavcodec bit for bit; AAC-LC through libfaad2 within 0.0001.
    let path = try encoded(name, codec)
    let native = try PacketDecoder(path: path, source: MP4Demuxer(path: path))
    let reference = try FFmpegDecoder(path: path)
    #expect(native.info.frames == reference.info.frames)
    #expect(native.info.sampleRate == reference.info.sampleRate)
    #expect(native.info.channels == reference.info.channels)
    #expect(native.info.formatName == reference.info.formatName)
    let got = DemuxerChecks.decodeAll(native)
    let want = DemuxerChecks.decodeAll(reference)
    #expect(got.count == want.count)
    if name.hasPrefix("alac") {
      // Compared here, not by #expect(==), whose diff of two long arrays takes minutes.
      let first = zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset
      #expect(first == nil, "\(name): first difference at sample \(first ?? -1)")
    } else {
      // libfaad2 against FFmpeg's AAC decoder: two float implementations, the same song on
      // the same frames. (Without noise substitution: bands coded as noise are filled by
      // each decoder's own random generator.)
      for channel in 0..<2 {
        let worst = stride(from: channel, to: min(got.count, want.count), by: 2)
          .map { abs(got[$0] - want[$0]) }.max() ?? 1
        #expect(worst < 0.0001, "\(name) channel \(channel): \(worst)")
      }
    }
    // SoundFile takes the hand-written path for these.
    #expect(SoundFile.nativeDecoder(path) != nil)
  }

  @Test func tagsComeFromIlst() throws {
    let path = try encoded(
      "tags.m4a", ["-c:a", "aac"],
      ["-metadata", "title=Verse Study", "-metadata", "artist=The Band", "-metadata", "album=Tapes"])
    let info = try PacketDecoder(path: path, source: MP4Demuxer(path: path)).info
    #expect(info.title == "Verse Study" && info.artist == "The Band" && info.album == "Tapes")
  }

  @Test func otherContainersAreLeftToLibavformat() throws {
    let mka = try encoded("x.mka", ["-c:a", "libvorbis"])
    #expect(SoundFile.nativeDecoder(mka) == nil)
    #expect(try SoundFile(path: mka).info.frames > 0)
  }


  @Test(arguments: ["aac.m4a", "alac.m4a", "fast.m4a"])
  func aCutOrDamagedFileNeverTraps(name: String) throws {
    let path = try encoded(
      name, name.hasPrefix("alac") ? ["-c:a", "alac"] : ["-c:a", "aac"],
      name.hasPrefix("fast") ? ["-movflags", "+faststart"] : [])
    let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    for fraction in [0.0005, 0.002, 0.01, 0.1, 0.35, 0.6, 0.9, 0.99, 0.999] {
      try survive(Array(whole.prefix(Int(Double(whole.count) * fraction))), "cut at \(fraction)")
    }
    // Bytes flipped with a fixed seed, in the moov box (the tables) and anywhere.
    let moov = whole.indices.dropLast(4).first {
      whole[$0] == 0x6D && whole[$0 + 1] == 0x6F && whole[$0 + 2] == 0x6F && whole[$0 + 3] == 0x76
    } ?? 0
    var generator = SeededRandom()
    func random(_ bound: Int) -> Int { generator.next(bound) }
    for round in 0..<120 {
      var bytes = whole
      let inMoov = round % 4 != 3
      for _ in 0..<(1 + random(6)) {
        let at = inMoov ? moov - 4 + random(min(4000, whole.count - moov + 4)) : random(whole.count)
        guard at >= 0, at < bytes.count else { continue }
        bytes[at] = round % 5 == 0 ? 0xFF : UInt8(truncatingIfNeeded: random(256))
      }
      try survive(bytes, "round \(round)")
    }
  }

  func survive(_ bytes: [UInt8], _ label: String) throws {
    try DemuxerChecks.survive(bytes, at: dir.file("damaged.m4a"), label) {
      try PacketDecoder(path: $0, source: MP4Demuxer(path: $0))
    }
  }
}
