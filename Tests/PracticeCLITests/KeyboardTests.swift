import Foundation
import Testing
import TestSupport

/// `practice play` at a real terminal: tmux gives it a pseudo-terminal, sends the keys and
/// shows the screen; the private sound server plays and its monitor records what was heard.
@Suite(.serialized) struct KeyboardTests {
  let dir = TemporaryDirectory()

  /// A song with a beat map: clicks every 0.5 s (120 BPM, 4/4, 8 bars).
  func library() throws -> CLI {
    let cli = CLI(database: dir.file("lib.sqlite"))
    try #require(cli.run(["beats", "import", CLI.fixture("clicks-120.wav"), CLI.fixture("clicks-120.beats")]).status == 0)
    return cli
  }

  /// `play` of the clicks looped on the sound server, paused and back at the start (half a
  /// second before bar 1); the caller stops the server and kills tmux.
  func pausedAtTheStart(_ cli: CLI) throws -> (server: SoundServer, tmux: Tmux) {
    let server = try SoundServer(directory: dir.file("sound"))
    let tmux: Tmux
    do {
      tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    } catch {
      server.stop()
      throw error
    }
    do {
      try tmux.start(["play", CLI.fixture("clicks-120.wav"), "--loop", "--device", "pulse"])
      _ = try tmux.waitFor { $0.contains("bar 1.") }
      tmux.send("Space")
      _ = try tmux.waitFor { $0.contains("paused · bar ") }
      tmux.send("r")
      _ = try tmux.waitFor { $0.contains("paused · bar -/8") }
    } catch {
      tmux.kill()
      server.stop()
      throw error
    }
    return (server, tmux)
  }

