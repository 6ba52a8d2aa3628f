import Foundation
import Testing
import TestSupport

/// `play`'s player screen in a tmux pane of 16 rows, playing in real time on the private
/// sound server: the cursor against the audible bar, zoom, editing the loop, the status
/// line alone when the screen is not wanted, the primary screen back however it ends.
@Suite(.serialized) struct PlayerScreenTests {
  let dir = TemporaryDirectory()
  let song = CLI.fixture("clicks-120.wav")

  /// clicks-120: 16.5 s, bar 1 at 0.5 s, bars of 2 s (bar B starts at 0.5 + 2(B-1) s).
  func library() throws -> CLI {
    let cli = CLI(database: dir.file("lib.sqlite"))
    try #require(cli.run(["beats", "import", song, CLI.fixture("clicks-120.beats")]).status == 0)
    return cli
  }

  func pane(_ cli: CLI, _ server: SoundServer) throws -> Tmux {
    try Tmux(dir: dir, environment: cli.environment.merging(["PULSE_SERVER": server.address]) { $1 })
  }

  /// The rows of a captured screen, each as its characters (one a column).
  func rows(_ screen: String) -> [[Character]] {
    screen.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
  }

  /// The cursor's column: where its mark `▲` is.
  func cursorColumn(_ screen: String) -> Int? {
    for row in rows(screen) { if let column = row.firstIndex(of: "▲") { return column } }
    return nil
  }

  /// The bar the status line says is heard: `bar 5.3/8` gives 5.
  func statusBar(_ screen: String) -> (bar: Int, beat: Int)? {
    guard let match = screen.firstMatch(of: #/bar (\d+)\.(\d)/8/#) else { return nil }
    return (Int(match.1)!, Int(match.2)!)
  }

  @Test func theCursorSitsInTheAudibleBar() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try pane(cli, server)
    defer { tmux.kill() }
    try tmux.start(["play", song, "--loop", "--device", "pulse"], width: 100, height: 16)
    var screen = try tmux.waitFor { $0.contains("bar 3.") && $0.contains("▲") }
    #expect(tmux.alternateScreen)
    // The whole song in view (the loop is the song): 100 columns for 16.5 s; the bar
    // lines on the ruler's second row every 12.1 columns from column 3.
    #expect(screen.contains("zoom whole song"), "\(screen)")
    let ticks = rows(screen)[2].indices.filter { rows(screen)[2][$0] == "│" }
    #expect(ticks == [3, 15, 27, 39, 51, 63, 75, 87], "\(screen)")

    // Paused, the status line and the cursor show the same moment: the cursor's column
    // lies in the columns of the beat the status line names, between its bar's lines.
    tmux.send("Space")
    screen = try tmux.waitFor { $0.contains("paused · bar ") }
    usleep(300_000)
    screen = tmux.screen()
    let (bar, beat) = try #require(statusBar(screen), "\(screen)")
    let column = try #require(cursorColumn(screen), "\(screen)")
    let start = 0.5 + Double((bar - 1) * 4 + beat - 1) * 0.5
    #expect((Int(start * 100 / 16.5)...Int((start + 0.5) * 100 / 16.5)).contains(column), "bar \(bar).\(beat), column \(column)\n\(screen)")
    #expect(ticks.filter { $0 <= column }.count == bar, "bar \(bar), column \(column)\n\(screen)")

    // Playing, the cursor moves on with the sound.
    tmux.send("Space")
    usleep(1_500_000)
    let later = try #require(cursorColumn(tmux.screen()))
    #expect(later != column)

    // z: half the span (4 bars, 8 s in view); Z: the whole song again.
    tmux.send("z")
    screen = try tmux.waitFor { $0.contains("zoom 4 bars") }
    #expect(rows(screen)[1].filter { $0 != " " }.count >= 4, "\(screen)")
    let times = try #require(screen.firstMatch(of: #/(\d):(\d\d)\.\d +(\d):(\d\d)\.\d\n/#), "\(screen)")
    let shown = (Int(times.3)! * 60 + Int(times.4)!) - (Int(times.1)! * 60 + Int(times.2)!)
    #expect(shown == 8, "\(screen)")
    tmux.send("z", "z")
    _ = try tmux.waitFor { $0.contains("zoom 1 bar ") }
    tmux.send("Z", "Z", "Z")
    _ = try tmux.waitFor { $0.contains("zoom whole song") && $0.contains("0:00.0") && $0.contains("0:16.5") }

    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(!tmux.alternateScreen)
    #expect(tmux.terminalRestored)
    screen = tmux.screen()
    #expect(screen.contains("playing 'clicks-120'") && !screen.contains("▲"), "\(screen)")
  }

