import Foundation
import Testing
import TestSupport

/// `practice beats tap` in a pseudo-terminal (tmux) against the private sound server: keys
/// sent at known times while fixtures/clicks-120.wav plays (clicks every 0.5 s from 0.5 s,
/// 4/4, downbeats on 0.5, 2.5, …).
@Suite(.serialized) struct BeatTapTests {
  let dir = TemporaryDirectory()
  let song = CLI.fixture("clicks-120.wav")
  /// The clicks: time and beat in the bar.
  let clicks = (0..<32).map { (time: 0.5 + 0.5 * Double($0), beat: $0 % 4 + 1) }
  /// A hand's deliberate error on each tap, in seconds, on top of the machine's own.
  let jitter = [0.012, -0.015, 0.008, -0.010, 0.015, -0.005, 0.010, -0.012]

  func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

  func sleep(until time: Double) {
    let wait = time - now()
    if wait > 0 { usleep(UInt32(wait * 1e6)) }
  }

  /// The time of the last tap as the status line shows it (`last 0:01.234`).
  func lastTap(_ screen: String) -> Double? {
    guard let match = screen.firstMatch(of: #/last (\d+):(\d\d)\.(\d\d\d)/#) else { return nil }
    return Double(match.1)! * 60 + Double(match.2)! + Double(match.3)! / 1000
  }

  /// The screen once it satisfies `condition`, looking for up to a second; nil if it never did.
  func glance(_ tmux: Tmux, _ condition: (String) -> Bool) -> String? {
    for _ in 0..<50 {
      let screen = tmux.screen()
      if condition(screen) { return screen }
      usleep(20_000)
    }
    return nil
  }

  /// How many taps the status line counts.
  func tapCount(_ screen: String) -> Int? {
    screen.firstMatch(of: #/(?m)^(\d+) taps? · /#).map { Int($0.1)! }
  }

  /// Taps along with the clicks from `start` (source seconds) at `speed`, as a player
  /// would: one tap first to hear where the song is (taken back with Backspace), then
  /// space on each click and d on each downbeat, each aimed with the deliberate jitter and
  /// corrected by how late or early the taps so far were heard; then q. Returns the
  /// clicks tapped and how far from them each tap was heard, in milliseconds.
  func tapAlong(_ tmux: Tmux, from start: Double = 0, speed: Double = 1) throws -> (
    clicks: [(time: Double, beat: Int)], raw: [Double]
  ) {
    _ = try tmux.waitFor { $0.contains(#/tap space on every beat, d on downbeats · 0:\d\d\/0:16/#) }
    let sent = now()
    tmux.send("Space")
    let screen = try tmux.waitFor { lastTap($0) != nil }
    let heard = try #require(lastTap(screen))
    tmux.send("BSpace")
    _ = try tmux.waitFor { $0.contains("tap space on every beat") }
    // Source time s sounds at test time `sent + (s - heard) / speed`, give or take the
    // latency of sending a key, which the taps so far measure.
    var tapped: [(time: Double, beat: Int)] = []
    var lateness: [Double] = []
    var raw: [Double] = []
    for (k, click) in clicks.enumerated() where click.time > start {
      let aim = click.time + jitter[k % jitter.count] * speed
      let correction = lateness.isEmpty ? 0 : lateness.sorted()[lateness.count / 2]
      let at = sent + (aim - heard - correction) / speed
      guard at > now() + 0.02 else { continue }
      sleep(until: at)
      tmux.send(click.beat == 1 ? "d" : "Space")
      // A tap counts once the status line shows it (on a busy machine a key may come too
      // late, after the song's end, and is then left out).
      guard let status = glance(tmux, { tapCount($0) == tapped.count + 1 }) else { continue }
      tapped.append(click)
      if let got = lastTap(status) {
        lateness.append(got - aim + correction)
        raw.append((got - click.time) * 1000)
      }
      if tapped.count == 12 {
        #expect(status.contains(#/12 taps · \d+\.\d · 1[12]\d\.\d BPM · last 0:\d\d\.\d\d\d/#), "\(status)")
      }
    }
    usleep(150_000)
    tmux.send("q")
    return (tapped, raw)
  }

  /// The stored map as MIREX lines: time and beat in the bar.
  func storedBeats(_ cli: CLI) throws -> [(time: Double, beat: Int)] {
    let result = try cli.run(["beats", "export", song, "--format", "mirex"])
    try #require(result.status == 0, "\(result.stderr)")
    return result.stdout.split(separator: "\n").map { line in
      let fields = line.split(separator: "\t")
      return (Double(fields[0])!, Int(fields[1])!)
    }
  }

  /// Checks the stored map against the clicks from the first to the last one tapped (a
  /// click the test was too slow to tap, on a busy machine, must have been filled in);
  /// the errors in milliseconds.
  func checkMap(_ cli: CLI, tapped: [(time: Double, beat: Int)], sourceLocation: SourceLocation = #_sourceLocation) throws -> [Double] {
    let stored = try storedBeats(cli)
    // Each stored beat is on a click, the clicks they are on follow one another with none
    // left out, and they run from the first tapped click to the last (a key read late
    // under load may add or drop the click at either end).
    var errors: [Double] = []
    var matched: [Int] = []
    for beat in stored {
      guard let index = clicks.indices.min(by: { abs(clicks[$0].time - beat.time) < abs(clicks[$1].time - beat.time) })
      else { continue }
      matched.append(index)
      errors.append(abs(beat.time - clicks[index].time) * 1000)
      #expect(beat.beat == clicks[index].beat, "beat at \(beat.time) is \(beat.beat), the click is \(clicks[index].beat)", sourceLocation: sourceLocation)
    }
    #expect(zip(matched, matched.dropFirst()).allSatisfy { $1 == $0 + 1 }, "stored beats skip or repeat clicks: \(matched)", sourceLocation: sourceLocation)
    let first = clicks.firstIndex { $0.time >= tapped[0].time } ?? 0
    let last = clicks.lastIndex { $0.time <= tapped[tapped.count - 1].time } ?? clicks.count - 1
    #expect(abs((matched.first ?? -9) - first) <= 1 && abs((matched.last ?? -9) - last) <= 1,
      "\(stored.count) beats stored on clicks \(matched.first ?? -1)…\(matched.last ?? -1) for the clicks \(first)…\(last) tapped", sourceLocation: sourceLocation)
    #expect(errors.allSatisfy { $0 <= 5 }, "errors in ms: \(errors)", sourceLocation: sourceLocation)
    return errors
  }

  /// `-18.20…+21.00` (min…max).
  func describe(_ values: [Double]) -> String {
    String(format: "%+.2f…%+.2f", values.min() ?? 0, values.max() ?? 0)
  }

  @Test func tappingAlongMakesAMapOnTheClicks() throws {
    let cli = CLI(database: dir.file("lib.sqlite"))
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["beats", "tap", song, "--device", "pulse"])
    let (tapped, raw) = try tapAlong(tmux)
    #expect(try tmux.waitForExit() == 0, "\(tmux.screen())")
    #expect(tmux.terminalRestored)
    let screen = tmux.screen()
    #expect(screen.contains(#/'clicks-120': \d+ beats from \d+ taps \(\d+ on onsets, \d+ filled in\), bars [01]-[4-8]/#), "\(screen)")
    // On a busy machine some keys come too late to count; the map must still be right.
    #expect(tapped.count >= 12, "only \(tapped.count) clicks tapped")
    let errors = try checkMap(cli, tapped: tapped)
    print("beats tap at 100%: \(tapped.count) taps, \(errors.count) beats; taps heard \(describe(raw)) ms off, stored beats \(describe(errors)) ms off")
    #expect(raw.contains { abs($0) > 5 }, "the taps were already on the clicks: \(raw)")
    // The map is tapped: `beats detect` keeps it without --replace.
    #expect(try cli.run(["beats", "detect", song]).status == 64)
  }

  @Test func tapsAreCorrectedForTheSpeed() throws {
    let cli = CLI(database: dir.file("lib.sqlite"))
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["beats", "tap", song, "--from", "8", "--speed", "80%", "--meter", "4/4", "--device", "pulse"])
    let (tapped, raw) = try tapAlong(tmux, from: 8, speed: 0.8)
    #expect(try tmux.waitForExit() == 0, "\(tmux.screen())")
    #expect(tmux.terminalRestored)
    let errors = try checkMap(cli, tapped: tapped)
    print("beats tap at 80%: \(tapped.count) taps, \(errors.count) beats; taps heard \(describe(raw)) ms off, stored beats \(describe(errors)) ms off")
  }

  @Test func ctrlCAndTooFewTapsLeaveTheOldMap() throws {
    let cli = CLI(database: dir.file("lib.sqlite"))
    try #require(cli.run(["beats", "import", song, CLI.fixture("clicks-120.beats")]).status == 0)
    let before = try cli.run(["beats", "export", song]).stdout

    // An imported map needs --replace; without a terminal there is nothing to tap with.
    let refused = try cli.run(["beats", "tap", song, "--device", "null"])
    #expect(refused.status == 64)
    #expect(refused.stderrLines == ["practice: 'clicks-120' has an imported beat map; add --replace to overwrite it with tapped beats"])
    let noTerminal = try cli.run(["beats", "tap", song, "--replace", "--device", "null"])
    #expect(noTerminal.status == 64)
    #expect(noTerminal.stderrLines.last?.hasPrefix("practice: beats tap needs a terminal") == true, "\(noTerminal.stderr)")

    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    for ending in ["C-c", "q"] {
      let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
      defer { tmux.kill() }
      try tmux.start(["beats", "tap", song, "--replace", "--device", "pulse"])
      _ = try tmux.waitFor { $0.contains(#/0:\d\d\/0:16/#) }
      for _ in 0..<(ending == "q" ? 2 : 5) {
        usleep(300_000)
        tmux.send("Space")
      }
      _ = try tmux.waitFor { $0.contains(ending == "q" ? "2 taps" : "5 taps") }
      tmux.send(ending)
      let status = try tmux.waitForExit()
      #expect(tmux.terminalRestored, "\(ending)")
      let screen = tmux.screen()
      if ending == "q" {
        #expect(status == 66)
        #expect(screen.contains("practice: only 2 taps: a beat map needs at least 4"), "\(screen)")
      } else {
        #expect(status == 130)
        #expect(screen.contains("interrupted: 5 taps dropped, the beat map was left as it was"), "\(screen)")
      }
      #expect(try cli.run(["beats", "export", song]).stdout == before, "\(ending) left the map as it was")
    }
  }
  /// Tapping from 8 s into a song with a map (a grid at half the tempo) replaces only the
  /// span tapped: the grid's beats before it are kept to the frame and numbered as they
  /// were, the taps' bars come from the downbeats tapped, and `beats undo` brings the grid
  /// back.
  @Test func tappingASpanKeepsTheRestOfTheMap() throws {
    let cli = CLI(database: dir.file("lib.sqlite"))
    try #require(try cli.run(["beats", "grid", song, "--bpm", "60", "--start", "0.5"]).status == 0)
    let grid = try cli.run(["beats", "export", song]).stdout
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
    defer { tmux.kill() }
    try tmux.start(["beats", "tap", song, "--from", "8", "--replace", "--device", "pulse"])
    let (tapped, _) = try tapAlong(tmux, from: 8)
    #expect(try tmux.waitForExit() == 0, "\(tmux.screen())")
    #expect(tmux.screen().contains("of the map, the rest is kept: bars 1-"), "\(tmux.screen())")
    try #require(tapped.count >= 8, "only \(tapped.count) clicks tapped")
    let stored = try storedBeats(cli)
    let start = tapped[0].time - 0.25
    // The grid's beats before the span, one a second from 0.5 s, bars 1-2 as they were.
    let kept = stored.filter { $0.time < start }
    #expect(kept.count == Int((start - 0.5).rounded(.up)), "\(kept)")
    for (k, beat) in kept.enumerated() {
      #expect(abs(beat.time - (0.5 + Double(k))) < 1e-9 && beat.beat == k % 4 + 1, "\(beat)")
    }
    // The taps: on the clicks, numbered from the downbeats tapped.
    let span = stored.filter { $0.time >= start }
    #expect(span.count >= tapped.count - 1, "\(span.count) beats for \(tapped.count) taps")
    for beat in span {
      let click = clicks.min { abs($0.time - beat.time) < abs($1.time - beat.time) }!
      #expect(abs(click.time - beat.time) < 0.005 && click.beat == beat.beat, "\(beat) is off \(click)")
    }
    let undo = try cli.run(["beats", "undo", song])
    #expect(undo.stderrLines.first?.contains("undid `beats tap --from 8`") == true, "\(undo.stderr)")
    #expect(try cli.run(["beats", "export", song]).stdout == grid)
  }
}