  @Test func theStatusLineShowsWhereWeAreAndKeysSteerThePlay() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["play", CLI.fixture("clicks-120.wav"), "--bars", "2-3", "--loop", "--device", "pulse"], record: true)

    let first = try tmux.waitFor { $0.contains("pass 1/∞") }
    let pattern = #/bar [23]\.[1-4]/8 · pass 1/∞ · bars 2-3 · 100% · \+0 st · vol 100% · 0:0[2-6]/0:16/#
    #expect(first.contains(pattern), "\(first)")
    usleep(1_600_000)  // a few clicks at the first speed

    tmux.send("]", "]")
    _ = try tmux.waitFor { $0.contains("· 110% ·") }
    tmux.send("c")
    _ = try tmux.waitFor { $0.contains("· click ·") }
    tmux.send("-")
    _ = try tmux.waitFor { $0.contains("vol 90%") }
    tmux.send("<")
    _ = try tmux.waitFor { $0.contains("-1 st") }
    tmux.send(">")
    _ = try tmux.waitFor { $0.contains("+0 st") }
    usleep(1_500_000)
    tmux.send("l")
    _ = try tmux.waitFor { $0.contains(#/· bar [23] ·/#) }
    tmux.send("s")
    _ = try tmux.waitFor { $0.contains("save loop as:") }
    tmux.send("-l", "riff")
    tmux.send("Enter")
    _ = try tmux.waitFor { $0.contains("saved 'riff'") }
    tmux.send("q")
    let status = try tmux.waitForExit()
    #expect(status == 0)
    #expect(tmux.terminalRestored)

    // The loop was saved as a selection in bars, and the play was logged.
    let selections = try cli.run(["select", "list", CLI.fixture("clicks-120.wav")]).stdout
    #expect(selections.contains(#/riff\tbars? [23]/#), "\(selections)")
    let log = try cli.run(["log", "--json"]).stdout
    #expect(log.contains(#""speed_max":1.1"#), "\(log)")
    #expect(log.contains(#""outcome":"stopped""#), "\(log)")

    // What was heard: clicks 0.5 s apart at first, 0.4545 s apart after `]` `]`.
    let intervals = try tmux.heardClickIntervals()
    #expect(intervals.contains { abs($0 - 0.5) < 0.003 }, "\(intervals)")
    #expect(intervals.contains { abs($0 - 0.5 / 1.1) < 0.003 }, "\(intervals)")
  }

  @Test func seeksLoopsAndSelectionsFromKeys() throws {
    let cli = try library()
    #expect(try cli.run(["select", "add", CLI.fixture("clicks-120.wav"), "riff", "--bars", "5"]).status == 0)
    // Paused, every step lands where it should however late the keys arrive; from the
    // start, half a second before the first beat, one bar on is bar 1.
    let (server, tmux) = try pausedAtTheStart(cli)
    defer {
      tmux.kill()
      server.stop()
    }
    tmux.send(".")
    _ = try tmux.waitFor { $0.contains("paused · bar 1.1/8") }
    tmux.send(".", ".")
    _ = try tmux.waitFor { $0.contains("paused · bar 3.1/8") }
    tmux.send(",")
    _ = try tmux.waitFor { $0.contains("paused · bar 2.1/8") }
    tmux.send("Right")
    _ = try tmux.waitFor { $0.contains("paused · bar 2.2/8") }
    tmux.send("l")
    _ = try tmux.waitFor { $0.contains("· bar 2 ·") }
    tmux.send("l")
    _ = try tmux.waitFor { $0.contains("· bars 2-3 ·") }
    tmux.send("1")
    _ = try tmux.waitFor { $0.contains("paused · bar 5.1/8") && $0.contains("· 'riff' ·") }
    tmux.send("m")
    _ = try tmux.waitFor { $0.contains("· muted ·") }
    tmux.send("?")
    _ = try tmux.waitFor { $0.contains("keys: space pause") }
    tmux.send("Space")
    // Playing again, in the riff's loop (a loaded machine may be past its first pass by the
    // time the screen is read: any pass will do).
    _ = try tmux.waitFor { !$0.contains("paused") && $0.contains(#/bar 5\.[1-4]/8 · pass \d+/∞ · 'riff'/#) }
    tmux.send("Escape")
    #expect(try tmux.waitForExit() == 0)
    #expect(tmux.terminalRestored)
  }

  /// A selection's number key plays the selection's drill (`select set`), as `play --select`
  /// would: its speed (heard: the clicks 0.5 s / 0.7 apart), its repeats (the play ends after
  /// them), its transpose and its clicks, shown on the status line and kept in the log.
  @Test func aSelectionKeyPlaysTheSelectionsDrill() throws {
    let cli = try library()
    let song = CLI.fixture("clicks-120.wav")
    #expect(try cli.run(["select", "add", song, "solo", "--bars", "5-6"]).status == 0)
    #expect(
      try cli.run(["select", "set", song, "solo", "--speed", "70%", "--repeat", "2", "--transpose", "-2", "--click"])
        .status == 0)
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["play", song, "--no-screen", "--device", "pulse"], record: true)
    let before = try tmux.waitFor { $0.contains("bar 1.") }
    #expect(before.contains(#/pass 1/1 · [^·]+ · 100% · \+0 st · vol 100% · 0:/#), "\(before)")
    usleep(1_000_000)
    tmux.send("1")
    // The pass playing goes on as the drill's first of two: the play ends after the second.
    let drill = try tmux.waitFor { $0.contains("· 'solo' ·") }
    #expect(drill.contains(#/pass 1/2 · 'solo' · 70% · -2 st · vol 100% · click/#), "\(drill)")
    _ = try tmux.waitFor { $0.contains(#/bar [56]\.[1-4]/8 · pass 2/2 · 'solo'/#) }
    #expect(try tmux.waitForExit() == 0)
    #expect(tmux.terminalRestored)

    let rows = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["log", "--json"]).stdout.utf8))
        as? [[String: Any]])
    // One row: no pass ended before the key, so the whole song's part gives its time to the
    // solo, whose first pass began at 100 % (its slowest is the drill's 70 %).
    let solo = try #require(rows.count == 1 ? rows.first : nil, "\(rows)")
    #expect(solo["selection"] as? String == "solo" && solo["passes"] as? Int == 2, "\(rows)")
    #expect(solo["speed_min"] as? Double == 0.7 && solo["transpose"] as? Double == -2, "\(rows)")
    // Its fastest is the drill's too: the 100 % heard before the key was not the solo's.
    #expect(solo["speed_max"] as? Double == 0.7, "\(rows)")
    #expect(solo["outcome"] as? String == "completed", "\(rows)")
    // Heard at 70 %: the clicks 0.714 s apart, after 0.5 s apart before the key.
    let intervals = try tmux.heardClickIntervals()
    #expect(intervals.contains { abs($0 - 0.5) < 0.003 }, "\(intervals)")
    #expect(intervals.filter { abs($0 - 0.5 / 0.7) < 0.004 }.count >= 4, "\(intervals)")
  }

  /// A selection's drill with a count-in and a speed trainer, started from its key: the
  /// count-in sounds first (as with `play --select`), the status line shows each step's
  /// speed (70 %, 75 %, 80 %: not the first one throughout), and the log row's speeds are
  /// the drill's alone (not the 100 % heard before the key).
  @Test func aSelectionKeyPlaysTheDrillsCountInAndShowsEachStep() throws {
    let cli = try library()
    let song = CLI.fixture("clicks-120.wav")
    #expect(try cli.run(["select", "add", song, "solo", "--bars", "5"]).status == 0)
    let settings = [
      "--speed", "70%", "--ramp-to", "80%", "--step", "5%", "--repeat", "3", "--count-in", "1",
    ]
    #expect(try cli.run(["select", "set", song, "solo"] + settings).status == 0)
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["play", song, "--no-screen", "--device", "pulse"], height: 16)
    _ = try tmux.waitFor { $0.contains("bar 1.") }
    // The keys, a line each (their newlines once showed as `\x0a`).
    tmux.send("?")
    let keys = try tmux.waitFor { $0.contains("keys: space pause") }
    #expect(!keys.contains("\\x0a"), "\(keys)")
    #expect(keys.split(separator: "\n").contains { $0.hasPrefix("      ") && $0.contains("q/Esc stop") })
    tmux.send("1")
    _ = try tmux.waitFor { $0.contains("count-in · 'solo' · 70%") }
    _ = try tmux.waitFor { $0.contains("pass 1/3 · 'solo' · 70%") }
    _ = try tmux.waitFor { $0.contains("pass 2/3 · 'solo' · 75%") }
    _ = try tmux.waitFor { $0.contains("pass 3/3 · 'solo' · 80%") }
    #expect(try tmux.waitForExit() == 0)
    #expect(tmux.terminalRestored)

    let rows = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["log", "--json"]).stdout.utf8))
        as? [[String: Any]])
    let solo = try #require(rows.count == 1 ? rows.first : nil, "\(rows)")
    #expect(solo["selection"] as? String == "solo" && solo["passes"] as? Int == 3, "\(rows)")
    #expect(solo["speed_min"] as? Double == 0.7 && solo["speed_max"] as? Double == 0.8, "\(rows)")
  }

  /// A selection's key pressed while paused: the drill waits at its count-in (the status
  /// line says so, not "pass 1"), and the count-in sounds when the play resumes: its four
  /// clicks then the two passes of bar 5, all 0.714 s apart at 70 % (the first downbeat's
  /// attack whole, as after `play --select`'s count-in).
  @Test func aSelectionKeyWhilePausedPlaysTheCountInOnResume() throws {
    let cli = try library()
    let song = CLI.fixture("clicks-120.wav")
    #expect(try cli.run(["select", "add", song, "solo", "--bars", "5"]).status == 0)
    let settings = ["--speed", "70%", "--repeat", "2", "--count-in", "1"]
    #expect(try cli.run(["select", "set", song, "solo"] + settings).status == 0)
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["play", song, "--no-screen", "--device", "pulse"], record: true)
    _ = try tmux.waitFor { $0.contains("bar 1.") }
    tmux.send("Space")
    _ = try tmux.waitFor { $0.contains("paused · bar ") }
    tmux.send("1")
    let waiting = try tmux.waitFor { $0.contains("· count-in · 'solo' · 70%") }
    #expect(waiting.contains("paused · bar "), "\(waiting)")
    usleep(500_000)
    #expect(!tmux.screen().contains("pass 1/2 · 'solo'"), "\(tmux.screen())")
    tmux.send("Space")
    _ = try tmux.waitFor { $0.contains("pass 2/2 · 'solo' · 70%") }
    #expect(try tmux.waitForExit() == 0)
    #expect(tmux.terminalRestored)
    let intervals = try tmux.heardClickIntervals()
    #expect(intervals.filter { abs($0 - 0.5 / 0.7) < 0.004 }.count >= 10, "\(intervals)")
    let rows = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["log", "--json"]).stdout.utf8))
        as? [[String: Any]])
    let solo = try #require(rows.last, "\(rows)")
    #expect(solo["selection"] as? String == "solo" && solo["passes"] as? Int == 2, "\(rows)")
  }

  /// `d`, `)`, `*` and `u` fix the stored beat map where the music is: each is said on the
  /// status line, the bars and selections follow, and `beats undo` takes the last one back.
  @Test func mapFixKeysChangeTheStoredMap() throws {
    let cli = try library()
    let song = CLI.fixture("clicks-120.wav")
    #expect(try cli.run(["select", "add", song, "riff", "--bars", "5"]).status == 0)
    let original = try cli.run(["beats", "export", song]).stdout
    let (server, tmux) = try pausedAtTheStart(cli)
    defer {
      tmux.kill()
      server.stop()
    }
    tmux.send(".")
    _ = try tmux.waitFor { $0.contains("paused · bar 1.1/8") }
    tmux.send("Right", "Right")
    _ = try tmux.waitFor { $0.contains("paused · bar 1.3/8") }
    // Beat 1.3 heard is a downbeat: 1.1 and 1.2 become the pickup, bar 5 is 4.3-5.2 now.
    tmux.send("d")
    _ = try tmux.waitFor { $0.contains("bar 1 starts here: bars 0-8 (0 is the pickup) · 1 selection renamed · u undoes") }
    _ = try tmux.waitFor { $0.contains("paused · bar 1.1/8") }
    #expect(try cli.run(["select", "show", song, "riff"]).stdout.contains("span bars 4.3-5.2 (0:08.5–0:10.5)"))
    tmux.send("u")
    _ = try tmux.waitFor { $0.contains("undid `key d while playing`: bars 1-8 again") }
    #expect(try cli.run(["select", "show", song, "riff"]).stdout.contains("span bar 5 (0:08.5–0:10.5)"))
    #expect(try cli.run(["beats", "export", song]).stdout == original)
    tmux.send("*")
    _ = try tmux.waitFor { $0.contains("twice the beats from here: bars 1-16 · 1 selection renamed · u undoes") }
    tmux.send("u")
    _ = try tmux.waitFor { $0.contains("undid `key * while playing`: bars 1-8 again") }
    tmux.send(")")
    _ = try tmux.waitFor { $0.contains("beats 10 ms later · u undoes") }
    tmux.send("(")
    _ = try tmux.waitFor { $0.contains("beats 10 ms earlier · u undoes") }
    tmux.send("u")
    _ = try tmux.waitFor { $0.contains("undid `key ( while playing`") }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(tmux.terminalRestored)
    // Every beat 441 frames later, the bars as they were; `beats undo` takes it back.
    let shifted = try cli.run(["beats", "export", song, "--format", "mirex"]).stdout
    #expect(shifted.hasPrefix("0.510000000\t1\n1.010000000\t2\n"), "\(shifted.prefix(60))")
    let undo = try cli.run(["beats", "undo", song])
    #expect(undo.stderrLines.first?.contains("undid `key ) while playing`") == true, "\(undo.stderr)")
    #expect(try cli.run(["beats", "export", song]).stdout == original)
  }

  /// `F`, `C`, `L`/`R`/`M` on a stereo song (440 Hz left, 1 kHz right): each shows on the
  /// status line, and what was heard changed with them.
  /// The keys the other tests do not press step by what the `?` overlay says: shift-→ and
  /// shift-← a bar, `{` and `}` one point of speed, `_` and `=` ten of volume.
  @Test func everyStepKeyStepsByItsAmount() throws {
    let cli = try library()
    let (server, tmux) = try pausedAtTheStart(cli)
    defer {
      tmux.kill()
      server.stop()
    }
    tmux.send("S-Right", "S-Right")
    _ = try tmux.waitFor { $0.contains("paused · bar 2.1/8") }
    tmux.send("S-Left")
    _ = try tmux.waitFor { $0.contains("paused · bar 1.1/8") }
    tmux.send("{")
    _ = try tmux.waitFor { $0.contains("· 99% ·") }
    tmux.send("_")
    _ = try tmux.waitFor { $0.contains("vol 90%") }
    tmux.send("=")
    _ = try tmux.waitFor { $0.contains("vol 100%") }
    tmux.send("}")
    _ = try tmux.waitFor { $0.contains("· 100% ·") }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(tmux.terminalRestored)
  }

  /// `0` plays the tenth selection in song order.
  @Test func zeroPlaysTheTenthSelection() throws {
    let cli = try library()
    let song = CLI.fixture("clicks-120.wav")
    for (index, name) in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].enumerated() {
      let from = String(index)
      let to = String(index) + ".5"
      #expect(try cli.run(["select", "add", song, name, "--from", from, "--to", to]).status == 0)
    }
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["play", song, "--loop", "--device", "pulse"])
    _ = try tmux.waitFor { $0.contains("bar 1.") }
    tmux.send("0")
    _ = try tmux.waitFor { $0.contains("· 'j' ·") }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
  }

  /// At the name prompt backspace takes the last letter back and Esc cancels: nothing saved.
  @Test func theNamePromptTakesBackspaceAndEscCancels() throws {
    let cli = try library()
    let song = CLI.fixture("clicks-120.wav")
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["play", song, "--bars", "2", "--loop", "--device", "pulse"])
    _ = try tmux.waitFor { $0.contains("bar 2.") }
    tmux.send("s")
    _ = try tmux.waitFor { $0.contains("save loop as:") }
    tmux.send("-l", "riffx")
    _ = try tmux.waitFor { $0.contains("save loop as: riffx▏") }
    tmux.send("BSpace")
    _ = try tmux.waitFor { $0.contains("save loop as: riff▏") }
    tmux.send("Escape")
    _ = try tmux.waitFor { !$0.contains("save loop as") && $0.contains("bar 2.") }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(try cli.run(["select", "list", song]).stdout == "")
  }

  @Test func filterKeysShowOnTheStatusLineAndAreHeard() throws {
    let cli = CLI(database: dir.file("lib.sqlite"))
    let left = Synth.sine(frequency: 440, seconds: 8, amplitude: 0.4)
    let right = Synth.sine(frequency: 1000, seconds: 8, amplitude: 0.3, phase: 1)
    var samples = [Float]()
    for i in 0..<left.count { samples += [left[i], right[i]] }
    let song = dir.file("lr.wav")
    try Synth.write(samples, to: song, channels: 2)
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["play", song, "--loop", "--device", "pulse"], record: true)
    _ = try tmux.waitFor { $0.contains("pass 1/∞") }
    usleep(1_000_000)
    tmux.send("L")
    _ = try tmux.waitFor { $0.contains("· left ·") }
    usleep(1_000_000)  // a second of the left channel on both sides
    tmux.send("L")
    _ = try tmux.waitFor { $0.contains("pass 1/∞") && !$0.contains("· left ·") }
    tmux.send("F")
    _ = try tmux.waitFor { $0.contains("· focus bass ·") }
    tmux.send("F")
    _ = try tmux.waitFor { $0.contains("· focus guitar ·") }
    tmux.send("C")
    _ = try tmux.waitFor { $0.contains("· focus guitar · centre cut 100% ·") }
    tmux.send("M")
    _ = try tmux.waitFor { $0.contains("· centre cut 100% · mono ·") }
    tmux.send("R")
    _ = try tmux.waitFor { $0.contains("· right ·") }
    tmux.send("?")
    _ = try tmux.waitFor { $0.contains("F focus") }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)

    // Heard: quarter-second windows of the right side, first with its own 1 kHz tone, then
    // (after `L`) with the left's 440 Hz and no 1 kHz.
    let heard = try tmux.heardStereo()
    let window = 11025
    var own = false
    var leftOnRight = false
    var start = 0
    while start + window <= heard.count / 2 {
      let a440 = ToneAnalysis.amplitude(heard, channels: 2, channel: 1, frequency: 440, sampleRate: 44100, start: start, frames: window)
      let a1000 = ToneAnalysis.amplitude(heard, channels: 2, channel: 1, frequency: 1000, sampleRate: 44100, start: start, frames: window)
      if a1000 > 0.25 && a440 < 0.01 { own = true }
      if own && a440 > 0.35 && a1000 < 0.01 { leftOnRight = true }
      start += window / 4
    }
    #expect(own && leftOnRight, "the right side never carried the left channel")
  }

  @Test func aNarrowTerminalGetsTheShortForm() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["play", CLI.fixture("clicks-120.wav"), "--bars", "2-3", "--loop", "--device", "pulse"], width: 50)
    let screen = try tmux.waitFor { $0.contains("pass 1/∞") }
    #expect(screen.contains(#/[23]\.[1-4]/8 pass 1/∞ 100% 0:0[2-6]/0:16/#), "\(screen)")
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test func ctrlCAndSigtermStopCleanlyAndRestoreTheTerminal() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    for signal in ["C-c", "TERM"] {
      let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
      defer { tmux.kill() }
      try tmux.start(["play", CLI.fixture("clicks-120.wav"), "--loop", "--device", "pulse"])
      _ = try tmux.waitFor { $0.contains("pass 1/∞") }
      if signal == "C-c" { tmux.send("C-c") } else { tmux.signalPractice("TERM") }
      // 128 + the signal, as a shell counts it.
      #expect(try tmux.waitForExit() == (signal == "C-c" ? 130 : 143), "\(signal)")
      #expect(tmux.terminalRestored, "\(signal)")
      #expect(!tmux.screen().contains("pass 1/∞"), "the status line is cleared")
    }
    let log = try cli.run(["log"]).stdout
    #expect(log.split(separator: "\n").filter { $0.hasSuffix("\tinterrupted") }.count == 2, "\(log)")
  }

  @Test func aLostSoundServerEndsWith69AndRestoresTheTerminal() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["play", CLI.fixture("clicks-120.wav"), "--loop", "--device", "pulse"])
    _ = try tmux.waitFor { $0.contains("pass 1/∞") }
    server.stop()
    #expect(try tmux.waitForExit() == 69)
    #expect(tmux.terminalRestored)
    let screen = tmux.screen()
    #expect(screen.contains("practice: audio device 'pulse'"), "\(screen)")
    #expect(try cli.run(["log"]).stdout.hasSuffix("\tfailed\n"))
  }

  @Test func withoutATerminalThereIsNoStatusLine() throws {
    let cli = try library()
    let result = try cli.run(["play", CLI.fixture("clicks-120.wav"), "--bars", "1", "--device", "null"])
    #expect(result.status == 0)
    #expect(!result.stderr.contains("\u{1B}[K") && !result.stderr.contains("\r"))
    #expect(result.stderrLines.last == "pass 1/1 bar 1 speed 100%")
    #expect(try cli.run(["log"]).stdout.hasSuffix("\tcompleted\n"))
  }
}

