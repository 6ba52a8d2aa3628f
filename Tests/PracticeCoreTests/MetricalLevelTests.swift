import Foundation
import Testing

@testable import PracticeCore

/// One metrical level through a steady song (`MetricalLevel`): where a reading switches
/// level part-way, the song's level is kept unless the new level's evidence is strong.
@Suite struct MetricalLevelTests {
  /// Frames a second, as the analysis features have.
  static let rate = 100.0

  /// Beats from frame 25 on: `interval(frame)` frames apart until `end`.
  func beats(to end: Int, interval: (Int) -> Double) -> [Int] {
    Self.beats(to: end, interval: interval)
  }

  /// Beats from frame 25 on: `interval(frame)` frames apart until `end`.
  static func beats(to end: Int, interval: (Int) -> Double) -> [Int] {
    var out: [Int] = []
    var t = 25.0
    while Int(t) < end {
      out.append(Int(t.rounded()))
      t += interval(Int(t))
    }
    return out
  }

  /// How `BeatTracker` hears beats in `novelty`: its own onset support.
  func heard(_ novelty: [Double]) -> ([Int]) -> Double {
    let bass = [Double](repeating: 0, count: novelty.count)
    return {
      BeatTracker.support(
        at: $0, halfway: false, novelty: novelty, bass: bass, frameRate: Self.rate
      ).onset
    }
  }

  /// How `BeatTracker` reads the beat again near a period curve: its own dynamic programming.
  func decoded(_ novelty: [Double]) -> ([Double]) -> MetricalLevel.Reading? {
    { near in
      MetricalLevel.Reading(
        beats: BeatTracker.dynamicProgramming(novelty, period: near, end: novelty.count - 1),
        period: near)
    }
  }

