import Foundation
import Testing

@testable import PracticeCore

/// `MetricalLevel`'s pieces one by one (round eight of the planted bugs): the median, the
/// splice of one reading into another, the length a stretch three against two must last, and
/// the period curve a stretch is read again near.
@Suite struct MetricalLevelSpliceTests {
  static let rate = 100.0

  /// Beats from frame 25 on, `interval(frame)` frames apart, until `end` (as
  /// `MetricalLevelTests` makes them).
  func beats(to end: Int, interval: (Int) -> Double) -> [Int] {
    MetricalLevelTests.beats(to: end, interval: interval)
  }

  @Test func theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
    #expect(MetricalLevel.median([]) == 0)
    #expect(MetricalLevel.median([3, 1, 2]) == 2)
    #expect(MetricalLevel.median([4, 1, 3, 2]) == 2.5)
    #expect(MetricalLevel.median([60, 90]) == 75)
  }

  /// The other reading's beats and period over the range, the base's elsewhere; a beat
  /// closer than half a period to the one kept before it (at a seam) is dropped.
  @Test func aSpliceTakesTheOthersBeatsAndPeriodAndDropsABeatTooCloseAtASeam() {
    let base = MetricalLevel.Reading(
      beats: [0, 60, 120, 180, 220, 280], period: [Double](repeating: 60, count: 300))
    let other = MetricalLevel.Reading(
      beats: [30, 105, 200, 250], period: [Double](repeating: 90, count: 300))
    let spliced = MetricalLevel.splice(base, with: other, over: [100...200])
    // 105 is 45 frames after 60, half of the 90 there: kept; 220 is 20 after 200: dropped.
    #expect(spliced.beats == [0, 60, 105, 200, 280])
    #expect(spliced.period[99] == 60 && spliced.period[201] == 60)
    #expect((100...200).allSatisfy { spliced.period[$0] == 90 })
  }

  /// Twelve seconds at 2/3 of the tempo: its tempo (the median interval of the window around
  /// each beat) reads 2/3 for less than a window; twenty seconds: for more.
  @Test func aStretchIsThreeAgainstTwoOnlyWhenItsTempoReadsSoForAWholeWindow() {
    let short = beats(to: 9000) { (3000..<4200).contains($0) ? 90 : 60 }
    #expect(MetricalLevel.threeAgainstTwoStretches(short, frameRate: Self.rate).isEmpty)
    let long = beats(to: 9000) { (3000..<5000).contains($0) ? 90 : 60 }
    #expect(MetricalLevel.threeAgainstTwoStretches(long, frameRate: Self.rate).count == 1)
  }

  /// A stretch read at 2/3 between a song at 100 BPM before it and 105 after it is read
  /// again near a line from the beat interval before it (60 frames) to the one after (57).
  @Test func aStretchIsReadAgainNearALineFromTheTempoBeforeToTheTempoAfter() throws {
    let n = 7000
    let interval = { (f: Int) -> Double in f < 2000 ? 60 : f < 4000 ? 90 : 57 }
    let free = beats(to: n, interval: interval)
    let period = (0..<n).map { interval($0) }
    var near: [Double] = []
    _ = MetricalLevel.holdThreeAgainstTwo(
      .init(beats: free, period: period), frameRate: Self.rate, hearing: { _ in 1 },
      decode: { curve in
        near = curve
        return nil
      })
    try #require(near.count == n)
    let stretch = try #require(
      MetricalLevel.threeAgainstTwoStretches(free, frameRate: Self.rate).first)
    let first = free[stretch.beats.lowerBound - 1]
    let last = free[stretch.beats.upperBound + 1]
    #expect(abs(near[first] - 60) < 1, "\(near[first])")
    #expect(abs(near[last] - 57) < 1, "\(near[last])")
    #expect(near[first] > near[(first + last) / 2] && near[(first + last) / 2] > near[last])
  }
}
