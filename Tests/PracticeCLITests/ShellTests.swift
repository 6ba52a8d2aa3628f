import Foundation
import TestSupport
import Testing

/// Issue 23, "at home in a shell": tables at a terminal and TSV when piped, finding a song
/// by title, selections in song order, file names that are not UTF-8, backslashes shown
/// unambiguously, a read-only library in a read-only directory.
@Suite struct ShellTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// Runs a bash script with `$1…` the arguments and the CLI's environment (PRACTICE_BIN is
  /// the binary); what it printed and its status.
  func bash(_ script: String, _ arguments: [String] = []) throws -> CommandResult {
    var environment = cli.environment
    environment["PRACTICE_BIN"] = CLI.binary
    return try runProgram(
      "/bin/bash", ["-c", script, "bash"] + arguments, environment: environment,
      directory: dir.path, scratch: dir.path)
  }

  /// Runs `practice args…` in a pseudo-terminal `width` columns wide (util-linux `script`);
  /// its exit status and the lines it showed.
  func atTerminal(_ arguments: [String], width: Int) throws -> (status: Int32, lines: [String]) {
    let result = try bash(
      #"stty_cols=$1; shift; printf -v command ' %q' "$PRACTICE_BIN" "$@"; "#
        + #"script -qec "stty cols $stty_cols rows 50; exec $command" /dev/null"#,
      ["\(width)"] + arguments)
    let lines = result.stdout.replacingOccurrences(of: "\r\n", with: "\n")
      .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    return (result.status, lines.last == "" ? Array(lines.dropLast()) : lines)
  }

  /// Terminal columns: CJK two, combining marks none, the rest one (enough for these tests).
  func columns(_ text: String) -> Int {
    text.unicodeScalars.reduce(0) { total, scalar in
      if scalar.properties.generalCategory == .nonspacingMark { return total }
      return total + ((0x3040...0x9FFF).contains(scalar.value) ? 2 : 1)
    }
  }

  /// The terminal column where `needle` starts in `line`.
  func column(of needle: String, in line: String) -> Int? {
    line.range(of: needle).map { columns(String(line[..<$0.lowerBound])) }
  }

  func copy(_ fixture: String, as name: String) throws -> String {
    let path = dir.file(name)
    try FileManager.default.copyItem(atPath: CLI.fixture(fixture), toPath: path)
    return path
  }

  // MARK: Tables for people, TSV for scripts

  @Test func listIsATableAtATerminalAndTabSeparatedWhenPiped() throws {
    let long = "A very long title that will not fit beside its path at all"
    let wide = "日本語の歌"
    let longPath = try copy("sine-440.wav", as: long + ".wav")
    let widePath = try copy("chord.wav", as: wide + ".wav")
    #expect(try cli.run(["add", longPath, widePath]).status == 0)

    // Piped: the records as before, one a line.
    let piped = try cli.run(["list"]).stdout.split(separator: "\n")
      .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    #expect(piped.count == 2)
    #expect(piped.first == ["1", long, "", "0:02.0", longPath, "", "", ""])
    #expect(piped.last.map { [$0[0], $0[1], $0[2], $0[4]] } == ["2", wide, "", widePath])

    // A narrow terminal: a header, columns aligned by display width, long cells cut.
    let (status, lines) = try atTerminal(["list"], width: 70)
    #expect(status == 0)
    #expect(lines.count == 3, "\(lines)")
    let header = try #require(lines.first)
    #expect(header.hasPrefix("SONG ID  TITLE"), "\(header)")
    for word in ["LENGTH", "PATH"] { #expect(header.contains(word), "\(header)") }
    // No song has an artist, key, tempo or tags: those columns go before a title is cut.
    for word in ["ARTIST", "KEY", "BPM", "TAGS"] { #expect(!header.contains(word), "\(header)") }
    for line in lines { #expect(columns(line) <= 70, "\(line) is \(columns(line)) wide") }
    let pathColumn = try #require(column(of: "PATH", in: header))
    let lengthEnd = try #require(column(of: "LENGTH", in: header)).advanced(by: 6)
    for line in lines.dropFirst() {
      let length = try #require(line.range(of: "0:0"))
      #expect(column(of: "0:0", in: line).map { $0 + 6 } == lengthEnd, "\(line)")
      // The path keeps its end (the file's name) and starts under PATH.
      let path = String(line[line.index(length.lowerBound, offsetBy: 6)...].dropFirst(2))
      #expect(column(of: path, in: line) == pathColumn, "\(lines)")
      #expect(path.hasPrefix("…") && path.hasSuffix(".wav"), "\(line)")
    }
    #expect(lines[1].hasPrefix("      1  A very long"), "\(lines[1])")
    #expect(lines[1].contains("…") && !lines[1].contains(long), "\(lines[1])")
    #expect(lines[2].contains(" 2  \(wide)  "), "\(lines[2])")

    // Wide enough: nothing is cut, and the cells are the piped fields.
    let (_, full) = try atTerminal(["list"], width: 400)
    #expect(full.count == 3)
    #expect(!full.joined().contains("…"))
    #expect(full[1].contains(long) && full[1].hasSuffix(longPath), "\(full[1])")
    #expect(full[0].contains("ARTIST") && full[0].hasSuffix("TAGS"), "\(full[0])")
    #expect(full[2].hasSuffix(widePath))
  }

  @Test func everyListIsATableAtATerminal() throws {
    let song = try copy("clicks-120.wav", as: "Clicks.wav")
    #expect(try cli.run(["add", song]).status == 0)
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5"]).status == 0)
    #expect(try cli.run(["select", "add", "1", "intro", "--bars", "1-2"]).status == 0)
    #expect(try cli.run(["play", "1", "--select", "intro", "--device", "null"]).status == 0)
    #expect(try cli.run(["setlist", "new", "gig"]).status == 0)
    #expect(try cli.run(["setlist", "add", "gig", "1"]).status == 0)
    // A column of song ids is headed SONG ID in every list (`select list` and `setlist show`
    // said SONG, which `log` and `stats` use for the title).
    let lists: [(arguments: [String], header: [String])] = [
      (["list"], ["SONG ID", "TITLE", "ARTIST", "LENGTH", "PATH", "KEY", "BPM", "TAGS"]),
      (["setlist", "show", "gig"], [
        "#", "SONG ID", "TITLE", "SELECTION", "KEY", "TRANSPOSE", "SPEED", "REPEAT", "NOTE",
      ]),
      (["log"], ["STARTED", "SONG", "WHAT", "PASSES", "SPEED", "HEARD", "ENDED"]),
      (["stats"], [
        "SONG", "SELECTION", "PLAYS", "PASSES", "HEARD", "FASTEST", "LAST PLAYED", "CLEAN",
        "MARKED", "GOAL", "TO GOAL", "DAYS",
      ]),
      (["select", "list"], ["SONG ID", "NAME", "SPAN", "NOTE", "TITLE"]),
      (["beats", "show", "1"], ["BAR", "START", "BEATS", "BPM"]),
    ]
    for (arguments, header) in lists {
      let piped = try cli.run(arguments)
      #expect(piped.status == 0, "\(arguments): \(piped.stderr)")
      let records = piped.stdout.split(separator: "\n").map(String.init)
      #expect(!records.isEmpty && records.allSatisfy { $0.contains("\t") }, "\(arguments)")
      #expect(!piped.stdout.contains(header[0]), "\(arguments): \(piped.stdout)")
      // The terminal shows stderr too: `stats` of plays on the null PCM says why HEARD is 0:00.
      let (status, shown) = try atTerminal(arguments, width: 150)
      let lines = shown.filter { !$0.hasPrefix("HEARD 0:00: ") }
      #expect(status == 0)
      #expect(lines.count == records.count + 1, "\(arguments): \(lines)")
      let words = try #require(lines.first).split(separator: " ", omittingEmptySubsequences: true)
      #expect(words.joined(separator: " ") == header.joined(separator: " "), "\(lines)")
      #expect(!lines.joined().contains("\t"))
      // Each row holds its record's fields, in order, with spaces between.
      for (line, record) in zip(lines.dropFirst(), records) {
        var rest = Substring(line)
        for field in record.split(separator: "\t") {
          let found = try #require(rest.range(of: field), "\(field) in \(line)")
          rest = rest[found.upperBound...]
        }
      }
    }
    let (_, selections) = try atTerminal(["select", "list"], width: 150)
    #expect(selections.last?.contains("1  intro  bars 1-2") == true, "\(selections)")
    #expect(selections.last?.hasSuffix("Clicks") == true, "\(selections)")
  }

  // MARK: Finding a song

  @Test func aTitleFindsItsSongWholeThenByAUniqueSubstring() throws {
    for (title, artist) in [
      ("So What", "Miles Davis"), ("So What (live)", "Miles\u{1B}]2;x\u{07} Davis"),
      ("Blue in Green", ""),
    ] {
      let path = dir.file("\(title).wav")
      try Synth.write(
        Synth.sine(frequency: 440, seconds: 0.3), to: path,
        tags: (title: title, artist: artist, album: ""))
      #expect(try cli.run(["add", path]).status == 0)
    }
    #expect(try cli.run(["show", "so what"]).stdout.hasPrefix("id 1\n"))
    #expect(try cli.run(["show", "LIVE"]).stdout.hasPrefix("id 2\n"))
    #expect(try cli.run(["show", "in green"]).stdout.hasPrefix("id 3\n"))
    let before = try cli.snapshot()
    let several = try cli.run(["play", "what", "--device", "null"])
    #expect(several.status == 64)
    #expect(several.stdout.isEmpty)
    #expect(
      several.stderr
        == "practice: 'what' matches 2 songs: 1 'So What' by 'Miles Davis' (wav), 2 'So What (live)' by "
        + "'Miles\\x1b]2;x\\x07 Davis' (wav); give the id, or more of the title\n")
    let none = try cli.run(["show", "naima"])
    #expect(none.status == 66 && none.stderrLines.count == 1)
    #expect(try cli.snapshot() == before)
  }

  // MARK: Selections in song order

  @Test func selectionsAreListedInSongOrderWithTheirSongsTitle() throws {
    #expect(try cli.run(["add", try copy("clicks-120.wav", as: "Drill.wav")]).status == 0)
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5"]).status == 0)
    for (name, span) in [
      ("coda", ["--bars", "7-8"]), ("zz-start", ["--bars", "1-2"]),
      ("middle", ["--from", "5", "--to", "6"]),
      ("a-start", ["--bars", "1"]),
    ] {
      #expect(try cli.run(["select", "add", "1", name] + span).status == 0)
    }
    let names = try cli.run(["select", "list"]).stdout.split(separator: "\n")
      .map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    #expect(names.map { String($0[1]) } == ["a-start", "zz-start", "middle", "coda"])
    #expect(names.allSatisfy { $0[0] == "1" && $0.last == "Drill" })
  }

  /// The keys `1`–`0` count selections in song order too (the null device: no sound server).
  @Test func numberKeysJumpToSelectionsInSongOrder() throws {
    #expect(try cli.run(["add", try copy("clicks-120.wav", as: "Drill.wav")]).status == 0)
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5"]).status == 0)
    #expect(try cli.run(["select", "add", "1", "a-later", "--bars", "5-6"]).status == 0)
    #expect(try cli.run(["select", "add", "1", "z-first", "--bars", "2"]).status == 0)
    let tmux = try Tmux(dir: dir, environment: cli.environment)
    defer { tmux.kill() }
    try tmux.start(["play", "1", "--loop", "--device", "null"])
    // The null device takes audio faster than real time: any pass will do before pausing.
    _ = try tmux.waitFor { $0.contains("/∞ ·") }
    tmux.send("Space")
    _ = try tmux.waitFor { $0.contains("paused · bar ") }
    tmux.send("1")
    _ = try tmux.waitFor { $0.contains("paused · bar 2.1/8") && $0.contains("· 'z-first' ·") }
    tmux.send("2")
    _ = try tmux.waitFor { $0.contains("paused · bar 5.1/8") && $0.contains("· 'a-later' ·") }
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
  }

  // MARK: Names as bytes, backslashes

  @Test func fileNamesThatAreNotUTF8CanBeAddedAndPlayed() throws {
    // caf\xe9.wav: Latin-1, not UTF-8; a folder of it and a name given as bytes.
    let made = try bash(
      #"mkdir -p latin && cp "$1" "$(printf 'latin/caf\351.wav')" && cp "$1" "$(printf 'na\357ve.wav')""#,
      [CLI.fixture("sine-440.wav")])
    #expect(made.status == 0, "\(made.stderr)")
    let folder = try cli.run(["add", dir.file("latin")])
    #expect(folder.status == 0, "\(folder.stderr)")
    #expect(folder.stdout == "1\tcaf\\xe9\n")
    let named = try bash(#""$PRACTICE_BIN" add "$(printf 'na\357ve.wav')""#)
    #expect(named.status == 0, "\(named.stderr)")
    #expect(named.stdout == "2\tna\\xefve\n")
    #expect(try cli.run(["list"]).stdout.contains("\t\(dir.file("latin"))/caf\\xe9.wav\t"))
    // The stored name reaches the file again: played by id, by title, by its bytes.
    let played = try cli.run(["play", "1", "--to", "0.2", "--device", "null"])
    #expect(played.status == 0, "\(played.stderr)")
    #expect(played.stderr.contains("playing 'caf\\xe9'"))
    let byBytes = try bash(
      #""$PRACTICE_BIN" play "$(printf 'latin/caf\351.wav')" --to 0.2 --device null"#)
    #expect(byBytes.status == 0, "\(byBytes.stderr)")
    // The same file, not a second song.
    #expect(try cli.run(["list"]).stdout.split(separator: "\n").count == 2)
    // Adding the folder again finds the same song.
    #expect(try cli.run(["add", dir.file("latin")]).stdout == "1\tcaf\\xe9\n")
    // `today` writes its path as the shell's $'…\xe9…', which runs back into the same bytes.
    #expect(try cli.run(["select", "add", "1", "all", "--from", "0", "--to", "0.2"]).status == 0)
    #expect(try cli.run(["select", "set", "1", "all", "--goal", "100%"]).status == 0)
    let today = try cli.run(["today"]).stdout
    #expect(today.contains("latin/caf\\xe9.wav'"), "\(today)")
    let rerun = try bash(
      #"folder=$2; practice() { [ "$2" = "$(printf '%s/caf\351.wav' "$folder")" ] && echo same; }; eval "$1""#,
      [today, dir.file("latin")])
    #expect(rerun.stdout == "same\n", "\(today) \(rerun.stderr)")
  }

  @Test func aBackslashFromDataIsShownEscapedToo() throws {
    // A title holding the four characters \x1b, and one holding a real ESC.
    let literal = try copy("sine-440.wav", as: #"lit\x1b.wav"#)
    let real = dir.file("real.wav")
    try Synth.write(
      Synth.sine(frequency: 220, seconds: 0.3), to: real,
      tags: (title: "lit\u{1B}", artist: #"back\slash"#, album: ""))
    let added = try cli.run(["add", literal, real])
    #expect(added.stdout == "1\tlit\\\\x1b\n2\tlit\\x1b\n", "\(added.stdout)")
    let list = try cli.run(["list"]).stdout
    #expect(list.contains("2\tlit\\x1b\tback\\\\slash\t"), "\(list)")
    #expect(list.contains(#"/lit\\x1b.wav"#), "\(list)")
    // JSON keeps its own escaping: the title reads back as it is.
    let json = try cli.run(["show", "1", "--json"]).stdout
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["title"] as? String == #"lit\x1b"#)
  }

  // MARK: A read-only library

  @Test func aReadOnlyLibraryWithoutItsShmFileCanBeListed() throws {
    // Permissions do not bind root, so the reads run as `nobody`.
    let shared = dir.file("ro")
    try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
    chmod(dir.path, 0o755)
    let owner = CLI(database: shared + "/lib.sqlite")
    #expect(try owner.run(["add", CLI.fixture("sine-440.wav")]).status == 0)
    #expect(try owner.run(["select", "add", "1", "intro", "--from", "0", "--to", "1"]).status == 0)
    // The last connection to close folds the WAL back into the file and removes -wal and -shm.
    try closeCleanly(shared + "/lib.sqlite")
    #expect(try FileManager.default.contentsOfDirectory(atPath: shared) == ["lib.sqlite"])
    chmod(shared + "/lib.sqlite", 0o644)
    chmod(shared, 0o555)
    defer { chmod(shared, 0o755) }
    for command in [["list"], ["show", "1"], ["log"], ["stats"], ["select", "list"]] {
      let result = try owner.run(command, asUser: "65534")
      #expect(result.status == 0, "\(command): \(result.stderr)")
      // Read, not written: at most the line that says a list is empty (no plays yet).
      #expect(
        result.stderr.isEmpty || result.stderr == "no plays in the practice log yet\n",
        "\(command): \(result.stderr)")
    }
    #expect(try owner.run(["list"], asUser: "65534").stdout.hasPrefix("1\tsine-440\t"))
    let write = try owner.run(["add", CLI.fixture("chord.wav")], asUser: "65534")
    #expect(write.status == 73, "\(write.stderr)")
    #expect(write.stderrLines.count == 1)
    #expect(try FileManager.default.contentsOfDirectory(atPath: shared) == ["lib.sqlite"])
  }

  @Test func everyCommandClosesTheLibrarySoNoWALIsLeftForTheNextOne() throws {
    let path = dir.file("lib.sqlite")
    for command in [
      ["add", CLI.fixture("sine-440.wav")], ["list"], ["show", "1"],
      ["select", "add", "1", "intro", "--from", "0", "--to", "1"], ["show", "99"],
    ] {
      let result = try cli.run(command)
      #expect(result.status == (command == ["show", "99"] ? 66 : 0), "\(command): \(result.stderr)")
      // A -wal file left behind is read back whole by the next command before its first query.
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
          $0.hasPrefix("lib.sqlite")
        } == ["lib.sqlite"], "after \(command)")
    }
    #expect(FileManager.default.fileExists(atPath: path))
  }

  /// Opens the library and closes it, the last connection: SQLite checkpoints the WAL into
  /// the main file and deletes -wal and -shm.
  func closeCleanly(_ path: String) throws {
    let result = try bash(
      #"python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "#
        + #"c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()' "$1""#, [path])
    #expect(result.status == 0, "\(result.stderr)")
  }
}
