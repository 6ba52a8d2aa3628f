import Foundation
import TestSupport
import Testing

/// `practice log` and `practice stats`, fed by real plays through ALSA's null PCM.
@Suite struct LogTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  @Test func everyPlayIsLoggedAndSummed() throws {
    #expect(
      try cli.run([
        "beats", "import", CLI.fixture("clicks-120.wav"), CLI.fixture("clicks-120.beats"),
      ]).status == 0)
    #expect(
      try cli.run(["select", "add", CLI.fixture("clicks-120.wav"), "riff", "--bars", "2"]).status
        == 0)
    let plays = [
      [
        "--select", "riff", "--repeat", "2", "--speed", "80%", "--ramp-to", "90%", "--step", "10%",
        "--every", "1",
      ],
      ["--bars", "1", "--speed", "150%"],
      ["--from", "0", "--to", "0.5"],
    ]
    let clock = ContinuousClock()
    let started = clock.now
    for extra in plays {
      let result = try cli.run(["play", CLI.fixture("clicks-120.wav"), "--device", "null"] + extra)
      #expect(result.status == 0, "\(result.stderr)")
    }
    let wall = clock.now - started

    let lines = try cli.run(["log"]).stdout.split(separator: "\n").map {
      $0.split(separator: "\t").map(String.init)
    }
    try #require(lines.count == 3)
    // The null PCM takes audio faster than real time: the time heard is the real time that
    // passed, not the 4.7 s and 1.3 s of audio played (checked below against the clock).
    #expect(
      lines[0][1...4] + lines[0][6...] == [
        "clicks-120", "bar 2 'riff'", "2 passes", "80%-90%", "completed",
      ])
    #expect(
      lines[1][1...4] + lines[1][6...] == ["clicks-120", "bar 1", "1 pass", "150%", "completed"])
    #expect(
      lines[2][1...] == ["clicks-120", "0:00.0–0:00.5", "1 pass", "100%", "0:00", "completed"])

    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["log", "--json"]).stdout.utf8))
        as? [[String: Any]])
    #expect(json.count == 3)
    #expect(
      Set(json[0].keys) == [
        "id", "song_id", "song", "selection", "bars", "start_frame", "end_frame", "speed_min",
        "speed_max", "transpose",
        "passes", "started_at", "ended_at", "duration", "outcome", "played",
      ])
    #expect(json[0]["selection"] as? String == "riff")
    #expect(json[0]["start_frame"] as? Int == 110250 && json[0]["end_frame"] as? Int == 198450)
    #expect(abs((json[0]["played"] as? Double ?? 0) - (2 / 0.8 + 2 / 0.9)) < 0.01)
    let heard = json.map { $0["duration"] as? Double ?? -1 }
    #expect(heard.allSatisfy { $0 >= 0 }, "\(heard)")
    #expect(Duration.seconds(heard.reduce(0, +)) <= wall, "\(heard) heard in \(wall)")

    // Per song and selection: the selection's plays, and the plays of no selection.
    let stats = try cli.run(["stats"]).stdout.split(separator: "\n").map {
      $0.split(separator: "\t").map(String.init)
    }
    #expect(stats.count == 2)
    #expect(stats[0].prefix(4) + stats[0][5...5] == ["clicks-120", "-", "2", "2", "150%"])
    #expect(stats[1].prefix(4) + stats[1][5...5] == ["clicks-120", "riff", "1", "2", "90%"])
    // No pass was marked: no clean speed, no ratio, no goal; the null PCM has no audible
    // clock, so no day in a row (issue 46).
    #expect(stats[1].suffix(5) == ["-", "-", "-", "-", "0"])
    let statsJSON = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["stats", "--json"]).stdout.utf8))
        as? [[String: Any]])
    #expect(
      Set(statsJSON[0].keys) == [
        "song_id", "song", "selection", "plays", "passes", "seconds", "fastest", "transposes",
        "last_played",
        "clean_speed", "clean_passes", "flubbed_passes", "clean_ratio", "goal", "goal_speed",
        "distance", "goal_reached", "streak_days",
      ])

    // --since: a span back from now, or a date.
    #expect(try cli.run(["log", "--since", "1h"]).stdout.split(separator: "\n").count == 3)
    #expect(try cli.run(["log", "--since", "2999-01-01"]).stdout.isEmpty)
    #expect(
      try cli.run(["log", CLI.fixture("clicks-120.wav"), "--since", "7d"]).stdout.split(
        separator: "\n"
      ).count == 3)
  }

  @Test func badSinceIsAUsageError() throws {
    let result = try cli.run(["log", "--since", "yesterday"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("--since"))
  }

  /// A play stopped with `q` part-way through a pass logs the passes played to their end,
  /// not the pass it was stopped in.
  @Test func aStoppedPlayLogsThePassesItCompleted() throws {
    let tmux = try Tmux(dir: dir, environment: cli.environment)
    // On a failure, end the play itself too: at full speed its status line can keep the
    // tmux server too busy to heed kill-server.
    defer {
      tmux.signalPractice("KILL")
      tmux.kill()
    }
    // A one-second range, looped: pass k ends after k × 44100 frames.
    try tmux.start([
      "play", CLI.fixture("clicks-120.wav"), "--from", "1", "--to", "2", "--loop", "--device",
      "null",
    ])
    // The null PCM takes audio as fast as it comes: wait for any pass after the first.
    _ = try tmux.waitFor { $0.contains(#/pass ([2-9]|[1-9][0-9]+)\/∞/#) }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["log", "--json"]).stdout.utf8))
        as? [[String: Any]])
    try #require(json.count == 1)
    #expect(json[0]["outcome"] as? String == "stopped")
    let frames = Int(((json[0]["played"] as? Double ?? -1) * 44100).rounded())
    let passes = try #require(json[0]["passes"] as? Int)
    #expect(frames >= 44100, "stopped in pass 2 or later: \(frames) frames")
    #expect(passes == frames / 44100, "\(passes) passes logged for \(frames) frames played")
  }

  @Test func anInterruptedPlayIsLoggedAsSuch() throws {
    let started = try cli.start([
      "play", CLI.fixture("clicks-120.wav"), "--loop", "--device", "null",
    ])
    // Signalled once the session runs (its second pass announced), not after a fixed
    // time that a loaded machine may not have reached it in.
    #expect(started.wait { started.stderrSoFar.contains("pass 2 ") })
    kill(started.process.processIdentifier, SIGINT)
    #expect(started.finish().status == 130)
    #expect(try cli.run(["log"]).stdout.hasSuffix("\tinterrupted\n"))
  }

  /// The transpose a play was made at is logged: after the speed in `log` and `log
  /// --passes`, as `transpose` in their JSON, and as `transposes` per row of `stats --json`.
  @Test func aTransposedPlayIsLoggedWithItsTranspose() throws {
    let song = CLI.fixture("clicks-120.wav")
    for extra in [["--transpose", "-2"], []] {
      let result = try cli.run(["play", song, "--device", "null", "--to", "0.5"] + extra)
      #expect(result.status == 0, "\(result.stderr)")
    }
    let lines = try cli.run(["log"]).stdout.split(separator: "\n").map {
      $0.split(separator: "\t").map(String.init)
    }
    try #require(lines.count == 2)
    #expect(lines[0][4] == "100% -2 st" && lines[1][4] == "100%", "\(lines)")
    let passes = try cli.run(["log", "--passes"]).stdout.split(separator: "\n").map {
      $0.split(separator: "\t").map(String.init)
    }
    #expect(passes.map { $0[4] } == ["100% -2 st", "100%"], "\(passes)")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["log", "--json"]).stdout.utf8))
        as? [[String: Any]])
    #expect(json.map { $0["transpose"] as? Double } == [-2, 0])
    let passesJSON = try #require(
      try JSONSerialization.jsonObject(
        with: Data(try cli.run(["log", "--passes", "--json"]).stdout.utf8)) as? [[String: Any]])
    #expect(passesJSON.map { $0["transpose"] as? Double } == [-2, 0])
    let stats = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["stats", "--json"]).stdout.utf8))
        as? [[String: Any]])
    #expect(stats.first?["transposes"] as? [Double] == [-2, 0], "\(stats)")
  }
}

