import Foundation
import Testing
import TestSupport

@Suite struct BeatImportTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  func exported(_ format: String = "json") throws -> String {
    try cli.run(["beats", "export", "demo", "--format", format]).stdout
  }

  @Test func everyExportFormatRoundTripsToTheFrame() throws {
    _ = try cli.run(["add", CLI.fixture("demo.wav")])
    // demo.beats (mirex) has a one-beat pickup; then move the beats off the 10 ms grid.
    #expect(try cli.run(["beats", "import", "demo", CLI.fixture("demo.beats")]).status == 0)
    #expect(try cli.run(["beats", "shift", "demo", "--by", "0.0123457"]).status == 0)
    let reference = try exported()
    #expect(reference.contains("\"bar\":0"))
    for format in ["json", "mirex", "audacity", "csv", "times"] {
      let file = dir.file("beats.\(format)")
      try exported(format).write(toFile: file, atomically: true, encoding: .utf8)
      let extra = format == "times" ? ["--bar1", "2"] : []
      let result = try cli.run(["beats", "import", "demo", file, "--format", format] + extra)
      #expect(result.status == 0, "\(format): \(result.stderr)")
      #expect(try exported() == reference, "\(format) did not round-trip")
    }
  }

  @Test func exportWritesToAFileWithDashO() throws {
    _ = try cli.run(["add", CLI.fixture("demo.wav")])
    #expect(try cli.run(["beats", "import", "demo", CLI.fixture("demo.beats")]).status == 0)
    let file = dir.file("map.txt")
    let written = try cli.run(["beats", "export", "demo", "--format", "mirex", "-o", file])
    #expect(written.status == 0, "\(written.stderr)")
    #expect(written.stdout.isEmpty, "the map goes to the file, not to stdout")
    #expect(try String(contentsOfFile: file, encoding: .utf8) == exported("mirex"))
    let nowhere = try cli.run(
      ["beats", "export", "demo", "-o", dir.file("no/such/folder/map.json")])
    #expect(nowhere.status == 73, "\(nowhere.stderr)")
    #expect(nowhere.stderr.split(separator: "\n").count == 1, "\(nowhere.stderr)")
    #expect(nowhere.stderr.contains("folder exists"), "\(nowhere.stderr)")
  }

  @Test func autoDetectsAndPlacesBars() throws {
    _ = try cli.run(["add", CLI.fixture("clicks-120.wav")])
    let times = dir.file("t.txt")
    try (0..<32).map { String(format: "%.3f", 0.5 + Double($0) * 0.5) }.joined(separator: "\n")
      .write(toFile: times, atomically: true, encoding: .utf8)
    let result = try cli.run(["beats", "import", "1", times, "--meter", "3/4"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("32 beats, bars 1-11"))
    let xml = dir.file("b.xml")
    try "<metadata><beats><beat>0.5</beat><beat>1.0</beat><beat>1.5</beat><beat>2.0</beat><beat>2.5</beat></beats></metadata>"
      .write(toFile: xml, atomically: true, encoding: .utf8)
    #expect(try cli.run(["beats", "import", "1", xml]).stderr.contains("5 beats, bars 1-2"))
    // A map of one bar says so in the singular.
    try "0.5\n1.0\n1.5\n".write(toFile: dir.file("three.txt"), atomically: true, encoding: .utf8)
    #expect(
      try cli.run(["beats", "import", "1", dir.file("three.txt")]).stderr.hasSuffix(
        ": 3 beats, bar 1\n"))
  }

  /// A bad field a megabyte long is named in the one line, not repeated (found while
  /// fuzzing, fuzz/README.md: a line of quotes came back whole in the message), in each
  /// format that quotes what it could not read, and in a chord file.
  @Test func aHugeBadFieldIsCutInTheMessage() throws {
    _ = try cli.run(["add", CLI.fixture("demo.wav")])
    let huge = String(repeating: "x", count: 1_000_000)
    for (name, text) in [
      ("long.txt", "0.5\n\(huge)\n"), ("long.xml", "<beats><beat>\(huge)</beat></beats>"),
      ("long.json", "{\"beats\":[{\"time\":0.5,\"\(huge)\":1,\"\(huge)\":1}]}"),
    ] {
      let file = dir.file(name)
      try text.write(toFile: file, atomically: true, encoding: .utf8)
      let result = try cli.run(["beats", "import", "demo", file])
      #expect(result.status == 65, "\(name): \(result.stderr.prefix(300))")
      #expect(result.stderrLines.count == 1, "\(name)")
      #expect(result.stderr.count < 300, "\(name): \(result.stderr.prefix(300))")
      #expect(result.stderr.contains("'xxxxxxxxxx"), "\(name): \(result.stderr.prefix(300))")
    }
    let chords = dir.file("long.lab")
    try "0\t1\tC:\(huge)\n".write(toFile: chords, atomically: true, encoding: .utf8)
    let result = try cli.run(["chords", "import", "demo", chords])
    #expect(result.status == 65, "\(result.stderr.prefix(300))")
    #expect(
      result.stderrLines.count == 1 && result.stderr.count < 400, "\(result.stderr.prefix(300))")
  }

  @Test func aBadBeatFileKeepsTheOldMap() throws {
    _ = try cli.run(["add", CLI.fixture("demo.wav")])
    _ = try cli.run(["beats", "import", "demo", CLI.fixture("demo.beats")])
    let before = try exported()
    let cases: [(String, String)] = [
      ("0.5\n0.4\n", "line 2"), ("0.5\n0.5\n", "line 2"), ("0.1\n-0.2\n", "line 2"),
      ("0.1\nnan\n", "line 2"), ("0.1\n99\n", "line 2"), ("# nothing\n", "no beats"),
      ("0.1\n0.2x\n", "line 2"),
    ]
    for (text, expected) in cases {
      let file = dir.file("bad.txt")
      try text.write(toFile: file, atomically: true, encoding: .utf8)
      let result = try cli.run(["beats", "import", "demo", file, "--format", "times"])
      #expect(result.status == 65, "\(text): \(result.stderr)")
      #expect(result.stderrLines.count == 1)
      #expect(result.stderr.contains("'\(file)'") && result.stderr.contains(expected), "\(result.stderr)")
      #expect(try exported() == before)
    }
    let binary = dir.file("bin.txt")
    FileManager.default.createFile(atPath: binary, contents: Data([0, 1, 2, 255, 0, 7]))
    #expect(try cli.run(["beats", "import", "demo", binary]).status == 65)
    let garbage = dir.file("garbage.txt")
    try "garbage\n".write(toFile: garbage, atomically: true, encoding: .utf8)
    let unknown = try cli.run(["beats", "import", "demo", garbage])
    #expect(unknown.status == 65)
    // The hint names the option that says the format.
    #expect(
      unknown.stderr.hasSuffix(
        "cannot tell its format; give it with --format: times, mirex, audacity, csv, xml, xsc or json\n"
      ), "\(unknown.stderr)")
    #expect(try cli.run(["beats", "import", "demo", dir.file("missing.txt")]).status == 66)
    #expect(try cli.run(["beats", "import", "demo", binary, "--format", "midi"]).status == 64)
    #expect(try cli.run(["beats", "export", "demo", "--format", "xsc"]).status == 64)
    #expect(try exported() == before)
  }

  /// A json beat file with a key given twice (a beat's time, the list of beats) is refused
  /// with the line of the second, and the map is kept.
  @Test func aJSONKeyGivenTwiceIsRefusedWithItsLine() throws {
    _ = try cli.run(["add", CLI.fixture("demo.wav")])
    _ = try cli.run(["beats", "import", "demo", CLI.fixture("demo.beats")])
    let before = try exported()
    let cases: [(String, String, String)] = [
      ("{\"sample_rate\":8000,\"beats\":[\n{\"time\":0.5},\n{\"time\":1.0,\"time\":1.5}]}", "line 3", "time"),
      ("{\"beats\":[{\"time\":0.5}],\n\"beats\":[{\"time\":1.0}]}", "line 2", "beats"),
    ]
    for (text, line, key) in cases {
      let file = dir.file("twice.json")
      try text.write(toFile: file, atomically: true, encoding: .utf8)
      let result = try cli.run(["beats", "import", "demo", file, "--format", "json"])
      #expect(result.status == 65, "\(result.stderr)")
      #expect(
        result.stderrLines == [
          "practice: beat file '\(file)' \(line): malformed JSON: expected a key not given "
            + "before ('\(key)' repeats), found ':'; fix the JSON"
        ], "\(result.stderr)")
      #expect(try exported() == before)
    }
  }
}

