import Foundation
import PracticeCore
import TestSupport
import Testing

/// The frequency of a tone from its upward zero crossings (linearly interpolated) between
/// the first and the last in `samples`.
func zeroCrossingFrequency(_ samples: ArraySlice<Float>, sampleRate: Double) -> Double? {
  var crossings: [Double] = []
  var previous = samples.first ?? 0
  for (i, value) in zip(samples.indices, samples).dropFirst() {
    if previous < 0 && value >= 0 {
      crossings.append(Double(i - 1) + Double(-previous / (value - previous)))
    }
    previous = value
  }
  guard let first = crossings.first, let last = crossings.last, crossings.count > 2 else {
    return nil
  }
  return Double(crossings.count - 1) / ((last - first) / sampleRate)
}

/// One line of `practice tune --json`.
struct TuneLine: Decodable {
  let t: Double
  let hz: Double?
  let note: String?
  let cents: Double?
  let level: Double
}

func tuneLines(_ stdout: String) throws -> [TuneLine] {
  try stdout.split(separator: "\n").map {
    try JSONDecoder().decode(TuneLine.self, from: Data($0.utf8))
  }
}

/// `tone`, `tune` and `tuning` without a sound card: tones into ALSA's file PCM, bad
/// input, and the concert pitch of synthesised pieces.
@Suite struct TuneCommandTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  @Test func toneIntoTheFilePCMIsTheNotesAtTheirFrequenciesWithFades() throws {
    let capture = dir.file("tone.wav")
    let result = try cli.run([
      "tone", "E2", "A4", "--a4", "432", "--duration", "1", "--device",
      "file:FILE=\(capture),FORMAT=wav",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("playing E2 (80.91 Hz), A4 (432 Hz)"), "\(result.stderr)")
    let (info, stereo) = try Synth.read(capture)
    #expect(info.sampleRate == 44100 && info.channels == 2)
    let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
    let right = stride(from: 1, to: stereo.count, by: 2).map { stereo[$0] }
    #expect(left == right)
    // Two notes of exactly a second each, the second starting at the next 512-frame block.
    // (The fade's first samples round to zero in 16 bits.)
    let onset = try #require(left.firstIndex { $0 != 0 })
    #expect(onset <= 12)
    let e2 = 432 * pow(2, -29.0 / 12)
    let first = try #require(zeroCrossingFrequency(left[4410..<39690], sampleRate: 44100))
    #expect(abs(first - e2) < 0.1, "E2 at \(first) Hz, not \(e2)")
    let secondStart = try #require(left[44100...].firstIndex { $0 != 0 })
    #expect(secondStart - 44100 < 512)
    let second = try #require(
      zeroCrossingFrequency(left[(secondStart + 4410)..<(secondStart + 39690)], sampleRate: 44100))
    #expect(abs(second - 432) < 0.1, "A4 at \(second) Hz")
    // Faded in and out over 10 ms: no click at either end of either note.
    let peak = left.map(abs).max() ?? 0
    #expect(peak > 0.25 && peak < 0.36)
    #expect(left[0..<44].map(abs).max()! < 0.03 * peak)
    #expect(left[(44100 - 44)..<44100].map(abs).max()! < 0.03 * peak)
    #expect(left[secondStart..<(secondStart + 44)].map(abs).max()! < 0.03 * peak)
    // No step between samples beyond the tone's own steepest (A4 with its harmonics:
    // 0.25 × ω × (1 + 2 × 0.25 + 3 × 0.1)), as a click would make.
    let steepest = 0.25 * 2 * Double.pi * 432 / 44100 * 1.8
    let jumps = zip(left, left.dropFirst()).map { abs($1 - $0) }.max() ?? 1
    #expect(Double(jumps) < steepest + 2 / 32768, "a jump of \(jumps) between samples")
  }

  @Test func toneTakesHertz() throws {
    let capture = dir.file("hz.wav")
    let result = try cli.run([
      "tone", "261.5Hz", "--duration", "0.5", "--device", "file:FILE=\(capture),FORMAT=wav",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let (_, stereo) = try Synth.read(capture)
    let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
    let measured = try #require(zeroCrossingFrequency(left[2205..<19845], sampleRate: 44100))
    #expect(abs(measured - 261.5) < 0.1)
  }

  /// ALSA's null PCM delivers audio as fast as it is read: `--duration` still ends it,
  /// every line is a reading, and a reader that goes away ends it cleanly (exit 0).
  @Test func tuneOnTheNullPCMEndsAndItsLinesAreJSON() throws {
    let result = try cli.run(["tune", "--device", "null", "--json", "--duration", "0.5"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = try tuneLines(result.stdout)
    // A reading every 512 frames: half a second is 43 of them.
    #expect(lines.count >= 40, "\(lines.count) readings")
    #expect(lines.allSatisfy { $0.t <= 0.5 + 1e-9 && ($0.hz == nil) == ($0.note == nil) })
    let piped = try Shell.run(
      "\"$1\" tune --device null --json 2>/dev/null | head -n 2 >/dev/null; echo ${PIPESTATUS[0]}",
      arguments: [CLI.binary], environment: cli.environment, directory: dir.path)
    #expect(piped.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
  }

  @Test func badInputIsAUsageError() throws {
    let before = try cli.snapshot()
    for arguments in [
      ["tune", "--a4", "500"], ["tune", "--a4", "399.9"], ["tune", "--a4", "nan"],
      ["tune", "--duration", "-1"],
      ["tune", "--duration", "0"], ["tone"], ["tone", "H4"], ["tone", "A4", "--a4", "481"],
      ["tone", "A4", "--duration", "0"],
      ["tone", "5Hz"], ["tone", "A4", "--duration", "inf"], ["tone", "9000"], ["tone", "A4x"],
    ] {
      let result = try cli.run(arguments)
      #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
      #expect(result.stderr.contains("practice") || result.stderr.contains("Error"), "\(arguments)")
      #expect(result.stdout.isEmpty)
    }
    // Numbers out of any range, negative or not numbers at all, as notes and as options:
    // one line naming what was typed, exit 64. `tone -1e300hz` printed the help and exited
    // 0 (the parser read it as short flags, `-h` among them); `tone -440` and `--a4 -0`
    // said a value was missing.
    for (arguments, typed) in [
      (["tone", "-1e300hz"], "'-1e300hz'"), (["tone", "-440"], "'-440'"), (["tone", "-0"], "'-0'"),
      (["tone", "1e300hz"], "'1e300hz'"), (["tone", "nan"], "'nan'"), (["tone", "inf"], "'inf'"),
      (["tone", "A4", "-1e300hz"], "'-1e300hz'"), (["tone", "A4", "--a4", "-0"], "--a4 -0"),
      (["tone", "A4", "--a4", "1e300"], "--a4 1e300"), (["tone", "A4", "--duration", "nan"], "nan"),
      (["tone", "A4", "--duration", "-1e300"], "-1e300"), (["tune", "--a4", "-0"], "--a4 -0"),
      (["tune", "--a4", "inf"], "--a4 inf"), (["tune", "--duration", "1e300"], "1e300"),
      (["tune", "--duration", "-0"], "--duration -0"),
    ] {
      let result = try cli.run(arguments)
      #expect(result.status == 64, "\(arguments): \(result.status) \(result.stdout)")
      #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
      #expect(
        result.stderrLines.count == 1 && result.stderr.contains(typed),
        "\(arguments): \(result.stderr)")
    }
    // A negative frequency and a misspelt note are tone's to word (a frequency, not a
    // number with an h; not a note, not one above G9).
    for word in ["-440hz", "-440Hz", "Ax4", "A#x4"] {
      let result = try cli.run(["tone", word])
      #expect(result.status == 64)
      #expect(result.stderr.contains("'\(word)' is not a note or a frequency"), "\(result.stderr)")
    }
    #expect(try cli.run(["tone", "B9"]).stderr.contains("'B9' is above G9, the highest note"))
    let a4 = try cli.run(["tune", "--a4", "500"])
    #expect(a4.stderr.contains("400 to 480 Hz"), "\(a4.stderr)")
    #expect(try cli.snapshot() == before)
  }

  @Test func anUnknownDeviceIsExit69() throws {
    let tune = try cli.run(["tune", "--device", "no_such_capture_device", "--duration", "1"])
    #expect(tune.status == 69, "\(tune.stderr)")
    #expect(
      tune.stderr.hasPrefix("practice: audio device 'no_such_capture_device'"), "\(tune.stderr)")
    #expect(tune.stderr.split(separator: "\n").count == 1)
    var env = cli
    env.environment["PRACTICE_CAPTURE"] = "no_such_capture_device"
    let viaEnv = try env.run(["tune", "--duration", "1"])
    #expect(viaEnv.status == 69 && viaEnv.stderr.contains("'no_such_capture_device'"))
    let tone = try cli.run(["tone", "A4", "--device", "no_such_playback_device", "--duration", "1"])
    #expect(tone.status == 69, "\(tone.stderr)")
    #expect(tone.stderr.split(separator: "\n").count == 1)
    // The playback device by its variable, as `play` takes it; --device wins over it.
    env.environment["PRACTICE_DEVICE"] = "no_such_playback_device"
    let toneViaEnv = try env.run(["tone", "A4", "--duration", "1"])
    #expect(toneViaEnv.status == 69 && toneViaEnv.stderr.contains("'no_such_playback_device'"))
    let capture = dir.file("tone-env.wav")
    let given = try env.run([
      "tone", "A4", "--duration", "0.1", "--device", "file:FILE=\(capture),FORMAT=wav",
    ])
    #expect(given.status == 0, "\(given.stderr)")
    #expect(FileManager.default.fileExists(atPath: capture))
  }

  @Test(arguments: [-30.0, 15])
  func tuningFindsTheConcertPitch(cents: Double) throws {
    let path = dir.file("piece\(Int(cents)).wav")
    try Synth.write(ToneSynth.piece(cents: cents), to: path)
    let json = try cli.run(["tuning", path, "--json"])
    #expect(json.status == 0, "\(json.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Double])
    let found = try #require(object["cents"])
    #expect(abs(found - cents) <= 3, "\(found) cents for \(cents)")
    #expect(abs((object["a4"] ?? 0) - 440 * pow(2, cents / 1200)) < 1)
    let text = try cli.run(["tuning", path])
    let expected = String(
      format: "A4 = %.1f Hz (%+d ¢)\n", 440 * pow(2, found / 1200), Int(found.rounded()))
    #expect(text.stdout == expected)
    #expect(
      text.stderr.contains(String(format: "--transpose %+.2f", -found / 100)), "\(text.stderr)")
  }

  /// A recording within the estimate's uncertainty of A = 440 gets no transposition to
  /// make: a 2-cent one would be inside the measurement's own error.
  @Test func tuningWithinItsUncertaintyIsInTune() throws {
    let path = dir.file("piece2.wav")
    try Synth.write(ToneSynth.piece(cents: 2), to: path)
    let text = try cli.run(["tuning", path])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(text.stdout.hasPrefix("A4 = 440."), "\(text.stdout)")
    #expect(
      text.stderr == "in tune with A4 = 440 Hz (within the estimate's ±3 ¢): play along as it is\n",
      "\(text.stderr)")
  }

  @Test func tuningWithoutPitchedContentIsExit65() throws {
    let path = dir.file("noise.wav")
    try Synth.write(BeatSynth.noise(seconds: 4, gain: 0.3), to: path)
    let result = try cli.run(["tuning", path])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(
      result.stderr.hasPrefix("practice: '") && result.stderr.contains("no steady pitched notes"))
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(result.stdout.isEmpty)
    let missing = try cli.run(["tuning", dir.file("absent.wav")])
    #expect(missing.status == 66)
  }
}
