import Foundation
import Testing

@testable import PracticeCore

/// The song's metrical level questioned on every song (`LevelChoice`): a reading at half the
/// tempo whose skipped beats are heard as much as the kept ones moves up; a song whose loud
/// 8th-note hi-hats the network does not hear as beats keeps its quarters.
@Suite struct LevelChoiceTests {
  /// Frames a second, as the analysis features have.
  static let rate = 100.0
  /// A minute of music.
  static let n = 6000

  /// A minute with a beat every `every` frames from frame 25 (50: 120 BPM): the onset strength is
  /// `beat` on every beat and `eighth` half-way between; the network's beat probability is
  /// `heardBeat` on every other beat (the ones a half-tempo reading keeps), `heardSkipped`
  /// on the others, and `heardEighth` half-way between.
  struct Song {
    var novelty = [Double](repeating: 0, count: LevelChoiceTests.n)
    var activation = [Float](repeating: 0.01, count: LevelChoiceTests.n)

    init(
      every: Int = 50, beat: Double, eighth: Double, heardBeat: Float, heardSkipped: Float,
      heardEighth: Float
    ) {
      for (k, b) in stride(from: 25, to: LevelChoiceTests.n - every, by: every).enumerated() {
        novelty[b] = beat
        novelty[b + every / 2] = eighth
        activation[b] = k % 2 == 0 ? heardBeat : heardSkipped
        activation[b + every / 2] = heardEighth
      }
    }

    func heard(_ frames: [Int]) -> LevelChoice.Heard {
      let bass = [Double](repeating: 0, count: novelty.count)
      let s = BeatTracker.support(
        at: frames, halfway: false, novelty: novelty, bass: bass, frameRate: LevelChoiceTests.rate)
      return (BeatTracker.heard(frames, activation: activation), s.onset)
    }

    func decode(_ near: [Double]) -> MetricalLevel.Reading? {
      MetricalLevel.Reading(
        beats: BeatTracker.dynamicProgramming(
          novelty, period: near, end: novelty.count - 1),
        period: near)
    }

    /// The song read every `interval` frames.
    func read(every interval: Int) -> MetricalLevel.Reading {
      .init(
        beats: Array(stride(from: 25, to: LevelChoiceTests.n - 100, by: interval)),
        period: [Double](repeating: Double(interval), count: LevelChoiceTests.n))
    }

    func choose(_ reading: MetricalLevel.Reading, _ settings: LevelChoice.Settings)
      -> LevelChoice.Outcome
    {
      LevelChoice.choose(
        reading, frameRate: LevelChoiceTests.rate, shortest: 60 * LevelChoiceTests.rate / 220,
        longest: 60 * LevelChoiceTests.rate / 40, settings: settings, heard: heard,
        decode: decode)
    }
  }

  /// The setting the tests judge by: the detector's own where it questions the level.
  static let settings =
    LevelChoice.Settings.standard.up == nil ? LevelChoice.Settings.parse("up=0.8") : .standard

  func intervals(_ beats: [Int]) -> Set<Int> {
    Set(zip(beats, beats.dropFirst()).map { $1 - $0 })
  }

  @Test func aHalfTempoReadingWhoseSkippedBeatsAreHeardMovesUp() throws {
    // Every beat as strong in the onsets and nearly as strong to the network.
    let song = Song(beat: 1, eighth: 0.1, heardBeat: 0.8, heardSkipped: 0.7, heardEighth: 0.02)
    let outcome = song.choose(song.read(every: 100), Self.settings)
    #expect(outcome.factor == 2)
    let reading = try #require(outcome.reading)
    #expect(intervals(reading.beats) == [50], "\(intervals(reading.beats))")
    #expect((outcome.up?.by(Self.settings.hearing) ?? 0) >= 0.8)
  }

  @Test func loudEighthNoteHiHatsTheNetworkDoesNotHearKeepTheQuarters() {
    // 75 BPM, the 8ths as loud in the onsets as the beats, but the network hears only the
    // beats.
    let song = Song(
      every: 80, beat: 1, eighth: 1, heardBeat: 0.8, heardSkipped: 0.8, heardEighth: 0.05)
    let outcome = song.choose(song.read(every: 80), Self.settings)
    #expect(outcome.factor == 1)
    #expect(outcome.reading == nil)
    let ratio = outcome.up?.by(Self.settings.hearing) ?? 0
    #expect(ratio < 0.2, "the 8ths heard at \(ratio) of the beats")
    // The onsets alone would take the 8ths: the network is what keeps the quarters.
    let byOnsets = song.choose(song.read(every: 80), .parse("hearing=onsets,up=0.8"))
    #expect(byOnsets.factor == 2)
  }

