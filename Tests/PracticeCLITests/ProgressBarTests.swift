import Foundation
import TestSupport
import Testing

/// The progress bar of `add` and `render`: drawn on stderr when it is a terminal (run in a
/// pseudo-terminal by `script`), never when stderr is a pipe.
@Suite struct ProgressBarTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// A folder of `count` short WAVs, the first one named with an escape sequence.
  func folder(_ count: Int, seconds: Double = 0.3) throws -> String {
    let folder = dir.file("songs")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for i in 1...count {
      let name = i == 1 ? "00 \u{1B}]0;owned\u{07}.wav" : String(format: "%02d song.wav", i)
      try Synth.write(
        Synth.sine(frequency: 200 + Double(i), seconds: seconds), to: folder + "/" + name)
    }
    return folder
  }

  @Test func addDrawsACountingBarAtATerminalAndErasesIt() throws {
    let songs = try folder(8)
    let out = dir.file("add.out")
    let (status, terminal) = try cli.runInTerminal(["add", songs], stdoutFile: out)
    #expect(status == 0, "\(terminal)")
    // The bar: redrawn in place, counting files, naming the current one, erased at the end.
    #expect(terminal.contains("\r[.............................."), "\(terminal)")
    // The first file's name carries control characters: they go out escaped.
    #expect(terminal.contains("] 0/8 00 \\x1b]0;owned\\x07.wav\u{1B}[K"), "\(terminal)")
    #expect(!terminal.contains("\u{1B}]0;owned"))
    #expect(terminal.contains("\r\u{1B}[K"), "\(terminal)")
    // Stdout is the data, as always.
    let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 8)
  }

  /// One file whose header's length does not hold (an MP3 cut in half) is decoded through
  /// to measure it: a percent bar says so while it works, and is erased.
  @Test func addOfAFileCutShortDrawsAMeasuringBar() throws {
    let whole = dir.file("whole.mp3")
    try Synth.write(Synth.sine(frequency: 440, seconds: 20, amplitude: 0.5), to: whole)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    let cut = dir.file("cut.mp3")
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
    let (status, terminal) = try cli.runInTerminal(["add", cut], stdoutFile: dir.file("c.out"))
    #expect(status == 0, "\(terminal)")
    #expect(terminal.contains("% measuring cut.mp3\u{1B}[K"), "\(terminal)")
    #expect(terminal.contains("\r\u{1B}[K"), "\(terminal)")
    // Stored at the length that decodes: about 10 s, not the header's 20.
    let shown = try cli.run(["show", cut]).stdout
    #expect(shown.contains("duration 0:09.") || shown.contains("duration 0:10."), "\(shown)")
  }

  @Test func aBarWithWideCharactersFitsTheTerminalsColumns() throws {
    // Names of 60 CJK characters: 120 columns, though 60 characters. The pty is 80 wide.
    let folder = dir.file("wide")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for i in 1...8 {
      try Synth.write(
        Synth.sine(frequency: 200 + Double(i), seconds: 0.2),
        to: folder + "/\(i) " + String(repeating: "練習曲", count: 20) + ".wav")
    }
    let (status, terminal) = try cli.runInTerminal(["add", folder], stdoutFile: dir.file("w.out"))
    #expect(status == 0, "\(terminal)")
    let drawn = terminal.components(separatedBy: "\r").compactMap { piece -> String? in
      guard let end = piece.range(of: "\u{1B}[K"), piece.hasPrefix("[") else { return nil }
      return String(piece[..<end.lowerBound])
    }
    #expect(!drawn.isEmpty, "\(terminal)")
    for line in drawn {
      let columns = line.unicodeScalars.reduce(0) {
        $0 + ((0x4E00...0x9FFF).contains($1.value) ? 2 : 1)
      }
      #expect(columns < 80, "\(columns) columns: \(line)")
    }
  }

  @Test func ctrlCDuringAddErasesTheBarAndStoresNothing() throws {
    // Enough files that the scan outlasts the time tmux takes to show the bar on a busy
    // machine (500 were scanned and stored before the signal came, once, in CI): the
    // signal must come before the one transaction that stores them all.
    let songs = try folder(2000, seconds: 0.1)
    let tmux = try Tmux(dir: dir, environment: cli.environment)
    defer { tmux.kill() }
    try tmux.start(["add", songs])
    _ = try tmux.waitFor { $0.contains("/2000 ") }
    tmux.signalPractice("INT")
    #expect(try tmux.waitForExit() == 130)
    let screen = tmux.screen()
    #expect(!screen.contains("/2000 ") && !screen.contains("[#"), "\(screen)")
    #expect(try cli.run(["list"]).stdout.isEmpty)
  }

  @Test func addWritesNoBarIntoAPipe() throws {
    let result = try cli.run(["add", try folder(8)])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    #expect(result.stdout.split(separator: "\n").count == 8)
  }

  @Test func addOfAFewFilesDrawsNoBar() throws {
    let (status, terminal) = try cli.runInTerminal(
      ["add", try folder(3)], stdoutFile: dir.file("few.out"))
    #expect(status == 0)
    #expect(!terminal.contains("\u{1B}["), "\(terminal)")
  }

  @Test func renderDrawsAPercentBarAndEndsWithOneLine() throws {
    let song = dir.file("long.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 30), to: song)
    let out = dir.file("out.wav")
    let (status, terminal) = try cli.runInTerminal(
      ["render", song, "-o", out], stdoutFile: dir.file("render.out"))
    #expect(status == 0, "\(terminal)")
    #expect(terminal.contains("% rendering out.wav\u{1B}[K"), "\(terminal)")
    // Erased, then the one final line: what, the output's length and the time taken.
    let final = try #require(terminal.range(of: "\r\u{1B}[Krendered 'long'"), "\(terminal)")
    let rest = terminal[final.upperBound...]
    #expect(
      rest.contains(" to '\(out)' (0:30.0 long) in ")
        && rest.contains(" s\r\n"), "\(rest)")
    #expect(!rest.contains("\u{1B}["))
  }

  @Test func renderIntoAPipeSaysOneLineWithoutEscapes() throws {
    let song = dir.file("short.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 5), to: song)
    let result = try cli.run(["render", song, "-o", dir.file("short-out.wav")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderrLines.count == 1, "\(result.stderr)")
    #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("\r"))
    let line = result.stderrLines[0]
    #expect(line.hasPrefix("rendered 'short' "), "\(line)")
    #expect(line.contains("(0:05.0 long) in "), "\(line)")
    #expect(!line.contains("frames"), "\(line)")
    #expect(line.hasSuffix(" s"), "\(line)")
    #expect(result.stdout == "")
  }

  /// The exact length in frames is data: on stdout, with `--json` only.
  @Test func renderJSONGivesTheExactFrames() throws {
    let song = dir.file("json.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 5), to: song)
    let out = dir.file("json-out.wav")
    let result = try cli.run(["render", song, "-o", out, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    let record = try #require(object as? [String: Any], "\(result.stdout)")
    #expect(record["frames"] as? Int == 220500)
    #expect(record["sample_rate"] as? Int == 44100)
    #expect(record["output"] as? String == out)
    #expect(record["song_id"] as? Int == 1)
    #expect(result.stderrLines.count == 1 && result.stderrLines[0].contains("(0:05.0 long)"))
  }
}