@Suite struct TranscribeImportTests {
  @Test func measuresBecomeBarsAndLoopsBecomeSelections() throws {
    let dir = TemporaryDirectory()
    let cli = CLI(database: dir.file("lib.sqlite"))
    // The .xsc describes a 7.5 s, 44.1 kHz song; any audio of that length will do.
    let song = dir.file("practice-song.wav")
    try Synth.write(Synth.sine(frequency: 220, seconds: 7.5, channels: 2), to: song, channels: 2)
    _ = try cli.run(["add", song])
    let result = try cli.run(["beats", "import", "1", CLI.fixture("beats/song.xsc")])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("11 beats, bars 0-4 (0 is the pickup), 3 selections from the file's loops"))
    let bars = try cli.run(["beats", "show", "1"]).stdout.split(separator: "\n").map { $0.split(separator: "\t")[0...2].joined(separator: " ") }
    #expect(bars == ["0 0:00.3 1", "1 0:00.5 4", "2 0:02.5 3", "3 0:04.0 1", "4 0:04.5 2"])
    let selections = try cli.run(["select", "list", "1"]).stdout
    // In song order, not the alphabet's.
    #expect(
      selections
        == "1\tVerse\t0:00.5–0:02.5\t\tpractice-song\n1\tSolo, take 2\t0:02.5–0:04.0\t\tpractice-song\n1\tloop 4\t0:04.0–0:04.5\t\tpractice-song\n")
    // Importing again keeps the selections the musician may have edited, and says so.
    let again = try cli.run(["beats", "import", "1", CLI.fixture("beats/song.xsc")])
    #expect(again.status == 0)
    #expect(again.stderrLines.filter { $0.contains("warning: a selection") }.count == 3)
  }
}
