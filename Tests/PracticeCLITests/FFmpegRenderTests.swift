import Foundation
import TestSupport
import Testing

/// `render` of files FFmpeg decodes, made at test time by the `ffmpeg` command.
@Suite struct FFmpegRenderTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// `ffmpeg -i fixtures/demo.wav ARGS OUT`.
  func encode(_ arguments: [String], _ name: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments =
      ["-v", "error", "-nostdin", "-y", "-i", CLI.fixture("demo.wav")] + arguments + [
        dir.file(name)
      ]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return dir.file(name)
  }

  /// `render -o FILE.m4a` writes AAC in an M4A through libavcodec and libavformat. ffmpeg
  /// reads it as it reads `ffmpeg -i render.wav -c:a aac -b:a 256k` (codec, rate, channels,
  /// length after the encoder delay), its content is as near the WAV render as that file's,
  /// and practice reads it back at that length.
  @Test func anM4ARenderIsWhatFFmpegMakesOfTheWAVRender() throws {
    let render = ["render", CLI.fixture("demo.wav"), "--from", "1", "--to", "5.3", "--speed", "90%"]
    let (wav, m4a, reference) = (dir.file("r.wav"), dir.file("r.m4a"), dir.file("ref.m4a"))
    #expect(try cli.run(render + ["-o", wav]).status == 0)
    let written = try cli.run(render + ["-o", m4a])
    #expect(written.status == 0, "\(written.stderr)")
    func tool(_ name: String, _ arguments: [String]) throws -> String {
      let result = try runProgram(
        "/usr/bin/" + name, ["-v", "error"] + arguments, environment: [:], directory: dir.path,
        scratch: dir.path)
      try #require(result.status == 0, "\(name) \(arguments): \(result.stderr)")
      return result.stdout
    }
    _ = try tool("ffmpeg", ["-nostdin", "-i", wav, "-c:a", "aac", "-b:a", "256k", reference])
    func probe(_ path: String) throws -> String {
      try tool(
        "ffprobe",
        ["-show_entries", "stream=codec_name,sample_rate,channels,duration_ts", "-of", "compact", path])
    }
    let probed = try probe(m4a)
    #expect(try probe(reference) == probed, "\(probed)")
    #expect(
      try tool("ffprobe", ["-show_entries", "format_tags=title", "-of", "compact", m4a])
        == "format|tag:title=demo\n")
    let (_, source) = try Synth.read(wav)
    let frames = try #require(
      probed.firstMatch(of: #/duration_ts=(\d+)/#).flatMap { Int($0.1) })
    // FFmpeg 5.1's AAC encoder ends the last packet 34 frames early at 44.1 kHz (its own
    // `ffmpeg -c:a aac` file too): within a sixteenth of an AAC frame of the WAV.
    #expect(abs(frames - source.count / 2) < 64, "\(frames) vs \(source.count / 2)")
    #expect(try Synth.read(m4a).samples.count == 2 * frames)
    // Decoded by ffmpeg: in time with the WAV (the encoder delay taken off), as near to it as
    // ffmpeg's own encoding.
    func snr(_ path: String) throws -> Double {
      let decoded = dir.file((path as NSString).lastPathComponent + ".wav")
      _ = try tool("ffmpeg", ["-nostdin", "-i", path, "-c:a", "pcm_f32le", decoded])
      let (_, samples) = try Synth.read(decoded)
      var (signal, noise) = (0.0, 0.0)
      for index in 0..<min(source.count, samples.count) {
        signal += Double(source[index] * source[index])
        noise += Double((source[index] - samples[index]) * (source[index] - samples[index]))
      }
      return 10 * log10(signal / noise)
    }
    let (ours, theirs) = (try snr(m4a), try snr(reference))
    #expect(ours > 18 && ours > theirs - 1, "SNR \(ours) dB, ffmpeg's \(theirs) dB")
  }

  /// AAC without perceptual noise substitution (FFmpeg's encoder adds random noise bands by
  /// default, which no decoder reproduces bit for bit after a seek) and ALAC.
  @Test(arguments: [["-c:a", "aac", "-aac_pns", "0"], ["-c:a", "alac"]])
  func aRangeOfAnM4AEqualsTheSameRangeCutFromTheWholeFile(codec: [String]) throws {
    let m4a = try encode(codec, "song.m4a")
    let whole = try cli.run(["render", m4a, "-o", dir.file("whole.wav")])
    #expect(whole.status == 0, "\(whole.stderr)")
    let (_, all) = try Synth.read(dir.file("whole.wav"))
    #expect(all.count == 2 * 9 * 44100)
    for (from, to) in [("1.2345", "2.5"), ("0", "0.3"), ("7.77", "9")] {
      let out = dir.file("range-\(from).wav")
      let result = try cli.run(["render", m4a, "--from", from, "--to", to, "-o", out])
      #expect(result.status == 0, "\(result.stderr)")
      let (_, range) = try Synth.read(out)
      let first = Int((Double(from)! * 44100).rounded())
      let last = Int((Double(to)! * 44100).rounded())
      #expect(range.count == 2 * (last - first))
      #expect(range == Array(all[(2 * first)..<(2 * last)]), "\(codec) \(from)-\(to)")
    }
  }

  @Test func anALACRangeIsBitIdenticalToTheWAVItWasMadeFrom() throws {
    let m4a = try encode(["-c:a", "alac"], "lossless.m4a")
    let result = try cli.run([
      "render", m4a, "--from", "2.1", "--to", "3.9", "-o", dir.file("r.wav"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let (_, source) = try Synth.read(CLI.fixture("demo.wav"))
    let (_, range) = try Synth.read(dir.file("r.wav"))
    #expect(range == Array(source[(2 * 92610)..<(2 * 171990)]))
  }

  /// A raw AAC stream (ADTS) plays; one whose header is followed by garbage is refused as
  /// audio neither library reads, not as "not a readable MP3 stream" (its sync word looks
  /// like MPEG audio's).
  @Test func rawAACPlaysAndADamagedOneIsNotCalledMP3() throws {
    let aac = try encode(["-c:a", "aac", "-f", "adts"], "song.aac")
    let good = try cli.run(["render", aac, "--from", "1", "--to", "2", "-o", dir.file("a.wav")])
    #expect(good.status == 0, "\(good.stderr)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: aac))
    var seed: UInt32 = 3
    let garbage = (0..<3000).map { _ -> UInt8 in
      seed = seed &* 1_103_515_245 &+ 12345
      return UInt8(truncatingIfNeeded: seed >> 16)
    }
    let damaged = dir.file("damaged.aac")
    try (bytes.prefix(7) + Data(garbage)).write(to: URL(fileURLWithPath: damaged))
    let result = try cli.expectRefusal(
      ["render", damaged, "-o", dir.file("d.wav")], status: 65,
      message: "cannot read audio from")
    #expect(!result.stderr.contains("MP3 stream"), "\(result.stderr)")
  }

  @Test func opusOutputOfA44kSongIsRefusedBeforeAnyWork() throws {
    let out = dir.file("x.opus")
    let result = try cli.run(["render", CLI.fixture("demo.wav"), "--bars", "2-3", "-o", out])
    #expect(result.status == 64)
    #expect(result.stderrLines.count == 1)
    #expect(result.stderr.contains("Opus takes 8, 12, 16, 24 or 48 kHz and the song is 44.1 kHz"))
    #expect(!result.stderr.contains("beat"))  // refused before a beat map was detected
    #expect(!FileManager.default.fileExists(atPath: out))
    // A 48 kHz song renders to Opus.
    let webm = try encode(["-c:a", "libopus"], "web.webm")
    #expect(try cli.run(["render", webm, "--to", "1", "-o", out]).status == 0)
  }
}
