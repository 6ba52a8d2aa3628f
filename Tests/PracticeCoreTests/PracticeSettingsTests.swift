import Testing

@testable import PracticeCore

/// The edges of a selection's practice settings, as `play`, `render` and `select set` read
/// and word them.
@Suite struct PracticeSettingsTests {
  @Test func aTargetAtTheStartingSpeedIsOnePassAndNoStepAway() throws {
    let speed = try #require(Speed(parsing: "80%"))
    for step in [0.05, -0.05] {
      let settings = PracticeSettings(speed: speed, rampTo: speed, step: step)
      #expect(settings.problem == nil, "step \(step)")
      #expect(settings.drillPasses == 1, "step \(step)")
    }
  }

  @Test func gapsGoUpToSixteenBarsAndSixtySeconds() {
    #expect(PracticeSettings.parseGap("16bars")?.bars == 16)
    #expect(PracticeSettings.parseGap("17bars") == nil)
    #expect(PracticeSettings.parseGap("60s")?.seconds == 60)
    #expect(PracticeSettings.parseGap("60.5s") == nil)
  }

  @Test func stepsAndSemitonesReadAsTyped() throws {
    let away = PracticeSettings(
      speed: Speed(parsing: "90%"), rampTo: Speed(parsing: "80%"), step: 0.025)
    #expect(
      away.problem?.description
        == "a step of 2.5% moves away from the target 80% (from 90%); use a negative step")
    #expect(PracticeSettings.formatStep(-0.05) == "-5%")
    #expect(PracticeSettings.formatSemitones(0) == "0")
    #expect(PracticeSettings.formatSemitones(2) == "+2")
    #expect(PracticeSettings.formatSemitones(-0.5) == "-0.5")
  }

  /// Beats 0.5, 0.5, 0.6 and 0.6 s apart: the median of an even count is the mean of the
  /// middle two, 0.55 s (109.1 BPM), which a tempo goal divides by.
  @Test func aPassagesTempoIsTheMedianOfItsBeats() throws {
    let rate = 1000
    let frames: [Int64] = [0, 500, 1000, 1600, 2200]
    let map = try BeatMap(
      beats: frames.enumerated().map {
        Beat(frame: $1, bar: 1 + $0 / 4, beat: 1 + $0 % 4, source: .grid)
      },
      totalFrames: 3000, sampleRate: rate)
    let bpm = try #require(map.medianBPM(in: 0..<3000))
    #expect(abs(bpm - 60 / 0.55) < 1e-9, "\(bpm)")
  }
}