/// One tmux server of its own (`-L`), running `practice` in a pane with a shell around it
/// that notes the terminal settings before and after, the exit status, and (optionally)
/// records the sound server's monitor.
final class Tmux: @unchecked Sendable {
  let socket = "practice-test-\(UUID().uuidString.prefix(8))"
  let dir: TemporaryDirectory
  let environment: [String: String]
  private let tag = UUID().uuidString.prefix(8)

  init(dir: TemporaryDirectory, environment: [String: String]) throws {
    self.dir = dir
    self.environment = environment
  }

  private func file(_ name: String) -> String { dir.file("\(tag)-\(name)") }

  /// Starts `practice args…` in a `width`×`height` pane (12 rows: room for the player
  /// screen).
  func start(_ arguments: [String], record: Bool = false, width: Int = 120, height: Int = 12) throws {
    let quoted = ([CLI.binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    let recorder =
      record
      ? "parecord --device=practice_null.monitor --raw --format=s16le --rate=44100 --channels=2 --latency-msec=20 '\(file("heard.raw"))' & rec=$!; sleep 0.3; "
      : ""
    let script = """
      \(recorder)stty -g > '\(file("stty.before"))'; echo $$ > '\(file("shell.pid"))'; \
      \(quoted.joined(separator: " ")); echo $? > '\(file("status"))'; \
      stty -g > '\(file("stty.after"))'; \(record ? "sleep 0.3; kill -KILL $rec; " : "")sleep 600
      """
    let env = environment.map { "\($0.key)=\($0.value)" }.filter { !$0.contains("\n") && !$0.hasPrefix("TMUX") }
    try tmux(["new-session", "-d", "-x", "\(width)", "-y", "\(height)", "env"] + env + ["bash", "-c", script])
  }

  func send(_ keys: String...) { _ = try? tmux(["send-keys", "-t", "0"] + keys) }

  /// Sends `signal` to the practice process (the pane shell's child).
  func signalPractice(_ signal: String) {
    guard let shell = try? String(contentsOfFile: file("shell.pid"), encoding: .utf8) else { return }
    _ = try? Shell.run(
      "pkill -\(signal) -P \(shell.trimmingCharacters(in: .whitespacesAndNewlines)) -x practice",
      arguments: [], environment: environment, directory: dir.path)
  }

  func screen() -> String { (try? tmux(["capture-pane", "-p", "-t", "0"])) ?? "" }

  /// Resizes the pane's window, as a person resizing the terminal (SIGWINCH).
  func resize(width: Int, height: Int) {
    _ = try? tmux(["resize-window", "-t", "0", "-x", "\(width)", "-y", "\(height)"])
  }

  /// Whether the pane shows its alternate screen (the player screen's) now.
  var alternateScreen: Bool {
    ((try? tmux(["display-message", "-p", "-t", "0", "#{alternate_on}"])) ?? "")
      .trimmingCharacters(in: .whitespacesAndNewlines) == "1"
  }

  /// Polls the screen until `condition` holds; returns the screen. Waits on practice, not
  /// on a short clock: as long as it runs (a loaded machine may take a minute to get
  /// there), and fails once it has exited without the screen showing it (a last look after
  /// the exit); 2 minutes bound a practice that hangs or a screen that never comes.
  func waitFor(_ condition: (String) -> Bool) throws -> String {
    let deadline = Date().addingTimeInterval(120)
    while Date() < deadline {
      let exited = FileManager.default.fileExists(atPath: file("status"))
      let text = screen()
      if condition(text) { return text }
      if exited {
        throw PracticeTestError("practice exited without showing what was expected:\n\(text)")
      }
      usleep(50_000)
    }
    throw PracticeTestError("the screen never showed what was expected:\n\(screen())")
  }

  /// Waits for practice to exit (2 minutes at most, a hang); its status.
  func waitForExit() throws -> Int32 {
    for _ in 0..<2400 {
      if let text = try? String(contentsOfFile: file("status"), encoding: .utf8),
        let status = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
      {
        usleep(400_000)  // the recorder's tail and the second stty
        return status
      }
      usleep(50_000)
    }
    throw PracticeTestError("practice did not exit:\n\(screen())")
  }

  /// Whether the terminal settings after the run equal those before it.
  var terminalRestored: Bool {
    let before = try? String(contentsOfFile: file("stty.before"), encoding: .utf8)
    let after = try? String(contentsOfFile: file("stty.after"), encoding: .utf8)
    return before != nil && before == after
  }

  /// Seconds between successive clicks in the recording (onsets over a threshold).
  func heardClickIntervals() throws -> [Double] {
    let raw = try Data(contentsOf: URL(fileURLWithPath: file("heard.raw")))
    let left: [Float] = raw.withUnsafeBytes { bytes in
      let shorts = bytes.bindMemory(to: Int16.self)
      return stride(from: 0, to: shorts.count - 1, by: 2).map { Float(Int16(littleEndian: shorts[$0])) / 32768 }
    }
    var onsets: [Int] = []
    var i = 0
    while i < left.count {
      if abs(left[i]) > 0.2 {
        onsets.append(i)
        i += 4410  // clicks are 0.45 s or more apart
      } else {
        i += 1
      }
    }
    return zip(onsets, onsets.dropFirst()).map { Double($1 - $0) / 44100 }
  }

  /// The whole recording, interleaved stereo floats.
  func heardStereo() throws -> [Float] {
    let raw = try Data(contentsOf: URL(fileURLWithPath: file("heard.raw")))
    return raw.withUnsafeBytes { bytes in
      bytes.bindMemory(to: Int16.self).map { Float(Int16(littleEndian: $0)) / 32768 }
    }
  }

  /// Ends the pane's programs and the server. The pane's shell leads its own process group
  /// (tmux makes a session per pane), so killing the group takes `practice` and the
  /// `sleep` with it: a test that failed half-way leaves no player running.
  func kill() {
    if let text = try? String(contentsOfFile: file("shell.pid"), encoding: .utf8),
      let shell = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), shell > 1
    {
      _ = Glibc.kill(-shell, SIGKILL)
    }
    _ = try? tmux(["kill-server"])
  }

  @discardableResult
  private func tmux(_ arguments: [String]) throws -> String {
    let out = dir.file("tmux-\(UUID().uuidString).out")
    FileManager.default.createFile(atPath: out, contents: nil)
    // The tmux server is a daemon: it must not inherit this process's descriptors, or
    // Foundation never sees the client exit; close everything above stderr first.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [
      "-c",
      #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"; done; exec tmux "$@""#,
      "tmux", "-L", socket, "-f", "/dev/null",
    ] + arguments
    process.environment = environment
    process.standardOutput = FileHandle(forWritingAtPath: out)
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
  }
}
