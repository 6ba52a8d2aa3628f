import Foundation
import TestSupport
import Testing

@Suite struct ClickTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// The click bursts as PracticeCore renders them: 20 ms decaying sines.
  func burst(_ hertz: Double, _ level: Double) -> [Float] {
    (0..<882).map { i in
      Float(level * exp(-Double(i) / 176.4) * sin(2 * Double.pi * hertz * Double(i) / 44100))
    }
  }

  @Test(arguments: [1.0, 0.5])
  func countInAndClicksLandOnTheirFrames(speed: Double) throws {
    // sine-440 is 2 s; a 120 BPM grid from 0 makes bar 1 = beats at 0, 0.5, 1.0, 1.5 s.
    _ = try cli.run(["add", CLI.fixture("sine-440.wav")])
    _ = try cli.run(["beats", "grid", "1", "--bpm", "120"])
    let common = ["render", "1", "--bars", "1", "--speed", "\(speed)", "--volume", "20%"]
    #expect(
      try cli.run(common + ["--count-in", "1", "--click", "-o", dir.file("a.wav")]).status == 0)
    #expect(try cli.run(common + ["-o", dir.file("b.wav")]).status == 0)
    let (_, a) = try Synth.read(dir.file("a.wav"))
    let (_, b) = try Synth.read(dir.file("b.wav"))
    let beat = Int((22050 / speed).rounded())
    let countIn = 4 * beat
    // Lengths first, required: indexing past a short render would crash the test binary.
    try #require(a.count == countIn + b.count)
    try #require(b.count == Int((88200 / speed).rounded()))
    let accent = burst(1500, 0.8)
    let normal = burst(1000, 0.5)
    let grain: Float = 1.5 / 32768
    for j in 0..<4 {
      let sound = j == 0 ? accent : normal
      // The count-in is clicks alone; the passes are the music plus the clicks.
      let countInError = (0..<sound.count).map { abs(a[j * beat + $0] - sound[$0]) }.max()!
      #expect(countInError <= grain, "count-in click \(j) at speed \(speed)")
      let mixed = (0..<sound.count).map {
        abs(a[countIn + j * beat + $0] - b[j * beat + $0] - sound[$0])
      }.max()!
      #expect(mixed <= 2 * grain, "beat click \(j) at speed \(speed)")
    }
    // Nothing but clicks is added: between clicks the two renders agree.
    let quiet = (900..<(beat - 10)).map { abs(a[countIn + $0] - b[$0]) }.max()!
    #expect(quiet <= grain)
  }

  /// A count-in counts up to where the music comes in, so it comes in on its own beat: a
  /// pickup on beat 3 of 3/4 hears 1 2 3, 1 2; a start on beat 3 of 4/4 hears 1 2 3 4, 1 2.
  @Test(arguments: [
    (["--meter", "3/4", "--bar1", "2"], "0-1", 3 + 2, [0, 3]),
    (["--meter", "4/4"], "1.3-1.4", 4 + 2, [0, 4]),
  ])
  func aCountInLeadsIntoAPickupOrABeatInsideABar(
    grid: [String], bars: String, clicks: Int, accents: [Int]
  ) throws {
    _ = try cli.run(["add", CLI.fixture("sine-440.wav")])
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120"] + grid).status == 0)
    let common = ["render", "1", "--bars", bars, "--volume", "20%"]
    #expect(try cli.run(common + ["--count-in", "1", "-o", dir.file("a.wav")]).status == 0)
    #expect(try cli.run(common + ["-o", dir.file("b.wav")]).status == 0)
    let (_, a) = try Synth.read(dir.file("a.wav"))
    let (_, b) = try Synth.read(dir.file("b.wav"))
    let beat = 22050
    try #require(a.count == clicks * beat + b.count)
    let grain: Float = 1.5 / 32768
    for j in 0..<clicks {
      let sound = accents.contains(j) ? burst(1500, 0.8) : burst(1000, 0.5)
      let error = (0..<sound.count).map { abs(a[j * beat + $0] - sound[$0]) }.max()!
      #expect(error <= grain, "count-in click \(j)")
    }
  }

  /// A gap of a bar after a pass that starts with a pickup is a whole bar of the meter.
  @Test func aGapOfABarAfterAPickupIsAWholeBar() throws {
    _ = try cli.run(["add", CLI.fixture("sine-440.wav")])
    #expect(
      try cli.run(["beats", "grid", "1", "--bpm", "120", "--meter", "3/4", "--bar1", "2"]).status
        == 0)
    let common = ["render", "1", "--bars", "0-1"]
    #expect(try cli.run(common + ["-o", dir.file("one.wav")]).status == 0)
    #expect(
      try cli.run(common + ["--repeat", "2", "--gap", "1bar", "-o", dir.file("two.wav")]).status
        == 0)
    let (_, one) = try Synth.read(dir.file("one.wav"))
    let (_, two) = try Synth.read(dir.file("two.wav"))
    #expect(two.count == 2 * one.count + 3 * 22050)
  }

  @Test func clicksAndCountInNeedABeatMap() throws {
    _ = try cli.run(["add", CLI.fixture("chord.wav")])
    for flag in [["--click"], ["--count-in", "2"]] {
      // With --no-detect, today's refusal, naming `beats detect` first.
      let result = try cli.run(["play", "1", "--device", "null", "--no-detect"] + flag)
      #expect(result.status == 66)
      #expect(result.stderrLines.count == 1 && result.stderr.contains("has no beat map"))
      #expect(result.stderr.contains("make one with `practice beats detect 1`"))
      // Without it, a detection is tried, and a chord with no beat is refused as detection refuses it.
      let tried = try cli.run(["play", "1", "--device", "null"] + flag)
      #expect(tried.status == 65, "\(tried.stderr)")
      #expect(
        tried.stderrLines.count == 2 && tried.stderrLines[0].contains("detecting one"),
        "\(tried.stderr)")
      #expect(tried.stderrLines[1].contains("cannot find the beat of"))
      #expect(try cli.run(["beats", "show", "1"]).status == 66)
    }
    #expect(try cli.run(["play", "1", "--count-in", "17"]).status == 64)
    #expect(try cli.run(["play", "1", "--click-volume", "300%"]).status == 64)
  }

  /// The line that starts a play says what will be heard besides the music: the count-in,
  /// the clicks, and a transpose in semitones as the log writes it (`+2 st`, not `+2.0`).
  @Test func thePlayLineNamesTheCountInClicksAndTranspose() throws {
    _ = try cli.run(["add", CLI.fixture("sine-440.wav")])
    _ = try cli.run(["beats", "grid", "1", "--bpm", "120"])
    let both = try cli.run([
      "play", "1", "--bars", "1", "--count-in", "1", "--click", "--transpose", "2",
      "--device", "null",
    ])
    #expect(both.status == 0, "\(both.stderr)")
    #expect(
      both.stderrLines.first == "playing 'sine-440' bar 1 (0:00.0–0:02.0), once, transpose +2 st, "
        + "count-in, click on 'null'", "\(both.stderr)")
    let half = try cli.run([
      "render", "1", "--bars", "1", "--transpose", "-1.5", "--count-in", "1", "-o",
      dir.file("t.wav"),
    ])
    #expect(half.status == 0, "\(half.stderr)")
    #expect(half.stderr.contains("once, transpose -1.5 st, count-in to "), "\(half.stderr)")
    let plain = try cli.run(["play", "1", "--bars", "1", "--device", "null"])
    #expect(plain.stderrLines.first == "playing 'sine-440' bar 1 (0:00.0–0:02.0), once on 'null'")
  }
}
