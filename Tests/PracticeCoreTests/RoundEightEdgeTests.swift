import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// Edges of the overview, the click plan, the speed trainer, `today`, the CSV beat reader
/// and the pitch tracker that no test reached (round eight of the planted bugs, bench/MUTANTS.md).
@Suite struct RoundEightEdgeTests {
  let dir = TemporaryDirectory()

  func overview(selections: [OverviewContent.Span] = [], window: Range<Int64>? = nil, map: BeatMap?)
    throws -> OverviewLayout
  {
    let summary = try Fixture.summary(in: dir)
    let content = OverviewContent(
      title: "Étude", artist: nil, summary: summary, beatMap: map, selections: selections,
      window: window ?? 0..<summary.frames)
    return OverviewLayout(content, width: 64) { Double($0.count + 1) }
  }

  /// A selection starting where another ends shares its row: they do not overlap.
  @Test func selectionsThatMeetShareARow() throws {
    let layout = try overview(
      selections: [
        .init(name: "verse", frames: Fixture.bars(1, 4), colour: 0),
        .init(name: "chorus", frames: Fixture.bars(5, 8), colour: 1),
      ], map: try Fixture.beatMap())
    #expect(layout.spanRows == 1)
    #expect(layout.spans.map(\.row) == [0, 0])
  }

  /// The clock pads minutes after an hour: 1:05:00, not 1:5:00.
  @Test func theClockPadsMinutesAfterAnHour() {
    #expect(OverviewLayout.clock(3900) == "1:05:00")
    #expect(OverviewLayout.clock(3600 + 11 * 60 + 7) == "1:11:07")
    #expect(OverviewLayout.clock(65) == "1:05")
  }

  /// Without a beat map the time ruler starts at the first round time inside the view.
  @Test func theTimeRulerStartsInsideTheView() throws {
    let rate = Int64(Fixture.rate)
    let layout = try overview(window: 7 * rate..<27 * rate, map: nil)
    let step = try #require(layout.timeStep)
    #expect(layout.ticks.allSatisfy { $0.x >= 0 })
    let first = try #require(layout.ticks.first)
    #expect(first.label == OverviewLayout.clock((7 / step).rounded(.up) * step), "\(first)")
  }

  /// 100 frames a beat at 1 kHz, first beat at frame 50.
  func grid() throws -> BeatMap {
    try BeatMap.placing(
      frames: (0..<32).map { 50 + Int64($0) * 100 },
      beatsInBar: Array(repeating: nil, count: 32), meter: .common, bar1: 1,
      source: .grid, totalFrames: 10_000, sampleRate: 1000)
  }

  /// A range starting on beat 3 counts in a bar and the two beats before it; one starting
  /// between beats (a time, not a beat) counts in whole bars only.
  @Test func aCountInLeadsToABeatOnlyWhenTheRangeStartsOnOne() throws {
    let map = try grid()
    let onBeat3 = ClickPlan(
      beatMap: map, range: 250..<1250, speed: .normal, countInBars: 1, click: false,
      volume: .unity)
    #expect(onBeat3.countIn.count == 6)
    let between = ClickPlan(
      beatMap: map, range: 280..<1250, speed: .normal, countInBars: 1, click: false,
      volume: .unity)
    #expect(between.countIn.count == 4)
    #expect(between.countInFrames == 400)
  }

