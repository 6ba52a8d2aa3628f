import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// Open bar ranges, practice settings, pass marks, resume points and the stats built from
/// them (issue 25), without audio.
@Suite struct PracticeStateTests {
  let dir = TemporaryDirectory()

  @Test func openBarRanges() throws {
    let open = try #require(BarRangeText(parsing: "69-"))
    #expect(open.end == nil && open.description == "69-")
    #expect(open.closed(lastBar: 72) == BarRange(parsing: "69-72"))
    #expect(BarRangeText(parsing: "9.3-")?.closed(lastBar: 12).description == "9.3-12")
    #expect(BarRangeText(parsing: "9-16")?.closed(lastBar: 40).description == "9-16")
    for bad in ["-", "69--", "-69", "a-", "9-x", ""] {
      #expect(BarRangeText(parsing: bad) == nil, "\(bad)")
    }
  }

  @Test func settingsLayerAndCheckTheTrainer() throws {
    let selection = PracticeSettings(
      speed: Speed(parsing: "70%"), rampTo: Speed(parsing: "100%"), step: 0.05, click: true)
    let typed = PracticeSettings(speed: Speed(parsing: "80%"), click: false)
    let both = selection.overridden(by: typed)
    #expect(both.speed == Speed(parsing: "80%") && both.click == false)
    #expect(both.rampTo == Speed(parsing: "100%") && both.step == 0.05)
    #expect(both.problem == nil)
    var away = both
    away.speed = Speed(parsing: "120%")
    #expect(
      away.problem
        == .stepAwayFromTarget(step: 0.05, target: .normal, from: Speed(parsing: "120%")!))
    #expect(PracticeSettings(step: 0.05).problem == .stepWithoutTarget(step: 0.05))
    // A target alone steps five points towards it, up to it and one pass there.
    let alone = PracticeSettings(speed: Speed(parsing: "80%"), rampTo: .normal)
    #expect(alone.problem == nil && alone.rampStep == 0.05 && alone.drillPasses == 5)
    let down = PracticeSettings(rampTo: Speed(parsing: "90%"), every: 2)
    #expect(down.rampStep == -0.05 && down.drillPasses == 6)
    #expect(PracticeGoal(parsing: "120bpm") == .tempo(120))
    #expect(PracticeGoal(parsing: "90%") == .speed(Speed(parsing: "90%")!))
    #expect(PracticeGoal(parsing: "fast") == nil && PracticeGoal(parsing: "1000bpm") == nil)
    #expect(PracticeGoal.tempo(120).speed(passageBPM: 100) == 1.2)
    #expect(PracticeGoal.tempo(120).speed(passageBPM: nil) == nil)
  }

  /// Reports as the engine makes them: one block of 4410 frames (0.1 s) each, the device
  /// holding one block, a 1 s range from frame 44100 looped (pass 3 at 110 %).
  func report(block: Int, pass: Int, inGap: Bool = false, ended: Bool = false) -> PlaybackEvent {
    let output = Int64(block) * 4410
    return PlaybackEvent(
      outputFrame: output, delayFrames: 4410, nanoseconds: UInt64(block) * 100_000_000,
      sourceFrame: 44100 + output % 44100, speed: pass == 3 ? 1.1 : 1, pass: pass,
      passesCompleted: pass - 1, generation: 0, inGap: inGap, paused: false, ended: ended)
  }

  @Test func marksGoToTheRightPassAndTheStopIsWhereItWasHeard() throws {
    var tracker = PlayTracker(sampleRate: 44100, totalFrames: 441_000)
    let range: Range<Int64> = 44100..<88200
    for block in 0..<25 { tracker.take(report(block: block, pass: block / 10 + 1)) }
    // 0.5 s into pass 1: pass 1. 0.1 s into pass 2 (under a quarter of the pass): pass 1.
    #expect(tracker.mark(.flubbed, range: range, at: 500_000_000) == 1)
    #expect(tracker.mark(.clean, range: range, at: 1_100_000_000) == 1)
    #expect(tracker.mark(.flubbed, range: range, at: 1_600_000_000) == 2)
    #expect(tracker.mark(.clean, range: range, at: 2_400_000_000) == 3)
    let passes = tracker.passes(completed: 2) { _ in .normal }
    #expect(
      passes == [
        PassRecord(pass: 1, speed: .normal, mark: .clean),
        PassRecord(pass: 2, speed: .normal, mark: .flubbed),
        PassRecord(pass: 3, speed: Speed(parsing: "110%")!, mark: .clean),
      ])
    // Ended by a stop at 2.45 s: heard up to 2.35 s of output (the device held 0.1 s).
    var end = report(block: 25, pass: 3, ended: true)
    end.nanoseconds = 2_450_000_000
    end.outputFrame = 999_999  // what was written, queued and dropped
    tracker.take(end)
    let stop = try #require(tracker.stoppedFrame(interrupted: true))
    #expect(stop == 44100 + 3 * 4410 + 2426, "\(stop)")  // 2205 output frames at 110 %
    #expect(tracker.heardOutputFrames(written: 999_999, interrupted: true) == 23 * 4410 + 2205)
    // Time heard: never more than the real time from the first frame to the end.
    #expect(
      tracker.heardSeconds(
        written: 999_999, interrupted: true, firstFrameNanoseconds: 2_000_000_000,
        endNanoseconds: 2_450_000_000) == 0.45)
    // A device without an audible clock (the null PCM): nobody heard it.
    #expect(
      tracker.heardSeconds(
        written: 999_999, interrupted: true, firstFrameNanoseconds: 2_000_000_000,
        endNanoseconds: 2_450_000_000, audibleClock: false) == 0)
  }

  /// A pass is logged at the slowest speed heard in it (a pass is only as fast as its
  /// slowest part), and a mark in the first moments of a part's first pass is that part's.
  @Test func aPassIsAsFastAsItsSlowestPartAndMarksStayInTheirPart() throws {
    var tracker = PlayTracker(sampleRate: 44100, totalFrames: 441_000)
    for block in 0..<15 {
      var event = report(block: block, pass: block / 10 + 1)
      if block == 4 { event.speed = 0.8 }
      tracker.take(event)
    }
    let passes = tracker.passes(completed: 1) { _ in .normal }
    #expect(passes == [PassRecord(pass: 1, speed: try #require(Speed(parsing: "80%")), mark: nil)])
    // 0.1 s into pass 2, the first pass of the part playing (a selection chosen in pass 2).
    #expect(tracker.mark(.clean, range: 44100..<88200, earliest: 2, at: 1_100_000_000) == 2)
  }

  func library() throws -> (Library, Song) {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = dir.file("a.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 4), to: path)
    return (library, try library.resolve(path))
  }

  /// `select set`: settings given are added to the selection's, `clearing` first removes
  /// them and the goal, and a refusal (a trainer stepping away, a tempo goal without a beat
  /// map) stores nothing.
  @Test func aSelectionsPracticeIsAddedToClearedOrRefusedWhole() throws {
    let (library, song) = try library()
    let selection = try library.addSelection(
      to: song, name: "solo", span: .frames(0..<44100), note: nil, replace: false)
    let drill = PracticeSettings(speed: Speed(parsing: "70%"), rampTo: .normal)
    let first = try library.setPractice(
      of: selection, song: song, adding: drill, goal: .speed(.normal), clearing: false)
    #expect(first.settings == drill && first.goal == .speed(.normal))
    let faster = PracticeSettings(speed: Speed(parsing: "80%"))
    let added = try library.setPractice(
      of: selection, song: song, adding: faster, goal: nil, clearing: false)
    #expect(added.settings.speed == Speed(parsing: "80%") && added.settings.rampTo == .normal)
    #expect(added.goal == .speed(.normal))
    #expect(try library.practice(of: selection) == added)

    #expect(throws: SettingsProblem.self) {
      try library.setPractice(
        of: selection, song: song,
        adding: PracticeSettings(speed: Speed(parsing: "120%"), step: 0.05), goal: nil,
        clearing: false)
    }
    #expect(throws: NoBeatMap.self) {
      try library.setPractice(
        of: selection, song: song, adding: faster, goal: .tempo(120), clearing: true)
    }
    #expect(try library.practice(of: selection) == added)

    let cleared = try library.setPractice(
      of: selection, song: song, adding: faster, goal: nil, clearing: true)
    #expect(cleared == SelectionPractice(settings: faster))
    #expect(try library.practice(of: selection) == cleared)
  }

  @Test func statsTakeTheCleanTopSpeedAndIgnoreUnmarkedPasses() throws {
    let (library, song) = try library()
    let selection = try library.addSelection(
      to: song, name: "Riff", span: .frames(0..<44100), note: nil, replace: false)
    try library.setPractice(SelectionPractice(goal: .speed(Speed(parsing: "120%")!)), of: selection)
    let now = Date()
    func play(_ marks: [(Double, PassMark?)], daysAgo: Int) throws {
      let started = now.addingTimeInterval(-Double(daysAgo) * 86400)
      var entry = PracticeEntry(
        songID: song.id!, selectionID: selection.id, selectionName: "riff", bars: nil,
        range: 0..<44100, slowest: .normal, fastest: .normal, passes: marks.count,
        startedAt: started, endedAt: started, duration: 10, outcome: .completed)
      entry.passRecords = marks.enumerated().map {
        PassRecord(pass: $0.offset + 1, speed: Speed(clamping: $0.element.0), mark: $0.element.1)
      }
      try library.log(entry)
    }
    try play([(0.8, .clean), (0.9, .flubbed), (2, nil)], daysAgo: 2)
    try play([(1.1, .clean), (1.5, nil)], daysAgo: 1)
    try play([(1, .clean)], daysAgo: 0)
    let total = try #require(try library.practiceTotals(since: nil, now: now).first)
    #expect(total.cleanSpeed == Speed(parsing: "110%"))
    #expect(total.cleanPasses == 3 && total.flubbedPasses == 1 && total.cleanRatio == 0.75)
    #expect(total.goal == .speed(Speed(parsing: "120%")!) && total.distance == 0.1)
    #expect(!total.goalReached && total.streakDays == 3)
    #expect(try library.practiceAgenda().map(\.selection.name) == ["Riff"])
    // Since yesterday: that day's and today's passes only; the days in a row stay whole.
    let recent = try #require(
      try library.practiceTotals(since: now.addingTimeInterval(-86400 - 60), now: now).first)
    #expect(recent.cleanPasses == 2 && recent.flubbedPasses == 0 && recent.streakDays == 3)
    try library.setPractice(SelectionPractice(goal: .speed(Speed(parsing: "110%")!)), of: selection)
    #expect(try library.practiceAgenda().isEmpty)
    #expect(try library.practiceTotals(since: nil, now: now).first?.goalReached == true)
  }

  /// `practice today`: the selections whose goal no clean pass has reached, never practised
  /// first, then the least recently practised; a flubbed pass at the goal's speed has not
  /// reached it. A play with no time heard (stopped in its count-in) is no day of a streak.
  @Test func todayListsGoalsNotReachedCleanLeastRecentFirst() throws {
    let (library, song) = try library()
    let now = Date()
    let goal = PracticeGoal.speed(try #require(Speed(parsing: "100%")))
    for name in ["A", "B", "C", "D", "E"] {
      let selection = try library.addSelection(
        to: song, name: name, span: .frames(0..<44100), note: nil, replace: false)
      if name != "E" { try library.setPractice(SelectionPractice(goal: goal), of: selection) }
    }
    func play(_ name: String, daysAgo: Int, seconds: Double, _ marks: [(Double, PassMark)]) throws
    {
      let started = now.addingTimeInterval(-Double(daysAgo) * 86400)
      var entry = PracticeEntry(
        songID: song.id!, selectionID: nil, selectionName: name, bars: nil, range: 0..<44100,
        slowest: .normal, fastest: .normal, passes: marks.count, startedAt: started,
        endedAt: started, duration: seconds, outcome: .completed)
      entry.passRecords = marks.enumerated().map {
        PassRecord(pass: $0.offset + 1, speed: Speed(clamping: $0.element.0), mark: $0.element.1)
      }
      try library.log(entry)
    }
    try play("A", daysAgo: 2, seconds: 10, [(0.8, .clean)])
    try play("B", daysAgo: 1, seconds: 10, [(0.9, .clean), (1.0, .flubbed)])
    try play("D", daysAgo: 1, seconds: 10, [(1.0, .clean)])
    try play("E", daysAgo: 1, seconds: 10, [])
    try play("E", daysAgo: 0, seconds: 0, [])
    let agenda = try library.practiceAgenda()
    #expect(agenda.map(\.selection.name) == ["C", "A", "B"])
    #expect(agenda.map(\.cleanSpeed) == [nil, Speed(clamping: 0.8), Speed(clamping: 0.9)])
    let e = try #require(
      try library.practiceTotals(since: nil, now: now).first { $0.selectionName == "E" })
    #expect(e.plays == 2 && e.streakDays == 1)
  }

  @Test func streaksCountBackFromTodayOrYesterday() {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    func days(_ offsets: [Int]) -> [Date] {
      offsets.map { now.addingTimeInterval(-Double($0) * 86400) }
    }
    #expect(Library.streak(days([0, 1, 2, 4]), now: now, calendar: calendar) == 3)
    #expect(Library.streak(days([1, 2]), now: now, calendar: calendar) == 2)
    #expect(Library.streak(days([2, 3]), now: now, calendar: calendar) == 0)
    #expect(Library.streak([], now: now, calendar: calendar) == 0)
  }

  @Test func resumePointsAreKeptPerSongAndTheLatestIsFound() throws {
    let (library, song) = try library()
    let otherPath = dir.file("b.wav")
    try Synth.write(Synth.sine(frequency: 220, seconds: 2), to: otherPath)
    let other = try library.resolve(otherPath)
    func point(_ song: Song, frame: Int64) -> ResumePoint {
      ResumePoint(
        songID: song.id!, frame: frame, range: 1000..<50000, label: "bars 2-3", bars: "2-3",
        selectionName: nil, passesLeft: 3, speed: Speed(parsing: "75%")!, transpose: -2,
        volume: Volume(parsing: "80%")!, finished: false, stoppedAt: Date())
    }
    try library.remember(point(song, frame: 20000))
    try library.remember(point(other, frame: 3000))
    try library.remember(point(song, frame: 30000))
    let kept = try #require(try library.resumePoint(of: song))
    var expected = point(song, frame: 30000)
    expected.stoppedAt = kept.stoppedAt  // stored to the second
    #expect(kept == expected)
    #expect(try library.latestResumePoint()?.songID == song.id)
    #expect(point(song, frame: 30000).startFrame(in: 1000..<50000) == 30000)
    #expect(point(song, frame: 30000).startFrame(in: 40000..<50000) == 40000)
    // A range that ends at or before the frame starts at its start (planted bug M207).
    #expect(point(song, frame: 30000).startFrame(in: 1000..<20000) == 1000)
    #expect(point(song, frame: 30000).startFrame(in: 1000..<30000) == 1000)
    var finished = point(song, frame: 49999)
    finished.finished = true
    #expect(finished.startFrame(in: 1000..<50000) == 1000)
    try library.remove(song)
    #expect(try library.latestResumePoint()?.songID == other.id)
  }
}
