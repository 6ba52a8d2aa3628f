import Foundation
import TestSupport
import Testing

/// `beats double`, `halve`, `downbeat`, `undo`, and how `shift`, `meter` and the history
/// follow, run through the built binary on clicks-120 (16.5 s at 44.1 kHz) with a grid at
/// 60 BPM from 0.5 s: beats every 44100 frames from 22050, bars 1-4.
@Suite struct BeatFixTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  func prepare(bpm: String = "60") throws {
    try #require(try cli.run(["add", CLI.fixture("clicks-120.wav")]).status == 0)
    try #require(try cli.run(["beats", "grid", "1", "--bpm", bpm, "--start", "0.5"]).status == 0)
  }

  /// The stored beats: frame, bar and beat.
  func beats() throws -> [(frame: Int64, bar: Int, beat: Int)] {
    let result = try cli.run(["beats", "export", "1"])
    try #require(result.status == 0, "\(result.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    let list = try #require(object?["beats"] as? [[String: Any]])
    return list.map { (Int64($0["frame"] as! Int), $0["bar"] as! Int, $0["beat"] as! Int) }
  }

  func frames() throws -> [Int64] { try beats().map(\.frame) }
  func labels() throws -> [String] { try beats().map { "\($0.bar).\($0.beat)" } }

  /// Every row of the database, as Python's sqlite3 dumps it.
  func dump() throws -> String {
    let result = try runProgram(
      "/usr/bin/python3",
      [
        "-c", "import sqlite3,sys; print('\\n'.join(sqlite3.connect(sys.argv[1]).iterdump()))",
        cli.database,
      ],
      environment: [:], directory: dir.path, scratch: dir.path)
    try #require(result.status == 0, "\(result.stderr)")
    return result.stdout
  }

  func span(of name: String) throws -> String {
    try cli.run(["select", "show", "1", name]).stdout.split(separator: "\n")[2].description
  }

  @Test func doubleAndHalveAreExactAndSelectionsKeepTheirMusic() throws {
    try prepare()
    #expect(try cli.run(["select", "add", "1", "solo", "--bars", "3-4"]).status == 0)
    #expect(try cli.run(["select", "add", "1", "lick", "--bars", "2.3-3.2"]).status == 0)
    #expect(try cli.run(["select", "add", "1", "intro", "--bars", "1"]).status == 0)
    let double = try cli.run(["beats", "double", "1", "--bars", "2-3"])
    #expect(double.status == 0)
    #expect(
      double.stderrLines == [
        "'clicks-120': doubled the beats of bars 2-3, 16 → 24 beats; bars 1-6 now (was bars 1-4)",
        "selection 'lick' is now bars 3-4 (was 2.3-3.2)",
        "selection 'solo' is now bars 4-6 (was 3-4)",
      ])
    #expect(double.stdout == "")
    // Bar 1 as it was, bars 2-3 at twice the beats (a half-beat of 22050 frames), bar 4 on.
    #expect(
      try frames()
        == (0..<4).map { 22050 + 44100 * Int64($0) } + (0..<16).map { 198450 + 22050 * Int64($0) }
        + (0..<4).map { 551250 + 44100 * Int64($0) })
    #expect(try labels() == (0..<24).map { "\($0 / 4 + 1).\($0 % 4 + 1)" })
    #expect(try span(of: "solo") == "span bars 4-6 (0:08.5–0:16.5)")
    #expect(try span(of: "intro") == "span bar 1 (0:00.5–0:04.5)")

    let halve = try cli.run(["beats", "halve", "1", "--from", "4.5", "--to", "12.5"])
    #expect(halve.status == 0, "\(halve.stderr)")
    #expect(
      halve.stderrLines == [
        "'clicks-120': halved the beats of 0:04.5–0:12.5, 24 → 16 beats; bars 1-4 now (was bars 1-6)",
        "selection 'lick' is now bars 2.3-3.2 (was 3-4)",
        "selection 'solo' is now bars 3-4 (was 4-6)",
      ])
    #expect(try frames() == (0..<16).map { 22050 + 44100 * Int64($0) })
    #expect(try labels() == (0..<16).map { "\($0 / 4 + 1).\($0 % 4 + 1)" })
  }

  /// The place `play --resume` continues from keeps its music when the bars are renamed,
  /// and the line says so in those words; only when the name it goes by changed: one in a
  /// selection keeps its name (the selection's line says the rest), and one in times has
  /// no bars to rename. (Every fix said it, in a selection too.)
  @Test func theResumePointKeepsItsMusicAndSaysSo() throws {
    try prepare()
    let play = try cli.run(["play", "1", "--bars", "4", "--device", "null"])
    try #require(play.status == 0, "\(play.stderr)")
    let double = try cli.run(["beats", "double", "1", "--bars", "1-2"])
    #expect(double.status == 0, "\(double.stderr)")
    #expect(
      double.stderrLines.last
        == "play --resume continues in the same music, now called bar 6 (was 4)",
      "\(double.stderr)")
    #expect(try cli.run(["select", "add", "1", "solo", "--bars", "6"]).status == 0)
    let solo = try cli.run(["play", "1", "--select", "solo", "--device", "null"])
    try #require(solo.status == 0, "\(solo.stderr)")
    for fix in [["halve", "1", "--bars", "1-4"], ["undo", "1"], ["redo", "1"]] {
      let fixed = try cli.run(["beats"] + fix)
      #expect(fixed.status == 0, "\(fix): \(fixed.stderr)")
      #expect(fixed.stderrLines.count == 2, "\(fix): \(fixed.stderr)")
      #expect(fixed.stderrLines.last?.hasPrefix("selection 'solo' is now bar") == true, "\(fixed.stderr)")
    }
    #expect(try cli.run(["show", "1"]).stdout.contains("in selection 'solo'"))
  }

  @Test func aDownbeatRecountsAndUndoTakesEachChangeBack() throws {
    try prepare()
    let original = try beats().map { "\($0.frame) \($0.bar).\($0.beat)" }
    #expect(try cli.run(["select", "add", "1", "solo", "--bars", "3-4"]).status == 0)
    // 2.5 s is beat 1.3: it starts bar 1; 1.1 and 1.2 become the pickup.
    let down = try cli.run(["beats", "downbeat", "1", "--at", "2.51"])
    #expect(down.status == 0, "\(down.stderr)")
    #expect(
      down.stderrLines == [
        "'clicks-120': the beat at 0:02.5 starts bar 1; bars 0-4 (0 is the pickup) now (was bars 1-4)",
        "selection 'solo' is now bars 2.3-4.2 (was 3-4)",
      ])
    #expect(try labels() == ["0.3", "0.4"] + (0..<14).map { "\($0 / 4 + 1).\($0 % 4 + 1)" })
    #expect(try frames() == (0..<16).map { 22050 + 44100 * Int64($0) })
    let already = try cli.run(["beats", "downbeat", "1", "--bar", "2.1"])
    #expect(already.status == 0)
    #expect(
      already.stderrLines == ["'clicks-120': that beat is a downbeat already; the map is unchanged"]
    )
    #expect(try cli.run(["beats", "shift", "1", "--by", "0.01"]).status == 0)
    #expect(try frames().first == 22050 + 441)

    let undoShift = try cli.run(["beats", "undo", "1"])
    #expect(undoShift.status == 0)
    #expect(undoShift.stderrLines.count == 1)
    #expect(
      undoShift.stderrLines.first?.contains(
        #/^'clicks-120': undid `beats shift --by 0.010` \(\d{4}-\d\d-\d\d \d\d:\d\d\); bars 0-4 \(0 is the pickup\) again, 16 beats \(2 earlier maps kept, 1 to redo\)$/#
      )
        == true, "\(undoShift.stderr)")
    let undoDown = try cli.run(["beats", "undo", "1"])
    #expect(undoDown.stderrLines.last == "selection 'solo' is now bars 3-4 (was 2.3-4.2)")
    #expect(undoDown.stderrLines.first?.contains("undid `beats downbeat --at 2.51`") == true)
    #expect(try beats().map { "\($0.frame) \($0.bar).\($0.beat)" } == original)
    let undoGrid = try cli.run(["beats", "undo", "1"])
    #expect(undoGrid.status == 0)
    #expect(undoGrid.stderrLines.first?.contains("undid `beats grid --bpm 60.0`") == true)
    #expect(
      undoGrid.stderrLines.first?.hasSuffix("the song has no beat map again (no earlier map kept, 3 to redo)")
        == true)
    let nothing = try cli.run(["beats", "undo", "1"])
    #expect(nothing.status == 66)
    #expect(
      nothing.stderrLines == [
        "practice: 'clicks-120' has no earlier beat map to go back to (each change keeps the map before it, 10 deep)"
      ])
  }

  @Test func aMeterRecountRenamesSelectionsAndAShiftMovesThem() throws {
    try prepare()
    #expect(try cli.run(["select", "add", "1", "solo", "--bars", "3-4"]).status == 0)
    let meter = try cli.run(["beats", "meter", "1", "--meter", "4/4", "--bar1", "2"])
    #expect(meter.status == 0)
    #expect(
      meter.stderrLines == [
        "'clicks-120': bars 0-4 (0 is the pickup) after counting 4/4",
        "selection 'solo' is now bars 2.4-4.3 (was 3-4)",
      ])
    // A shift keeps the bars: the selection moves with them, its name unchanged.
    let shift = try cli.run(["beats", "shift", "1", "--by", "-0.25"])
    #expect(shift.status == 0)
    #expect(shift.stderrLines == ["'clicks-120': 16 beats moved by -0.25 s"])
    #expect(try span(of: "solo") == "span bars 2.4-4.3 (0:08.3–0:16.3)")
  }

  @Test func fixesThatCannotApplyExit64AndLeaveTheDatabase() throws {
    try prepare()
    #expect(try cli.run(["select", "add", "1", "solo", "--bars", "3-4"]).status == 0)
    let before = try dump()
    let cases: [([String], String)] = [
      (
        ["beats", "double", "1", "--from", "16.2"],
        "practice: no beat lies in 0:16.2–the end; the map's beats run 0:00.5–0:15.5"
      ),
      (
        ["beats", "halve", "1", "--bars", "4.4"],
        "practice: halving needs at least two beats, and that span has one"
      ),
      (
        ["beats", "halve", "1", "--bars", "5-6"],
        "practice: --bars 5-6: bar 5 is not in this song; it has bars 1-4"
      ),
      (
        ["beats", "downbeat", "1", "--at", "1.0"],
        // The beat's time as the times typed are written, to the millisecond (a detected
        // map's beat was `3.844761905 s`).
        "practice: 0:01.0 is 500 ms from the nearest beat, 1.1 at 0:00.500; give the time of a beat, or its bar.beat"
      ),
      (
        ["beats", "downbeat", "1", "--bar", "2.5"],
        "practice: --bar 2.5 is not a beat of this song; it has bars 1-4"
      ),
      (
        ["beats", "shift", "1", "--by", "-1"],
        "practice: that shift moves 1 beat outside the audio; shift less, or import the beats again"
      ),
    ]
    for (arguments, message) in cases {
      let result = try cli.run(arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(result.stderrLines == [message], "\(arguments)")
      #expect(try dump() == before, "\(arguments) changed the database")
    }
    for usage in [
      ["beats", "double", "1", "--bars", "1-2", "--from", "3"], ["beats", "downbeat", "1"],
      ["beats", "downbeat", "1", "--at", "1", "--bar", "1.2"],
      ["beats", "halve", "1", "--from", "9", "--to", "3"],
      ["beats", "halve", "1", "--bars", "x"],
    ] {
      let result = try cli.run(usage)
      #expect(result.status == 64, "\(usage)")
      #expect(try dump() == before, "\(usage) changed the database")
    }
    // No map at all: 66, as every command that needs one.
    _ = try cli.run(["beats", "undo", "1"])
    let noMap = try cli.run(["beats", "double", "1"])
    #expect(noMap.status == 66)
  }

  /// `shift --by` takes milliseconds as a musician writes a nudge (`20ms`), and seconds
  /// with or without `s`; anything else says which units it takes.
  @Test func shiftTakesMilliseconds() throws {
    try prepare()
    let start = try frames()
    let shifted = try cli.run(["beats", "shift", "1", "--by", "20ms"])
    #expect(shifted.status == 0, "\(shifted.stderr)")
    #expect(try frames() == start.map { $0 + 882 })
    #expect(try cli.run(["beats", "shift", "1", "--by", "-0.02s"]).status == 0)
    #expect(try frames() == start)
    let bad = try cli.run(["beats", "shift", "1", "--by", "20 ms"])
    #expect(bad.status == 64)
    #expect(
      bad.stderrLines.first
        == "practice: --by 20 ms: must be seconds, like 0.02 or -0.15, or milliseconds, like 20ms")
  }

  /// `redo` brings back what `undo` took, newest first, with the one-line report and the
  /// selections following; with nothing to redo (none undone, or a change since) it exits
  /// 64 with one line and the map as it was.
  @Test func redoBringsBackWhatUndoTookUntilTheMapChanges() throws {
    try prepare()
    #expect(try cli.run(["select", "add", "1", "solo", "--bars", "3-4"]).status == 0)
    let none = try cli.run(["beats", "redo", "1"])
    #expect(none.status == 64, "\(none.stderr)")
    #expect(
      none.stderrLines == [
        "practice: 'clicks-120' has nothing to redo: redo brings back what `beats undo` took, "
          + "until the map changes again; the map was left as it is"
      ])
    #expect(try cli.run(["beats", "double", "1", "--bars", "2-3"]).status == 0)
    let doubled = try beats().map { "\($0.frame) \($0.bar).\($0.beat)" }
    #expect(try cli.run(["beats", "halve", "1", "--bars", "1"]).status == 0)
    let halved = try beats().map { "\($0.frame) \($0.bar).\($0.beat)" }
    #expect(try cli.run(["beats", "undo", "1"]).status == 0)
    let undone = try cli.run(["beats", "undo", "1"])
    #expect(undone.stderrLines.first?.hasSuffix("(1 earlier map kept, 2 to redo)") == true)
    #expect(undone.stderrLines.last == "selection 'solo' is now bars 3-4 (was 4-6)")
    let redone = try cli.run(["beats", "redo", "1"])
    #expect(redone.status == 0, "\(redone.stderr)")
    #expect(
      redone.stderrLines.first?.contains(
        #/^'clicks-120': redid `beats double --bars 2-3` \(\d{4}-\d\d-\d\d \d\d:\d\d\); bars 1-6 again, 24 beats \(2 earlier maps kept, 1 to redo\)$/#
      ) == true, "\(redone.stderr)")
    #expect(redone.stderrLines.last == "selection 'solo' is now bars 4-6 (was 3-4)")
    #expect(try beats().map { "\($0.frame) \($0.bar).\($0.beat)" } == doubled)
    #expect(try cli.run(["beats", "redo", "1"]).stderr.contains("redid `beats halve --bars 1`"))
    #expect(try beats().map { "\($0.frame) \($0.bar).\($0.beat)" } == halved)
    // A new change after an undo drops the redo; the map stays as the change made it.
    #expect(try cli.run(["beats", "undo", "1"]).status == 0)
    #expect(try cli.run(["beats", "shift", "1", "--by", "0.01"]).status == 0)
    let before = try dump()
    let dropped = try cli.run(["beats", "redo", "1"])
    #expect(dropped.status == 64 && dropped.stderrLines.count == 1, "\(dropped.stderr)")
    #expect(try dump() == before)
    // Undo still goes back through the change and the ones before it.
    #expect(try cli.run(["beats", "undo", "1"]).stderr.contains("undid `beats shift --by 0.010`"))
    #expect(try beats().map { "\($0.frame) \($0.bar).\($0.beat)" } == doubled)
  }

  /// `undo` of a change that was not a recount warns once of a selection that no longer
  /// fits the map it brings back (it warned twice: once with the bars followed, once with
  /// the selections moved).
  @Test func undoWarnsOnceOfASelectionThatNoLongerFits() throws {
    try prepare(bpm: "120")
    #expect(try cli.run(["select", "add", "1", "end", "--bars", "7-8"]).status == 0)
    let warning =
      "practice: warning: selection 'end' of 'clicks-120' (bars 7-8) no longer fits the beat "
      + "map (bars 1-4); fix it with `practice select edit 1 'end' --bars …`"
    let slow = try cli.run(["beats", "grid", "1", "--bpm", "60", "--start", "0.5"])
    #expect(slow.stderrLines.last == warning, "\(slow.stderr)")
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5"]).status == 0)
    let undone = try cli.run(["beats", "undo", "1"])
    #expect(undone.status == 0, "\(undone.stderr)")
    #expect(undone.stderrLines.count == 2, "\(undone.stderr)")
    #expect(undone.stderrLines.first?.contains("undid `beats grid --bpm 120.0`") == true)
    #expect(undone.stderrLines.last == warning, "\(undone.stderr)")
  }

  /// `undo` back to no beat map leaves a selection in bars with none to count them in: the
  /// warning says to make a map (or give times), not to give new bars, which need one.
  @Test func undoToNoMapSaysHowToGetTheBarsBack() throws {
    try prepare()
    #expect(try cli.run(["select", "add", "1", "verse", "--bars", "2-3"]).status == 0)
    let undone = try cli.run(["beats", "undo", "1"])
    #expect(undone.status == 0, "\(undone.stderr)")
    let warning: String =
      "practice: warning: selection 'verse' of 'clicks-120' (bars 2-3) has no bars to play: "
      + "the song has no beat map now; make one with `practice beats detect 1` (the selection "
      + "finds its bars again), or give it times with `practice select edit 1 'verse' --from … "
      + "--to …`"
    #expect(undone.stderrLines.last == warning, "\(undone.stderr)")
    #expect(!undone.stderr.contains("--bars …"), "\(undone.stderr)")
  }

  @Test func theHistoryKeepsTenMapsAndAnImportKeepsTheOneBefore() throws {
    try prepare()
    for k in 1...11 {
      #expect(try cli.run(["beats", "shift", "1", "--by", "0.001"]).status == 0, "shift \(k)")
    }
    for _ in 0..<10 { #expect(try cli.run(["beats", "undo", "1"]).status == 0) }
    // Ten of the twelve changes taken back: the first shift and the grid stay.
    #expect(try frames().first == 22050 + 44)
    #expect(try cli.run(["beats", "undo", "1"]).status == 66)
    // An import of a .practice file with --replace keeps the map it replaced.
    let file = dir.file("song.practice")
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5"]).status == 0)
    #expect(try cli.run(["export", "1", "-o", file]).status == 0)
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "60", "--start", "0.5"]).status == 0)
    let imported = try cli.run(["import", file, "--replace"])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(try frames().count == 32)
    let undone = try cli.run(["beats", "undo", "1"])
    #expect(
      undone.stderrLines.first?.contains("undid `import of a .practice file`") == true,
      "\(undone.stderr)")
    #expect(try frames().count == 16)
  }
}