  /// A trainer coming down (from 100 % by -10 every pass) stops at its target, 70 %.
  @Test func aTrainerComingDownStopsAtItsTarget() throws {
    var plan = PlaybackPlan(range: 0..<44100, passes: .endless, volume: .unity, sampleRate: 44100)
    plan.speed = .normal
    plan.ramp = .init(target: try #require(Speed(parsing: "70%")), step: -0.1, every: 1)
    #expect(plan.speed(forPass: 2) == Speed(clamping: 0.8))
    #expect(plan.speed(forPass: 3) == Speed(clamping: 0.7))
    #expect(plan.speed(forPass: 10) == Speed(clamping: 0.7))
    #expect(plan.trainerSpeeds(limit: 100).last == Speed(clamping: 0.7))
  }

  /// A library with one song and its selection `solo`, whose goal is 100 %; `marks`, when
  /// given, logged as one play of it.
  func agenda(_ marks: [(Double, PassMark)]?) throws -> [AgendaItem] {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = dir.file("a.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 4), to: path)
    let song = try library.resolve(path)
    let selection = try library.addSelection(
      to: song, name: "solo", span: .frames(0..<44100), note: nil, replace: false)
    try library.setPractice(
      SelectionPractice(goal: .speed(try #require(Speed(parsing: "100%")))), of: selection)
    if let marks {
      var entry = PracticeEntry(
        songID: song.id!, selectionID: nil, selectionName: "solo", bars: nil, range: 0..<44100,
        slowest: .normal, fastest: .normal, passes: marks.count, startedAt: Date(),
        endedAt: Date(), duration: 10, outcome: .completed)
      entry.passRecords = marks.enumerated().map {
        PassRecord(pass: $0.offset + 1, speed: Speed(clamping: $0.element.0), mark: $0.element.1)
      }
      try library.log(entry)
    }
    return try library.practiceAgenda()
  }

  /// `today`'s line counts the clean passes at the best clean speed, not every clean pass.
  @Test func todayCountsTheCleanPassesAtTheBestSpeed() throws {
    let item = try #require(
      try agenda([(0.8, .clean), (0.9, .clean), (0.9, .clean), (1.0, .flubbed)]).first)
    #expect(item.cleanPasses == 3 && item.cleanPassesAtBest == 2 && item.flubbedPasses == 1)
    #expect(
      item.reason(now: Date()).contains("best clean 90% (2 passes) of the 100% goal, 1 flubbed"))
  }

  /// Days are calendar days: played at 23:00, asked at 01:00 the next day, is yesterday.
  @Test func lastPlayedCountsCalendarDays() throws {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let midnight = Date(timeIntervalSince1970: Double(1_800_000_000 / 86400 * 86400))
    var item = try #require(try agenda(nil).first)
    item.lastPractised = midnight.addingTimeInterval(-3600)
    #expect(
      item.reason(now: midnight.addingTimeInterval(3600), calendar: calendar)
        .hasSuffix("last played yesterday"))
  }

  /// A steady tone whose octave is twice as loud as its fundamental reads as the
  /// fundamental: the dip at half the period (0.4 of the power) is too weak to be the note.
  @Test(arguments: [82.41, 110, 220, 440])
  func aToneWithALoudOctaveReadsAsItsFundamental(frequency: Double) throws {
    let samples = (0..<44100).map { i -> Float in
      let phase = 2 * Double.pi * frequency * Double(i) / 44100
      return Float(0.1 * (sin(phase) + 2 * sin(2 * phase)) / 3)
    }
    let tracker = try PitchTracker(sampleRate: 44100)
    var readings: [Double] = []
    samples.withUnsafeBufferPointer { buffer in
      var start = 0
      while start + tracker.hop <= buffer.count {
        if let estimate = tracker.process(buffer.baseAddress! + start) {
          readings.append(estimate.frequency)
        }
        start += tracker.hop
      }
    }
    #expect(readings.count >= 70)
    #expect(readings.allSatisfy { abs(1200 * log2($0 / frequency)) <= 1 }, "\(readings.max() ?? 0)")
  }

  /// A CSV whose first line's time is `nan` is refused on that line, not skipped as a header.
  @Test func aCSVStartingWithNaNIsRefusedNotTakenAsAHeader() throws {
    for first in ["nan", "inf", "Infinity"] {
      #expect(throws: DataFileError.self, "\(first)") {
        try BeatFiles.parse(
          Array("\(first),1\n1.0,2\n".utf8), format: .csv, path: "b.csv", audioDuration: 600)
      }
    }
    #expect(TextBeatFormats.isHeader("time") && TextBeatFormats.isHeader("Beat Time"))
  }

  /// A quote doubled inside a quoted CSV field is one quote.
  @Test func aDoubledQuoteInAQuotedCSVFieldIsOneQuote() {
    #expect(TextBeatFormats.splitCSV("1.5,\"say \"\"hi\"\"\"") == ["1.5", "say \"hi\""])
  }
}
