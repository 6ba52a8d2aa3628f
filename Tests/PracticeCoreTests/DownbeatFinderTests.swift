import Foundation
import Testing

@testable import PracticeCore

/// Where `DownbeatFinder` puts the bars, on onset features laid out directly: 64 beats every
/// 50 frames, a loud backbeat (beats 2 and 4 of the network's bars), the network's downbeat
/// probability high on beat 1, and the chords either still or changing every four beats.
@Suite struct DownbeatFinderTests {
  static let period = 50
  static let beats = (0..<64).map { 25 + $0 * period }

  /// Features for `beats`: the accent and the bass loud on the beats whose index is odd,
  /// the network's downbeat on the beats whose index is a multiple of four, and, with
  /// `chordsChangeAt`, a new chord on every fourth beat from that one.
  func features(chordsChangeAt phase: Int?) -> OnsetFeatures {
    laidOut(
      Self.beats, accent: { $0 % 2 == 1 ? 10 : 2 }, network: { $0 % 4 == 0 ? 0.8 : 0.1 },
      chord: { beat in phase.map { (beat - $0 + 4) / 4 } ?? 0 })
  }

  /// Onset features laid out at `beats` (every `period` frames): each beat's accent and bass
  /// onset, and the network's downbeat probability, by the beat's index; from each beat to
  /// the next, the major triad numbered `chord(index)` (each a fourth above the last).
  func laidOut(
    _ beats: [Int], accent: (Int) -> Float, network: (Int) -> Float, chord: (Int) -> Int
  ) -> OnsetFeatures {
    var f = OnsetFeatures(frameRate: 100, hop: 441, window: 2048)
    let frames = beats.last! + Self.period
    f.chromaHop = 441
    f.chromaWindow = 2048
    var onsets = [Float](repeating: 0.05, count: frames)
    var downbeat = [Float](repeating: 0.01, count: frames)
    var chroma = [Float](repeating: 0, count: frames * 12)
    for (i, b) in beats.enumerated() {
      onsets[b] = accent(i)
      downbeat[b] = network(i)
    }
    for frame in 0..<frames {
      let number = chord(max(0, (frame - beats[0]) / Self.period))
      for pitch in [0, 4, 7] { chroma[frame * 12 + (pitch + 5 * number) % 12] = 1 }
    }
    f.flux = onsets
    f.bassFlux = onsets
    f.level = [Float](repeating: 0.3, count: frames)
    f.chroma = chroma
    f.downbeatActivation = downbeat
    return f
  }

  func downbeats(_ f: OnsetFeatures, _ settings: DownbeatFinder.Settings) -> Set<Int> {
    let placement = DownbeatFinder.place(
      beats: Self.beats, features: f, period: [Double](repeating: 50, count: f.count),
      beatsPerBar: 4, downbeatActivation: f.downbeatActivation, settings: settings)
    return Set(placement.positions.indices.filter { placement.positions[$0] == 0 }.map { $0 % 4 })
  }

  /// Where the chords say nothing and `networkDecides` is set, the network's downbeat
  /// places the bars, not the loud backbeat the hand-made cues take (records: the snare on
  /// 2 and 4), however much those cues weigh. Without it, the cues by their weights.
  @Test func whereTheChordsAreStillTheNetworkCanPlaceTheBars() {
    let still = features(chordsChangeAt: nil)
    var loud = DownbeatFinder.Settings()
    loud.weights = [3, 3, 3]
    #expect(downbeats(still, DownbeatFinder.Settings()) == [0])
    #expect(downbeats(still, loud) == [1] || downbeats(still, loud) == [3], "the backbeat")
    loud.networkDecides = 0.2
    #expect(downbeats(still, loud) == [0])
  }

  /// Where the chords change, they place the bars, whatever the network says.
  @Test func whereTheChordsChangeTheyPlaceTheBars() {
    #expect(downbeats(features(chordsChangeAt: 2), DownbeatFinder.Settings()) == [2])
    #expect(downbeats(features(chordsChangeAt: 0), DownbeatFinder.Settings()) == [0])
    // On the second or the fourth beat of the network's bars too (planted bug M195).
    #expect(downbeats(features(chordsChangeAt: 1), DownbeatFinder.Settings()) == [1])
    #expect(downbeats(features(chordsChangeAt: 3), DownbeatFinder.Settings()) == [3])
  }

  /// Bars of four after a pickup of three beats, one bar of two among them: the pickup
  /// counts back from the first downbeat, and the bar of two is followed (planted bug M196).
  @Test func aPickupOfThreeBeatsBeforeBarsWithABarOfTwo() throws {
    let downbeats: Set = [3, 7, 11, 13, 17, 21]
    let score = (0..<24).map { downbeats.contains($0) ? 60.0 : -1.0 }
    let positions = try #require(
      DownbeatFinder.positionsWithOddBars(score: score, beatsPerBar: 4, cost: 30))
    let pickup = [1, 2, 3]
    let barOfTwo = [0, 1]
    let fours = [0, 1, 2, 3, 0, 1, 2, 3]
    #expect(positions == pickup + fours + barOfTwo + fours + [0, 1, 2])
  }

  /// `n` beats every 50 frames in bars of `m`: a new chord, a louder beat and the network's
  /// downbeat on each bar's first beat.
  func bars(of m: Int, beats n: Int) -> (beats: [Int], features: OnsetFeatures) {
    let beats = (0..<n).map { 25 + $0 * Self.period }
    return (
      beats,
      laidOut(
        beats, accent: { $0 % m == 0 ? 6 : 2 }, network: { $0 % m == 0 ? 0.8 : 0.1 },
        chord: { $0 / m })
    )
  }

  func placed(_ laid: (beats: [Int], features: OnsetFeatures)) -> DownbeatFinder.Placement {
    DownbeatFinder.place(
      beats: laid.beats, features: laid.features,
      period: [Double](repeating: 50, count: laid.features.count), beatsPerBar: nil,
      downbeatActivation: laid.features.downbeatActivation)
  }

  /// Bars of seven (a 7/8 counted in eighths) are counted in sevens, their downbeats where
  /// the chords change, over `sevenBars` bars or more; over fewer, seven is not looked for.
  /// Bars of four and five are counted as before.
  @Test func barsOfSevenAreCountedInSevensOverEnoughBars() {
    let seven = placed(bars(of: 7, beats: DownbeatFinder.sevenBars * 7))
    #expect(seven.beatsPerBar == 7)
    #expect(seven.positions == (0..<DownbeatFinder.sevenBars * 7).map { $0 % 7 })
    #expect(placed(bars(of: 7, beats: DownbeatFinder.sevenBars * 7 - 1)).beatsPerBar != 7)
    #expect(placed(bars(of: 5, beats: 60)).beatsPerBar == 5)
    #expect(placed(bars(of: 4, beats: 64)).beatsPerBar == 4)
  }

  /// The developers' knob reads the weights and the threshold, `off` and bad values too.
  @Test func theKnobIsRead() {
    let s = DownbeatFinder.Settings.parse("harmony=2, bass=0,accent=1,network=4,decides=0.5")
    #expect(s.weights == [2, 0, 1] && s.networkWeight == 4 && s.networkDecides == 0.5)
    #expect(DownbeatFinder.Settings.parse("decides=off").networkDecides == nil)
    #expect(DownbeatFinder.Settings.parse("decides=-1,bass=x,cue=3") == DownbeatFinder.Settings())
    #expect(DownbeatFinder.Settings.parse(nil) == DownbeatFinder.Settings())
  }
}