  /// With chords imported from a .lab file: the chord lane on the row over the ruler, each
  /// chord from its column (the whole song, 16.5 s, on 100 columns), N blank; `>` twice
  /// and the lane shows the chords sounding, two semitones up.
  @Test func theChordLaneIsOverTheRulerAndFollowsTheTranspose() throws {
    let cli = try library()
    let lab = dir.file("chords.lab")
    try "0.0 0.5 N\n0.5 4.5 C:maj\n4.5 8.5 A:min\n8.5 16.5 N\n".write(
      toFile: lab, atomically: true, encoding: .utf8)
    try #require(cli.run(["chords", "import", song, lab]).status == 0)
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try pane(cli, server)
    defer { tmux.kill() }
    try tmux.start(["play", song, "--loop", "--device", "pulse"], width: 100, height: 16)
    var screen = try tmux.waitFor { $0.contains("zoom whole song") && $0.contains("▲") }
    func lane(_ screen: String) -> String { String(rows(screen)[1]).trimmingCharacters(in: .whitespaces) }
    // 0.5 s is column 3, 4.5 s column 27; the ruler's bar lines under it as before.
    #expect(rows(screen)[1].firstIndex(of: "C") == 3, "\(screen)")
    #expect(lane(screen) == "C" + String(repeating: " ", count: 23) + "Am", "\(screen)")
    let ticks = rows(screen)[3].indices.filter { rows(screen)[3][$0] == "│" }
    #expect(ticks == [3, 15, 27, 39, 51, 63, 75, 87], "\(screen)")
    tmux.send(">", ">")
    screen = try tmux.waitFor { lane($0).hasPrefix("D ") }
    #expect(lane(screen) == "D" + String(repeating: " ", count: 23) + "Bm", "\(screen)")
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
  }