extension LogTests {
  /// One recording added as m4a and as mp3 (`add song.m4a song.mp3`): their `log`,
  /// `log --passes` and `stats` rows say which file was played (`tune (m4a)`); a title no
  /// other song has stays alone. They read `tune` and `tune` before.
  @Test func rowsOfTwoFilesOfOneTitleSayWhichFile() throws {
    try Synth.write(Synth.sine(frequency: 440, seconds: 0.5), to: dir.file("tune.wav"))
    for name in ["tune.m4a", "tune.mp3"] {
      let made = try runProgram(
        "/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", dir.file("tune.wav"), dir.file(name)],
        environment: [:], directory: dir.path, scratch: dir.path)
      try #require(made.status == 0, "\(made.stderr)")
    }
    #expect(try cli.run(["add", dir.file("tune.m4a"), dir.file("tune.mp3")]).status == 0)
    for song in ["1", "2", CLI.fixture("clicks-120.wav")] {
      let played = try cli.run(["play", song, "--device", "null", "--to", "0.2"])
      #expect(played.status == 0, "\(played.stderr)")
    }
    let column = { (arguments: [String], index: Int) in
      try cli.run(arguments).stdout.split(separator: "\n").map {
        $0.components(separatedBy: "\t")[index]
      }
    }
    let songs = ["tune (m4a)", "tune (mp3)", "clicks-120"]
    #expect(try column(["log"], 1) == songs)
    #expect(try column(["log", "--passes"], 1) == songs)
    #expect(try column(["stats"], 0) == ["clicks-120", "tune (m4a)", "tune (mp3)"])
    // The data keeps the title as it is.
    #expect(try cli.run(["log", "--json"]).stdout.contains("\"song\":\"tune\""))
  }
}
