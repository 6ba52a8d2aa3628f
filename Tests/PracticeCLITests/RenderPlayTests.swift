import Foundation
import TestSupport
import Testing

@Suite struct RenderPlayTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  @Test func renderOfTheWholeSongIsBitIdentical() throws {
    let source = CLI.fixture("demo.wav")
    let result = try cli.run(["render", source, "-o", dir.file("out.wav")])
    #expect(result.status == 0)
    #expect(result.stdout.isEmpty)
    let (inInfo, input) = try Synth.read(source)
    let (outInfo, output) = try Synth.read(dir.file("out.wav"))
    #expect(outInfo.sampleRate == inInfo.sampleRate && outInfo.channels == inInfo.channels)
    #expect(outInfo.bitDepth == 16)
    #expect(output == input)
  }

  @Test func renderOfARangeIsItsExactFrames() throws {
    let source = CLI.fixture("chord.wav")
    let result = try cli.run([
      "render", source, "--from", "0.25", "--to", "0:01.5", "-o", dir.file("r.wav"),
    ])
    #expect(result.status == 0)
    let (_, input) = try Synth.read(source)
    let (_, output) = try Synth.read(dir.file("r.wav"))
    #expect(output == Array(input[(11025 * 2)..<(66150 * 2)]))
  }

  @Test func repeatPlaysNExactPasses() throws {
    let result = try cli.run([
      "render", CLI.fixture("sine-440.wav"), "--from", "0.1234", "--to", "0.9876", "--repeat", "3",
      "-o", dir.file("three.wav"),
    ])
    #expect(result.status == 0)
    let (_, output) = try Synth.read(dir.file("three.wav"))
    let length = Int((0.9876 * 44100).rounded()) - Int((0.1234 * 44100).rounded())
    #expect(output.count == 3 * length)
  }

  @Test(arguments: ["flac", "ogg", "aiff", "mp3"])
  func rendersEveryOutputFormat(ext: String) throws {
    let out = dir.file("out.\(ext)")
    let result = try cli.run(["render", CLI.fixture("chord.wav"), "--to", "1", "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    let (info, samples) = try Synth.read(out)
    #expect(info.sampleRate == 44100 && info.channels == 2)
    #expect(samples.count / 2 >= 44100 - 2000 && samples.count / 2 <= 44100 + 4000)
    let (_, source) = try Synth.read(CLI.fixture("chord.wav"))
    let first = Array(source[0..<(2 * 44100)])
    if ext == "flac" || ext == "aiff" {
      // Lossless: the decoded samples are the source's, every one.
      #expect(samples == first, "the \(ext) render holds other samples than the source")
    } else {
      // Lossy: about as loud as the source (a silent or garbled render is not).
      func rms(_ x: [Float]) -> Double {
        (x.reduce(0) { $0 + Double($1 * $1) } / Double(max(1, x.count))).squareRoot()
      }
      let ratio = rms(samples) / rms(first)
      #expect(ratio > 0.8 && ratio < 1.25, "\(ext): level \(ratio) of the source's")
    }
  }

  @Test(arguments: [
    ("flac", 44100), ("ogg", 44100), ("mp3", 44100), ("opus", 48000), ("aiff", 22050),
  ])
  func playsEveryInputFormat(ext: String, rate: Int) throws {
    let path = dir.file("in.\(ext)")
    try Synth.write(
      Synth.sine(frequency: 440, seconds: 1, sampleRate: rate, channels: 2), to: path,
      sampleRate: rate, channels: 2)
    let result = try cli.run([
      "render", path, "--from", "0.2", "--to", "0.7", "-o", dir.file("o.wav"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let (info, samples) = try Synth.read(dir.file("o.wav"))
    #expect(info.sampleRate == rate)
    #expect(samples.count == Int(Double(rate) * 0.5) * 2)
    #expect(samples.map(abs).max()! > 0.3)
  }

  @Test func twentyFourBitSourcesRenderAsTwentyFourBitBitExactly() throws {
    let path = dir.file("deep.wav")
    let samples = Synth.sine(frequency: 441, seconds: 0.5, amplitude: 0.7).map {
      Float((Double($0) * 8_388_608).rounded()) / 8_388_608
    }
    try Synth.write(samples, to: path, bitDepth: 24)
    #expect(try cli.run(["render", path, "-o", dir.file("deep-out.flac")]).status == 0)
    let (info, output) = try Synth.read(dir.file("deep-out.flac"))
    #expect(info.bitDepth == 24)
    #expect(output == samples)
  }

  @Test func playIntoTheALSAFilePCMCapturesExactlyWhatRenderWrites() throws {
    let arguments = ["demo", "--from", "0.5", "--to", "2.75", "--repeat", "2", "--volume", "-3dB"]
    _ = try cli.run(["add", CLI.fixture("demo.wav")])
    let capture = dir.file("heard.wav")
    let played = try cli.run(
      ["play"] + arguments + ["--device", "file:FILE=\(capture),FORMAT=wav"])
    #expect(played.status == 0, "\(played.stderr)")
    #expect(played.stdout.isEmpty)
    let rendered = try cli.run(["render"] + arguments + ["-o", dir.file("rendered.wav")])
    #expect(rendered.status == 0)
    let (_, heard) = try Synth.read(capture)
    let (_, written) = try Synth.read(dir.file("rendered.wav"))
    #expect(heard.count == 2 * 2 * 99225)
    let identical = heard == written
    #expect(identical, "the device heard something else than the render wrote")
  }

  @Test func playThroughTheNullPCMAndTheDeviceVariable() throws {
    let viaFlag = try cli.run(["play", CLI.fixture("sine-440.wav"), "--device", "null"])
    #expect(viaFlag.status == 0)
    var env = cli
    env.environment["PRACTICE_DEVICE"] = "null"
    let viaEnv = try env.run(["play", CLI.fixture("sine-440.wav"), "--to", "0.5"])
    #expect(viaEnv.status == 0)
    #expect(viaEnv.stderr.contains("on 'null'"))
  }

  /// The size of the largest partial file a render is writing in `dir`.
  private func partialBytes() -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.filter { $0.hasSuffix(".partial") }.compactMap {
      (try? FileManager.default.attributesOfItem(atPath: dir.file($0)))?[.size] as? Int
    }.max() ?? 0
  }

  @Test func ctrlCStopsAnEndlessLoopCleanly() throws {
    for command in [
      ["play", "--loop", "--device", "null"],
      ["render", "--repeat", "9999", "-o", dir.file("never.wav")],
    ] {
      let started = try cli.start(
        [command[0], CLI.fixture("demo.wav"), "--from", "1", "--to", "2"] + command.dropFirst())
      // Signalled once the session runs: a play has announced its second pass, a render
      // has written audio to its partial file.
      #expect(
        started.wait {
          started.stderrSoFar.contains("pass 2 ") || partialBytes() > 65536
        }, "\(command[0]) never got going: \(started.stderrSoFar)")
      kill(started.process.processIdentifier, SIGINT)
      let result = started.finish()
      #expect(result.status == 130, "\(command[0]): \(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.file("never.wav")))
    }
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
      $0.hasSuffix(".partial")
    }
    #expect(leftovers.isEmpty)
  }
}

@Suite struct BarsCLITests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  @Test func renderOfBarsIsExactlyTheFramesBetweenTheDownbeats() throws {
    _ = try cli.run(["add", CLI.fixture("clicks-120.wav")])
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5"]).status == 0)
    let result = try cli.run([
      "render", "1", "--bars", "3-6", "--repeat", "2", "-o", dir.file("b.wav"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let (_, source) = try Synth.read(CLI.fixture("clicks-120.wav"))
    let (_, out) = try Synth.read(dir.file("b.wav"))
    // Bar 3 starts at 0.5 + 8 × 0.5 s; bar 7 at 0.5 + 24 × 0.5 s.
    let start = Int(4.5 * 44100)
    let end = Int(12.5 * 44100)
    #expect(out.count == 2 * (end - start))
    let firstPass = Array(out.prefix(end - start - 1000))
    let expected = Array(source[start..<(end - 1000)])
    #expect(firstPass == expected)
    let show = try cli.run(["beats", "show", "1"])
    #expect(show.stdout.hasPrefix("1\t0:00.5\t4\t120.0\n2\t0:02.5\t4\t120.0\n"))
  }

  /// A trainer drill that ends before its target (60 % → 100 % in the default 5-point
  /// steps, 4 passes: 60, 65, 70, 75) renders exactly its passes: bars 2-3 (176,400 source
  /// frames) at each pass's speed. It was 438 frames short: the speed of the pass after the
  /// last was taken when the last ended, re-timing the stretcher's tail.
  @Test func aTrainerDrillThatStopsShortOfItsTargetRendersExactlyItsPasses() throws {
    _ = try cli.run(["add", CLI.fixture("clicks-120.wav")])
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5"]).status == 0)
    for (speeds, extra) in [
      ([0.6, 0.65, 0.7, 0.75], ["--ramp-to", "100%"]),
      ([0.7, 0.8], ["--ramp-to", "100%", "--step", "10%"]),
    ] {
      let out = dir.file("d\(speeds.count).wav")
      let result = try cli.run(
        ["render", "1", "--bars", "2-3", "--repeat", "\(speeds.count)", "--speed", "\(speeds[0])"]
          + extra + ["-o", out])
      #expect(result.status == 0, "\(result.stderr)")
      let (_, rendered) = try Synth.read(out)
      let expected = Int(speeds.reduce(0.0) { $0 + 176_400 / $1 }.rounded())
      #expect(rendered.count == expected, "\(speeds): \(rendered.count) vs \(expected) frames")
    }
  }

  @Test func barsNeedABeatMapAndAValidRange() throws {
    _ = try cli.run(["add", CLI.fixture("clicks-120.wav")])
    let none = try cli.run(["play", "1", "--bars", "1-2", "--device", "null", "--no-detect"])
    #expect(none.status == 66)
    #expect(
      none.stderr.contains(
        "make one with `practice beats detect 1`, `practice beats grid 1 --bpm N`"))
    _ = try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5"])
    let before = try cli.snapshot()
    for (bars, message) in [
      ("40-48", "it has bars 1-8"), ("0", "it has bars 1-8"), ("5-3", "ends before it starts"),
    ] {
      let result = try cli.run(["play", "1", "--bars", bars, "--device", "null"])
      #expect(result.status == 64, "\(bars)")
      #expect(result.stderrLines.count == 1 && result.stderr.contains(message), "\(result.stderr)")
    }
    let malformed = try cli.run(["play", "1", "--bars", "9..16"])
    #expect(malformed.status == 64)
    #expect(malformed.stderr.contains("--bars 9..16: not a bar range"))
    let mixed = try cli.run(["play", "1", "--bars", "1-2", "--from", "3"])
    #expect(mixed.status == 64)
    #expect(try cli.snapshot() == before)
  }

  @Test func badGridArguments() throws {
    _ = try cli.run(["add", CLI.fixture("clicks-120.wav")])
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "0"]).status == 64)
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120", "--meter", "4/3"]).status == 64)
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "99"]).status == 64)
    #expect(try cli.run(["beats", "show", "1"]).status == 66)
  }
}
