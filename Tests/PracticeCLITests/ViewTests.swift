import Foundation
import PracticeCore
import TestSupport
import Testing

/// `practice view` and the pictures (`view -o`, `stats SONG -o`), run as the built binary.
@Suite struct ViewTests: RefusalSuite {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// 32 s at 8 kHz, quiet (0.05) but for 16-24 s (0.8); a 120 BPM grid from 0 makes that
  /// bars 9-12 of 16. Selections: verse (bars 1-4), solo (bars 9-12).
  func prepare(map: Bool = true, selections: Bool = true) throws -> String {
    let path = dir.file("Étude.wav")
    var samples = Synth.sine(frequency: 220, seconds: 32, sampleRate: 8000, amplitude: 0.05)
    let loud = Synth.sine(frequency: 220, seconds: 8, sampleRate: 8000, amplitude: 0.8)
    for i in 0..<loud.count { samples[16 * 8000 + i] = loud[i] }
    try Synth.write(
      samples, to: path, sampleRate: 8000, tags: (title: "Étude", artist: "Anon", album: "Drills"))
    #expect(try cli.run(["add", path]).status == 0)
    if map { #expect(try cli.run(["beats", "grid", "1", "--bpm", "120"]).status == 0) }
    if selections {
      #expect(try cli.run(["select", "add", "1", "verse", "--bars", "1-4"]).status == 0)
      #expect(try cli.run(["select", "add", "1", "solo", "--bars", "9-12"]).status == 0)
    }
    return path
  }

  @Test func drawsTheOverviewColumnByColumnIntoAPipe() throws {
    _ = try prepare()
    let result = try cli.run(["view", "1", "--width", "64"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    #expect(!result.stdout.contains("\u{1B}"))  // never an escape sequence into a pipe
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
    #expect(lines.count == 10 && lines[9].isEmpty)
    #expect(lines[0] == "Étude — Anon")
    #expect(lines[1].hasPrefix("1   2   3   4   5   6   7   8   9   10  11  12"))
    let top = Array(lines[3].padding(toLength: 64, withPad: " ", startingAt: 0))
    let bottom = Array(lines[6])
    for column in 0..<64 {
      let loud = (32..<48).contains(column)
      #expect(top[column] == (loud ? "░" : " "), "column \(column)")
      #expect(bottom[column] == (loud ? "█" : "▁"), "column \(column)")
    }
    // Selections sorted by name take the palette in turn; each label sits under its bars.
    #expect(lines[7] == "├verse─────────┤" + String(repeating: " ", count: 16) + "├solo──────────┤")
    #expect(lines[8].hasPrefix("0:00.0") && lines[8].hasSuffix("0:32.0"))
  }

  @Test func barsAndTimesChooseWhatIsInView() throws {
    _ = try prepare()
    let bars = try cli.run(["view", "Étude", "--bars", "9-10", "--width", "40", "--height", "2"])
    #expect(bars.status == 0)
    let lines = bars.stdout.split(separator: "\n").map(String.init)
    #expect(lines[1] == "9" + String(repeating: " ", count: 19) + "10")
    #expect(lines[5] == "├solo" + String(repeating: "─", count: 34) + "▸")
    #expect(lines[6].hasPrefix("0:16.0") && lines[6].hasSuffix("0:20.0"))
    let times = try cli.run(["view", "1", "--from", "0:10", "--to", "0:14", "--width", "40"])
    #expect(times.status == 0)
    #expect(times.stdout.split(separator: "\n").last!.hasPrefix("0:10.0"))
  }

  @Test func withoutABeatMapTheRulerIsInTime() throws {
    _ = try prepare(map: false, selections: false)
    let result = try cli.run(["view", "1", "--width", "64"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines[1].hasPrefix("0:00      0:05      0:10"))
  }

  @Test func theSummaryIsKeptAndComputedAgainWhenTheFileChanges() throws {
    let path = try prepare()
    #expect(try cli.run(["view", "1"]).status == 0)
    let library = try Library(path: dir.file("lib.sqlite"))
    let song = try #require(try library.song(id: 1))
    let stored = try #require(try library.storedWaveformSummary(for: song))
    #expect(stored.binCount == 640 && abs(stored.loudestPeak - 0.8) < 0.02)
    // Another file at the same path: a new content hash, a new summary.
    try Synth.write(
      Synth.sine(frequency: 220, seconds: 32, sampleRate: 8000, amplitude: 0.25), to: path,
      sampleRate: 8000)
    let result = try cli.run(["view", "1", "--width", "64"])
    #expect(result.status == 0)
    let refreshed = try #require(try library.song(id: 1))
    #expect(refreshed.contentHash != song.contentHash)
    let again = try #require(try library.storedWaveformSummary(for: refreshed))
    #expect(abs(again.loudestPeak - 0.25) < 0.01)
    // Even all the way: the top row is as high as the loudest peak everywhere.
    #expect(result.stdout.split(separator: "\n")[3] == Substring(String(repeating: "░", count: 64)))
  }

  @Test func colourOnlyAtATerminalWithoutNoColor() throws {
    _ = try prepare()
    func inTerminal(_ environment: [String: String]) throws -> String {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
      process.arguments = ["-qfec", "'\(CLI.binary)' view 1 --width 64", "/dev/null"]
      var env = cli.environment
      env.removeValue(forKey: "NO_COLOR")
      env["TERM"] = "xterm"
      for (key, value) in environment { env[key] = value }
      process.environment = env
      let out = Pipe()
      process.standardOutput = out
      process.standardInput = FileHandle.nullDevice
      try process.run()
      let data = out.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      return String(decoding: data, as: UTF8.self)
    }
    let coloured = try inTerminal([:])
    #expect(coloured.contains("\u{1B}[36m█"))  // the RMS in cyan
    #expect(coloured.contains("\u{1B}[35m├solo"))  // the second selection's colour (verse is first in song order)
    let plain = try inTerminal(["NO_COLOR": "1"])
    #expect(!plain.contains("\u{1B}"))
    #expect(plain.contains("├solo"))
  }

  @Test func badInputIsOneLineAndChangesNothing() throws {
    _ = try prepare(map: false, selections: false)
    try expectFailure(["view", "1", "--bars", "9-12"], status: 66, message: "has no beat map")
    try expectFailure(
      ["view", "1", "--bars", "x"], status: 64, message: "--bars x: not a bar range")
    try expectFailure(["view", "1", "--width", "5"], status: 64, message: "use 20 to 1000 columns")
    try expectFailure(["view", "1", "--height", "0"], status: 64, message: "use 1 to 40 rows")
    try expectFailure(["view", "1", "--from", "0:40"], status: 64, message: "past the end")
    try expectFailure(["view", "1", "-o", dir.file("x.gif")], status: 64, message: ".png, .svg or .pdf")
    try expectFailure(
      ["view", "1", "-o", dir.file("no/such/dir/x.png")], status: 73, message: "cannot write")
    try expectFailure(["view", "7"], status: 66, message: "no song with id 7")
    #expect(!FileManager.default.fileExists(atPath: dir.file("x.gif")))
  }

  /// A control character in a selection name (from a Transcribe! file) is shown escaped.
  @Test func namesAreEscaped() throws {
    _ = try prepare(selections: false)
    let library = try Library(path: dir.file("lib.sqlite"))
    let song = try #require(try library.song(id: 1))
    _ = try library.addSelection(
      to: song, name: "x\u{1B}[2J", span: .frames(0..<80_000), note: nil, replace: false)
    let result = try cli.run(["view", "1", "--width", "64"])
    #expect(!result.stdout.contains("\u{1B}"))
    #expect(result.stdout.contains("├x\\x1b[2J"))
  }

  // MARK: Pictures

  @Test func pngShowsSelectionsInTheirColours() throws {
    _ = try prepare()
    let path = dir.file("overview.png")
    let result = try cli.run(["view", "1", "-o", path, "--width", "1000"])
    #expect(result.status == 0, "\(result.stderr)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    let image = try RasterImage(pngPath: path)
    let geometry = OverviewPicture.geometry(width: 1000, waveHeight: nil, spanRows: 1)
    #expect(image.width == 1000 && image.height == Int(geometry.height))
    // Bar k starts at plotLeft + (k - 1) / 16 of the plot; selections sorted by name: solo
    // is palette 0, verse palette 1. Sample the middle of the span's bar.
    let unit = Double(geometry.plotWidth) / 16
    let y = Int(geometry.spansTop + 0.15 * geometry.rowHeight)
    func x(bar: Double) -> Int { Int(geometry.plotLeft + (bar - 1) * unit) }
    // Colours in song order: verse (bars 1-4) first, solo (bars 9-12) second.
    #expect(image.pixel(x: x(bar: 10.5), y: y, is: PictureColours.selection(1)))
    #expect(image.pixel(x: x(bar: 2.5), y: y, is: PictureColours.selection(0)))
    // Between them (bars 5-8) and after (bars 13-16): background.
    for bar in [5.5, 6.5, 7.5, 14.5] {
      #expect(image.pixel(x: x(bar: bar), y: y, is: PictureColours.background), "bar \(bar)")
    }
    // The waveform: at the centre line RMS colour everywhere; near the top only the loud bars.
    let centre = Int(geometry.waveTop + geometry.waveHeight / 2)
    let high = Int(geometry.waveTop + geometry.waveHeight * 0.1)
    #expect(image.pixel(x: x(bar: 10.5), y: centre, is: PictureColours.rms))
    #expect(image.pixel(x: x(bar: 6.5), y: centre, is: PictureColours.rms))
    #expect(!image.pixel(x: x(bar: 6.5), y: high, is: PictureColours.peak))
    #expect(image.pixel(x: x(bar: 10.5) + 3, y: high, is: PictureColours.peak, tolerance: 12))
  }

  @Test func pdfAndSvgCarryTheNames() throws {
    _ = try prepare()
    // One bar is too narrow for this name: it is written after the bar.
    #expect(try cli.run(["select", "add", "1", "turnaround", "--bars", "6"]).status == 0)
    let pdf = dir.file("overview.pdf")
    #expect(try cli.run(["view", "1", "-o", pdf]).status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: pdf)).starts(with: Array("%PDF-".utf8)))
    let text = try pdftotext(pdf)
    for word in ["Étude", "Anon", "verse", "solo", "turnaround", "12", "0:32.0"] {
      #expect(text.contains(word), "\(word) in \(text)")
    }
    let svg = dir.file("overview.svg")
    #expect(try cli.run(["view", "1", "-o", svg, "--width", "600"]).status == 0)
    let xml = try String(contentsOfFile: svg, encoding: .utf8)
    #expect(xml.hasPrefix("<?xml") && xml.contains("<svg") && xml.contains("width=\"600pt\""))
  }

  /// A chord label that does not fit before the next change is shortened, and a change
  /// with no room even for its root is marked: the lane never shows nothing where the chord
  /// changes (in the terminal and in the pictures).
  @Test func everyChordChangeIsMarked() throws {
    _ = try prepare(selections: false)
    let lab = dir.file("chords.lab")
    // 64 columns for 32 s: 2 a second. Gmaj7 (bar 4, column 12) has 3 columns before Am
    // (bar 5, column 16), which has none before Em (column 17).
    try "0\t6\tC:maj\n6\t8\tG:maj7\n8\t8.5\tA:min\n8.5\t32\tE:min\n".write(
      toFile: lab, atomically: true, encoding: .utf8)
    #expect(try cli.run(["chords", "import", "1", lab]).status == 0)
    let view = try cli.run(["view", "1", "--width", "64"])
    #expect(view.status == 0, "\(view.stderr)")
    let lane = view.stdout.split(separator: "\n").map(String.init)[1]
    #expect(lane == "C" + String(repeating: " ", count: 11) + "G…  ·Em", "\(lane)")
    // The picture, narrow enough that Gmaj7 runs into bar 5: Am is still written.
    let pdf = dir.file("chords.pdf")
    #expect(try cli.run(["view", "1", "-o", pdf, "--width", "300"]).status == 0)
    let text = try pdftotext(pdf)
    #expect(text.contains("Am") || text.contains("A…") || text.contains("·"), "\(text)")
    #expect(text.contains("Em"), "\(text)")
  }

  func pdftotext(_ path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/pdftotext")
    process.arguments = [path, "-"]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  @Test func statsChartsTheCleanTopSpeedOfEachDay() throws {
    _ = try prepare()
    let library = try Library(path: dir.file("lib.sqlite"))
    let solo = try library.selection(named: "solo", of: try #require(try library.song(id: 1)))
    let noon = Calendar.current.startOfDay(for: Date()).addingTimeInterval(12 * 3600 - 3 * 86_400)
    // solo: day 0 at 60 % then 70 % (70 counts), day 2 at 85 %; a play of no selection on day 1.
    for (day, speed, selection) in [
      (0, 0.6, true), (0, 0.7, true), (2, 0.85, true), (1, 0.9, false),
    ] {
      let start = noon.addingTimeInterval(Double(day) * 86_400 + speed)
      var entry = PracticeEntry(
        songID: 1, selectionID: selection ? solo.id : nil,
        selectionName: selection ? "solo" : nil, bars: "9-12", range: 128_000..<192_000,
        slowest: Speed(clamping: speed), fastest: Speed(clamping: 1.2), passes: 2,
        startedAt: start, endedAt: start.addingTimeInterval(30), duration: 30,
        outcome: .completed)
      // The chart takes the clean pass, not the faster flubbed one.
      entry.passRecords = [
        PassRecord(pass: 1, speed: Speed(clamping: speed), mark: .clean),
        PassRecord(pass: 2, speed: Speed(clamping: 1.2), mark: .flubbed),
      ]
      try library.log(entry)
    }
    let path = dir.file("progress.png")
    let result = try cli.run(["stats", "1", "-o", path])
    #expect(result.status == 0, "\(result.stderr)")
    let content = ProgressChartContent(
      title: "Étude", artist: "Anon",
      entries: try library.practiceLog(of: nil, since: nil, passes: true),
      selectionNames: ["verse", "solo"])  // song order, as `stats -o` takes them
    #expect(content.days == 3)
    #expect(content.series.map(\.name) == ["solo", "other plays"])
    #expect(content.series[0].points == [.init(day: 0, speed: 0.7), .init(day: 2, speed: 0.85)])
    let geometry = ProgressChart.geometry(content, width: 1600)
    let image = try RasterImage(pngPath: path)
    #expect(image.width == 1600 && image.height == Int(geometry.height))
    func at(_ day: Int, _ speed: Double) -> (Int, Int) {
      (Int(geometry.x(day: day)), Int(geometry.y(speed: speed)))
    }
    let (x0, y0) = at(0, 0.7)
    let (x2, y2) = at(2, 0.85)
    let (x1, y1) = at(1, 0.9)
    #expect(image.pixel(x: x0, y: y0, is: PictureColours.selection(1)))
    #expect(image.pixel(x: x2, y: y2, is: PictureColours.selection(1)))
    #expect(image.pixel(x: x1, y: y1, is: PictureColours.otherPlays))
    // Where nothing was played: background (day 0 at 95 %, day 2 at 55 %).
    let (xa, ya) = at(0, 0.95)
    let (xb, yb) = at(2, 0.55)
    #expect(image.pixel(x: xa, y: ya, is: PictureColours.background))
    #expect(image.pixel(x: xb, y: yb, is: PictureColours.background))

    let pdf = dir.file("progress.pdf")
    #expect(try cli.run(["stats", "1", "-o", pdf]).status == 0)
    let text = try pdftotext(pdf)
    #expect(text.contains("solo") && text.contains("other plays") && text.contains("100%"))

    let none = try cli.run(["stats", "-o", path])
    #expect(none.status == 64 && none.stderr.contains("name the song"))
    #expect(try cli.run(["stats", "1"]).stdout.split(separator: "\n").count == 2)
  }
}
