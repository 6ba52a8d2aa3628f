import Foundation
import Testing
import TestSupport

/// `practice setlist play`: entries in order through ALSA's null PCM (faster than real
/// time), each logged as a play; keys in a tmux pane.
@Suite struct SetlistPlayTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// clicks-120 (song 1, with its beat map and a selection 'riff', bars 2-3) and
  /// sine-440 (song 2, no beat map), in a setlist 'gig' of the entries `adds`.
  func gig(_ adds: [[String]]) throws {
    let clicks = CLI.fixture("clicks-120.wav")
    for arguments in [
      ["beats", "import", clicks, CLI.fixture("clicks-120.beats")],
      ["add", CLI.fixture("sine-440.wav")],
      ["select", "add", clicks, "riff", "--bars", "2-3"],
      ["setlist", "new", "gig"],
    ] + adds.map({ ["setlist", "add", "gig"] + $0 }) {
      let result = try cli.run(arguments)
      try #require(result.status == 0, "\(arguments): \(result.stderr)")
    }
  }

  /// The log as `log --json` prints it, oldest first.
  func plays() throws -> [[String: Any]] {
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["log", "--json"]).stdout.utf8))
        as? [[String: Any]])
    return json.sorted { ($0["id"] as? Int ?? 0) < ($1["id"] as? Int ?? 0) }
  }

  func date(_ value: Any?) -> Date? {
    (value as? String).flatMap { ISO8601DateFormatter().date(from: $0) }
  }

  @Test func entriesPlayInOrderWithTheirOverridesAndAreLogged() throws {
    try gig([
      ["1", "--select", "riff", "--speed", "80%", "--transpose", "2", "--repeat", "2"],
      ["2"],
      ["1", "--speed", "150%"],
    ])
    let result = try cli.run(["setlist", "play", "gig", "--device", "null", "--pause", "1.2s"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stderr.split(separator: "\n").map(String.init)
    let headings = lines.filter { $0.hasPrefix("1/3") || $0.hasPrefix("2/3") || $0.hasPrefix("3/3") }
    #expect(headings == ["1/3 'clicks-120' — riff", "2/3 'sine-440'", "3/3 'clicks-120'"])
    #expect(lines.contains { $0.hasPrefix("playing 'clicks-120' selection 'riff'") && $0.contains("2 passes, speed 80%, transpose +2") })
    #expect(lines.filter { $0.hasPrefix("pause 1.2 s before ") }.count == 2)
    #expect(lines.last == "setlist 'gig': played 3 entries")
    let log = try plays()
    try #require(log.count == 3)
    #expect(log.map { $0["song_id"] as? Int } == [1, 2, 1])
    #expect(log[0]["selection"] as? String == "riff" && log[0]["passes"] as? Int == 2)
    #expect(log[0]["speed_min"] as? Double == 0.8 && log[2]["speed_max"] as? Double == 1.5)
    #expect(log[1]["selection"] is NSNull && log[1]["speed_min"] as? Double == 1)
    #expect(log.allSatisfy { $0["outcome"] as? String == "completed" })
    #expect(log.map { $0["transpose"] as? Double } == [2, 0, 0])
    // The pause sits between one entry's end and the next one's start (loosely: the log
    // keeps whole seconds).
    for (before, after) in zip(log, log.dropFirst()) {
      let gap = try #require(date(after["started_at"])).timeIntervalSince(try #require(date(before["ended_at"])))
      #expect(gap >= 0 && gap <= 4, "\(gap)")
    }
    let ends = try log.map { try #require(date($0["ended_at"])) }
    #expect(ends[2].timeIntervalSince(ends[0]) >= 1.5)
  }

  /// An entry's `--key` is a transposition from the song's own key, and it is what plays:
  /// in the `playing` line, in the log, and in the sound (440 Hz up a whole tone).
  @Test func anEntrysKeyTransposesThePlay() throws {
    try gig([])
    #expect(try cli.run(["set", "2", "--key", "A"]).status == 0)
    #expect(try cli.run(["setlist", "add", "gig", "2", "--key", "B"]).status == 0)
    let out = dir.file("heard.wav")
    let result = try cli.run([
      "setlist", "play", "gig", "--device", "file:FILE=\(out),FORMAT=wav",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("transpose +2"), "\(result.stderr)")
    #expect(try plays().map { $0["transpose"] as? Double } == [2])
    let (info, stereo) = try Synth.read(out)
    let left = stride(from: 0, to: stereo.count, by: info.channels).map { stereo[$0] }
    try #require(left.count > 44100)
    let measured = try #require(zeroCrossingFrequency(left[22050..<44100], sampleRate: Double(info.sampleRate)))
    #expect(abs(measured - 440 * pow(2, 2.0 / 12)) < 2, "\(measured) Hz")
  }

  @Test func fromStartsAtAnEntryAndWaitGoesOnAtTheEndOfInput() throws {
    try gig([["2"], ["1", "--repeat", "2"], ["2", "--speed", "90%"]])
    // stdin is /dev/null: --wait goes on at once.
    let result = try cli.run(["setlist", "play", "gig", "--from", "2", "--wait", "--device", "null"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("waiting for a key before 3/3"))
    #expect(!result.stderr.contains("1/3"))
    #expect(try plays().map { $0["song_id"] as? Int } == [1, 2])
    #expect(try plays().last?["speed_min"] as? Double == 0.9)
    for (arguments, says) in [
      (["--from", "4"], "setlist 'gig' has 3 entries"),
      (["--from", "0"], "--from 0: positions count from 1"),
      (["--from", "two"], "--from two: positions count from 1"),
      (["--pause", "soon"], "--pause soon: not a time"),
      (["--pause", "2s", "--wait"], "cannot be combined"),
    ] {
      let refused = try cli.run(["setlist", "play", "gig", "--device", "null"] + arguments)
      #expect(refused.status == 64, "\(arguments): \(refused.stderr)")
      #expect(refused.stderr.contains(says), "\(refused.stderr)")
    }
    #expect(try plays().count == 2)
  }

  /// A selection kept with `--loop` plays until a key moves on; with no keys read
  /// (`setlist play gig </dev/null`, a script) it never did, and only a signal, which
  /// stops the whole setlist, ended it. It plays as it would without the loop (once; a
  /// drill up to its target), one line says so, and the setlist goes on. A hang is killed
  /// after 60 s (status 137).
  @Test func aLoopedEntryWithoutKeysPlaysOnceAndTheSetlistGoesOn() throws {
    try gig([])
    for arguments in [
      ["select", "set", CLI.fixture("clicks-120.wav"), "riff", "--loop"],
      ["select", "add", CLI.fixture("clicks-120.wav"), "lick", "--bars", "4"],
      ["select", "set", CLI.fixture("clicks-120.wav"), "lick", "--loop", "--speed", "80%",
        "--ramp-to", "100%", "--step", "10%"],
      ["setlist", "add", "gig", "1", "--select", "riff"],
      ["setlist", "add", "gig", "1", "--select", "lick"], ["setlist", "add", "gig", "2"],
    ] {
      let result = try cli.run(arguments)
      try #require(result.status == 0, "\(arguments): \(result.stderr)")
    }
    let result = try runProgram(
      "/usr/bin/timeout",
      ["-s", "KILL", "60", CLI.binary, "setlist", "play", "gig", "--device", "null"],
      environment: cli.environment, directory: dir.path, scratch: dir.path)
    #expect(result.status == 0, "\(result.status) \(result.stderr)")
    let warnings = result.stderrLines.filter { $0.hasPrefix("practice: warning: ") }
    #expect(
      warnings == [
        "practice: warning: 'clicks-120': the entry loops until n moves on, and no keys are read "
          + "(stdin is not a terminal, or --no-keys): it plays once instead; to loop it here, "
          + "give the entry passes (`setlist add … --repeat N`)",
        "practice: warning: 'clicks-120': the entry loops until n moves on, and no keys are read "
          + "(stdin is not a terminal, or --no-keys): it plays its drill (3 passes) instead; "
          + "to loop it here, give the entry passes (`setlist add … --repeat N`)",
      ], "\(result.stderr)")
    #expect(result.stderrLines.last == "setlist 'gig': played 3 entries")
    let log = try plays()
    #expect(log.map { $0["passes"] as? Int } == [1, 3, 1], "\(log)")
    #expect(log.allSatisfy { $0["outcome"] as? String == "completed" })
  }

  @Test func anEntryThatCannotPlayIsSkippedWithOneLine() throws {
    let gone = dir.file("gone.wav")
    try FileManager.default.copyItem(atPath: CLI.fixture("chord.wav"), toPath: gone)
    try #require(try cli.run(["add", gone]).status == 0)  // song 1
    try gig([["1"], ["3"], ["2"]])  // clicks-120 is song 2, sine-440 song 3
    try FileManager.default.removeItem(atPath: gone)
    // A count-in needs a beat map: sine-440 has none (and none is detected mid-setlist).
    let result = try cli.run(["setlist", "play", "gig", "--device", "null", "--count-in", "1"])
    #expect(result.status == 66, "\(result.stderr)")
    let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("practice: warning: ") }
    #expect(warnings.count == 2)
    #expect(warnings.first?.contains("1/3 'gone': the file of song 1 'gone' is missing") == true)
    #expect(warnings.last?.contains("2/3 'sine-440': 'sine-440' has no beat map") == true)
    #expect(result.stderr.hasSuffix(
      "practice: setlist 'gig': 2 of the entries could not be played (1, 2); the warnings above say why\n"))
    #expect(try plays().map { $0["song_id"] as? Int } == [2])
  }

  /// n, p and q at a terminal (tmux), the entries long enough never to end on their own.
  @Test func keysGoToTheNextAndPreviousEntry() throws {
    try gig([["1", "--repeat", "999"], ["2", "--repeat", "999"]])
    let tmux = try Tmux(dir: dir, environment: cli.environment)
    defer { tmux.kill() }
    try tmux.start(["setlist", "play", "gig", "--device", "null", "--pause", "30s"])
    _ = try tmux.waitFor { $0.contains("1/2 'clicks-120' · ") }
    tmux.send("n")
    _ = try tmux.waitFor { $0.contains("2/2 'sine-440' · ") }
    tmux.send("p")
    _ = try tmux.waitFor { $0.contains("1/2 'clicks-120' · ") }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(tmux.terminalRestored)
    let log = try plays()
    #expect(log.map { $0["song_id"] as? Int } == [1, 2, 1])
    #expect(log.allSatisfy { $0["outcome"] as? String == "stopped" })
  }

  @Test func ctrlCStopsTheSetlistAndLogsTheEntryInterrupted() throws {
    try gig([["1", "--repeat", "999"], ["2"]])
    let running = try cli.start(["setlist", "play", "gig", "--device", "null"])
    usleep(2_000_000)  // past the setup, into the engine's session (which hears SIGINT)
    kill(running.process.processIdentifier, SIGINT)
    let result = try running.finish()
    #expect(result.status == 130, "\(result.stderr)")
    #expect(!result.stderr.contains("2/2"))
    #expect(try plays().map { $0["outcome"] as? String } == ["interrupted"])
  }
}
