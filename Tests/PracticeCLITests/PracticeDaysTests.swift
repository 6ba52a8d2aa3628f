import Foundation
import TestSupport
import Testing

/// Practice across days (issue 25): open ranges, selection settings and goals, the time
/// heard, `today`. Through ALSA's null PCM; the real-time parts are in
/// `ResumeAndMarkTests`.
@Suite struct PracticeDaysTests {
  let dir = TemporaryDirectory()
  let song = CLI.fixture("clicks-120.wav")

  /// clicks-120: clicks every 0.5 s from 0.5 s (120 BPM, 4/4, bars 1-8), 16.5 s long.
  func library() throws -> CLI {
    let cli = CLI(database: dir.file("lib.sqlite"))
    try #require(cli.run(["beats", "import", song, CLI.fixture("clicks-120.beats")]).status == 0)
    return cli
  }

  func log(_ cli: CLI) throws -> [[String: Any]] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["log", "--json"]).stdout.utf8))
        as? [[String: Any]])
  }

  @Test func openRangesRunToTheEnd() throws {
    let cli = try library()
    for range in [["--bars", "6-"], ["--from", "14"], ["--from", "0:02", "--to", "end"]] {
      let result = try cli.run(["play", song, "--device", "null"] + range)
      #expect(result.status == 0, "\(range): \(result.stderr)")
    }
    let rows = try log(cli)
    try #require(rows.count == 3)
    #expect(rows[0]["bars"] as? String == "6-8")
    #expect(rows[0]["start_frame"] as? Int == 463_050 && rows[0]["end_frame"] as? Int == 727_650)
    #expect(rows[1]["start_frame"] as? Int == 617_400 && rows[1]["end_frame"] as? Int == 727_650)
    #expect(rows[2]["start_frame"] as? Int == 88_200 && rows[2]["end_frame"] as? Int == 727_650)

    for (bad, message) in [
      (["--bars", "9-"], "--bars 9-: bar 9 is not in this song"),
      (["--bars", "8.5-"], "--bars 8.5-: bar 8 has beats 1-4"),
      (["--bars", "6--"], "--bars 6--: not a bar range"),
      (["--from", "end"], "--from end: not a time"),
    ] {
      let result = try cli.run(["play", song, "--device", "null"] + bad)
      #expect(result.status == 64, "\(bad): \(result.stderr)")
      #expect(result.stderr.contains(message), "\(bad): \(result.stderr)")
    }
    #expect(try log(cli).count == 3)
  }

  /// The time heard of a play on a device faster than real time is the real time that
  /// passed, not the length of what was played.
  @Test func aNullDevicePlayIsCreditedOnlyTheTimeThatPassed() throws {
    let cli = try library()
    let clock = ContinuousClock()
    let started = clock.now
    #expect(try cli.run(["play", song, "--bars", "1-8", "--device", "null"]).status == 0)
    let wall = clock.now - started
    let row = try #require(try log(cli).first)
    #expect(abs((row["played"] as? Double ?? 0) - 16) < 0.001)
    let heard = try #require(row["duration"] as? Double)
    #expect(heard >= 0 && Duration.seconds(heard) <= wall, "\(heard) s heard in \(wall)")
    #expect(heard < 8, "credited \(heard) s of 16 s played in \(wall)")
  }

  @Test func aSelectionPlaysWithItsSettingsAndTypedOptionsOverrideThem() throws {
    let cli = try library()
    #expect(try cli.run(["select", "add", song, "riff", "--bars", "2"]).status == 0)
    let set = try cli.run([
      "select", "set", song, "riff", "--speed", "80%", "--ramp-to", "90%", "--step", "10%",
      "--count-in", "1", "--click", "--gap", "1bar", "--transpose", "-2", "--volume", "90%",
      "--goal", "100%",
    ])
    #expect(set.status == 0, "\(set.stderr)")
    let show = try cli.run(["select", "show", song, "riff"]).stdout
    #expect(
      show.contains(
        "\nsettings --speed 80% --ramp-to 90% --step 10% --count-in 1 --click --gap 1bar --transpose -2 --volume 90%\n"
      ), "\(show)")
    #expect(show.hasSuffix("\ngoal 100%\n"), "\(show)")

    let first = try cli.run(["play", song, "--select", "riff", "--repeat", "2", "--device", "null"])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(
      first.stderr.contains(
        "selection 'riff' (0:02.5–0:04.5), 2 passes, speed 80% → 90%, transpose -2 st, volume 90%, "
          + "count-in, click on 'null'"
      ),
      "\(first.stderr)")
    // Typed options win; a speed past the trainer's target plays without it.
    let second = try cli.run([
      "play", song, "--select", "riff", "--speed", "100%", "--transpose", "0", "--no-click",
      "--device", "null",
    ])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(
      second.stderr.contains(
        "selection 'riff' (0:02.5–0:04.5), once, volume 90%, count-in on 'null'"),
      "\(second.stderr)")
    let rows = try log(cli)
    #expect(rows.map { $0["speed_min"] as? Double } == [0.8, 1])
    #expect(rows.map { $0["speed_max"] as? Double } == [0.9, 1])
    // The selection's transpose is logged; the typed one overrode it.
    #expect(rows.map { $0["transpose"] as? Double } == [-2, 0])
    // Each pass is logged with its speed (and the play's transpose); none was marked.
    let passes = try cli.run(["log", "--passes"]).stdout.split(separator: "\n").map {
      $0.split(separator: "\t").map(String.init).suffix(3)
    }
    #expect(
      passes.map(Array.init) == [
        ["1", "80% -2 st", "-"], ["2", "90% -2 st", "-"], ["1", "100%", "-"],
      ])

    // A tempo goal is read through the beat map: 120 BPM is this passage's own tempo.
    #expect(try cli.run(["select", "set", song, "riff", "--goal", "132bpm"]).status == 0)
    #expect(
      try cli.run(["select", "show", song, "riff"]).stdout.hasSuffix("\ngoal 132bpm (110%)\n"))

    // Bad settings change nothing.
    for (bad, status, message) in [
      (["--ramp-to", "50%"], Int32(64), "moves away from --ramp-to 50%"),
      (["--goal", "fast"], 64, "--goal fast: not a goal"),
      (["--goal", "500bpm"], 64, "--goal 500bpm: not a goal"),
      (["--goal", "300bpm"], 64, "a goal must be 25% to 200%"), ([], 64, "say what to set"),
      (["--every", "0"], 64, "--every 0: out of range"),
      (["--gap", "1 bar"], 64, "not a duration"),
    ] {
      let result = try cli.run(["select", "set", song, "riff"] + bad)
      #expect(result.status == status, "\(bad): \(result.stderr)")
      #expect(result.stderr.contains(message), "\(bad): \(result.stderr)")
      #expect(result.stderrLines.count == 1, "\(bad): \(result.stderr)")
    }
    #expect(
      try cli.run(["select", "show", song, "riff"]).stdout.hasSuffix("\ngoal 132bpm (110%)\n"))
    #expect(try cli.run(["select", "set", song, "nope", "--speed", "50%"]).status == 66)

    #expect(try cli.run(["select", "set", song, "riff", "--clear"]).status == 0)
    #expect(try cli.run(["select", "show", song, "riff"]).stdout.hasSuffix("\nsettings\ngoal\n"))
  }

  /// The last pass of a trainer's play counts even when the stretcher's steering put its
  /// end a frame past the last output frame (it was logged as one pass of two).
  @Test func everyPassOfATrainedPlayIsLogged() throws {
    let cli = try library()
    let result = try cli.run([
      "play", song, "--bars", "2-3", "--repeat", "2", "--speed", "70%", "--ramp-to", "100%",
      "--step", "10%", "--device", "null",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try log(cli).first?["passes"] as? Int == 2)
    let passes = try cli.run(["log", "--passes"]).stdout.split(separator: "\n").map {
      Array($0.split(separator: "\t").map(String.init).suffix(3))
    }
    #expect(passes == [["1", "70%", "-"], ["2", "80%", "-"]], "\(passes)")
  }

  @Test func aTempoGoalNeedsABeatMap() throws {
    let cli = CLI(database: dir.file("lib.sqlite"))
    let tone = CLI.fixture("sine-440.wav")
    #expect(try cli.run(["select", "add", tone, "all", "--from", "0", "--to", "1"]).status == 0)
    let result = try cli.run(["select", "set", tone, "all", "--goal", "100bpm"])
    #expect(result.status == 66, "\(result.stderr)")
    #expect(result.stderr.contains("has no beat map"), "\(result.stderr)")
    #expect(try cli.run(["select", "set", tone, "all", "--goal", "90%"]).status == 0)
  }

  /// `today` lists the selections whose goal is not reached, least recently practised
  /// first, as lines a shell runs back into the same arguments.
  @Test func todayPrintsCommandsAShellCanRun() throws {
    let cli = try library()
    let odd = dir.file("it's \"odd\" $HOME.wav")
    try FileManager.default.copyItem(atPath: song, toPath: odd)
    #expect(try cli.run(["select", "add", song, "riff", "--bars", "2"]).status == 0)
    #expect(try cli.run(["select", "add", song, "plain", "--bars", "3"]).status == 0)
    #expect(
      try cli.run(["select", "add", odd, "it's `x`", "--from", "1", "--to", "2"]).status == 0)
    #expect(try cli.run(["select", "set", song, "riff", "--goal", "100%"]).status == 0)
    #expect(try cli.run(["select", "set", odd, "it's `x`", "--goal", "90%"]).status == 0)
    // riff was practised (no pass marked clean, so its goal is not reached); the other never.
    #expect(try cli.run(["play", song, "--select", "riff", "--device", "null"]).status == 0)

    let lines = try cli.run(["today", "--db", dir.file("lib.sqlite")]).stdout.split(separator: "\n")
      .map(String.init)
    try #require(lines.count == 2, "\(lines)")
    #expect(lines[1] == "practice play \(song) --select riff --db \(dir.file("lib.sqlite"))")
    // Run back through bash with `practice` a function that prints its arguments.
    let words = try Shell.run(
      #"practice() { printf '%s\n' "$@"; }; eval "$1""#, arguments: [lines[0]],
      environment: ["PATH": "/usr/bin:/bin"], directory: dir.path)
    #expect(
      words.split(separator: "\n").map(String.init)
        == ["play", odd, "--select", "it's `x`", "--db", dir.file("lib.sqlite")], "\(words)")
    // --save keeps the same drills, in the same order, as a setlist (a routine).
    let saved = try cli.run(["today", "--save", "tonight"])
    #expect(
      saved.status == 0 && saved.stderrLines.first == "saved 2 drills as setlist 'tonight'",
      "\(saved.stderr)")
    let routine = try cli.run(["setlist", "show", "tonight"]).stdout.split(separator: "\n")
      .map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    #expect(routine.map { String($0[3]) } == ["it's `x`", "riff"], "\(routine)")
    #expect(try cli.run(["today", "--save", "tonight"]).status == 0)
    #expect(try cli.run(["setlist", "list"]).stdout.split(separator: "\n").count == 1)
  }

  /// `today` says on stderr, before each command, why the drill is there and how far it is
  /// from its goal: the best clean pass and how many, the flubbed, when it was last played.
  @Test func todaySaysWhyAndHowFar() throws {
    let cli = try library()
    #expect(try cli.run(["select", "add", song, "riff", "--bars", "2-3"]).status == 0)
    #expect(try cli.run(["select", "add", song, "fresh", "--from", "1", "--to", "2.5"]).status == 0)
    #expect(try cli.run(["select", "set", song, "riff", "--goal", "100%"]).status == 0)
    #expect(try cli.run(["select", "set", song, "fresh", "--goal", "90%"]).status == 0)
    let played = try cli.run([
      "play", song, "--select", "riff", "--speed", "85%", "--repeat", "4", "--device", "null",
    ])
    #expect(played.status == 0, "\(played.stderr)")
    // Marks as the keys g and x leave them: passes 1 and 2 clean at 85 %, 3 flubbed, 4 not
    // marked; the play four days back.
    let marked = try runProgram(
      "/usr/bin/python3",
      [
        "-c",
        """
        import sqlite3, sys, datetime
        db = sqlite3.connect(sys.argv[1])
        db.execute("UPDATE practice_pass SET mark = 'clean' WHERE pass <= 2")
        db.execute("UPDATE practice_pass SET mark = 'flubbed' WHERE pass = 3")
        then = (datetime.datetime.utcnow() - datetime.timedelta(days=4)).strftime('%Y-%m-%dT%H:%M:%SZ')
        db.execute("UPDATE practice_log SET started_at = ?, ended_at = ?", (then, then))
        db.commit()
        """,
        cli.database,
      ],
      environment: [:], directory: dir.path, scratch: dir.path)
    try #require(marked.status == 0, "\(marked.stderr)")
    let today = try cli.run(["today"])
    #expect(today.status == 0, "\(today.stderr)")
    #expect(
      today.stderrLines == [
        "fresh (0:01.0–0:02.5): no clean pass yet toward the 90% goal; never played",
        "riff (bars 2-3): best clean 85% (2 passes) of the 100% goal, 1 flubbed; last played 4 days ago",
      ], "\(today.stderr)")
    #expect(
      today.stdout == "practice play \(song) --select fresh\npractice play \(song) --select riff\n")
  }

  /// `stats` of plays on the null PCM (no audible clock) shows passes with HEARD 0:00 and
  /// says why under the table, once; a play heard nowhere else has no such line.
  @Test func statsSaysWhyPassesWereNotHeard() throws {
    let cli = try library()
    #expect(try cli.run(["select", "add", song, "riff", "--bars", "2"]).status == 0)
    #expect(try cli.run(["select", "set", song, "riff", "--goal", "100%"]).status == 0)
    #expect(try cli.run(["stats"]).stderrLines == ["no plays in the practice log yet"])
    let played = try cli.run(["play", song, "--select", "riff", "--repeat", "2", "--device", "null"])
    #expect(played.status == 0, "\(played.stderr)")
    let stats = try cli.run(["stats"])
    #expect(stats.status == 0)
    let row = stats.stdout.split(separator: "\t").map(String.init)
    #expect(row[3] == "2" && row[4] == "0:00", "\(stats.stdout)")
    #expect(
      stats.stderrLines == [
"HEARD 0:00: marked passes on --device null count toward goals, time does not"], "\(stats.stderr)")
    #expect(try cli.run(["stats", "--json"]).stderr.isEmpty)
    // Played and never marked: `today` says what reaches a goal.
    #expect(
      try cli.run(["today"]).stderrLines.last
        == "a goal is reached by a pass marked clean: press g while a clean pass plays (x: flubbed)")
  }
}
