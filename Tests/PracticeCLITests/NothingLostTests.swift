import Foundation
import PracticeCore
import TestSupport
import Testing

/// Issue 43, "Nothing lost, nothing overwritten, nothing claimed that did not happen": each
/// failure the audit found, run as the user ran it.
@Suite struct NothingLostTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  func run(_ arguments: [String], _ cli: CLI? = nil, sourceLocation: SourceLocation = #_sourceLocation)
    throws -> CommandResult
  {
    let result = try (cli ?? self.cli).run(arguments)
    #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
    return result
  }

  // MARK: 1. Two copies of one recording in a .practice file

  /// A library holding two copies of demo.wav, each with its own beat map, exported.
  func exportTwoCopies() throws -> String {
    let a = dir.file("a.wav")
    let b = dir.file("b.wav")
    try FileManager.default.copyItem(atPath: CLI.fixture("demo.wav"), toPath: a)
    try FileManager.default.copyItem(atPath: CLI.fixture("demo.wav"), toPath: b)
    let both = CLI(database: dir.file("both.sqlite"))
    try run(["add", a, b], both)
    try run(["beats", "import", "1", CLI.fixture("demo.beats")], both)
    try run(["beats", "grid", "2", "--bpm", "100", "--start", "0.123"], both)
    try run(["export", "--all", "-o", dir.file("both.practice")], both)
    return dir.file("both.practice")
  }

  /// A clean pass at 100 % logged for song 1, so that `stats 1 -o` has a clean top speed to
  /// chart (a play on `null` is heard by no one, and marks nothing).
  func logCleanPass() throws {
    let library = try Library(path: cli.database)
    let now = Date()
    var entry = PracticeEntry(
      songID: 1, selectionID: nil, selectionName: nil, bars: nil, range: 0..<22_050,
      slowest: .normal, fastest: .normal, passes: 1, startedAt: now,
      endedAt: now.addingTimeInterval(1), duration: 1, outcome: .completed)
    entry.passRecords = [PassRecord(pass: 1, speed: .normal, mark: .clean)]
    try library.log(entry)
  }

  @Test func twoCopiesOfOneRecordingAreNeverMerged() throws {
    let file = try exportTwoCopies()
    let both = CLI(database: dir.file("both.sqlite"))
    let first = try run(["beats", "show", "1"], both).stdout
    let second = try run(["beats", "show", "2"], both).stdout
    #expect(first != second)
    for replace in [false, true] {
      let one = CLI(database: dir.file("one-\(replace).sqlite"))
      try run(["add", dir.file("a.wav")], one)
      let imported = try run(["import", file] + (replace ? ["--replace"] : []), one)
      #expect(imported.stderr.contains("is the same recording as 'a'"), "\(imported.stderr)")
      #expect(imported.stderr.contains("1 beat map stored"), "\(imported.stderr)")
      // The first entry's map, whole, and a song that plays.
      #expect(try run(["beats", "show", "1"], one).stdout == first)
      try run(["view", "1"], one)
      try run(["render", "1", "--bars", "1", "-o", dir.file("bar-\(replace).wav")], one)
    }
    // Back into the library it came from: each copy finds its own song again.
    let again = try run(["import", file, "--replace"], both)
    #expect(!again.stderr.contains("same recording"), "\(again.stderr)")
    #expect(again.stderr.contains("nothing changed"), "\(again.stderr)")
    #expect(try run(["beats", "show", "2"], both).stdout == second)
  }

  // MARK: 2. The library is never written over

  @Test func noOutputReplacesTheLibraryOrAnyDatabase() throws {
    try run(["add", CLI.fixture("sine-440.wav")])
    let library = dir.file("lib.sqlite")
    try FileManager.default.createSymbolicLink(atPath: dir.file("link.practice"), withDestinationPath: library)
    let other = CLI(database: dir.file("other.sqlite"))
    try run(["list"], other)
    for target in [library, dir.file("link.practice"), dir.file("other.sqlite"), library + "-wal"] {
      let before = try? Data(contentsOf: URL(fileURLWithPath: target))
      for command in [["export", "1"], ["setlist", "print", "none"], ["view", "1"], ["render", "1"]] {
        let refused = try cli.run(command + ["-o", target])
        #expect(refused.status != 0, "\(command) -o \(target)")
        #expect(refused.stderrLines.count == 1, "\(refused.stderr)")
      }
      let exported = try cli.run(["export", "1", "-o", target])
      #expect(exported.status == 73, "\(exported.stderr)")
      #expect(exported.stderr.contains("will not write"), "\(exported.stderr)")
      if target != library + "-wal" {
        let after = try? Data(contentsOf: URL(fileURLWithPath: target))
        #expect(after == before, "\(target)")
      }
    }
    #expect(try run(["list"]).stdout.hasPrefix("1\tsine-440"))
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
      $0.hasSuffix(".partial")
    }
    #expect(leftovers.isEmpty)
  }

  // MARK: 3. Pictures never follow a link

  @Test(arguments: ["png", "svg", "pdf"])
  func picturesReplaceALinkAndNeverWriteThroughIt(kind: String) throws {
    try run(["add", CLI.fixture("sine-440.wav")])
    try run(["play", "1", "--device", "null", "--to", "0.5"])
    try logCleanPass()
    try run(["setlist", "new", "gig"])
    try run(["setlist", "add", "gig", "1"])
    let victim = dir.file("victim.txt")
    try "keep me".write(toFile: victim, atomically: true, encoding: .utf8)
    var commands = [["view", "1"], ["stats", "1"]]
    if kind == "pdf" { commands.append(["setlist", "print", "gig"]) }
    for (index, command) in commands.enumerated() {
      let out = dir.file("out\(index).\(kind)")
      try FileManager.default.createSymbolicLink(atPath: out, withDestinationPath: victim)
      let dangling = dir.file("dangling\(index).\(kind)")
      let made = dir.file("made\(index).txt")
      try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: made)
      for target in [out, dangling] {
        let result = try run(command + ["-o", target])
        #expect(result.stderr.contains("wrote"), "\(result.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: target)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular, "\(command)")
      }
      #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me", "\(command)")
      #expect(!FileManager.default.fileExists(atPath: made), "\(command)")
    }
    // A planted partial file with the old fixed name changes nothing.
    try "planted".write(toFile: dir.file(".x.\(kind).partial"), atomically: true, encoding: .utf8)
    try run(["view", "1", "-o", dir.file("x.\(kind)")])
    try run(["export", "1", "-o", dir.file("x.practice")])
    try "planted".write(toFile: dir.file(".y.practice.partial"), atomically: true, encoding: .utf8)
    try run(["export", "1", "-o", dir.file("y.practice")])
  }

  @Test func aLinkToADeviceIsRefusedAndNothingIsLeft() throws {
    try run(["add", CLI.fixture("sine-440.wav")])
    try run(["play", "1", "--device", "null", "--to", "0.5"])
    try logCleanPass()
    try run(["setlist", "new", "gig"])
    try run(["setlist", "add", "gig", "1"])
    for (command, name) in [
      (["view", "1"], "full.pdf"), (["stats", "1"], "full.png"), (["setlist", "print", "gig"], "full.pdf"),
      (["export", "1"], "full.practice"), (["render", "1"], "full.wav"),
    ] {
      let link = dir.file("links/" + name)
      try? FileManager.default.removeItem(atPath: dir.file("links"))
      try FileManager.default.createDirectory(atPath: dir.file("links"), withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/full")
      let result = try cli.run(command + ["-o", link])
      #expect(result.status == 73, "\(command): \(result.stderr)")
      #expect(!result.stderr.contains("wrote"), "\(command)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("links")) == [name])
    }
  }

  // MARK: 4. A full disk is a failure, and leaves nothing

  @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
  func aFullDiskFailsAndLeavesNothing() throws {
    try run(["add", CLI.fixture("demo.wav")])
    try run(["beats", "import", "1", CLI.fixture("demo.beats")])
    try run(["select", "add", "1", "verse", "--bars", "1-2"])
    try run(["play", "1", "--device", "null", "--to", "0.5"])
    try logCleanPass()
    try run(["setlist", "new", "gig"])
    try run(["setlist", "add", "gig", "1", "--note", String(repeating: "long note ", count: 40)])
    let small = dir.file("small")
    try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
    let mount = try runProgram(
      "/bin/mount", ["-t", "tmpfs", "-o", "size=4k", "tmpfs", small], environment: [:],
      directory: dir.path, scratch: dir.path)
    try #require(mount.status == 0, "\(mount.stderr)")
    defer {
      _ = try? runProgram(
        "/bin/umount", [small], environment: [:], directory: dir.path, scratch: dir.path)
    }
    let before = try cli.snapshot()
    for (command, name) in [
      (["view", "1"], "x.pdf"), (["view", "1"], "x.png"), (["view", "1"], "x.svg"),
      (["stats", "1"], "x.pdf"), (["setlist", "print", "gig"], "x.pdf"),
      (["render", "1"], "x.wav"),
    ] {
      let result = try cli.run(command + ["-o", small + "/" + name])
      #expect([73, 74].contains(result.status), "\(command) \(name): \(result.stderr)")
      #expect(!result.stderr.contains("wrote"), "\(command) \(name)")
      #expect(result.stderrLines.count == 1, "\(result.stderr)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: small) == [], "\(command) \(name)")
    }
    #expect(try cli.snapshot() == before)
  }

  // MARK: 7. A failed command changes nothing, ids included

  @Test func aFailedCommandLeavesTheLibraryAsItWasIdsIncluded() throws {
    try run(["add", CLI.fixture("sine-440.wav")])
    let silence = dir.file("silence.wav")
    try Synth.write([Float](repeating: 0, count: 44100 * 3), to: silence)
    let before = try cli.snapshot()
    for (command, status) in [
      (["view", "1", "-o", "/proc/o.png"], 73),  // the waveform summary is not kept
      (["render", CLI.fixture("chord.wav"), "-o", "/proc/x.wav"], 73),
      (["beats", "detect", silence], 65),
      (["tuning", silence], 65),
    ] {
      let result = try cli.run(command)
      #expect(result.status == Int32(status), "\(command): \(result.stderr)")
      #expect(try cli.snapshot() == before, "\(command)")
    }
    // The next song gets the next id: none was used up.
    #expect(try run(["add", CLI.fixture("chord.wav")]).stdout.hasPrefix("2\tchord"))
  }

  @Test func resumingASongWhoseFileShrankLeavesItsScanAsItWas() throws {
    let song = dir.file("clicks.wav")
    try FileManager.default.copyItem(atPath: CLI.fixture("clicks-120.wav"), toPath: song)
    try run(["play", song, "--from", "5", "--to", "6", "--device", "null"])
    let (_, samples) = try Synth.read(song)
    try FileManager.default.removeItem(atPath: song)
    try Synth.write(Array(samples.prefix(44100 * 2)), to: song)
    let before = try cli.snapshot()
    let resumed = try cli.run(["play", "1", "--resume", "--device", "null"])
    #expect(resumed.status == 64, "\(resumed.stderr)")
    #expect(resumed.stderr.contains("past the end"), "\(resumed.stderr)")
    #expect(try cli.snapshot() == before)
  }

  // MARK: 5. Bidirectional controls never reach the terminal raw

  /// U+202E, U+2066 and the others of their kind, as a tag or a file name may hold them.
  static let reversed = "Ti\u{202E}eltt\u{2066}x"

  func hasRawBidi(_ text: String) -> Bool {
    text.unicodeScalars.contains {
      (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
    }
  }

  @Test func bidirectionalControlsAreShownEscapedEverywhere() throws {
    let song = dir.file("rev\u{202E}erse.wav")
    try Synth.write(
      Synth.sine(frequency: 440, seconds: 4), to: song,
      tags: (title: Self.reversed, artist: "A\u{202B}b", album: ""))
    try run(["add", song])
    try run(["beats", "grid", "1", "--bpm", "120"])
    try run(["select", "add", "1", "verse", "--bars", "1-2", "--note", "slow"])
    try run(["select", "set", "1", "verse", "--goal", "120bpm"])
    try run(["setlist", "new", "gig"])
    try run(["setlist", "add", "gig", "1", "--note", "loud"])
    try run(["play", "1", "--device", "null", "--to", "0.2"])
    for command in [
      ["list"], ["show", "1"], ["select", "list"], ["setlist", "show", "gig"], ["today"], ["view", "1"], ["log"], ["stats"], ["list", "--json"],
      ["play", "1", "--device", "null", "--to", "0.2"], ["show", "nope\u{202E}"],
    ] {
      let result = try cli.run(command)
      #expect(!hasRawBidi(result.stdout + result.stderr), "\(command)")
      #expect((result.stdout + result.stderr).contains("202e"), "\(command): \(result.stdout)")
    }
    for name in ["gig.txt", "gig.md"] {
      try run(["setlist", "print", "gig", "-o", dir.file(name)])
      let printed = try String(contentsOfFile: dir.file(name), encoding: .utf8)
      #expect(!hasRawBidi(printed), "\(name)")
      #expect(printed.contains("\\u202e"), "\(name): \(printed)")
    }
    // Typed names and notes follow the one rule: a bidirectional control is refused.
    let before = try cli.snapshot()
    for command in [
      ["setlist", "add", "gig", "1", "--note", "a\u{202E}b"], ["setlist", "new", "x\u{2066}"],
      ["select", "add", "1", "v\u{202D}", "--bars", "1"], ["set", "1", "--note", "\u{2069}"],
    ] {
      let refused = try cli.run(command)
      #expect(refused.status == 64, "\(command): \(refused.stderr)")
      #expect(refused.stderr.contains("bidirectional control"), "\(refused.stderr)")
      #expect(!hasRawBidi(refused.stderr))
    }
    #expect(try cli.snapshot() == before)
  }

  // MARK: 6, 8, 10. What import takes is what the commands take

  /// A library with a song, its map, a selection with settings and a setlist, exported;
  /// the exported text.
  func exported() throws -> String {
    try run(["add", CLI.fixture("demo.wav")])
    try run(["beats", "import", "1", CLI.fixture("demo.beats")])
    try run(["set", "1", "--key", "C", "--note", "ballad"])
    try run(["select", "add", "1", "verse", "--bars", "1-2", "--note", "slow"])
    try run(["select", "set", "1", "verse", "--speed", "80%"])
    try run(["setlist", "new", "gig"])
    try run(["setlist", "add", "gig", "1", "--note", "loud", "--key", "D"])
    try run(["export", "--all", "-o", dir.file("all.practice")])
    return try String(contentsOfFile: dir.file("all.practice"), encoding: .utf8)
  }

  @Test func importRefusesWhatTheCommandsRefuse() throws {
    let text = try exported()
    let receiver = CLI(database: dir.file("receiver.sqlite"))
    try run(["add", CLI.fixture("demo.wav")], receiver)
    let before = try receiver.snapshot()
    let big = String(repeating: "x", count: 50_000)
    for (from, to, message) in [
      (#""bars":"1-2""#, #""bars":"9-1""#, "no valid span"),
      (#""bars":"1-2""#, #""bars":" 1-2""#, "no valid span"),
      (#""note":"loud""#, #""note":"lo\u001bud""#, "control character"),
      (#""note":"loud""#, #""note":"lo\nud""#, "line break"),
      (#""note":"loud""#, #""note":"lo\u202eud""#, "bidirectional control"),
      (#""name":"gig""#, #""name":"g\u001bg""#, "control character"),
      (#""note":"slow""#, #""note":"\#(big)""#, "50000 bytes long"),
      (#""note":"ballad""#, #""note":"\#(big)""#, "50000 bytes long"),
      (#""name":"verse""#, #""name":"\#(big)""#, "50000 bytes long"),
      (#""key":"D""#, #""key":"H#""#, "which is not a key"),
      (#""version":1"#, #""version":0"#, "version 0"),
      (#""version":1"#, #""version":-1"#, "version -1"),
      (#""format":"practice""#, #""format":"practice","format":"practice""#, "'format' repeats"),
      (#""name":"verse""#, #""name":"verse","name":"chorus""#, "'name' repeats"),
    ] {
      try #require(text.contains(from), "\(from)")
      let file = dir.file("edited.practice")
      try text.replacingOccurrences(of: from, with: to).write(
        toFile: file, atomically: true, encoding: .utf8)
      let refused = try receiver.run(["import", file])
      #expect(refused.status == 65, "\(to.prefix(60)): \(refused.stderr)")
      #expect(refused.stderrLines.count == 1, "\(refused.stderr)")
      #expect(refused.stderr.contains(message), "\(to.prefix(60)): \(refused.stderr)")
      #expect(try receiver.snapshot() == before)
    }
    // The file as exported imports whole.
    let imported = try run(["import", dir.file("all.practice")], receiver)
    #expect(imported.stderr.contains("1 selection stored"), "\(imported.stderr)")
  }

  @Test func aLibraryWithAnotherProgramsLoopNamesReimportsItsBackup() throws {
    let song = dir.file("practice-song.wav")
    try Synth.write(Synth.sine(frequency: 220, seconds: 7.5), to: song)
    try run(["add", song])
    let xsc = try String(contentsOfFile: CLI.fixture("beats/song.xsc"), encoding: .utf8)
      .replacingOccurrences(of: ",Verse,", with: ",Ve\u{1B}[2Jr\u{202E}se,")
    try xsc.write(toFile: dir.file("song.xsc"), atomically: true, encoding: .utf8)
    try run(["beats", "import", "1", dir.file("song.xsc")])
    try run(["export", "--all", "-o", dir.file("backup.practice")])
    let other = CLI(database: dir.file("other.sqlite"))
    try run(["add", song], other)
    try run(["import", dir.file("backup.practice")], other)
    #expect(try run(["select", "list"], other).stdout == run(["select", "list"]).stdout)
    #expect(try run(["select", "list"]).stdout.contains("Ve\u{FFFD}[2Jr\u{FFFD}se"))
  }

  // MARK: 9. A damaged or hand-edited library is refused, naming what is wrong

  @Test func aHandEditedLibraryIsRefusedNamingWhatIsWrong() throws {
    for (index, (sql, message)) in [
      ("ALTER TABLE song DROP COLUMN album", "table 'song' has no column 'album'"),
      (
        "DELETE FROM grdb_migrations WHERE identifier = 'v9-log-transpose'",
        "schema change 'v9-log-transpose' cannot be applied"
      ),
      ("DROP TABLE song_tag", "it has no table 'song_tag'"),
      ("ALTER TABLE song ADD COLUMN mood TEXT", "has a column 'mood' practice does not make"),
    ].enumerated() {
      let library = CLI(database: dir.file("damaged-\(index).sqlite"))
      try run(["add", CLI.fixture("sine-440.wav")], library)
      let edit = try runProgram(
        "/usr/bin/sqlite3", [library.database, sql], environment: [:], directory: dir.path,
        scratch: dir.path)
      try #require(edit.status == 0, "\(edit.stderr)")
      let before = try library.snapshot()
      for command in [["list"], ["add", CLI.fixture("chord.wav")], ["show", "1"]] {
        let refused = try library.run(command)
        #expect(refused.status == 65, "\(sql) \(command): \(refused.stderr)")
        #expect(refused.stderrLines.count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains(message), "\(refused.stderr)")
        #expect(refused.stderr.contains("damaged or was edited by hand"), "\(refused.stderr)")
        #expect(try library.snapshot() == before, "\(sql) \(command)")
      }
    }
  }

  // MARK: 10. Smaller things

  @Test func smallerRefusalsAndAcceptances() throws {
    try run(["add", CLI.fixture("demo.wav")])
    try run(["beats", "import", "1", CLI.fixture("demo.beats")])
    try run(["select", "add", "1", "verse", "--bars", "1-2"])
    // -0 is the start.
    try run(["render", "1", "--from", "-0", "--to", "0.5", "-o", dir.file("r.wav")])
    try cli.expectRefusal(
      ["render", "1", "--from", "-0.5", "-o", dir.file("r.wav")], status: 64,
      message: "before the start")
    for (arguments, message) in [
      (["select", "set", "1", "verse", "--click", "--no-click"], "'--no-click'"),
      (["play", "1", "--click", "--no-click", "--device", "null"], "'--no-click'"),
      (["tone", "C-1", "--device", "null", "--duration", "0.1"], "'C-1' is 8.18 Hz"),
      (["tone", "B9", "--device", "null", "--duration", "0.1"], "'B9' is above G9"),
      // Found by fuzz/: a letter whose capital is two letters (ß → SS) trapped.
      (["tone", "ß", "--device", "null", "--duration", "0.1"], "'ß' is not a note"),
      (["tone", "A4", "--duration", "-1", "--device", "null"], "--duration -1: out of range"),
      (["tone", "A4", "--duration", "-0", "--device", "null"], "--duration -0: out of range"),
      (["tune", "--device", "null", "--duration", "-1"], "--duration -1: out of range"),
      (["tune", "--device", "null", "--duration", "-0"], "--duration -0: out of range; use seconds above 0"),
    ] {
      try cli.expectRefusal(arguments, status: 64, message: message)
    }
    // A device that is not live loses nothing worth a warning.
    let tuned = try run(["tune", "--device", "null", "--duration", "1"])
    #expect(!tuned.stderr.contains("dropped"), "\(tuned.stderr)")
    #expect(tuned.stderrLines.count == 1, "\(tuned.stderr)")
  }
}
