import Foundation
import TestSupport
import Testing

/// `--eq`, `--focus`, `--band`, `--channel` and `--centre-cut` through the built binary,
/// checked on what `render` writes.
@Suite struct FilterOptionTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }
  let rate = 44100

  /// A 16-bit stereo file of interleaved `left` and `right`.
  func stereo(_ name: String, left: [Float], right: [Float]) throws -> String {
    var samples = [Float]()
    samples.reserveCapacity(left.count * 2)
    for i in 0..<left.count { samples += [left[i], right[i]] }
    let path = dir.file(name)
    try Synth.write(Synth.quantized16(samples), to: path, sampleRate: rate, channels: 2)
    return path
  }

  func level(_ samples: [Float], channel: Int, _ frequency: Double) -> Double {
    // One second from 0.5 s: whole cycles of every tone used here.
    ToneAnalysis.amplitude(
      samples, channels: 2, channel: channel, frequency: frequency, sampleRate: rate,
      start: rate / 2,
      frames: rate)
  }

  /// A centre-panned 440 Hz tone and a 1 kHz tone panned hard left.
  func centreAndLeft() throws -> String {
    let centre = Synth.sine(frequency: 440, seconds: 2, sampleRate: rate, amplitude: 0.3)
    let hardLeft = Synth.sine(
      frequency: 1000, seconds: 2, sampleRate: rate, amplitude: 0.3, phase: 0.5)
    return try stereo("centre.wav", left: zip(centre, hardLeft).map { $0 + $1 }, right: centre)
  }

  @Test func theCentreCutRemovesTheCentreAndKeepsWhatIsPannedHard() throws {
    let source = try centreAndLeft()
    let result = try cli.run(["render", source, "--centre-cut", "-o", dir.file("cut.wav")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("centre cut 100%"), "\(result.stderr)")
    let (_, input) = try Synth.read(source)
    let (_, output) = try Synth.read(dir.file("cut.wav"))
    #expect(output.count == input.count)
    let centreBefore = level(input, channel: 0, 440)
    for channel in 0..<2 {
      let down = ToneAnalysis.decibels(level(output, channel: channel, 440) / centreBefore)
      #expect(down <= -30, "centre tone in channel \(channel): \(down) dB")
    }
    let leftChange = ToneAnalysis.decibels(
      level(output, channel: 0, 1000) / level(input, channel: 0, 1000))
    #expect(abs(leftChange) <= 1, "hard-left tone: \(leftChange) dB")
  }

  /// `--center-cut` is the same option: bare, it cuts 100 % and the file is the same.
  @Test func theAmericanSpellingCutsTheSame() throws {
    let source = try centreAndLeft()
    #expect(try cli.run(["render", source, "--centre-cut", "-o", dir.file("cut.wav")]).status == 0)
    let result = try cli.run(["render", source, "--center-cut", "-o", dir.file("us.wav")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("centre cut 100%"), "\(result.stderr)")
    #expect(try Synth.read(dir.file("us.wav")).samples == Synth.read(dir.file("cut.wav")).samples)
  }

  @Test func aPartialCentreCutAttenuatesTheCentreByItsAmount() throws {
    let source = try centreAndLeft()
    let result = try cli.run(["render", source, "--centre-cut", "50%", "-o", dir.file("half.wav")])
    #expect(result.status == 0, "\(result.stderr)")
    let (_, input) = try Synth.read(source)
    let (_, output) = try Synth.read(dir.file("half.wav"))
    let down = ToneAnalysis.decibels(level(output, channel: 1, 440) / level(input, channel: 1, 440))
    #expect(abs(down - ToneAnalysis.decibels(0.5)) <= 0.2, "\(down) dB")
  }

  @Test func theLeftChannelPlaysOnBothSides() throws {
    let left = Synth.sine(frequency: 440, seconds: 2, sampleRate: rate, amplitude: 0.4)
    let right = Synth.sine(frequency: 1000, seconds: 2, sampleRate: rate, amplitude: 0.3, phase: 1)
    let source = try stereo("lr.wav", left: left, right: right)
    let result = try cli.run(["render", source, "--channel", "left", "-o", dir.file("left.wav")])
    #expect(result.status == 0, "\(result.stderr)")
    let (_, input) = try Synth.read(source)
    let (_, output) = try Synth.read(dir.file("left.wav"))
    let leftTone = level(input, channel: 0, 440)
    let rightTone = level(input, channel: 1, 1000)
    for channel in 0..<2 {
      #expect(abs(ToneAnalysis.decibels(level(output, channel: channel, 440) / leftTone)) <= 0.1)
      #expect(ToneAnalysis.decibels(level(output, channel: channel, 1000) / rightTone) <= -90)
      // Exactly the left channel.
      var same = output.count == input.count
      for i in stride(from: channel, to: output.count, by: 2) where output[i] != input[i - channel]
      { same = false }
      #expect(same)
    }
    // Swapped: each side has the other's samples.
    #expect(
      try cli.run(["render", source, "--channel", "swap", "-o", dir.file("swap.wav")]).status == 0)
    let (_, swapped) = try Synth.read(dir.file("swap.wav"))
    var exchanged = swapped.count == input.count
    for i in stride(from: 0, to: swapped.count, by: 2)
    where swapped[i] != input[i + 1] || swapped[i + 1] != input[i] {
      exchanged = false
    }
    #expect(exchanged)
  }

  @Test func focusAndEQThroughTheCommandFollowTheirCurves() throws {
    // 24-bit, so the tones are measured well below full scale.
    let tones = ToneAnalysis.logSpaced(from: 40, to: 16000, count: 13)
    let mono = ToneAnalysis.multitone(tones, amplitude: 0.04, seconds: 2, sampleRate: rate)
    let path = dir.file("tones.wav")
    try Synth.write(mono, to: path, sampleRate: rate, channels: 1, bitDepth: 24)
    let (_, input) = try Synth.read(path)
    let cases: [(arguments: [String], curve: (Double) -> Double)] = [
      (["--focus", "vocal"], { DocumentedCurve.focus("vocal", $0, rate: 44100) }),
      (["--eq", "6:-3:-6"], { DocumentedCurve.eq(6, -3, -6, $0, rate: 44100) }),
      (["--band", "200-2000"], { DocumentedCurve.band(200, 2000, $0, rate: 44100) }),
    ]
    for (n, test) in cases.enumerated() {
      let out = dir.file("tones-\(n).wav")
      let result = try cli.run(["render", path] + test.arguments + ["-o", out])
      #expect(result.status == 0, "\(result.stderr)")
      let (_, output) = try Synth.read(out)
      for f in tones {
        let expected = ToneAnalysis.decibels(test.curve(f))
        guard expected > -80 else { continue }  // below what 24 bits resolve in this window
        let measured = ToneAnalysis.decibels(
          ToneAnalysis.amplitude(
            output, frequency: f, sampleRate: rate, start: rate / 2, frames: rate)
            / ToneAnalysis.amplitude(
              input, frequency: f, sampleRate: rate, start: rate / 2, frames: rate))
        #expect(
          abs(measured - expected) <= 1,
          "\(test.arguments) at \(f) Hz: \(measured) dB, documented \(expected)")
      }
    }
  }

  @Test func filtersThatDoNothingLeaveTheRenderBitExact() throws {
    let source = CLI.fixture("demo.wav")
    let result = try cli.run([
      "render", source, "--eq", "0:0:0", "--channel", "both", "--centre-cut", "0%", "-o",
      dir.file("same.wav"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try Synth.read(dir.file("same.wav")).samples == Synth.read(source).samples)
  }

  @Test func aMonoSongWarnsThatChannelsHaveNothingToDo() throws {
    let result = try cli.run([
      "render", CLI.fixture("sine-440.wav"), "--channel", "left", "--to", "0.5", "-o",
      dir.file("mono.wav"),
    ])
    #expect(result.status == 0)
    #expect(
      result.stderr.contains("is mono: --channel and --centre-cut have nothing to do"),
      "\(result.stderr)")
    let (_, input) = try Synth.read(CLI.fixture("sine-440.wav"))
    #expect(try Synth.read(dir.file("mono.wav")).samples == Array(input.prefix(22050)))
  }

  @Test(arguments: [
    (["--eq", "13:0:0"], "out of range; use -24 to 12 dB"),
    (["--eq", "0:-25:0"], "out of range; use -24 to 12 dB"),
    (["--eq", "1:2"], "LOW:MID:HIGH"),
    (["--eq", "a:b:c"], "LOW:MID:HIGH"),
    (["--band", "400-80"], "LOW below HIGH"),
    (["--band", "10-400"], "from 20 to 20000 Hz"),
    (["--band", "80-30000"], "from 20 to 20000 Hz"),
    (["--band", "eighty"], "LOW-HIGH"),
    (["--centre-cut", "150%"], "use 0% to 100%"),
    (["--centre-cut=-5"], "use 0% to 100%"),
    (["--centre-cut=half"], "not an amount"),
    (["--focus", "piano"], "bass"),
    (["--channel", "centre"], "left"),
  ])
  func badFilterOptionsExit64(arguments: [String], message: String) throws {
    let out = dir.file("bad.wav")
    let result = try cli.run(["render", CLI.fixture("demo.wav")] + arguments + ["-o", out])
    #expect(result.status == 64)
    #expect(result.stderr.contains(message), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }
}
