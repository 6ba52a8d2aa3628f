import Foundation
import PracticeCore
import TestSupport
import Testing

/// Where a play stopped and `--resume`, and passes marked at the keyboard, in real time
/// on the private sound server (issue 25).
@Suite(.serialized) struct ResumeAndMarkTests {
  let dir = TemporaryDirectory()

  /// A rising tone, 200 Hz + 100 Hz per second, so the frequency heard tells the time.
  static func chirp(seconds: Double) -> [Float] {
    let rate = 44100.0
    return (0..<Int(seconds * rate)).map { i in
      let t = Double(i) / rate
      return Float(0.4 * sin(2 * Double.pi * (200 * t + 50 * t * t)))
    }
  }

  /// The song time a window of the chirp was taken from, from its frequency (zero
  /// crossings over the window, which is `frames` long from `start`).
  static func time(ofChirp samples: [Float], start: Int, frames: Int) -> Double {
    var crossings = 0
    for i in (start + 1)..<(start + frames) where (samples[i - 1] < 0) != (samples[i] < 0) {
      crossings += 1
    }
    let frequency = Double(crossings) / 2 / (Double(frames) / 44100)
    return (frequency - 200) / 100
  }

  /// Mono recording of the sink's monitor while `body` runs.
  func recording(_ server: SoundServer, _ name: String, _ body: () throws -> Void) throws -> [Float]
  {
    let path = dir.file(name)
    let recorder = Process()
    recorder.executableURL = URL(fileURLWithPath: "/usr/bin/parecord")
    recorder.arguments = [
      "--device=practice_null.monitor", "--raw", "--format=s16le", "--rate=44100", "--channels=1",
      "--latency-msec=20", path,
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["PULSE_SERVER"] = server.address
    recorder.environment = environment
    recorder.standardOutput = FileHandle.nullDevice
    recorder.standardError = FileHandle.nullDevice
    try recorder.run()
    usleep(300_000)
    defer {
      usleep(300_000)
      kill(recorder.processIdentifier, SIGKILL)
      recorder.waitUntilExit()
    }
    try body()
    usleep(300_000)
    let raw = try Data(contentsOf: URL(fileURLWithPath: path))
    return raw.withUnsafeBytes { bytes in
      bytes.bindMemory(to: Int16.self).map { Float(Int16(littleEndian: $0)) / 32768 }
    }
  }

  /// Runs `practice args…` until its first pass is announced (stderr is polled: under load
  /// the start can take seconds), then `playing` more seconds, then SIGINT; its exit status
  /// and stderr.
  func interrupt(
    _ cli: CLI, _ arguments: [String], after playing: Double
  ) throws -> (status: Int32, stderr: String) {
    let play = try cli.start(arguments)
    _ = play.wait(timeout: 15) {
      play.stderrSoFar.contains(#""event":"pass""#) || !play.process.isRunning
    }
    usleep(UInt32(playing * 1_000_000))
    kill(play.process.processIdentifier, SIGINT)
    let result = play.finish()
    return (result.status, result.stderr)
  }

  /// The `stopped` object of `--progress json`.
  func stopped(_ stderr: String) throws -> [String: Any] {
    let line = try #require(
      stderr.split(separator: "\n").last { $0.contains(#""event":"stopped""#) })
    return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }

  /// Stopped with SIGINT, the play remembers the position heard; `--resume` starts there:
  /// what the sink hears first is the chirp within a beat (0.5 s at 120 BPM; 0.15 s
  /// asked) of where the sound stopped.
  @Test func aResumedPlayStartsWhereTheInterruptedOneWasHeardToStop() throws {
    let song = dir.file("chirp.wav")
    try Synth.write(ResumeAndMarkTests.chirp(seconds: 12), to: song)
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    var cli = CLI(database: dir.file("lib.sqlite"))
    cli.environment["PULSE_SERVER"] = server.address

    var first: (status: Int32, stderr: String)?
    let heard1 = try recording(server, "first.raw") {
      first = try interrupt(
        cli, ["play", song, "--device", "pulse", "--progress", "json", "--volume", "90%"],
        after: 1.5)
    }
    #expect(first?.status == 130, "\(first?.stderr ?? "")")
    let stop = try stopped(first?.stderr ?? "")
    let stoppedAt = try #require(stop["time"] as? Double)
    #expect(stop["finished"] as? Bool == false)
    #expect(stoppedAt > 1 && stoppedAt < 4, "stopped at \(stoppedAt)")
    // The last sound heard is the chirp where the play says it stopped.
    let last = try #require(heard1.lastIndex { abs($0) > 0.05 })
    let lastHeard =
      ResumeAndMarkTests.time(ofChirp: heard1, start: last - 4410, frames: 4410) + 0.05
    #expect(abs(lastHeard - stoppedAt) < 0.15, "heard up to \(lastHeard), stopped at \(stoppedAt)")

    // `show` prints it.
    let show = try cli.run(["show", song]).stdout
    #expect(show.contains("\nresume \(formatTime(stoppedAt)) in "), "\(show)")
    #expect(show.contains("volume 90%"), "\(show)")

    var second: (status: Int32, stderr: String)?
    let heard2 = try recording(server, "second.raw") {
      second = try interrupt(
        cli, ["play", song, "--resume", "--device", "pulse", "--progress", "json"], after: 1)
    }
    #expect(second?.status == 130, "\(second?.stderr ?? "")")
    #expect(second?.stderr.contains("volume 90%") == true, "\(second?.stderr ?? "")")
    let onset = try #require(heard2.firstIndex { abs($0) > 0.05 }, "the resumed play was not heard")
    let firstHeard = ResumeAndMarkTests.time(ofChirp: heard2, start: onset, frames: 4410) - 0.05
    #expect(
      abs(firstHeard - stoppedAt) < 0.15, "resumed at \(firstHeard), had stopped at \(stoppedAt)")
    let again = try #require(try stopped(second?.stderr ?? "")["time"] as? Double)
    #expect(again > stoppedAt + 0.5 && again < stoppedAt + 2.5, "\(stoppedAt) then \(again)")

    // `practice resume` continues the song played last.
    let result = try interrupt(
      cli, ["resume", "--device", "pulse", "--progress", "json"], after: 0.3)
    #expect(result.status == 130)
    let pass = try #require(
      result.stderr.split(separator: "\n").first { $0.contains(#""event":"pass""#) })
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(pass.utf8)) as? [String: Any])
    #expect(abs((object["time"] as? Double ?? -1) - again) < 0.001, "\(pass) after \(again)")
  }

  @Test func nothingToResume() throws {
    let cli = CLI(database: dir.file("lib.sqlite"))
    let result = try cli.run(["resume", "--device", "null"])
    #expect(result.status == 66)
    #expect(result.stderr.contains("nothing was played yet"))
    // A song never played plays from its start.
    let play = try cli.run([
      "play", CLI.fixture("clicks-120.wav"), "--resume", "--to", "1", "--device", "null",
    ])
    #expect(play.status == 0, "\(play.stderr)")
    #expect(play.stderr.contains("has not been played yet: playing from the start"))
    // That play ran to its end: resuming it says so and starts from the beginning.
    for command in [["play", "clicks-120", "--resume"], ["resume"]] {
      let again = try cli.run(command + ["--device", "null"])
      #expect(again.status == 0, "\(again.stderr)")
      #expect(
        again.stderrLines.first
          == "the last play of 'clicks-120' had finished: playing from the beginning",
        "\(again.stderr)")
    }
  }

  /// `g` and `x` at the keyboard mark passes; the log keeps them per pass; `stats` takes the
  /// clean top speed from them, not the fastest heard.
  @Test func passesMarkedAtTheKeyboardMakeTheCleanTopSpeed() throws {
    let song = CLI.fixture("clicks-120.wav")
    let cli = CLI(database: dir.file("lib.sqlite"))
    try #require(cli.run(["beats", "import", song, CLI.fixture("clicks-120.beats")]).status == 0)
    #expect(try cli.run(["select", "add", song, "riff", "--bars", "1"]).status == 0)
    #expect(try cli.run(["select", "set", song, "riff", "--goal", "120%"]).status == 0)
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(
      dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    // Bar 1 is two seconds; a mark in the first half second of a pass is for the one before.
    // The screen is read late under load, so the pass each key marked is taken from what
    // the player says (`pass 3: clean`), and each key waits for a later pass than the last.
    try tmux.start(["play", song, "--select", "riff", "--loop", "--device", "pulse"])
    func passShown(_ screen: String) -> Int? {
      screen.firstMatch(of: #/pass (\d+)/∞/#).flatMap { Int($0.1) }
    }
    func mark(_ key: String, _ word: String, after previous: Int) throws -> Int {
      _ = try tmux.waitFor { (passShown($0) ?? 0) > previous }
      usleep(800_000)
      tmux.send(key)
      let screen = try tmux.waitFor { $0.contains(": \(word)") }
      return try #require(
        screen.firstMatch(of: #/pass (\d+): (clean|flubbed)/#).flatMap { Int($0.1) })
    }
    let first = try mark("g", "clean", after: 0)
    let second = try mark("x", "flubbed", after: first)
    tmux.send("]", "]")
    let faster = try #require(
      passShown(try tmux.waitFor { $0.contains("· 110% ·") && passShown($0) != nil }))
    let third = try mark("g", "clean", after: max(second, faster) + 1)
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(first < second && second < third, "\(first) \(second) \(third)")

    let passes = try cli.run(["log", "--passes"]).stdout.split(separator: "\n").map {
      Array($0.split(separator: "\t").map(String.init).suffix(3))
    }
    #expect(passes.count >= third, "\(passes)")
    #expect(passes.map { $0[0] } == (1...passes.count).map(String.init), "\(passes)")
    let marked = passes.filter { $0[2] != "-" }
    #expect(
      marked == [
        ["\(first)", "100%", "clean"], ["\(second)", "100%", "flubbed"],
        ["\(third)", "110%", "clean"],
      ],
      "\(passes)")
    // Faster, unmarked: heard, but not clean.
    #expect(
      try cli.run(["play", song, "--select", "riff", "--speed", "150%", "--device", "null"]).status
        == 0)

    let stats = try cli.run(["stats"]).stdout.split(separator: "\n").map {
      $0.split(separator: "\t").map(String.init)
    }
    try #require(stats.count == 1)
    #expect(stats[0][1] == "riff" && stats[0][5] == "150%", "\(stats)")
    #expect(Array(stats[0].suffix(5)) == ["110%", "2/3", "120%", "10 points", "1"], "\(stats)")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["stats", "--json"]).stdout.utf8))
        as? [[String: Any]])
    #expect(json[0]["clean_speed"] as? Double == 1.1)
    #expect(json[0]["clean_passes"] as? Int == 2 && json[0]["flubbed_passes"] as? Int == 1)
    #expect(json[0]["distance"] as? Double == 0.1 && json[0]["goal_reached"] as? Bool == false)
    #expect(try cli.run(["today"]).stdout.contains("--select riff"))
    // At 110 % the goal is reached, and `today` has nothing left.
    #expect(try cli.run(["select", "set", song, "riff", "--goal", "110%"]).status == 0)
    #expect(try cli.run(["stats"]).stdout.contains("\t110%\treached\t1\n"))
    #expect(try cli.run(["today"]).stdout.isEmpty)
  }
}
