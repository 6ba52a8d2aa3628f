import Foundation
import TestSupport
import Testing

/// Issue 46's scenarios that need a terminal and real time (run alone, `--no-parallel`):
/// 2, passes credited to the part that was playing when they ended; 7, the narrow status
/// line keeps the transpose. The others are in `HonestBooksTests`.
@Suite(.serialized) struct HonestBooksLiveTests {
  let dir = TemporaryDirectory()
  let song = CLI.fixture("clicks-120.wav")

  func json(_ cli: CLI, _ arguments: [String]) throws -> [[String: Any]] {
    try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(arguments).stdout.utf8))
        as? [[String: Any]])
  }

  /// 2. `play --bars 7-8 --loop`, a pass there, then `3` (the solo) and `x`: the flubbed
  /// pass is the solo's, in the log and towards its goal; bars 7-8 keep the pass that
  /// ended in them.
  @Test func scenario2PassesBelongToThePartPlayingWhenTheyEnded() throws {
    let cli = CLI(database: dir.file("lib.sqlite"))
    try #require(cli.run(["beats", "import", song, CLI.fixture("clicks-120.beats")]).status == 0)
    for (name, bars) in [("verse", "1-2"), ("chorus", "3-4"), ("solo", "5-6")] {
      try #require(cli.run(["select", "add", song, name, "--bars", bars]).status == 0)
    }
    try #require(cli.run(["select", "set", song, "solo", "--goal", "100%"]).status == 0)
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(
      dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["play", song, "--bars", "7-8", "--loop", "--no-screen", "--device", "pulse"])
    func passShown(_ screen: String) -> Int? {
      screen.firstMatch(of: #/pass (\d+)/∞/#).flatMap { Int($0.1) }
    }
    // Pass 1 (4 s) ends in bars 7-8; in pass 2 the solo is chosen and, a second in, flubbed.
    _ = try tmux.waitFor { (passShown($0) ?? 0) >= 2 }
    tmux.send("3")
    _ = try tmux.waitFor { $0.contains("'solo'") }
    usleep(1_000_000)
    tmux.send("x")
    let marked = try tmux.waitFor { $0.contains(": flubbed") }
    let pass = try #require(marked.firstMatch(of: #/pass (\d+): flubbed/#).flatMap { Int($0.1) })
    // The marked pass ends in the solo before the play is stopped.
    _ = try tmux.waitFor { (passShown($0) ?? 0) > pass }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    // The status line gone, the terminal is told what was logged: a line for each part.
    let told = tmux.screen()
    #expect(told.contains(#/logged bars 7-8: \d+ pass(es)? at 100%, 0:\d\d heard/#), "\(told)")
    #expect(
      told.contains(#/logged bars 5-6 'solo': \d+ pass(es)? \(1 flubbed\) at 100%, 0:\d\d heard/#),
      "\(told)")

    let rows = try json(cli, ["log", "--json"])
    try #require(rows.count == 2, "\(rows)")
    #expect(rows[0]["bars"] as? String == "7-8" && rows[0]["selection"] is NSNull, "\(rows)")
    #expect((rows[0]["passes"] as? Int ?? 0) >= 1, "\(rows)")
    #expect(rows[0]["outcome"] as? String == "stopped")
    #expect(rows[1]["selection"] as? String == "solo" && rows[1]["bars"] as? String == "5-6")
    #expect((rows[1]["passes"] as? Int ?? 0) >= 1 && rows[1]["outcome"] as? String == "stopped")
    let passes = try json(cli, ["log", "--passes", "--json"])
    let flubbed = passes.filter { $0["mark"] as? String == "flubbed" }
    #expect(flubbed.count == 1 && flubbed.first?["selection"] as? String == "solo", "\(passes)")
    #expect(flubbed.first?["pass"] as? Int == pass)
    // Towards the solo's goal: one flubbed pass of it; none for the bars.
    let totals = try json(cli, ["stats", "--json"])
    let soloTotal = totals.first { $0["selection"] as? String == "solo" }
    #expect(soloTotal?["flubbed_passes"] as? Int == 1, "\(totals)")
    #expect(totals.first { $0["selection"] is NSNull }?["flubbed_passes"] as? Int == 0)
  }

  /// A pass marked clean and then stopped part-way (`g`, then `q`) is one clean pass: the
  /// musician judged it. It used to log "0 passes (1 clean)".
  @Test func aPassMarkedCleanThenStoppedCountsOnce() throws {
    let cli = CLI(database: dir.file("lib.sqlite"))
    try #require(cli.run(["beats", "import", song, CLI.fixture("clicks-120.beats")]).status == 0)
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(
      dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["play", song, "--bars", "1-4", "--loop", "--no-screen", "--device", "pulse"])
    // Pass 1 is 8 s long: a second in, it is marked clean, and the play stopped.
    _ = try tmux.waitFor { $0.contains(#/pass 1/∞/#) }
    usleep(1_000_000)
    tmux.send("g")
    _ = try tmux.waitFor { $0.contains(": clean") }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    let told = tmux.screen()
    #expect(told.contains(#/logged bars 1-4: 1 pass \(1 clean\) at 100%/#), "\(told)")
    let rows = try json(cli, ["log", "--json"])
    #expect(rows.count == 1 && rows.first?["passes"] as? Int == 1, "\(rows)")
    let totals = try json(cli, ["stats", "--json"])
    #expect(totals.first?["clean_passes"] as? Int == 1, "\(totals)")
  }

  /// 7. At 60 columns the status line takes its short form, and keeps the transpose.
  @Test func scenario7TheNarrowStatusLineKeepsTheTranspose() throws {
    let cli = CLI(database: dir.file("lib.sqlite"))
    try #require(cli.run(["beats", "import", song, CLI.fixture("clicks-120.beats")]).status == 0)
    let tmux = try Tmux(dir: dir, environment: cli.environment)
    defer {
      tmux.signalPractice("KILL")
      tmux.kill()
    }
    try tmux.start(
      ["play", song, "--bars", "1", "--loop", "--transpose", "-2", "--no-screen", "--device", "null"],
      width: 60)
    let screen = try tmux.waitFor { $0.contains(#/pass \d+/∞ 100% -2 st /#) }
    #expect(!screen.contains(" · "), "the short form: \(screen)")
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
  }
}
