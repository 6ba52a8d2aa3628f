import Foundation
import TestSupport
import Testing

/// Issue 23, "Reliability and security": each bad input gets its documented exit code, one
/// line on stderr, and leaves the library exactly as it was.
@Suite struct HardeningTests: RefusalSuite {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  init() throws {
    // A library with one song in it, so "unchanged" means something.
    _ = try cli.run(["add", CLI.fixture("sine-440.wav")])
  }

  // MARK: 1. Numbers are range-checked before arithmetic

  @Test(arguments: [
    "1000000000000000d", "1e308d", "9223372036854775807m", "999999999999999999w", "-1d", "0x10d",
    "36501d",
  ])
  func hugeSinceIsRefused(since: String) throws {
    for command in ["log", "stats"] {
      try expectFailure([command, "--since", since], status: 64, message: "up to 100 years")
    }
  }

  @Test func sinceAtTheLimitWorks() throws {
    for command in ["log", "stats"] {
      let result = try cli.run([command, "--since", "36500d"])
      #expect(result.status == 0, "\(result.stderr)")
    }
  }

  @Test func speedsAndTimesOutOfRange() throws {
    let song = CLI.fixture("sine-440.wav")
    let out = dir.file("x.wav")
    try expectFailure(
      ["render", song, "--speed", "0x1", "-o", out], status: 64, message: "25% to 200%")
    try expectFailure(
      ["render", song, "--speed", "-50%", "-o", out], status: 64, message: "25% to 200%")
    try expectFailure(
      ["render", song, "--speed", "1e0", "-o", out], status: 64, message: "25% to 200%")
    try expectFailure(
      ["render", song, "--ramp-to", "inf", "--step", "5%", "-o", out], status: 64,
      message: "25% to 200%")
    try expectFailure(
      ["render", song, "--volume", "0x1", "-o", out], status: 64, message: "0% to 200%")
    try expectFailure(
      ["render", song, "--from", "-1", "-o", out], status: 64,
      message: "--from -1: before the start")
    try expectFailure(
      ["render", song, "--to", "-0.5", "-o", out], status: 64,
      message: "--to -0.5: before the start")
    try expectFailure(
      ["render", song, "--repeat", "-1", "-o", out], status: 64, message: "use 1 to 9999")
    try expectFailure(
      ["render", song, "--every", "-1", "--ramp-to", "1", "--step", "5%", "-o", out], status: 64,
      message: "use 1 to 9999")
    try expectFailure(
      ["render", song, "--count-in", "-2", "-o", out], status: 64, message: "use 0 to 16")
    try expectFailure(
      ["render", song, "--gap", "0x1s", "-o", out], status: 64,
      message: "--gap 0x1s: not a duration")
    try expectFailure(
      ["render", song, "--step", "1e-2", "--ramp-to", "1", "-o", out], status: 64,
      message: "--step 1e-2: not a speed step")
    try expectFailure(
      ["render", song, "--bars", "1-9223372036854775807", "-o", out], status: 64,
      message: "--bars 1-9223372036854775807: not a bar range")
    // Plain numbers elsewhere too: no hexadecimal, exponents, inf or nan.
    try expectFailure(
      ["render", song, "--transpose", "0x1", "-o", out], status: 64,
      message: "--transpose 0x1: must be a plain decimal")
    // Out of range and malformed, each worded with the value as typed.
    try expectFailure(
      ["render", song, "--transpose", "12.5", "-o", out], status: 64,
      message: "--transpose 12.5: out of range; use -12 to 12 semitones")
    try expectFailure(
      ["render", song, "--count-in", "two", "-o", out], status: 64,
      message: "--count-in two: not a whole number; use 0 to 16 bars")
    try expectFailure(
      ["beats", "grid", "1", "--bpm", "1e2"], status: 64,
      message: "--bpm 1e2: must be a plain decimal")
    try expectFailure(
      ["beats", "shift", "1", "--by", "inf"], status: 64,
      message: "--by inf: must be seconds, like 0.02 or -0.15, or milliseconds, like 20ms")
    try expectFailure(
      ["beats", "detect", "1", "--min-bpm", "nan"], status: 64,
      message: "--min-bpm nan: must be a plain decimal")
    try expectFailure(
      ["tone", "A4", "--a4", "0x1b8"], status: 64, message: "--a4 0x1b8: must be a plain decimal")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  // MARK: 2. Control characters from data never reach the terminal raw

  /// Escape, BEL and the other C0 controls, DEL, C1 (U+009B is CSI) and a bidirectional
  /// override (U+202E), as a tag or a name from a file may hold them: a window title, a
  /// clear screen, a colour, a line shown backwards.
  static let hostile = "Ev\u{1B}]0;pwned\u{07}il\u{1B}[2J\u{9B}31m\u{7F}\u{202E}"

  /// True when `text` holds a control character other than the tabs and newlines given.
  func hasRawControl(_ text: String, allowing allowed: Set<Unicode.Scalar> = ["\t", "\n"]) -> Bool {
    text.unicodeScalars.contains {
      !allowed.contains($0)
        && ($0.value < 0x20 || (0x7F..<0xA0).contains($0.value)
          || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value))
    }
  }