  @Test func aSteadyTempoOrARitardandoIsNoSwitch() {
    #expect(MetricalLevel.switches(beats(to: 6000) { _ in 50 }, frameRate: Self.rate).isEmpty)
    // A ritardando to 0.6 of the tempo over the minute: the windows differ by less than 1.7.
    let rit = beats(to: 6000) { 50 + 33 * Double($0) / 6000 }
    #expect(MetricalLevel.switches(rit, frameRate: Self.rate).isEmpty)
    // A step change by 1.25 (the corpus's largest).
    #expect(
      MetricalLevel.switches(beats(to: 6000) { $0 < 3000 ? 50 : 40 }, frameRate: Self.rate)
        .isEmpty)
    // Too short to judge: less than a window either side of any beat.
    #expect(
      MetricalLevel.switches(beats(to: 1900) { $0 < 1000 ? 50 : 100 }, frameRate: Self.rate)
        .isEmpty)
  }

  @Test func halfTheTempoAndBackAreTwoSwitchesWhereTheyHappen() {
    let found = MetricalLevel.switches(
      beats(to: 6000) { (2000..<4000).contains($0) ? 100 : 50 }, frameRate: Self.rate)
    #expect(found.count == 2)
    guard found.count == 2 else { return }
    let slow = beats(to: 6000) { (2000..<4000).contains($0) ? 100 : 50 }
    #expect(abs(slow[found[0].index] - 2025) <= 50, "first switch at \(slow[found[0].index])")
    #expect(abs(found[0].ratio - 0.5) < 0.01)
    #expect(abs(slow[found[1].index] - 4025) <= 100, "second switch at \(slow[found[1].index])")
    #expect(abs(found[1].ratio - 2) < 0.01)
  }

  /// A minute at 120 BPM (every 50 frames) whose beats between 20 and 40 s alternate
  /// strong and `weak`, read at half the tempo there; held by `BeatTracker`'s own dynamic
  /// programming and heard by its own onset support.
  func held(weak: Double) -> (MetricalLevel.Held?, [Double]) {
    let n = 6000
    var novelty = [Double](repeating: 0, count: n)
    let all = beats(to: n) { _ in 50 }
    for (k, b) in all.enumerated() {
      novelty[b] = k % 2 == 1 && (2000..<4000).contains(b) ? weak : 1
    }
    let free = beats(to: n) { (2000..<4000).contains($0) ? 100 : 50 }
    let period = (0..<n).map { (2000..<4000).contains($0) ? 100.0 : 50 }
    let result = MetricalLevel.hold(
      .init(beats: free, period: period), frameRate: Self.rate,
      hearing: heard(novelty), decode: decoded(novelty))
    return (result, novelty)
  }

  @Test func skippedBeatsHeardAsTheKeptOnesAreBeats() throws {
    let (result, novelty) = held(weak: 0.9)
    let held = try #require(result)
    // Every beat of the music at one level, none doubtful.
    #expect(held.reading.beats.count == novelty.filter { $0 > 0 }.count)
    #expect(zip(held.reading.beats, held.reading.beats.dropFirst()).allSatisfy { $1 - $0 == 50 })
    #expect(held.doubtful.isEmpty)
    #expect(held.switched.isEmpty)
  }

  @Test func aSwitchOnWeakEvidenceKeepsTheLevelAndIsDoubtful() throws {
    let held = try #require(held(weak: 0.5).0)
    #expect(zip(held.reading.beats, held.reading.beats.dropFirst()).allSatisfy { $1 - $0 == 50 })
    #expect(held.doubtful.count == 1)
    let span = try #require(held.doubtful.first)
    #expect(abs(span.lowerBound - 2025) <= 50 && abs(span.upperBound - 4025) <= 100, "\(span)")
  }

  @Test func aSwitchOnStrongEvidenceIsKept() {
    // The beats skipped are heard at a tenth of the kept ones: the music is at half the
    // tempo there, and the reading is left as it was.
    #expect(held(weak: 0.1).0 == nil)
  }

  @Test func threeAgainstTwoIsAStretchOnlyWhereItLastsAndStandsApartFromTheSong() {
    func stretches(_ interval: @escaping (Int) -> Double) -> [MetricalLevel.Stretch] {
      MetricalLevel.threeAgainstTwoStretches(beats(to: 9000, interval: interval), frameRate: Self.rate)
    }
    #expect(stretches { _ in 60 }.isEmpty)
    // A step change by 1.25, or a duple switch (`hold`'s), is not three against two.
    #expect(stretches { $0 < 4500 ? 60 : 48 }.isEmpty)
    #expect(stretches { (3000..<6000).contains($0) ? 120 : 60 }.isEmpty)
    // Eight seconds at 2/3 of the tempo: shorter than a window.
    #expect(stretches { (3000..<3800).contains($0) ? 90 : 60 }.isEmpty)
    // From 60 s to the end at 2/3 of the tempo, or up to 30 s: the music may change tempo
    // there; only a stretch with the song's tempo on both sides is a misreading.
    #expect(stretches { $0 >= 6000 ? 90 : 60 }.isEmpty)
    #expect(stretches { $0 < 3000 ? 40 : 60 }.isEmpty)
    // 30 to 60 s at 2/3 of the tempo, slid to over 5 s and back (a blues at 100 BPM read
    // at 67 from the middle): one stretch, slower, widened over both slides.
    let slide = { (f: Int) -> Double in
      switch f {
      case 2500..<3000: return 60 + 30 * Double(f - 2500) / 500
      case 3000..<6000: return 90
      case 6000..<6500: return 90 - 30 * Double(f - 6000) / 500
      default: return 60
      }
    }
    let found = stretches(slide)
    #expect(found.count == 1)
    guard let stretch = found.first else { return }
    let slid = beats(to: 9000, interval: slide)
    #expect(!stretch.faster)
    #expect(slid[stretch.beats.lowerBound] <= 3000 && slid[stretch.beats.upperBound] >= 6000,
            "\(slid[stretch.beats.lowerBound])...\(slid[stretch.beats.upperBound])")
    #expect(slid[stretch.beats.lowerBound] >= 2000 && slid[stretch.beats.upperBound] <= 7000)
  }

  /// A minute at 100 BPM (every 60 frames) read between 20 and 40 s at 2/3 of the tempo
  /// (every 90 frames), where the song's beats sound at `song` and the reading's at
  /// `reading` (both where they meet); held by `BeatTracker`'s own dynamic programming and
  /// heard by its own onset support.
  func heldThreeAgainstTwo(song: Double, reading: Double) -> MetricalLevel.Held? {
    let n = 6000
    let inside = 2000..<4000
    var novelty = [Double](repeating: 0, count: n)
    for b in beats(to: n, interval: { _ in 60 }) { novelty[b] = inside.contains(b) ? song : 1 }
    let free = beats(to: n) { inside.contains($0) ? 90 : 60 }
    for b in free where inside.contains(b) { novelty[b] = max(novelty[b], reading) }
    let period = (0..<n).map { inside.contains($0) ? 90.0 : 60 }
    return MetricalLevel.holdThreeAgainstTwo(
      .init(beats: free, period: period), frameRate: Self.rate,
      hearing: heard(novelty), decode: decoded(novelty))
  }

  @Test func threeAgainstTwoIsHeldAtTheSongsTempoUnlessItsOwnBeatsAreHeardFarMore() throws {
    // The song's beats heard three times the reading's own: held at the song's tempo.
    let held = try #require(heldThreeAgainstTwo(song: 1, reading: 0.3))
    let inStretch = held.reading.beats.filter { (2100..<3900).contains($0) }
    #expect(zip(inStretch, inStretch.dropFirst()).allSatisfy { $1 - $0 == 60 }, "\(inStretch)")
    #expect(held.doubtful.isEmpty)
    // Heard alike: held, and doubtful.
    let weak = try #require(heldThreeAgainstTwo(song: 0.8, reading: 1))
    #expect(weak.doubtful.count == 1)
    // The reading's own beats heard ten times the song's: the music is at 2/3 there.
    #expect(heldThreeAgainstTwo(song: 0.1, reading: 1) == nil)
  }

  @Test func aHeldLevelIsWarnedOfWithItsTimes() {
    #expect(BeatDetector.heldLevel([]) == nil)
    #expect(
      BeatDetector.heldLevel([75...90, 20...40.5, 30...35, 80...95])
        == "the beat may be twice, half or 2/3 as fast at 0:20.0-0:40.5, 1:15.0-1:35.0; the map "
        + "keeps the song's tempo there, its bars marked ? in `beats show`: check them by ear")
  }
}
