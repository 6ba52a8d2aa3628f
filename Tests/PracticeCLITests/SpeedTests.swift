import Foundation
import Testing
import TestSupport

/// Where the envelope (1 ms moving sum of magnitudes) peaks within ±30 ms of `center`.
func envelopePeak(_ samples: [Float], near center: Int, rate: Int = 44100) -> Int {
  let window = rate / 1000
  let lower = max(0, center - rate * 30 / 1000)
  let upper = min(samples.count - window, center + rate * 30 / 1000)
  var best = lower
  var bestSum: Float = -1
  for i in lower..<max(lower, upper) {
    var sum: Float = 0
    for j in i..<(i + window) { sum += abs(samples[j]) }
    if sum > bestSum {
      bestSum = sum
      best = i
    }
  }
  return best
}

/// Frequency from positive-going zero crossings (linearly interpolated) over the middle half.
func measuredFrequency(_ samples: [Float], rate: Int = 44100) -> Double {
  let segment = Array(samples[(samples.count / 4)..<(3 * samples.count / 4)])
  var crossings: [Double] = []
  for i in 1..<segment.count where segment[i - 1] < 0 && segment[i] >= 0 {
    crossings.append(Double(i - 1) + Double(-segment[i - 1] / (segment[i] - segment[i - 1])))
  }
  guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
  return Double(crossings.count - 1) * Double(rate) / (last - first)
}

@Suite struct SpeedTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  @Test(arguments: [0.5, 0.75, 1.25, 2.0], ["finer", "faster"])
  func everyBeatOfEveryPassLandsWhereThePlanSays(speed: Double, quality: String) throws {
    // clicks-120: a click every 0.5 s from 0.5 s; bars 1-4 are 0.5 s-8.5 s.
    _ = try cli.run(["add", CLI.fixture("clicks-120.wav")])
    _ = try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5"])
    let out = dir.file("s.wav")
    let result = try cli.run([
      "render", "1", "--bars", "1-4", "--repeat", "2", "--speed", "\(speed)", "--quality", quality, "-o", out,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let (_, samples) = try Synth.read(out)
    let pass = 8.0 * 44100 / speed
    #expect(abs(Double(samples.count) - 2 * pass) <= 2 * 44.1, "length \(samples.count) vs \(2 * pass)")
    let (_, source) = try Synth.read(CLI.fixture("clicks-120.wav"))
    let sourcePeakOffset = envelopePeak(source, near: 22050) - 22050
    var worst = 0.0
    for k in 0..<32 {
      let expected = Int((Double(k % 16) * 22050 / speed + Double(k / 16) * pass).rounded())
      let error = Double(envelopePeak(samples, near: expected + sourcePeakOffset) - expected - sourcePeakOffset) / 44.1
      worst = max(worst, abs(error))
    }
    #expect(worst <= 5, "a beat landed \(worst) ms from where the plan says at speed \(speed)")
  }

  @Test(arguments: [(0.5, 0.0, 440.0, 1.0), (1.5, 0.0, 440.0, 1.0), (0.75, 2.0, 493.883, 1.5), (1.0, -0.5, 427.474, 1.0)])
  func pitchIsKeptOrShiftedBySemitones(speed: Double, transpose: Double, hertz: Double, tolerance: Double) throws {
    let out = dir.file("p.wav")
    let result = try cli.run([
      "render", CLI.fixture("sine-440.wav"), "--speed", "\(speed)", "--transpose", "\(transpose)", "-o", out,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let (_, samples) = try Synth.read(out)
    #expect(abs(samples.count - Int((88200 / speed).rounded())) <= 1)
    let measured = measuredFrequency(samples)
    #expect(abs(measured - hertz) <= tolerance, "\(measured) Hz, expected \(hertz) Hz")
  }

  @Test func speedOneWithoutTransposeBypassesTheStretcher() throws {
    let out = dir.file("same.wav")
    #expect(try cli.run(["render", CLI.fixture("chord.wav"), "--speed", "100%", "--transpose", "0", "-o", out]).status == 0)
    let same = try Synth.read(out).samples == Synth.read(CLI.fixture("chord.wav")).samples
    #expect(same)
  }

  /// `--key` is the transposition from the song's key, the nearest way: A to D is 5 up
  /// (a sine at 440 Hz sounds at 587.33 Hz), A to E is 5 down (329.63 Hz).
  @Test(arguments: [("D", 587.330), ("E", 329.628)])
  func keyTransposesFromTheSongsKey(key: String, hertz: Double) throws {
    let song = CLI.fixture("sine-440.wav")
    #expect(try cli.run(["add", song]).status == 0)
    let noKey = try cli.run(["render", "1", "--key", key, "-o", dir.file("n.wav")])
    #expect(noKey.status == 64 && noKey.stderrLines.count == 1, "\(noKey.stderr)")
    #expect(noKey.stderr.contains("has no key to transpose from"), "\(noKey.stderr)")
    #expect(try cli.run(["set", "1", "--key", "A"]).status == 0)
    let out = dir.file("k.wav")
    let result = try cli.run(["render", "1", "--key", key, "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    let measured = measuredFrequency(try Synth.read(out).samples)
    #expect(abs(measured - hertz) <= 1.5, "\(measured) Hz, expected \(hertz) Hz")
    let minor = try cli.run(["render", "1", "--key", key + "m", "-o", dir.file("m.wav")])
    #expect(minor.status == 64 && minor.stderr.contains("give --transpose instead"), "\(minor.stderr)")
    let both = try cli.run(["render", "1", "--key", key, "--transpose", "2", "-o", dir.file("b.wav")])
    #expect(both.status == 64 && both.stderr.contains("cannot be combined"), "\(both.stderr)")
  }

  @Test func badSpeedsAndTransposes() throws {
    for arguments in [["--speed", "3"], ["--speed", "10%"], ["--speed", "fast"], ["--transpose", "13"], ["--transpose", "-12.5"], ["--quality", "best"]] {
      let result = try cli.run(["play", CLI.fixture("sine-440.wav"), "--device", "null"] + arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(result.stderrLines.first?.contains(arguments[0]) == true, "\(result.stderr)")
    }
  }
}