  /// The `?` overlay over the top rows while the song plays on: the moving cursor leaves
  /// its lines alone (it drew its column, `│` or the envelope's blocks, through them).
  @Test func theKeysOverlayIsNotCrossedByTheCursor() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try pane(cli, server)
    defer { tmux.kill() }
    try tmux.start(["play", song, "--loop", "--device", "pulse"], width: 100, height: 16)
    _ = try tmux.waitFor { $0.contains("zoom whole song") && $0.contains("▲") }
    tmux.send("?")
    var screen = try tmux.waitFor { $0.contains("keys: space pause") }
    // 100 columns for 16.5 s: the cursor crosses a dozen columns in two seconds.
    usleep(2_000_000)
    screen = tmux.screen()
    // The overlay's rows: from the second, those with words (the strip's have none there).
    let overlay = rows(screen).dropFirst().prefix { $0.contains { $0.isLetter } }
    #expect(overlay.count >= 4 && String(overlay.first ?? []).hasPrefix("keys:"), "\(screen)")
    for row in overlay {
      #expect(!row.contains { "│▁▂▃▄▅▆▇█░▒▓".contains($0) }, "\(screen)")
    }
    // On the rows the overlay leaves, the cursor goes on.
    #expect(cursorColumn(screen) != nil, "\(screen)")
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
  }

  @Test func eAndAnArrowMoveTheLoopStartByABeatAndSSavesIt() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try pane(cli, server)
    defer { tmux.kill() }
    try tmux.start(["play", song, "--bars", "2-3", "--loop", "--device", "pulse"], width: 96, height: 16)
    // Bars 2-3 in view (4 s over 96 columns: a beat is 12 columns), the loop's row under
    // the cursor's.
    var screen = try tmux.waitFor { $0.contains("zoom 2 bars") && $0.contains("├bars 2-3─") }
    func loopRow(_ screen: String) -> [Character]? {
      rows(screen).first { $0.contains("─") && ($0.contains("├") || $0.contains("[")) && !$0.contains("riff") }
    }
    #expect(loopRow(screen)?.first == "├", "\(screen)")
    tmux.send("e")
    screen = try tmux.waitFor { $0.contains("editing the loop's start") }
    #expect(loopRow(screen)?.first == "[", "\(screen)")
    tmux.send("Right")
    screen = try tmux.waitFor { $0.contains("[2.2-3.4─") }
    let row = try #require(loopRow(screen), "\(screen)")
    #expect(row.firstIndex(of: "[") == 12, "\(screen)")
    #expect(row.lastIndex(of: "┤") == 95, "\(screen)")
    #expect(screen.contains("· 2.2-3.4 ·"), "the status line names the loop\n\(screen)")
    // tab: the end; shift-← takes it back a bar.
    tmux.send("Tab", "S-Left")
    screen = try tmux.waitFor { $0.contains("[") == false && $0.contains("2.2-2.4") }
    #expect(loopRow(screen)?.lastIndex(of: "]") == 47, "\(screen)")
    tmux.send("Tab", "Left", "e")
    screen = try tmux.waitFor { $0.contains("├bar 2─") && $0.contains("zoom 2 bars") }
    tmux.send("s")
    _ = try tmux.waitFor { $0.contains("save loop as:") }
    tmux.send("-l", "head")
    tmux.send("Enter")
    _ = try tmux.waitFor { $0.contains("saved 'head'") }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(!tmux.alternateScreen)
    let selections = try cli.run(["select", "list", song]).stdout
    #expect(selections.contains("head\tbar 2 "), "\(selections)")
  }

  @Test func aMovedStartIsSavedAsItsSpan() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try pane(cli, server)
    defer { tmux.kill() }
    try tmux.start(["play", song, "--bars", "2-3", "--loop", "--device", "pulse"], width: 96, height: 16)
    _ = try tmux.waitFor { $0.contains("├bars 2-3─") }
    tmux.send("e", "Right")
    _ = try tmux.waitFor { $0.contains("2.2-3.4") }
    tmux.send("s")
    _ = try tmux.waitFor { $0.contains("save loop as:") }
    tmux.send("-l", "late")
    tmux.send("Enter")
    // Saved, the selection is drawn on its row at once.
    _ = try tmux.waitFor { $0.contains("saved 'late'") }
    _ = try tmux.waitFor { $0.contains("├late─") }
    tmux.send("C-c")
    #expect(try tmux.waitForExit() == 130)
    #expect(!tmux.alternateScreen)
    #expect(tmux.terminalRestored)
    // One beat after bar 2 (3.0 s) to the end of bar 3 (6.5 s).
    let selections = try cli.run(["select", "list", song]).stdout
    #expect(selections.contains("late\t0:03.0–0:06.5"), "\(selections)")
  }

  @Test func fewerThan12RowsOrNoScreenGiveTheStatusLine() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    for (arguments, height) in [([String](), 11), (["--no-screen"], 24)] {
      let tmux = try pane(cli, server)
      defer { tmux.kill() }
      try tmux.start(["play", song, "--bars", "2-3", "--loop", "--device", "pulse"] + arguments, height: height)
      let screen = try tmux.waitFor { $0.contains("pass 1/∞") }
      #expect(!tmux.alternateScreen, "\(arguments)")
      #expect(!screen.contains("▲") && !screen.contains("zoom"), "\(screen)")
      #expect(screen.contains(#/bar [23]\.[1-4]/8 · pass 1/∞ · bars 2-3 · 100%/#), "\(screen)")
      tmux.send("q")
      #expect(try tmux.waitForExit() == 0)
    }
  }

  @Test func aPlayThatEndsLeavesThePrimaryScreen() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try pane(cli, server)
    defer { tmux.kill() }
    try tmux.start(["play", song, "--bars", "8", "--device", "pulse"], height: 16)
    _ = try tmux.waitFor { $0.contains("▲") }
    #expect(tmux.alternateScreen)
    #expect(try tmux.waitForExit() == 0)
    #expect(!tmux.alternateScreen)
    #expect(tmux.terminalRestored)
    let screen = tmux.screen()
    #expect(screen.contains("playing 'clicks-120' bar 8") && !screen.contains("▲"), "\(screen)")
    #expect(try cli.run(["log"]).stdout.hasSuffix("\tcompleted\n"))
  }

  @Test func aResizedTerminalGetsTheWholePictureAgain() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try pane(cli, server)
    defer { tmux.kill() }
    try tmux.start(["play", song, "--bars", "2-3", "--loop", "--device", "pulse"], width: 100, height: 16)
    _ = try tmux.waitFor { $0.contains("▲") && $0.contains("├bars 2-3─") }
    // Narrower: the picture is laid out again at 60 columns (the loop's row ends there).
    tmux.resize(width: 60, height: 13)
    let screen = try tmux.waitFor { screen in
      rows(screen).contains { $0.first == "├" && $0.count == 60 && $0.last == "┤" }
    }
    #expect(screen.contains("zoom 2 bars"), "\(screen)")
    // Too few rows for the picture: the status line alone, still on the alternate screen.
    tmux.resize(width: 60, height: 8)
    _ = try tmux.waitFor { !$0.contains("▲") && $0.contains("pass 1/∞") }
    tmux.resize(width: 80, height: 14)
    _ = try tmux.waitFor { $0.contains("▲") && $0.contains("zoom 2 bars") }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    #expect(!tmux.alternateScreen)
  }

  @Test func sigtermLeavesThePrimaryScreen() throws {
    let cli = try library()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    let tmux = try pane(cli, server)
    defer { tmux.kill() }
    try tmux.start(["play", song, "--loop", "--device", "pulse"], height: 16)
    _ = try tmux.waitFor { $0.contains("▲") && $0.contains("pass 1/∞") }
    tmux.signalPractice("TERM")
    #expect(try tmux.waitForExit() == 143)
    #expect(!tmux.alternateScreen)
    #expect(tmux.terminalRestored)
    #expect(!tmux.screen().contains("▲"))
  }
}