  /// Characters whose UTF-8 sits next to the controls' (no-break space U+00A0, U+2029,
  /// U+202F, U+2065, U+206A, a curly quote, a letter of plane 16) are text: `list`, `list
  /// --json` and `show`, which check what they print byte by byte, print them as they are.
  @Test func neighboursOfTheControlsArePrintedAsTheyAre() throws {
    let title = "A\u{A0}B\u{2029}C\u{202F}D\u{2065}E\u{206A}F\u{2019}\u{E9}\u{10FFFD}"
    let set = try cli.run(["set", "1", "--title", title])
    #expect(set.status == 0, "\(set.stderr)")
    let list = try cli.run(["list"])
    #expect(list.stdout.hasPrefix("1\t\(title)\t"), "\(list.stdout)")
    let json = try cli.run(["list", "--json"])
    #expect(json.stdout.contains("\"title\":\"\(title)\""), "\(json.stdout)")
    #expect(json.stdout.hasSuffix("]\n"))
    let show = try cli.run(["show", "1"])
    #expect(show.stdout.contains("title \(title)\n"), "\(show.stdout)")
  }

  @Test func tagsAndFileNamesAreEscapedEverywhere() throws {
    let song = dir.file("tab\there\nname\u{1B}[31m\u{2067}.flac")
    try Synth.write(
      Synth.sine(frequency: 440, seconds: 2, amplitude: 0.5), to: song,
      tags: (title: Self.hostile, artist: "Art\tist", album: "Al\nbum"))
    let added = try cli.run(["add", song])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(!hasRawControl(added.stdout))
    #expect(added.stdout == "2\tEv\\x1b]0;pwned\\x07il\\x1b[2J\\u009b31m\\x7f\\u202e\n")
    // Every record stays on one line with its own tabs only.
    let list = try cli.run(["list"])
    #expect(!hasRawControl(list.stdout))
    let rows = list.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(rows.count == 2)
    #expect(
      rows.allSatisfy { $0.split(separator: "\t", omittingEmptySubsequences: false).count == 8 })
    #expect(rows.last?.contains("Art\\x09ist") == true)
    let show = try cli.run(["show", "2"])
    #expect(!hasRawControl(show.stdout, allowing: ["\n"]))
    #expect(show.stdout.contains("album Al\\x0abum\n"))
    // --json escapes as JSON does, C1 and DEL too.
    let json = try cli.run(["list", "--json"])
    #expect(!hasRawControl(json.stdout, allowing: ["\n"]))
    #expect(json.stdout.contains(#""title":"Ev\u001b]0;pwned\u0007il\u001b[2J\u009b31m\u007f\u202e""#))
    // Talk on stderr: the `rendered …` line, and an error naming the song.
    let render = try cli.run(["render", "2", "-o", dir.file("out.wav")])
    #expect(render.status == 0)
    #expect(!hasRawControl(render.stderr, allowing: ["\n"]), "\(render.stderr)")
    #expect(render.stderr.contains("Ev\\x1b]0;pwned"))
    let play = try cli.run(["play", "2", "--device", "null", "--to", "0.2"])
    #expect(play.status == 0, "\(play.stderr)")
    #expect(play.stderr.hasPrefix("playing 'Ev\\x1b]0;pwned"), "\(play.stderr)")
    #expect(!hasRawControl(play.stderr, allowing: ["\n"]))
    let log = try cli.run(["log"])
    #expect(log.stdout.contains("Ev\\x1b]0;pwned"))
    #expect(!hasRawControl(log.stdout))
    #expect(log.stdout.split(separator: "\n").allSatisfy { $0.split(separator: "\t").count == 7 })
    let stats = try cli.run(["stats"])
    #expect(stats.stdout.contains("Ev\\x1b]0;pwned"))
    #expect(!hasRawControl(stats.stdout))
    let missing = try cli.run(["select", "show", "2", "nope"])
    #expect(missing.status == 66)
    #expect(!hasRawControl(missing.stderr, allowing: ["\n"]))
    let gone = try cli.run(["add", dir.file("no\u{1B}[2Jsuch.wav")])
    #expect(
      gone.stderrLines == [
        "practice: no such file '\(dir.file("no\\x1b[2Jsuch.wav"))'; check the path"
      ] || gone.stderr.contains("no\\x1b[2Jsuch.wav"), "\(gone.stderr)")
    #expect(!hasRawControl(gone.stderr, allowing: ["\n"]))
  }

  /// A loop's name with controls becomes a selection's name as the one text rule has it
  /// (each control a U+FFFD), so the library can export it and import it again.
  @Test func selectionNamesFromATranscribeFileAreCleaned() throws {
    let song = dir.file("practice-song.wav")
    try Synth.write(Synth.sine(frequency: 220, seconds: 7.5), to: song)
    #expect(try cli.run(["add", song]).status == 0)
    let xsc = try String(contentsOfFile: CLI.fixture("beats/song.xsc"), encoding: .utf8)
      .replacingOccurrences(of: ",Verse,", with: ",Ver\u{1B}]2;x\u{07}se\u{1B}[2J,")
    let file = dir.file("song.xsc")
    try xsc.write(toFile: file, atomically: true, encoding: .utf8)
    let imported = try cli.run(["beats", "import", "2", file])
    #expect(imported.status == 0, "\(imported.stderr)")
    let list = try cli.run(["select", "list", "2"])
    #expect(!hasRawControl(list.stdout))
    let cleaned = "Ver\u{FFFD}]2;x\u{FFFD}se\u{FFFD}[2J"
    #expect(list.stdout.contains("\t\(cleaned)\t"), "\(list.stdout)")
    let show = try cli.run(["select", "show", "2", cleaned])
    #expect(show.status == 0, "\(show.stderr)")
    #expect(!hasRawControl(show.stdout, allowing: ["\n"]))
    let play = try cli.run(["play", "2", "--select", cleaned, "--device", "null"])
    #expect(play.status == 0, "\(play.stderr)")
    #expect(!hasRawControl(play.stderr, allowing: ["\n"]), "\(play.stderr)")
    // The backup of such a library is restored.
    let backup = dir.file("backup.practice")
    #expect(try cli.run(["export", "--all", "-o", backup]).status == 0)
    let other = CLI(database: dir.file("other.sqlite"))
    #expect(try other.run(["add", CLI.fixture("sine-440.wav"), song]).status == 0)
    let restored = try other.run(["import", backup])
    #expect(restored.status == 0, "\(restored.stderr)")
    #expect(try other.run(["select", "list", "2"]).stdout == list.stdout)
  }

  /// At a real terminal (tmux): the `playing …` line and the status line, which names the
  /// selection, show a hostile title and selection name escaped; so does the player screen.
  @Test func theStatusLineEscapesNames() throws {
    let song = dir.file("practice-song.flac")
    try Synth.write(
      Synth.sine(frequency: 220, seconds: 7.5), to: song,
      tags: (title: Self.hostile, artist: "", album: ""))
    #expect(try cli.run(["add", song]).status == 0)
    let xsc = try String(contentsOfFile: CLI.fixture("beats/song.xsc"), encoding: .utf8)
      .replacingOccurrences(of: ",Verse,", with: ",Ver\u{1B}]2;x\u{07}se\u{1B}[2J,")
    let file = dir.file("song.xsc")
    try xsc.write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try cli.run(["beats", "import", "2", file]).status == 0)
    let tmux = try Tmux(dir: dir, environment: cli.environment)
    defer { tmux.kill() }
    let selection = ["--select", "Ver\u{FFFD}]2;x\u{FFFD}se\u{FFFD}[2J", "--loop", "--device", "null"]
    try tmux.start(["play", "2", "--no-screen"] + selection)
    let screen = try tmux.waitFor { $0.contains("/∞ · selection") }
    #expect(screen.contains("playing 'Ev\\x1b]0;pwned\\x07il\\x1b[2J\\u009b31m\\x7f\\u202e'"), "\(screen)")
    #expect(screen.contains("· selection 'Ver\u{FFFD}]2;x\u{FFFD}se\u{FFFD}[2J' ·"), "\(screen)")
    tmux.send("q")
    #expect(try tmux.waitForExit() == 0)
    // The player screen (12 rows, a pane of its own): the selection's label on the strip
    // and the status line.
    let pane = try Tmux(dir: dir, environment: cli.environment)
    defer { pane.kill() }
    try pane.start(["play", "2"] + selection)
    let picture = try pane.waitFor { $0.contains("/∞ · selection") }
    #expect(pane.alternateScreen)
    #expect(picture.contains("Ver\u{FFFD}]2;x\u{FFFD}se"), "\(picture)")
    #expect(!picture.contains("Ver\u{1B}"))
    pane.send("q")
    #expect(try pane.waitForExit() == 0)
  }

  @Test func typedNamesAndNotesAreOneLineOfText() throws {
    let song = CLI.fixture("sine-440.wav")
    try expectFailure(
      ["select", "add", "1", "a\tb", "--from", "0", "--to", "1"], status: 64,
      message: "holds a tab (U+0009)")
    try expectFailure(
      ["select", "add", "1", "a\nb", "--from", "0", "--to", "1"], status: 64,
      message: "holds a line break")
    try expectFailure(
      ["select", "add", "1", "v", "--from", "0", "--to", "1", "--note", "x\u{1B}[2J"], status: 64,
      message: "the note 'x\\x1b[2J' holds a control character (U+001B)")
    #expect(try cli.run(["select", "add", song, "v", "--from", "0", "--to", "1"]).status == 0)
    try expectFailure(
      ["select", "edit", "1", "v", "--rename", "v\u{7F}"], status: 64, message: "U+007F")
    try expectFailure(
      ["select", "edit", "1", "v", "--note", "a\u{9B}b"], status: 64, message: "U+009B")
  }

  // MARK: 3. First use under concurrency

  @Test func twentyProcessesCreateOneLibrary() throws {
    let fresh = CLI(database: dir.file("new/fresh.sqlite"))
    var songs: [String] = []
    for i in 0..<20 {
      let path = dir.file("song-\(i).wav")
      try FileManager.default.copyItem(atPath: CLI.fixture("sine-440.wav"), toPath: path)
      songs.append(path)
    }
    let running = try songs.map { try fresh.start(["add", $0]) }
    let results = running.map { $0.finish() }
    for result in results {
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stderr.isEmpty, "\(result.stderr)")
    }
    let listed = try fresh.run(["list"]).stdout.split(separator: "\n")
    #expect(listed.count == 20)
    for song in songs { #expect(listed.contains { $0.contains("\t" + song + "\t") }, "\(song)") }
  }

  // MARK: 4. Someone else's database

  /// Makes an SQLite file with `sql` through the practice library's own SQLite (GRDB), by
  /// running the sqlite3 shell if there is one, else Python's.
  func makeDatabase(_ path: String, _ sql: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [
      "-c",
      "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()",
      path, sql,
    ]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
  }

  @Test func foreignDatabaseIsRefusedUntouched() throws {
    let other = dir.file("other.sqlite")
    try makeDatabase(other, "CREATE TABLE notes (x); INSERT INTO notes VALUES (1);")
    let before = try Data(contentsOf: URL(fileURLWithPath: other))
    try expectFailure(["list", "--db", other], status: 65, message: "is not a practice library")
    try expectFailure(
      ["add", "--db", other, CLI.fixture("sine-440.wav")], status: 65,
      message: "tables practice does not know: notes")
    #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == before)
    #expect(!FileManager.default.fileExists(atPath: other + "-wal"))

    // Tables named like ours but no record of practice's migrations: not ours either.
    let lookalike = dir.file("lookalike.sqlite")
    try makeDatabase(lookalike, "CREATE TABLE song (x);")
    try expectFailure(
      ["list", "--db", lookalike], status: 65, message: "is not a practice library")
  }

  @Test func newerLibraryIsRefusedNamingTheVersions() throws {
    let newer = dir.file("newer.sqlite")
    #expect(try CLI(database: newer).run(["list"]).status == 0)
    try makeDatabase(newer, "INSERT INTO grdb_migrations VALUES ('v99-future');")
    try expectFailure(
      ["list", "--db", newer], status: 65, message: "newer practice (schema v99-future)")
    let result = try CLI(database: newer).run(["list"])
    #expect(
      result.stderr.contains(#/knows schema versions up to v\d+-[a-z-]+: use the newer/#),
      "\(result.stderr)")
  }

  @Test func emptyDatabasePathIsRefused() throws {
    try expectFailure(["list", "--db", ""], status: 64, message: "the library path is empty")
    #expect(!FileManager.default.fileExists(atPath: CLI.packageRoot + "/-wal"))
  }

  // MARK: 5. A failing command leaves the library as it was

  /// A 16-bit mono WAV holding `frames` frames of silence.
  func writeWAV(_ path: String, frames: Int) throws {
    try Synth.write([Float](repeating: 0, count: frames), to: path)
  }

  @Test func failingCommandsDoNotAddTheSong() throws {
    let zero = dir.file("zero.wav")
    try writeWAV(zero, frames: 0)
    let one = dir.file("one.wav")
    try writeWAV(one, frames: 1)
    let song = dir.file("song.wav")
    try FileManager.default.copyItem(atPath: CLI.fixture("sine-440.wav"), toPath: song)
    try expectFailure(
      ["render", zero, "-o", dir.file("o.wav")], status: 65, message: "holds no audio")
    try expectFailure(["play", zero, "--device", "null"], status: 65, message: "holds no audio")
    try expectFailure(["beats", "detect", one], status: 65, message: "too short")
    try expectFailure(["render", song, "-o", song], status: 64, message: "is the song itself")
    try expectFailure(
      ["render", song, "--bars", "1-2", "--no-detect", "-o", dir.file("b.wav")], status: 66,
      message: "beat map")
  }

  /// A FLAC file whose last three quarters are noise is measured when added: its length is
  /// what decodes, a position past that is past the end (64), and a render of it all says
  /// where the audio ended (65).
  @Test func damagedFlacIsMeasuredAndPlaysWhatDecodes() throws {
    let whole = dir.file("whole.flac")
    try Synth.write(Synth.sine(frequency: 440, seconds: 30, amplitude: 0.5), to: whole)
    var data = try Data(contentsOf: URL(fileURLWithPath: whole))
    var generator = SeededRandom()
    for i in (data.count / 4)..<data.count {
      data[i] = UInt8.random(in: 0...255, using: &generator)
    }
    let damaged = dir.file("damaged.flac")
    try data.write(to: URL(fileURLWithPath: damaged))
    try expectFailure(
      ["render", damaged, "--from", "20", "-o", dir.file("d.wav")], status: 64,
      message: "is at or past the end of the audio")
    #expect(!FileManager.default.fileExists(atPath: dir.file("d.wav")))
    let all = try cli.run(["render", damaged, "-o", dir.file("w.wav")])
    #expect(all.status == 65, "\(all.stderr)")
    #expect(all.stderrLines.count == 1, "\(all.stderr)")
    #expect(all.stderr.contains("though the file says 0:30.0"), "\(all.stderr)")
    let (_, rendered) = try Synth.read(dir.file("w.wav"))
    #expect(rendered.count > 44100 && rendered.count < 15 * 44100)
  }

  // MARK: 6. Exit codes and parsing

  @Test func aNameThatLooksLikeFlags() throws {
    try FileManager.default.copyItem(
      atPath: CLI.fixture("sine-440.wav"), toPath: dir.file("-dash.wav"))
    let result = try expectFailure(
      ["add", "-dash.wav"], status: 64, message: "'-dash.wav' is not an option")
    #expect(result.stderr.contains("practice add -- -dash.wav"))
    let added = try cli.run(["add", "--", "-dash.wav"], in: dir.path)
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stdout == "2\t-dash\n")
    #expect(try cli.run(["show", "./-dash.wav"], in: dir.path).status == 0)
    // Negative numbers are still values.
    #expect(try cli.run(["render", "1", "--volume", "-6dB", "-o", dir.file("v.wav")]).status == 0)
  }

  @Test func emptyNames() throws {
    try expectFailure(["add", ""], status: 64, message: "the file name is empty")
    try expectFailure(["play", "", "--device", "null"], status: 64, message: "the song is empty")
  }

  @Test func anUnsearchableDirectoryIsPermissionDenied() throws {
    // Permissions do not bind root, so the commands run as `nobody` in a shared directory.
    let shared = dir.file("shared")
    try FileManager.default.createDirectory(
      atPath: shared + "/closed", withIntermediateDirectories: true)
    chmod(dir.path, 0o755)
    chmod(shared, 0o777)
    let song = shared + "/closed/song.wav"
    try FileManager.default.copyItem(atPath: CLI.fixture("sine-440.wav"), toPath: song)
    chmod(shared + "/closed", 0o600)
    let nobody = CLI(database: shared + "/lib.sqlite")
    for command in [["add", song], ["play", song, "--device", "null"]] {
      let result = try nobody.run(command, asUser: "65534")
      #expect(result.status == 66, "\(result.stderr)")
      #expect(result.stderrLines.count == 1)
      #expect(result.stderr.contains("permission denied"), "\(result.stderr)")
    }
  }

  @Test func aReadOnlyLibraryCanBeRead() throws {
    let shared = dir.file("ro")
    try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
    chmod(dir.path, 0o755)
    chmod(shared, 0o777)
    let owner = CLI(database: shared + "/lib.sqlite")
    #expect(try owner.run(["add", CLI.fixture("sine-440.wav")]).status == 0)
    #expect(try owner.run(["select", "add", "1", "intro", "--from", "0", "--to", "1"]).status == 0)
    for file in try FileManager.default.contentsOfDirectory(atPath: shared) {
      chmod(shared + "/" + file, 0o644)
    }
    for command in [["list"], ["show", "1"], ["log"], ["stats"], ["select", "list"]] {
      let result = try owner.run(command, asUser: "65534")
      #expect(result.status == 0, "\(command): \(result.stderr)")
    }
    #expect(try owner.run(["list"], asUser: "65534").stdout.hasPrefix("1\tsine-440\t"))
    let write = try owner.run(["add", CLI.fixture("chord.wav")], asUser: "65534")
    #expect(write.status == 73, "\(write.stderr)")
    #expect(write.stderrLines.count == 1)
  }

  // MARK: 7. Render's partial file

  @Test func renderNeverWritesThroughAPlantedLink() throws {
    let out = dir.file("render")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let victim = dir.file("victim.txt")
    try "keep me".write(toFile: victim, atomically: true, encoding: .utf8)
    // Links where a partial file with a guessable name would go, and at the target itself.
    for pid in 1..<50 {
      try FileManager.default.createSymbolicLink(
        atPath: out + "/.x.wav.\(pid).partial", withDestinationPath: victim)
    }
    try FileManager.default.createSymbolicLink(atPath: out + "/x.wav", withDestinationPath: victim)
    let result = try cli.run(["render", CLI.fixture("sine-440.wav"), "-o", out + "/x.wav"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
    let attributes = try FileManager.default.attributesOfItem(atPath: out + "/x.wav")
    #expect(attributes[.type] as? FileAttributeType == .typeRegular)
    let partials = try FileManager.default.contentsOfDirectory(atPath: out).filter {
      $0.hasSuffix(".partial")
    }
    #expect(partials.count == 49)
  }

  // MARK: One error style

  @Test func usageErrorsAreOneLineWithTheRange() throws {
    let song = CLI.fixture("sine-440.wav")
    let speed = try expectFailure(
      ["play", song, "--speed", "20%", "--device", "null"], status: 64,
      message: "--speed 20%: must be 25% to 200%")
    #expect(!speed.stderr.contains("Usage:") && !speed.stderr.contains("Error:"))
    try expectFailure(
      ["play", song, "--sped", "2"], status: 64, message: "did you mean '--speed'?")
    try expectFailure(
      ["render", song], status: 64, message: "Missing expected argument '--output <out>'")
    try expectFailure(
      ["play", song, "--quality", "best"], status: 64,
      message: "--quality best: use one of 'finer' and 'faster'")
  }

  @Test func mistypedCommandsGetASuggestion() throws {
    try expectFailure(
      ["lst"], status: 64, message: "unknown command 'practice lst'; did you mean 'list'?")
    try expectFailure(["select", "lst", "1"], status: 64, message: "did you mean 'list'?")
    try expectFailure(["beats", "detcet", "1"], status: 64, message: "did you mean 'detect'?")
    try expectFailure(["xyzzy"], status: 64, message: "the commands are add, list")
    #expect(try cli.run(["help"]).status == 0)
    #expect(try cli.run(["--version"]).status == 0)
  }

  @Test func theDatabaseOptionGoesBeforeTheVerbToo() throws {
    let other = dir.file("other.sqlite")
    let added = try cli.run(["--db", other, "add", CLI.fixture("chord.wav")])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(try cli.run(["--db=" + other, "list"]).stdout.contains("\tchord\t"))
    #expect(try cli.run(["--db", other, "select", "list"]).status == 0)
    // The default library was not touched.
    #expect(!(try cli.run(["list"]).stdout.contains("chord")))
  }

  // MARK: 8. Damaged files

  /// An Ogg file cut short (an interrupted download) has no length libsndfile can read
  /// (it says SF_COUNT_MAX): it is counted as far as it decodes, and every command works
  /// on that. It used to be listed as 277777777 hours long and to trap in `render` and
  /// `view`.
  @Test func anOggFileCutShortIsAsLongAsWhatDecodes() throws {
    let whole = dir.file("whole.ogg")
    #expect(
      try cli.run(["render", CLI.fixture("demo.wav"), "--to", "6", "-o", whole]).status == 0)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    let cut = dir.file("cut.ogg")
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
    let added = try cli.run(["add", cut])
    #expect(added.status == 0, "\(added.stderr)")
    let listed = try cli.run(["list"]).stdout.split(separator: "\n").last.map(String.init) ?? ""
    let duration = listed.split(separator: "\t", omittingEmptySubsequences: false)[3]
    #expect(duration.hasPrefix("0:0"), "\(listed)")
    let rendered = try cli.run(["render", cut, "-o", dir.file("again.wav")])
    #expect(rendered.status == 0, "\(rendered.stderr)")
    let (_, samples) = try Synth.read(dir.file("again.wav"))
    #expect(samples.count > 44100 && samples.count < 2 * 6 * 44100)
    #expect(try cli.run(["view", cut]).status == 0)
    #expect(try cli.run(["play", cut, "--device", "null"]).status == 0)
  }

  /// Under an address-space limit too low for libdispatch's threads, `list` ends at once
  /// with one line and exit 1; it hung, deaf to SIGTERM (issue 46's new user: `prlimit
  /// --as=100M practice list`). Killed after 30 s, a hang would show as status 137.
  @Test func tooLittleMemoryEndsWithOneLine() throws {
    let result = try runProgram(
      "/usr/bin/timeout",
      ["-s", "KILL", "30", "/usr/bin/prlimit", "--as=100000000", CLI.binary, "list"],
      environment: cli.environment, directory: dir.path, scratch: dir.path)
    #expect(result.status == 1, "\(result.status) \(result.stderr)")
    #expect(
      result.stderrLines.count == 1
        && result.stderr.hasPrefix("practice: cannot start a thread ("), "\(result.stderr)")
  }

  /// `arguments` run under each address-space limit (in MB), killed after 30 s.
  func underLimits(_ limits: StrideThrough<Int>, _ arguments: [String]) throws
    -> [(megabytes: Int, result: CommandResult)]
  {
    try limits.map { megabytes in
      let result = try runProgram(
        "/usr/bin/timeout",
        ["-s", "KILL", "30", "/usr/bin/prlimit", "--as=\(megabytes * 1_000_000)", CLI.binary]
          + arguments, environment: cli.environment, directory: dir.path, scratch: dir.path)
      return (megabytes, result)
    }
  }

  /// Opening ALSA's `null` under a memory limit fails with -ENOENT (a config library could
  /// not be mapped); it said "No such file or directory; check the name with `aplay -L`".
  /// It is worded as out of memory, exit 1. Limits from 110 to 140 MB are tried (120-126
  /// MB in a debug build): none may blame the name, one at least must reach the open.
  @Test func alsaOutOfMemoryIsNotAMissingDevice() throws {
    try #require(try cli.run(["add", CLI.fixture("demo.wav")]).status == 0)
    var reached: [Int] = []
    for (megabytes, result) in try underLimits(
      stride(from: 110, through: 140, by: 2), ["play", "1", "--device", "null", "--to", "0.5"])
    {
      #expect(!result.stderr.contains("aplay -L"), "\(megabytes) MB: \(result.stderr)")
      if result.stderr.contains("ALSA ran out of memory") {
        reached.append(megabytes)
        #expect(result.status == 1, "\(megabytes) MB: \(result.stderr)")
        #expect(
          result.stderrLines.last?.hasSuffix(
            "too little memory; raise the memory limit (ulimit -v) or free memory") == true)
      }
    }
    #expect(!reached.isEmpty, "no limit from 110 to 140 MB failed in opening the device")
  }

  /// The playback engine made its buffers with Swift's `allocate`, which ends the process
  /// when memory runs out: in a band about 0.4 MB wide just above the limits where the
  /// playback threads cannot start (136.0-136.35 MB for a debug build), `play` aborted
  /// ("Fatal error: failed to allocate 262144 bytes", status 134). The lowest limit that
  /// plays is found by halving (to 50 kB), and the 2 MB below it are tried in 50 kB steps:
  /// each one plays, or ends with the too-little-memory line and exit 1.
  @Test func playbackBuffersUnderAMemoryLimitEndWithOneLine() throws {
    try #require(try cli.run(["add", CLI.fixture("demo.wav")]).status == 0)
    let play = ["play", "1", "--device", "null", "--to", "0.5"]
    func run(_ kilobytes: Int) throws -> CommandResult {
      try runProgram(
        "/usr/bin/timeout",
        ["-s", "KILL", "30", "/usr/bin/prlimit", "--as=\(kilobytes * 1000)", CLI.binary] + play,
        environment: cli.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 },
        directory: dir.path, scratch: dir.path)
    }
    var (low, high) = (60_000, 400_000)
    try #require(try run(high).status == 0)
    while high - low > 50 {
      let middle = (low + high) / 2
      if try run(middle).status == 0 { high = middle } else { low = middle }
    }
    var buffers = 0
    for kilobytes in stride(from: high - 2000, to: high, by: 50) {
      let result = try run(kilobytes)
      #expect(!result.stderr.contains("Fatal error"), "\(kilobytes) kB: \(result.stderr)")
      #expect(result.status == 0 || result.status == 1, "\(kilobytes) kB: \(result.status)")
      if result.status == 1 {
        #expect(
          result.stderrLines.last?.hasSuffix(
            "too little memory; raise the memory limit (ulimit -v) or free memory") == true,
          "\(kilobytes) kB: \(result.stderr)")
      }
      if result.stderr.contains("cannot make the playback buffers") { buffers += 1 }
    }
    #expect(buffers > 0, "no limit below \(high) kB failed in making the playback buffers")
  }

  /// Rubber Band's `rubberband_new` under a memory limit throws std::bad_alloc through its C
  /// API; the shim (`practice_rubberband_new`) makes it one line and exit 1 (it aborted:
  /// "terminate called after throwing an instance of 'std::bad_alloc'", exit 134). Where
  /// the limit hits Rubber Band moves with the build (137-146 MB for a debug build at
  /// 80 %), so limits from 120 to 200 MB are tried: none may end in bad_alloc, and one at
  /// least must reach Rubber Band. (Swift's own allocations can still fail at some limits
  /// and abort: that is not Rubber Band's, and not tested here.)
  @Test func rubberBandOutOfMemoryEndsWithOneLine() throws {
    try #require(try cli.run(["add", CLI.fixture("demo.wav")]).status == 0)
    var reached: [Int] = []
    for (megabytes, result) in try underLimits(
      stride(from: 120, through: 200, by: 2),
      ["play", "1", "--device", "null", "--speed", "80%", "--to", "0.5"])
    {
      #expect(!result.stderr.contains("bad_alloc"), "\(megabytes) MB: \(result.stderr)")
      if result.stderr.contains("practice: Rubber Band ran out of memory") {
        reached.append(megabytes)
        #expect(result.status == 1, "\(megabytes) MB: \(result.stderr)")
        #expect(
          result.stderrLines.last
            == "practice: Rubber Band ran out of memory setting up the time stretcher: too "
            + "little memory; raise the memory limit (ulimit -v) or free memory")
      }
    }
    #expect(!reached.isEmpty, "no limit from 120 to 200 MB reached Rubber Band")
  }
}