  @Test func skippedBeatsTheNetworkHearsLittleKeepTheSlowerLevel() {
    // The onsets are even, but the network hears every other beat at under a third of the
    // others: it counts half notes, and the reading stays there.
    let song = Song(beat: 1, eighth: 0.1, heardBeat: 0.9, heardSkipped: 0.2, heardEighth: 0.02)
    let outcome = song.choose(song.read(every: 100), Self.settings)
    #expect(outcome.factor == 1)
    #expect(outcome.reading == nil)
  }

  @Test func aReadingAtTwiceTheTempoWhoseOwnBeatsAreUnheardMovesDown() throws {
    let song = Song(beat: 1, eighth: 0, heardBeat: 0.8, heardSkipped: 0.8, heardEighth: 0.01)
    let outcome = song.choose(song.read(every: 25), .parse("up=0.8,down=0.3"))
    #expect(outcome.factor == 0.5)
    let reading = try #require(outcome.reading)
    #expect(intervals(reading.beats) == [50], "\(intervals(reading.beats))")
  }

  /// A minute of 8th notes every 25 frames from frame 25, each as loud in the onsets, the
  /// network hearing the 8ths at `heard(k)` (k counts the 8ths).
  static func eighths(heard: (Int) -> Float) -> Song {
    var song = Song(beat: 0, eighth: 0, heardBeat: 0, heardSkipped: 0, heardEighth: 0)
    song.activation = [Float](repeating: 0.01, count: n)
    song.novelty = [Double](repeating: 0, count: n)
    for (k, f) in stride(from: 25, to: n - 50, by: 25).enumerated() {
      song.novelty[f] = 1
      song.activation[f] = heard(k)
    }
    return song
  }

  @Test func aStraightSongReadInDottedBeatsMovesToThreeAgainstTwo() throws {
    // 120 BPM in 8th notes, the network hearing every other 8th (the quarters); read in
    // dotted quarters (80 BPM, every third 8th), half of the reading's beats fall on 8ths
    // between the quarters.
    let song = Self.eighths { $0 % 2 == 0 ? 0.8 : 0.03 }
    let settings = LevelChoice.Settings.parse("hearing=network,up=0.5,threeTwo=3")
    let outcome = song.choose(song.read(every: 75), settings)
    #expect(outcome.factor == 1.5)
    let reading = try #require(outcome.reading)
    #expect(intervals(reading.beats) == [50], "\(intervals(reading.beats))")
    #expect((outcome.threeTwo?.by(.network) ?? 0) >= 3)
    // Without the setting it stays where it was read, the ratio measured all the same.
    let off = song.choose(song.read(every: 75), .parse("hearing=network,up=0.5,measure=1"))
    #expect(off.factor == 1 && off.reading == nil)
    #expect(off.threeTwo?.network == outcome.threeTwo?.network)
  }

  @Test func aWaltzReadOneBeatABarMovesToThreeTimesItsTempo() throws {
    // 3/4 at 120 BPM, a beat every 50 frames: the network hears every beat, the downbeats a little more; read
    // one beat a bar (40 BPM), the reading's skipped beats are heard nearly as much as its own.
    var song = Song(beat: 0, eighth: 0, heardBeat: 0, heardSkipped: 0, heardEighth: 0)
    for (k, f) in stride(from: 25, to: Self.n - 100, by: 50).enumerated() {
      song.novelty[f] = k % 3 == 0 ? 1 : 0.8
      song.activation[f] = k % 3 == 0 ? 0.9 : 0.7
    }
    let settings = LevelChoice.Settings.parse("hearing=network,up=0.5,three=0.5")
    let outcome = song.choose(song.read(every: 150), settings)
    #expect(outcome.factor == 3)
    let reading = try #require(outcome.reading)
    #expect(intervals(reading.beats) == [50], "\(intervals(reading.beats))")
    // Twice the tempo was asked first, and its own beats fall between the song's.
    #expect((outcome.up?.by(.network) ?? 1) < 0.5)
    // Off by default: the reading stays.
    #expect(song.choose(song.read(every: 150), .standard).factor == 1)
  }

