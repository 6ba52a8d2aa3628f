import Foundation
import Testing

@testable import PracticeCore

/// What `stats SONG -o` draws, as values: each day's clean top speed per selection, the days
/// across, the speed axis and where a day stands on it.
@Suite struct ProgressChartTests {
  /// UTC days, so that a day's plays fall on the same calendar day wherever the test runs.
  let calendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }()
  /// Midnight UTC (1_800_000_000 is 2027-01-15 08:00 UTC; 28_800 s after midnight).
  let midnight = Date(timeIntervalSince1970: 1_800_000_000 - 28_800)

  func play(_ name: String?, day: Int, hour: Int, _ marks: [(Double, PassMark?)]) -> PracticeEntry
  {
    let started = midnight.addingTimeInterval(Double(day * 86_400 + hour * 3600))
    var entry = PracticeEntry(
      songID: 1, selectionID: nil, selectionName: name, bars: nil, range: 0..<44100,
      slowest: .normal, fastest: .normal, passes: marks.count, startedAt: started,
      endedAt: started, duration: 10, outcome: .completed)
    entry.passRecords = marks.enumerated().map {
      PassRecord(pass: $0.offset + 1, speed: Speed(clamping: $0.element.0), mark: $0.element.1)
    }
    return entry
  }

  /// A day's point is the fastest pass marked clean that day (a faster pass flubbed or not
  /// marked is not progress, a slower clean one later is not a step back); selections keep
  /// their colour in `select list` order, one since removed comes after them, and the plays
  /// of no selection come last.
  @Test func eachDayIsItsCleanTopSpeedAndOtherPlaysComeLast() {
    let entries = [
      play("Riff", day: 0, hour: 9, [(0.7, .clean), (0.9, nil), (0.95, .flubbed)]),
      play("riff", day: 0, hour: 20, [(0.6, .clean)]),
      play(nil, day: 1, hour: 9, [(0.8, .clean)]),
      play("Solo", day: 2, hour: 9, [(0.45, .clean)]),
      play("Verse", day: 3, hour: 9, [(1.0, .clean), (1.1, .flubbed)]),
    ]
    let content = ProgressChartContent(
      title: "T", artist: nil, entries: entries, selectionNames: ["Verse", "Riff"],
      calendar: calendar)
    #expect(content.firstDay == midnight && content.days == 4)
    #expect(content.series.map(\.name) == ["Verse", "Riff", "Solo", "other plays"])
    #expect(content.series.map(\.colour) == [0, 1, 2, -1])
    #expect(
      content.series.map(\.points) == [
        [.init(day: 3, speed: 1.0)], [.init(day: 0, speed: 0.7)], [.init(day: 2, speed: 0.45)],
        [.init(day: 1, speed: 0.8)],
      ])

    // The axis: from 40 % (the slowest day, 45 %, rounded down to a step of 10 %) to 100 %;
    // each of the 4 days has a quarter of the plot's width, its point at the quarter's middle.
    let geometry = ProgressChart.geometry(content, width: 900)
    #expect(geometry.lowestSpeed == 0.4 && geometry.highestSpeed == 1.0 && geometry.days == 4)
    let quarter = (geometry.plotRight - geometry.plotLeft) / 4
    #expect(abs(geometry.x(day: 0) - (geometry.plotLeft + quarter / 2)) < 1e-9)
    #expect(abs(geometry.x(day: 3) - (geometry.plotRight - quarter / 2)) < 1e-9)
    #expect(abs(geometry.y(speed: 0.4) - geometry.plotBottom) < 1e-9)
    #expect(abs(geometry.y(speed: 1.0) - geometry.plotTop) < 1e-9)
  }
}
