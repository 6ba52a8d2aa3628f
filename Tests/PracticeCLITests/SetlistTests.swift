import Foundation
import Testing
import TestSupport

/// Song details (`set`), setlists, and sharing them as `.practice` files.
@Suite struct SetlistTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// A 17 s sine named `name` (its title), its pitch taken from the name so that songs of
  /// different names differ in content; with `copyTo`, a copy of it in that folder.
  @discardableResult
  func song(_ name: String, in cli: CLI, copyTo folder: String? = nil) throws -> String {
    let original = dir.file(name)
    if !FileManager.default.fileExists(atPath: original) {
      let pitch = 200 + Double(name.unicodeScalars.reduce(0) { $0 + Int($1.value) } % 60) * 10
      try Synth.write(Synth.sine(frequency: pitch, seconds: 17, amplitude: 0.3), to: original)
    }
    var path = original
    if let folder {
      path = folder + "/" + name
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      if !FileManager.default.fileExists(atPath: path) {
        try FileManager.default.copyItem(atPath: original, toPath: path)
      }
    }
    let added = try cli.run(["add", path])
    #expect(added.status == 0, "\(added.stderr)")
    return path
  }

  func grid(_ id: String, in cli: CLI) throws {
    let result = try cli.run(["beats", "grid", id, "--bpm", "120", "--start", "0.5"])
    #expect(result.status == 0, "\(result.stderr)")
  }

  /// Setlist 'gig' of `entries` (each `setlist add` arguments after the name) in `cli`,
  /// exported to gig.practice; its path.
  func exportedGig(_ entries: [[String]]) throws -> String {
    _ = try cli.run(["setlist", "new", "gig"])
    for entry in entries { _ = try cli.run(["setlist", "add", "gig"] + entry) }
    let file = dir.file("gig.practice")
    #expect(try cli.run(["export", "--setlist", "gig", "-o", file]).status == 0)
    return file
  }

  /// A second library, other.sqlite, holding copies of `songs` (in folder b).
  func receiver(with songs: [String]) throws -> CLI {
    let b = CLI(database: dir.file("other.sqlite"))
    for name in songs { try song(name, in: b, copyTo: dir.file("b")) }
    return b
  }

  // MARK: Song details

  @Test func setStoresKeyTempoNoteAndTags() throws {
    try song("Blue.wav", in: cli)
    let set = try cli.run([
      "set", "1", "--key", "Am", "--bpm", "96", "--note", "capo 2, drop D", "--tag", "gig",
      "--tag", "Jazz",
    ])
    #expect(set.status == 0, "\(set.stderr)")
    #expect(set.stdout == "key Am\nbpm 96\nnote capo 2, drop D\ntags gig, Jazz\n")
    let show = try cli.run(["show", "Blue"]).stdout
    #expect(show.hasSuffix("key Am\nbpm 96\nnote capo 2, drop D\ntags gig, Jazz\n"))
    #expect(try cli.run(["list"]).stdout.hasSuffix("\tAm\t96\tgig,Jazz\n"))
    #expect(try cli.run(["list", "--tag", "GIG"]).stdout.hasPrefix("1\tBlue\t"))
    #expect(try cli.run(["list", "--tag", "rock"]).stdout.isEmpty)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["show", "1", "--json"]).stdout.utf8))
        as? [String: Any])
    #expect(json["key"] as? String == "Am" && json["bpm"] as? Double == 96)
    #expect(json["tags"] as? [String] == ["gig", "Jazz"])
    // Cleared, the tempo falls back to the beat map's.
    try grid("1", in: cli)
    let cleared = try cli.run(["set", "1", "--clear-bpm", "--clear-note", "--untag", "jazz"])
    #expect(cleared.stdout == "key Am\nbpm 120 (beat map)\nnote\ntags gig\n")
  }

  @Test func setRefusesBadValuesAndLeavesTheSong() throws {
    try song("Blue.wav", in: cli)
    _ = try cli.run(["set", "1", "--key", "Am"])
    let before = try cli.run(["show", "1"]).stdout
    for (arguments, says) in [
      (["--key", "H"], "--key H: not a key"),
      // Found by fuzz/: a letter whose capital is two letters (ß → SS) trapped.
      (["--key", "ß"], "--key ß: not a key"),
      (["--bpm", "0"], "--bpm 0: must be 10-400"),
      (["--bpm", "1e3"], "--bpm"),
      (["--tag", "a\tb"], "a tab"),
      (["--key", "C", "--clear-key"], "cannot be combined"),
    ] {
      let result = try cli.run(["set", "1"] + arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(result.stderr.hasPrefix("practice: ") && result.stderr.contains(says), "\(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1)
    }
    #expect(try cli.run(["show", "1"]).stdout == before)
  }

  // MARK: Setlists

  @Test func setlistEntriesAreOrderedMovedAndRemoved() throws {
    try song("One.wav", in: cli)
    try song("Two.wav", in: cli)
    try grid("1", in: cli)
    #expect(try cli.run(["select", "add", "1", "solo", "--bars", "5-8"]).status == 0)
    _ = try cli.run(["set", "1", "--key", "Am"])
    #expect(try cli.run(["setlist", "new", "Gig"]).status == 0)
    let add = try cli.run(["setlist", "add", "gig", "One", "--select", "SOLO", "--key", "Bm", "--speed", "80%", "--repeat", "2"])
    #expect(add.status == 0, "\(add.stderr)")
    #expect(add.stderr == "setlist 'Gig': 1. 'One' (selection 'solo', in Bm: +2 semitones, 80%, 2 times)\n")
    #expect(try cli.run(["setlist", "add", "gig", "2", "--note", "segue"]).status == 0)
    #expect(try cli.run(["setlist", "add", "gig", "2", "--transpose", "-3", "--at", "1"]).status == 0)
    #expect(
      try cli.run(["setlist", "show", "gig"]).stdout
        == "1\t2\tTwo\t\t\t-3\t\t\t\n2\t1\tOne\tsolo\tBm\t+2\t80%\t2\t\n3\t2\tTwo\t\t\t\t\t\tsegue\n")
    // Down: the entry lands at the place asked for, the ones after it move up.
    #expect(try cli.run(["setlist", "move", "gig", "1", "3"]).status == 0)
    #expect(
      try cli.run(["setlist", "show", "gig"]).stdout
        == "1\t1\tOne\tsolo\tBm\t+2\t80%\t2\t\n2\t2\tTwo\t\t\t\t\t\tsegue\n3\t2\tTwo\t\t\t-3\t\t\t\n")
    #expect(try cli.run(["setlist", "move", "gig", "1", "2"]).status == 0)
    #expect(
      try cli.run(["setlist", "show", "gig"]).stdout
        == "1\t2\tTwo\t\t\t\t\t\tsegue\n2\t1\tOne\tsolo\tBm\t+2\t80%\t2\t\n3\t2\tTwo\t\t\t-3\t\t\t\n")
    // Back as it was (down one, up two twice), then up from the end.
    #expect(try cli.run(["setlist", "move", "gig", "2", "3"]).status == 0)
    #expect(try cli.run(["setlist", "move", "gig", "3", "1"]).status == 0)
    #expect(try cli.run(["setlist", "move", "gig", "3", "1"]).status == 0)
    #expect(
      try cli.run(["setlist", "show", "gig"]).stdout
        == "1\t2\tTwo\t\t\t-3\t\t\t\n2\t1\tOne\tsolo\tBm\t+2\t80%\t2\t\n3\t2\tTwo\t\t\t\t\t\tsegue\n")
    #expect(try cli.run(["setlist", "move", "gig", "3", "1"]).status == 0)
    #expect(try cli.run(["setlist", "rm", "gig", "2"]).status == 0)
    #expect(
      try cli.run(["setlist", "show", "gig"]).stdout
        == "1\t2\tTwo\t\t\t\t\t\tsegue\n2\t1\tOne\tsolo\tBm\t+2\t80%\t2\t\n")
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli.run(["setlist", "show", "gig", "--json"]).stdout.utf8))
        as? [String: Any])
    let entries = try #require(json["entries"] as? [[String: Any]])
    #expect(json["name"] as? String == "Gig" && entries.count == 2)
    #expect(entries[1]["transpose"] as? Int == 2 && entries[1]["speed"] as? Double == 0.8)
    #expect(entries[1]["selection"] as? String == "solo" && entries[0]["repeat"] is NSNull)
    // When it last changed, in local time to the minute, as `log` and `stats` say a time.
    let listed = try cli.run(["setlist", "list"]).stdout
    #expect(listed.wholeMatch(of: #/Gig\t2\t\d{4}-\d\d-\d\d \d\d:\d\d\n/#) != nil, "\(listed)")
    // `--json` as `setlist show` has it (a new user asked for it and got "not an option").
    let listedJSON = try cli.run(["setlist", "list", "--json"])
    #expect(listedJSON.status == 0, "\(listedJSON.stderr)")
    let setlists = try #require(
      try JSONSerialization.jsonObject(with: Data(listedJSON.stdout.utf8)) as? [[String: Any]])
    #expect(setlists.count == 1 && setlists[0]["name"] as? String == "Gig")
    #expect(setlists[0]["entries"] as? Int == 2 && setlists[0]["updated_at"] is String)
    #expect(try cli.run(["setlist", "rename", "gig", "Friday"]).status == 0)
    // Removing a song takes its entries with it; the others keep their order.
    #expect(try cli.run(["rm", "2"]).status == 0)
    #expect(try cli.run(["setlist", "show", "friday"]).stdout == "1\t1\tOne\tsolo\tBm\t+2\t80%\t2\t\n")
    let deleted = try cli.run(["setlist", "delete", "Friday"])
    #expect(deleted.status == 0)
    // One entry, counted in the singular ("1 entries" before).
    #expect(deleted.stderr == "deleted setlist 'Friday' (1 entry)\n", "\(deleted.stderr)")
    #expect(try cli.run(["setlist", "list"]).stdout.isEmpty)
    #expect(try cli.run(["setlist", "list", "--json"]).stdout == "[]\n")
  }

  @Test func setlistMistakesAreOneLineAndChangeNothing() throws {
    try song("One.wav", in: cli)
    _ = try cli.run(["set", "1", "--key", "Am"])
    _ = try cli.run(["setlist", "new", "gig"])
    _ = try cli.run(["setlist", "add", "gig", "1"])
    let before = try cli.run(["setlist", "show", "gig"]).stdout
    for (arguments, status, says) in [
      (["setlist", "show", "nope"], 66, "no setlist named 'nope'; there are: gig"),
      (["setlist", "new", "GIG"], 64, "there is already a setlist named 'gig'"),
      (["setlist", "add", "gig", "1", "--key", "C"], 64, "is in Am"),
      (["setlist", "add", "gig", "1", "--key", "Bm", "--transpose", "2"], 64, "cannot be combined"),
      (["setlist", "add", "gig", "1", "--select", "solo"], 66, "has no selection 'solo'"),
      (["setlist", "add", "gig", "1", "--speed", "300%"], 64, "--speed 300%"),
      (["setlist", "add", "gig", "1", "--at", "0"], 64, "positions count from 1"),
      (["setlist", "move", "gig", "1", "5"], 64, "its entries are 1-1"),
      (["setlist", "rm", "gig", "2"], 64, "has no entry 2"),
      (["setlist", "new", "a\nb"], 64, "a line break"),
      (["setlist", "add", "nope", "1"], 66, "no setlist named 'nope'"),
      (
        ["setlist", "add", "gig", "1", "--bars", "9-16"], 64,
        "--bars 9-16: a setlist entry is a whole song or a selection; save the bars with "
          + "`practice select add 1 NAME --bars 9-16` and add it with --select NAME"
      ),
    ] {
      let result = try cli.run(arguments)
      #expect(result.status == status, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(says), "\(arguments): \(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }
    #expect(try cli.run(["setlist", "show", "gig"]).stdout == before)
    #expect(try cli.run(["setlist", "list"]).stdout.split(separator: "\n").count == 1)
  }

  @Test func setlistPrintsForTheMusicStand() throws {
    try song("One.wav", in: cli)
    try song("Two | Three.wav", in: cli)
    try grid("2", in: cli)
    _ = try cli.run(["set", "1", "--key", "Am", "--bpm", "96", "--note", "capo 2"])
    _ = try cli.run(["setlist", "new", "friday"])
    _ = try cli.run(["setlist", "add", "friday", "2", "--speed", "50%", "--note", "count in slow"])
    _ = try cli.run(["setlist", "add", "friday", "1", "--key", "Bm"])
    let text = dir.file("gig.txt")
    let printed = try cli.run(["setlist", "print", "friday", "-o", text])
    #expect(printed.status == 0, "\(printed.stderr)")
    #expect(
      try String(contentsOfFile: text, encoding: .utf8)
        == "FRIDAY\n\n1.   Two | Three        60 BPM   count in slow\n2.   One           Bm   96 BPM   capo 2\n")
    let markdown = dir.file("gig.md")
    #expect(try cli.run(["setlist", "print", "friday", "-o", markdown]).status == 0)
    #expect(
      try String(contentsOfFile: markdown, encoding: .utf8)
        == "# friday\n\n| # | Title | Key | Tempo | Notes |\n|---|---|---|---|---|\n"
        + "| 1 | Two \\| Three |  | 60 BPM | count in slow |\n| 2 | One | Bm | 96 BPM | capo 2 |\n")
    let pdf = dir.file("gig.pdf")
    let drawn = try cli.run(["setlist", "print", "friday", "-o", pdf, "--paper", "letter"])
    #expect(drawn.status == 0, "\(drawn.stderr)")
    let pdftotext = try Process.run(
      URL(fileURLWithPath: "/usr/bin/pdftotext"), arguments: ["-layout", pdf, dir.file("gig-pdf.txt")])
    pdftotext.waitUntilExit()
    let read = try String(contentsOfFile: dir.file("gig-pdf.txt"), encoding: .utf8)
    let words = read.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(words.hasPrefix("friday 1. Two | Three 60 BPM count in slow 2. One Bm 96 BPM capo 2"), "\(words)")
    let refused = try cli.run(["setlist", "print", "friday", "-o", dir.file("gig.doc")])
    #expect(refused.status == 64 && refused.stderr.contains("write a .pdf, .txt or .md file"))
    // Markdown's own characters in a title or a note show as typed (`*5*` was italics,
    // a backtick began code): each is escaped with a backslash.
    #expect(try cli.run(["set", "2", "--title", "Take *5* _live_ `[demo]` <b>"]).status == 0)
    #expect(try cli.run(["set", "1", "--note", "capo 2 \\ drop D"]).status == 0)
    #expect(try cli.run(["setlist", "print", "friday", "-o", markdown]).status == 0)
    let escaped = try String(contentsOfFile: markdown, encoding: .utf8)
    #expect(
      escaped.contains("| 1 | Take \\*5\\* \\_live\\_ \\`\\[demo\\]\\` \\<b\\> |  | 60 BPM |")
        && escaped.contains("| 2 | One | Bm | 96 BPM | capo 2 \\\\\\\\ drop D |"), "\(escaped)")
  }

  /// A transposed entry of a song whose key is not known prints its semitones where the key
  /// would be, on paper as in `setlist show`: a sheet without them is played as recorded.
  @Test func theStandSheetShowsATranspositionWithoutAKey() throws {
    try song("One.wav", in: cli)
    _ = try cli.run(["setlist", "new", "s"])
    #expect(try cli.run(["setlist", "add", "s", "1", "--transpose", "-2"]).status == 0)
    #expect(try cli.run(["setlist", "add", "s", "1", "--transpose", "0"]).status == 0)
    let text = dir.file("s.txt")
    #expect(try cli.run(["setlist", "print", "s", "-o", text]).status == 0)
    let sheet = try String(contentsOfFile: text, encoding: .utf8)
    #expect(sheet == "S\n\n1.   One   -2 st\n2.   One\n", "\(sheet)")
    let markdown = dir.file("s.md")
    #expect(try cli.run(["setlist", "print", "s", "-o", markdown]).status == 0)
    #expect(try String(contentsOfFile: markdown, encoding: .utf8).contains("| 1 | One | -2 st |"))
  }

  /// A title of wide (CJK) characters takes two columns a character in a monospaced font:
  /// the columns after it still line up on the stand sheet.
  @Test func theStandSheetAlignsWideTitles() throws {
    try song("One.wav", in: cli)
    try song("練習曲.wav", in: cli)
    _ = try cli.run(["set", "1", "--key", "Am"])
    _ = try cli.run(["set", "2", "--key", "Bm"])
    _ = try cli.run(["setlist", "new", "s"])
    _ = try cli.run(["setlist", "add", "s", "1"])
    _ = try cli.run(["setlist", "add", "s", "2"])
    let text = dir.file("s.txt")
    #expect(try cli.run(["setlist", "print", "s", "-o", text]).status == 0)
    let lines = try String(contentsOfFile: text, encoding: .utf8).split(separator: "\n").dropFirst()
    let keyColumns = lines.compactMap { line -> Int? in
      guard let key = line.range(of: "Am") ?? line.range(of: "Bm") else { return nil }
      return line[..<key.lowerBound].unicodeScalars.reduce(0) {
        $0 + ((0x4E00...0x9FFF).contains($1.value) ? 2 : 1)
      }
    }
    #expect(keyColumns.count == 2 && keyColumns[0] == keyColumns[1], "\(lines)")
  }

  // MARK: Sharing

  /// Library A: two songs with beat maps, selections (in bars and in time), details and a
  /// setlist; exported, then imported into B where the files sit elsewhere.
  @Test func exportImportCarriesMapsSelectionsAndSetlists() throws {
    let a = cli
    try song("Alpha.wav", in: a)
    try song("Beta.wav", in: a)
    try grid("1", in: a)
    #expect(try a.run(["beats", "grid", "2", "--bpm", "90", "--start", "0.25", "--meter", "3/4"]).status == 0)
    #expect(try a.run(["select", "add", "1", "solo", "--bars", "5-8", "--note", "slow first"]).status == 0)
    #expect(try a.run(["select", "add", "2", "intro", "--from", "0", "--to", "1.5"]).status == 0)
    let settings = try a.run(["select", "set", "1", "solo", "--speed", "70%", "--ramp-to", "90%", "--step", "5%", "--count-in", "1", "--goal", "100%"])
    #expect(settings.status == 0, "\(settings.stderr)")
    _ = try a.run(["set", "1", "--key", "Am", "--bpm", "120", "--tag", "gig"])
    _ = try a.run(["setlist", "new", "gig"])
    _ = try a.run(["setlist", "add", "gig", "2", "--speed", "75%"])
    _ = try a.run(["setlist", "add", "gig", "1", "--select", "solo", "--key", "Em"])
    let file = dir.file("gig.practice")
    let export = try a.run(["export", "--setlist", "gig", "-o", file])
    #expect(export.status == 0, "\(export.stderr)")
    #expect(export.stderr.contains("exported 2 songs"))

    let b = CLI(database: dir.file("other.sqlite"))
    let elsewhere = dir.file("elsewhere")
    try song("Beta.wav", in: b, copyTo: elsewhere)
    try song("Alpha.wav", in: b, copyTo: elsewhere)  // ids swapped: Beta is 1 here
    let imported = try b.run(["import", file])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(imported.stdout == "1\tBeta\n2\tAlpha\n")  // in the file's order: the setlist's
    for (idA, idB) in [("1", "2"), ("2", "1")] {
      let mapA = try a.run(["beats", "show", idA]).stdout
      #expect(!mapA.isEmpty)
      #expect(try b.run(["beats", "show", idB]).stdout == mapA)
      #expect(
        try b.run(["select", "list", idB]).stdout.split(separator: "\t").dropFirst()
          == a.run(["select", "list", idA]).stdout.split(separator: "\t").dropFirst())
    }
    #expect(try b.run(["show", "Alpha"]).stdout.hasSuffix("key Am\nbpm 120\nnote\ntags gig\n"))
    func practice(_ cli: CLI, _ song: String) throws -> [Substring] {
      try cli.run(["select", "show", song, "solo"]).stdout.split(separator: "\n").filter { line in
        ["span ", "settings ", "goal ", "note "].contains { line.hasPrefix($0) }
      }
    }
    let shown = try practice(a, "1")
    #expect(shown.count == 4 && shown.joined().contains("70%"), "\(shown)")
    #expect(try practice(b, "2") == shown)
    #expect(
      try b.run(["setlist", "show", "gig"]).stdout
        == "1\t1\tBeta\t\t\t\t75%\t\t\n2\t2\tAlpha\tsolo\tEm\t-5\t\t\t\n")
    // Again: nothing changes.
    let snapshot = try b.run(["list", "--json"]).stdout + b.run(["setlist", "show", "gig"]).stdout
    let again = try b.run(["import", file])
    #expect(again.status == 0)
    #expect(again.stderr.contains("(nothing changed)"), "\(again.stderr)")
    #expect(try b.run(["list", "--json"]).stdout + b.run(["setlist", "show", "gig"]).stdout == snapshot)
  }

  @Test func importRefusesMissingSongsUnlessPartial() throws {
    try song("Alpha.wav", in: cli)
    try song("Beta.wav", in: cli)
    try grid("1", in: cli)
    try grid("2", in: cli)
    let file = dir.file("all.practice")
    #expect(try cli.run(["export", "--all", "-o", file]).status == 0)
    for target in [dir.path, "/dev/null"] {
      let refused = try cli.run(["export", "--all", "-o", target])
      #expect(refused.status == 73 && refused.stderr.contains("give a new file name"), "\(refused.stderr)")
    }
    let b = try receiver(with: ["Alpha.wav"])
    let before = try b.run(["beats", "show", "1"])
    let refused = try b.run(["import", file])
    #expect(refused.status == 66)
    #expect(refused.stderr.contains("1 of the 2 songs"))
    #expect(refused.stderr.contains("'Beta'"))
    #expect(refused.stderr.contains("nothing was imported"))
    #expect(try b.run(["beats", "show", "1"]).stdout == before.stdout)
    let partial = try b.run(["import", file, "--partial"])
    #expect(partial.status == 0, "\(partial.stderr)")
    #expect(partial.stderr.contains("warning: not in the library: 'Beta'"))
    #expect(try b.run(["beats", "show", "1"]).stdout == cli.run(["beats", "show", "1"]).stdout)
  }

  /// A partial import says which setlist it stored short and how to store it whole once the
  /// songs are there; importing again after adding them keeps no map that is the file's own
  /// "as it was", and names --replace for the setlist it keeps.
  @Test func aPartialImportSaysItsSetlistIsShortAndHowToCompleteIt() throws {
    try song("Alpha.wav", in: cli)
    try song("Beta.wav", in: cli)
    try grid("1", in: cli)
    try grid("2", in: cli)
    let file = try exportedGig([["1"], ["2", "--speed", "80%"]])
    let b = try receiver(with: ["Alpha.wav"])
    let partial = try b.run(["import", file, "--partial"])
    #expect(partial.status == 0, "\(partial.stderr)")
    #expect(
      partial.stderr.contains(
        "warning: setlist 'gig' stored with 1 of its 2 entries: the others' songs are not in "
          + "the library; add them and import again with --replace for the whole setlist"),
      "\(partial.stderr)")
    try song("Beta.wav", in: b, copyTo: dir.file("b"))
    let again = try b.run(["import", file])
    #expect(again.status == 0, "\(again.stderr)")
    // Alpha's map is the file's: stored, not kept.
    #expect(again.stderr.contains("; 1 beat map stored; 0 selections stored;"), "\(again.stderr)")
    #expect(
      again.stderr.contains("setlists kept as they were (--replace stores the file's): 'gig'"),
      "\(again.stderr)")
    #expect(try b.run(["setlist", "show", "gig"]).stdout.split(separator: "\n").count == 1)
    let whole = try b.run(["import", file, "--replace"])
    #expect(whole.status == 0, "\(whole.stderr)")
    #expect(try b.run(["setlist", "show", "gig"]).stdout == cli.run(["setlist", "show", "gig"]).stdout)
  }

  /// What the receiver has of its own is kept (a beat map, a selection of the same name,
  /// a setlist of the same name) and said so; --replace stores the file's; then importing
  /// the same file again changes nothing.
  @Test func importKeepsWhatTheReceiverHasUnlessReplace() throws {
    try song("Alpha.wav", in: cli)
    try grid("1", in: cli)
    #expect(try cli.run(["select", "add", "1", "solo", "--bars", "5-8"]).status == 0)
    let file = try exportedGig([["1", "--speed", "75%"]])
    let b = try receiver(with: ["Alpha.wav"])
    #expect(try b.run(["beats", "grid", "1", "--bpm", "90", "--start", "0.25"]).status == 0)
    #expect(try b.run(["select", "add", "1", "solo", "--bars", "1-2"]).status == 0)
    _ = try b.run(["setlist", "new", "gig"])
    _ = try b.run(["setlist", "add", "gig", "1"])
    let own = try b.run(["beats", "show", "1"]).stdout + b.run(["select", "list", "1"]).stdout
      + b.run(["setlist", "show", "gig"]).stdout
    let kept = try b.run(["import", file])
    #expect(kept.status == 0, "\(kept.stderr)")
    #expect(kept.stderr.contains("0 beat maps stored; 1 kept (--replace stores the file's)"), "\(kept.stderr)")
    #expect(
      kept.stderr.contains("1 kept as they were (--replace stores the file's): 'solo' of 'Alpha'"),
      "\(kept.stderr)")
    #expect(
      kept.stderr.contains("setlists kept as they were (--replace stores the file's): 'gig'"),
      "\(kept.stderr)")
    #expect(
      try b.run(["beats", "show", "1"]).stdout + b.run(["select", "list", "1"]).stdout
        + b.run(["setlist", "show", "gig"]).stdout == own)
    let replaced = try b.run(["import", file, "--replace"])
    #expect(replaced.status == 0, "\(replaced.stderr)")
    #expect(replaced.stderr.contains("1 beat map stored; 1 selection stored; setlists stored: 'gig'"), "\(replaced.stderr)")
    #expect(try b.run(["beats", "show", "1"]).stdout == cli.run(["beats", "show", "1"]).stdout)
    #expect(try b.run(["setlist", "show", "gig"]).stdout == cli.run(["setlist", "show", "gig"]).stdout)
    #expect(try b.run(["select", "list", "1"]).stdout.contains("5-8"))
    let again = try b.run(["import", file, "--replace"])
    #expect(again.status == 0 && again.stderr.contains("(nothing changed)"), "\(again.stderr)")
  }

  /// A copy at another sample rate (not the same bytes) is found by title, artist and
  /// duration, and gets the beats at the same times.
  @Test func importFindsACopyAtAnotherRateByTitle() throws {
    try song("Alpha.wav", in: cli)
    try grid("1", in: cli)
    let file = dir.file("a.practice")
    #expect(try cli.run(["export", "1", "-o", file]).status == 0)
    let resampled = dir.file("b/Alpha.flac")
    try FileManager.default.createDirectory(atPath: dir.file("b"), withIntermediateDirectories: true)
    let ffmpeg = try Process.run(
      URL(fileURLWithPath: "/usr/bin/ffmpeg"),
      arguments: ["-v", "error", "-i", dir.file("Alpha.wav"), "-ar", "48000", resampled])
    ffmpeg.waitUntilExit()
    #expect(ffmpeg.terminationStatus == 0)
    let b = CLI(database: dir.file("other.sqlite"))
    #expect(try b.run(["add", resampled]).status == 0)
    let imported = try b.run(["import", file])
    #expect(imported.status == 0, "\(imported.stderr)")
    let bars = try b.run(["beats", "show", "1"]).stdout
    #expect(bars.hasPrefix("1\t0:00.5\t"), "\(bars)")
    #expect(bars == (try cli.run(["beats", "show", "1"]).stdout))
  }

  /// A file of one song at 48 kHz with one beat, as a hostile or damaged file might say it.
  func shared(frames: String, beat: String, firstBar: String, selection: String? = nil) -> String {
    let selections = selection.map { "[{\"name\":\"s\",\($0)}]" } ?? "[]"
    return """
      {"format":"practice","version":1,"exported_at":"x","setlists":[],"songs":[{"ref":1,\
      "title":"Alpha","duration":1,"frames":\(frames),"sample_rate":48000,"content_hash":"h",\
      "tags":[],"selections":\(selections),"beat_map":{"frames":\(beat),"first_bar":\(firstBar),\
      "first_beat":1,"bar_lengths":[[1,4]],"sources":[["grid",1]]}}]}
      """
  }

  @Test func damagedOrNewerFilesAreRefusedInOneLine() throws {
    try song("Alpha.wav", in: cli)
    let before = try cli.run(["list", "--json"]).stdout
    for (text, says) in [
      ("not json at all", "is not a .practice file"),
      ("{\"format\":\"practice\",\"version\":99,\"songs\":[]}", "version 99"),
      ("{\"format\":\"practice\",\"version\":1,\"exported_at\":\"x\",\"songs\":[{\"ref\":1}],\"setlists\":[]}",
       "songs[0].title is missing"),
      ("{\"format\":\"practice\",\"version\":1,\"exported_at\":\"x\",\"songs\":[],\"setlists\":[{\"name\":\"s\",\"entries\":[{\"song\":7}]}]}",
       "names song 7"),
      // Numbers at the edge of Int64 (or of a Double) are refused, never computed with.
      (shared(frames: "44100", beat: "[100]", firstBar: "1").replacingOccurrences(
        of: "\"duration\":1", with: "\"duration\":1e300"), "impossible length"),
      (shared(frames: "9223372036854775807", beat: "[9223372036854775806]", firstBar: "1"),
       "impossible length"),
      (shared(frames: "44100", beat: "[100]", firstBar: "9223372036854775807"),
       "malformed bar lengths"),
      (shared(frames: "44100", beat: "[100]", firstBar: "1", selection: "\"start_frame\":0,\"end_frame\":9223372036854775807"),
       "no valid span"),
    ] {
      let file = dir.file("bad.practice")
      try Data(text.utf8).write(to: URL(fileURLWithPath: file))
      let result = try cli.run(["import", file])
      #expect(result.status == 65, "\(text): \(result.stderr)")
      #expect(result.stderr.contains(says), "\(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1)
    }
    #expect(try cli.run(["import", dir.file("none.practice")]).status == 66)
    // Not files to read whole: a directory, a device that never ends, a fifo.
    #expect(try cli.run(["import", dir.path]).status == 66)
    let endless = try cli.run(["import", "/dev/urandom"])
    #expect(endless.status == 65 && endless.stderr.split(separator: "\n").count == 1, "\(endless.stderr)")
    #expect(mkfifo(dir.file("fifo"), 0o600) == 0)
    #expect(try cli.run(["import", dir.file("fifo")]).status == 65)
    #expect(try cli.run(["list", "--json"]).stdout == before)
  }
}