  @Test func aCompoundSongInDottedQuartersKeepsThem() {
    // 6/8 at 80 BPM: the same even 8ths, but the network hears every third (the dotted
    // quarters). A reading at 3/2 the tempo would put two of its three beats on 8ths.
    let song = Self.eighths { $0 % 3 == 0 ? 0.8 : 0.03 }
    let settings = LevelChoice.Settings.parse("hearing=network,up=0.5,threeTwo=3")
    let outcome = song.choose(song.read(every: 75), settings)
    #expect(outcome.factor == 1)
    #expect(outcome.reading == nil)
    #expect((outcome.threeTwo?.by(.network) ?? 1) < 0.1)
    // The onsets alone cannot tell: every 8th is as loud, and a ratio of 1 moves nothing.
    let byOnsets = song.choose(song.read(every: 75), .parse("hearing=onsets,threeTwo=3"))
    #expect(byOnsets.factor == 1)
    #expect(abs((byOnsets.threeTwo?.onsets ?? 0) - 1) < 0.05)
  }

  @Test func theTempoRangeBoundsTheChoice() {
    // Twice 120 BPM is beyond a 200 BPM limit: the reading is not moved up.
    let song = Song(beat: 1, eighth: 1, heardBeat: 0.8, heardSkipped: 0.8, heardEighth: 0.8)
    let outcome = LevelChoice.choose(
      song.read(every: 50), frameRate: Self.rate, shortest: 60 * Self.rate / 200,
      longest: 60 * Self.rate / 40, settings: Self.settings, heard: song.heard,
      decode: song.decode)
    #expect(outcome.reading == nil)
    #expect(outcome.up == nil)
  }

  @Test func theKnobIsRead() {
    #expect(LevelChoice.Settings.parse("off") == .off)
    let s = LevelChoice.Settings.parse("hearing=network, up=0.7,down=0.25,measure=1,bogus=3,up2")
    #expect(s.hearing == .network && s.up == 0.7 && s.down == 0.25 && s.measure && s.force == nil)
    #expect(LevelChoice.Settings.parse("up=nan,force=up").up == nil)
    #expect(LevelChoice.Settings.parse("force=down").force == .down)
    #expect(LevelChoice.Settings.parse("threeTwo=2.5,force=threeTwo").threeTwo == 2.5)
    #expect(LevelChoice.Settings.parse("force=threeTwo").force == .threeTwo)
    #expect(LevelChoice.Settings.parse("three=0.6,force=three").three == 0.6)
    #expect(LevelChoice.Settings.parse("force=three").force == .three)
    #expect(LevelChoice.Settings.parse(nil) == .standard)
  }

  @Test func theTempoPriorFavoursTheLevelNearerTheCentre() {
    // Flat without a width; even odds where the two levels sit either side of 120 BPM.
    #expect(LevelChoice.priorOdds(slowerBPM: 60, width: nil) == 1)
    #expect(abs(LevelChoice.priorOdds(slowerBPM: 120 / 2.squareRoot(), width: 1.4) - 1) < 1e-12)
    // 60 against 120 BPM: the faster is likelier, so less evidence moves a reading up.
    let slow = LevelChoice.priorOdds(slowerBPM: 60, width: 1.4)
    #expect(abs(slow - exp(-1 / (2 * 1.96))) < 1e-12)
    // 120 against 240 BPM: the slower is likelier; a narrower prior says so more strongly.
    #expect(LevelChoice.priorOdds(slowerBPM: 120, width: 1.4) > 1)
    #expect(
      LevelChoice.priorOdds(slowerBPM: 120, width: 1) > LevelChoice.priorOdds(slowerBPM: 120, width: 1.4))
    #expect(LevelChoice.Settings.parse("up=0.5,prior=1.4").prior == 1.4)
    #expect(LevelChoice.Settings.parse("prior=-1").prior == nil)
  }

  @Test func theKnobReachesDetectionThroughTheDetectionOptionsOnly() {
    #expect(BeatDetectionOptions.fromEnvironment(environment: [:]).levelChoice == .standard)
    let off = BeatDetectionOptions.fromEnvironment(environment: ["PRACTICE_LEVEL_CHOICE": "off"])
    #expect(off.levelChoice == .off)
    // Options made in code (a song's first play) take the detector's own setting.
    #expect(BeatDetectionOptions().levelChoice == .standard)
  }
}
