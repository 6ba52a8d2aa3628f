import Foundation
import TestSupport
import Testing

@Suite struct SongCommandTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  func song(_ name: String, seconds: Double = 0.5, frequency: Double = 440) throws -> String {
    let path = dir.file(name)
    try Synth.write(Synth.sine(frequency: frequency, seconds: seconds), to: path)
    return path
  }

  @Test func addPrintsIdAndTitleAndNeverDuplicates() throws {
    let a = try song("Alpha.wav")
    let b = try song("beta.wav")
    let first = try cli.run(["add", a, b])
    #expect(first.status == 0)
    #expect(first.stdout == "1\tAlpha\n2\tbeta\n")
    let again = try cli.run(["add", a])
    #expect(again.stdout == "1\tAlpha\n")
    let list = try cli.run(["list"])
    #expect(list.stdout.split(separator: "\n").count == 2)
    #expect(list.stdout.hasPrefix("1\tAlpha\t\t0:00.5\t\(a)\t\t\t\n"))
  }

  @Test func addingAgainChangesNothingButAChangedFileIsReadAgain() throws {
    let a = try song("a.wav")
    let b = try song("b.wav")
    #expect(try cli.run(["add", a, b]).status == 0)
    let before = try cli.snapshot()
    // A song written again would show it in updated_at, which counts whole seconds.
    Thread.sleep(forTimeInterval: 1.1)
    let again = try cli.run(["add", a, b])
    #expect(again.status == 0 && again.stdout == "1\ta\n2\tb\n", "\(again.stderr)")
    #expect(try cli.snapshot() == before)
    try Synth.write(Synth.sine(frequency: 440, seconds: 0.8), to: b)
    let changed = try cli.run(["add", a, b])
    #expect(changed.stdout == "1\ta\n2\tb\n")
    let list = try cli.run(["list"]).stdout
    #expect(list.contains("1\ta\t\t0:00.5\t") && list.contains("2\tb\t\t0:00.8\t"), "\(list)")
  }

  /// Adding a file the library holds says so in one line, and a tally of several files
  /// says how many were there; the database stays as it was.
  @Test func addOfAFileAlreadyThereSaysSo() throws {
    let a = try song("Alpha.wav")
    let b = try song("beta.wav")
    #expect(try cli.run(["add", a]).stderr == "")
    let before = try cli.snapshot()
    let again = try cli.run(["add", a])
    #expect(again.status == 0 && again.stdout == "1\tAlpha\n")
    #expect(again.stderr == "song 1 'Alpha' is already in the library; nothing changed\n")
    #expect(try cli.snapshot() == before)
    let both = try cli.run(["add", a, b])
    #expect(both.status == 0 && both.stdout == "1\tAlpha\n2\tbeta\n")
    #expect(both.stderr == "added 1, 1 already in the library (unchanged)\n")
    let bad = dir.file("bad.wav")
    try Data("not audio".utf8).write(to: URL(fileURLWithPath: bad))
    let refused = try cli.run(["add", a, b, bad])
    #expect(refused.status == 65)
    #expect(
      refused.stderr.hasSuffix("added 0, 2 already in the library, refused 1 file (see above)\n"),
      "\(refused.stderr)")
  }

  /// `add PATH` of a file rewritten in place with the same size (another take, same
  /// length) and a new modification time reads it again: the new content's fingerprint.
  @Test func addOfASameSizeRewriteTakesTheNewContent() throws {
    let path = try song("take.wav", frequency: 440)
    #expect(try cli.run(["add", path]).status == 0)
    // From `list --json`, which reads the library as it is (`show` would rescan the file).
    func hash(_ cli: CLI) throws -> String? {
      let rows = try JSONSerialization.jsonObject(with: Data(try cli.run(["list", "--json"]).stdout.utf8))
      return (rows as? [[String: Any]])?.first?["content_hash"] as? String
    }
    let before = try #require(try hash(cli))
    let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
    let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
    try Synth.write(Synth.sine(frequency: 660, seconds: 0.5), to: path)
    try FileManager.default.setAttributes(
      [.modificationDate: (modified ?? Date()).addingTimeInterval(60)], ofItemAtPath: path)
    try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == size)
    let again = try cli.run(["add", path])
    #expect(again.status == 0 && again.stdout == "1\ttake\n", "\(again.stderr)")
    let after = try #require(try hash(cli))
    #expect(after != before, "the fingerprint of the old content was kept")
    // And it is the fingerprint a new library gives the new content.
    let fresh = CLI(database: dir.file("fresh.sqlite"))
    #expect(try fresh.run(["add", path]).status == 0)
    #expect(try hash(fresh) == after)
  }

  @Test func addContinuesPastABadFileAndExitsWithItsCode() throws {
    let good = try song("good.wav")
    let bad = dir.file("bad.m4a")
    try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(
      to: URL(fileURLWithPath: bad))
    let later = try song("later.wav")
    let result = try cli.run(["add", good, bad, later])
    #expect(result.status == 65)
    #expect(result.stdout == "1\tgood\n2\tlater\n")
    #expect(result.stderrLines.count == 2, "\(result.stderr)")
    #expect(result.stderrLines.first?.contains(bad) == true)
    #expect(result.stderrLines.last == "practice: added 2, refused 1 file (see above)")
    let missing = try cli.run(["add", dir.file("missing.wav"), good])
    #expect(missing.status == 66)
    #expect(missing.stdout == "1\tgood\n")
    #expect(try cli.run(["list"]).stdout.split(separator: "\n").count == 2)
  }

  @Test func addOfAFolderAddsItsAudioRecursivelyInNameOrder() throws {
    let root = dir.file("music")
    for folder in ["music/b-side", "music/a-side/deep", "music/.cache"] {
      try FileManager.default.createDirectory(
        atPath: dir.file(folder), withIntermediateDirectories: true)
    }
    _ = try song("music/b-side/one.wav")
    _ = try song("music/a-side/deep/two.wav")
    _ = try song("music/a-side/Three.wav")
    _ = try song("music/zero.wav")
    _ = try song("music/.cache/hidden.wav")
    _ = try song("music/.hidden.wav")
    try "liner notes".write(toFile: dir.file("music/notes.txt"), atomically: true, encoding: .utf8)
    try Data([0x89, 0x50, 0x4e, 0x47]).write(to: URL(fileURLWithPath: dir.file("music/cover.png")))
    let result = try cli.run(["add", root])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    #expect(result.stdout == "1\tThree\n2\ttwo\n3\tone\n4\tzero\n")
    // Adding the folder again changes nothing.
    let again = try cli.run(["add", root])
    #expect(again.status == 0 && again.stdout == result.stdout)
    let empty = dir.file("empty")
    try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
    let none = try cli.run(["add", empty])
    #expect(none.status == 66 && none.stderrLines.count == 1)
  }

  @Test func addTakesM4AFromAFolderBesideWAV() throws {
    let folder = dir.file("mixed")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let wav = try song("mixed/a.wav", seconds: 1)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = [
      "-v", "error", "-nostdin", "-y", "-i", wav, "-c:a", "aac", "-metadata", "title=Store Track",
      folder + "/b.m4a",
    ]
    try process.run()
    process.waitUntilExit()
    let result = try cli.run(["add", folder])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == "1\ta\n2\tStore Track\n")
    #expect(try cli.run(["show", "2"]).stdout.contains("format QuickTime / MOV, AAC"))
  }

  @Test func relativePathsAreStoredAbsolute() throws {
    _ = try song("rel.wav")
    let result = try cli.run(["add", "rel.wav"], in: dir.path)
    #expect(result.status == 0)
    #expect(try cli.run(["show", "1"]).stdout.contains("path \(dir.file("rel.wav"))\n"))
  }

  @Test func showAndListJSONHaveAStableShape() throws {
    _ = try cli.run(["add", try song("Gamma.wav")])
    let show = try cli.run(["show", "gamma", "--json"])
    #expect(show.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
    #expect(
      Set(object.keys) == [
        "id", "title", "artist", "album", "path", "duration", "frames", "sample_rate", "channels",
        "format", "content_hash", "added_at", "updated_at", "key", "key_source", "bpm",
        "bpm_source", "note", "tags",
      ])
    #expect(object["artist"] is NSNull)
    #expect(object["frames"] as? Int == 22050)
    let list = try cli.run(["list", "--json"])
    let array = try #require(
      try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
    #expect(array.count == 1)
    #expect(try cli.run(["list", "--json"], in: dir.path).stdout == list.stdout)
    let empty = CLI(database: dir.file("empty.sqlite"))
    #expect(try empty.run(["list", "--json"]).stdout == "[]\n")
  }

  /// A title of several words typed without quotes (`practice play city blues`) is told how
  /// to quote it: the parser's "Unexpected argument 'blues'" alone did not say.
  @Test func anUnquotedTitleIsToldToQuote() throws {
    let two = try cli.run(["show", "city", "blues"])
    #expect(two.status == 64)
    #expect(
      two.stderr == "practice: Unexpected argument 'blues'; a title or name with spaces goes in "
        + "quotes: 'city blues'\n", "\(two.stderr)")
    let three = try cli.run(["play", "blue", "in", "green", "--device", "null"])
    #expect(three.status == 64 && three.stderr.contains("quotes: 'blue in green'\n"), "\(three.stderr)")
    #expect(try cli.run(["setlist", "new", "my", "gig"]).stderr.contains("quotes: 'my gig'\n"))
    // An option's value, a command's name or two ids before it are not joined.
    for arguments in [["play", "1", "--speed", "75", "blues"], ["list", "extra"], ["play", "3", "4"]] {
      let result = try cli.run(arguments)
      #expect(result.status == 64 && !result.stderr.contains("quotes"), "\(arguments): \(result.stderr)")
    }
  }

  @Test func showPrintsKeyValueLines() throws {
    _ = try cli.run(["add", try song("Delta.wav")])
    let show = try cli.run(["show", "1"])
    #expect(show.stdout.contains("title Delta\n"))
    #expect(show.stdout.contains("sample_rate 44100\n"))
    #expect(show.stdout.contains("duration 0:00.5\n"))
  }

  /// `list` shows the key and tempo `show` shows: set with `practice set`, else the key of
  /// the song's chords and its beat map's median tempo (`show` says where they came from).
  /// They were empty in `list` unless set.
  @Test func listShowsTheKeyAndTempoShowShows() throws {
    _ = try cli.run(["add", CLI.fixture("demo.wav"), try song("Plain.wav")])
    #expect(try cli.run(["beats", "import", "demo", CLI.fixture("demo.beats")]).status == 0)
    let lab = dir.file("demo.lab")
    try "0\t2.5\tA:min\n2.5\t4.5\tD:min\n4.5\t6.5\tE:7\n6.5\t9\tA:min\n"
      .write(toFile: lab, atomically: true, encoding: .utf8)
    let imported = try cli.run(["chords", "import", "demo", lab])
    #expect(imported.status == 0, "\(imported.stderr)")
    let lines = { (arguments: [String]) in
      try cli.run(arguments).stdout.split(separator: "\n").map(String.init)
    }
    let show = try lines(["show", "demo"])
    #expect(show.contains("key Am (chords)") && show.contains("bpm 120 (beat map)"), "\(show)")
    var rows = try lines(["list"]).map { $0.components(separatedBy: "\t") }
    #expect(rows.map { Array($0[5...6]) } == [["Am", "120"], ["", ""]], "\(rows)")
    // And so does --json, saying where they came from (it had null for both).
    func known(_ arguments: [String]) throws -> [[String]] {
      let text = try cli.run(arguments + ["--json"]).stdout
      let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8))
      let objects = try (parsed as? [[String: Any]]) ?? [#require(parsed as? [String: Any])]
      return objects.map { object in
        ["key", "key_source", "bpm", "bpm_source"].map { "\(object[$0] ?? "absent")" }
      }
    }
    #expect(try known(["show", "demo"]) == [["Am", "chords", "120", "beat map"]])
    #expect(
      try known(["list"])
        == [["Am", "chords", "120", "beat map"], ["<null>", "<null>", "<null>", "<null>"]])
    // Set ones win, in both.
    #expect(try cli.run(["set", "demo", "--key", "C", "--bpm", "96"]).status == 0)
    #expect(
      try lines(["show", "demo"]).filter { $0.hasPrefix("key ") || $0.hasPrefix("bpm ") }
        == ["key C", "bpm 96"])
    rows = try lines(["list"]).map { $0.components(separatedBy: "\t") }
    #expect(Array(rows[0][5...6]) == ["C", "96"], "\(rows)")
    #expect(try known(["show", "demo"]) == [["C", "set", "96", "set"]])
  }

  /// A field with no value is its key alone: no `key value` line of `show`, `set` or
  /// `select show` ends in a space (`artist ` did).
  @Test func anEmptyFieldEndsWithItsKey() throws {
    _ = try cli.run(["add", try song("Bare.wav")])
    #expect(try cli.run(["select", "add", "bare", "intro", "--from", "0", "--to", "0.2"]).status == 0)
    for arguments in [["show", "bare"], ["set", "bare", "--tag", "gig"], ["select", "show", "bare", "intro"]] {
      let result = try cli.run(arguments)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      let lines = result.stdout.split(separator: "\n")
      #expect(lines.count >= 4 && lines.allSatisfy { !$0.hasSuffix(" ") }, "\(arguments): \(lines)")
    }
    #expect(try cli.run(["show", "bare"]).stdout.contains("\nartist\nalbum\n"))
  }

  @Test func rmRemovesTheEntryButNotTheFile() throws {
    let path = try song("Epsilon.wav")
    _ = try cli.run(["add", path])
    let result = try cli.run(["rm", "epsilon"])
    #expect(result.status == 0)
    #expect(result.stdout.isEmpty)
    #expect(try cli.run(["list"]).stdout.isEmpty)
    #expect(FileManager.default.fileExists(atPath: path))
    let again = try cli.run(["rm", "epsilon"])
    #expect(again.status == 66)
  }

  /// `rm` says what went with the song: its beat map, selections, logged plays and setlist
  /// entries (it said only "removed song 3 'Song'", and a practice history was gone).
  @Test func rmSaysWhatWentWithTheSong() throws {
    let path = try song("Zeta.wav", seconds: 4)
    _ = try cli.run(["add", path])
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120"]).status == 0)
    #expect(try cli.run(["select", "add", "1", "a", "--from", "0", "--to", "0.2"]).status == 0)
    #expect(try cli.run(["select", "add", "1", "b", "--from", "0.2", "--to", "0.4"]).status == 0)
    for _ in 0..<2 {
      #expect(try cli.run(["play", "1", "--select", "a", "--device", "null"]).status == 0)
    }
    _ = try cli.run(["setlist", "new", "gig"])
    _ = try cli.run(["setlist", "add", "gig", "1"])
    _ = try cli.run(["setlist", "add", "gig", "1", "--select", "a"])
    let result = try cli.run(["rm", "1"])
    #expect(result.status == 0)
    #expect(
      result.stderr
        == "removed song 1 'Zeta' with its beat map, 2 selections, 2 logged plays, its 2 entries "
        + "in setlist 'gig' (the audio file is untouched)\n", "\(result.stderr)")
  }

  @Test func ambiguousTitlesListTheCandidates() throws {
    try FileManager.default.createDirectory(
      atPath: dir.file("b"), withIntermediateDirectories: true)
    _ = try cli.run(["add", try song("Same.wav"), try song("b/same.wav", frequency: 220)])
    let snapshot = try cli.snapshot()
    let result = try cli.run(["show", "SAME"])
    #expect(result.status == 64)
    #expect(result.stderrLines.count == 1)
    #expect(result.stderr.contains("matches 2 songs: 1 'Same' (wav), 2 'same' (wav);"))
    // More of the title cannot tell two songs of one title apart: the hint names what can.
    #expect(
      result.stderr.hasSuffix(
        "; give the id, or the file's path (a title of its own for one of them tells them apart)\n"),
      "\(result.stderr)")
    #expect(try cli.snapshot() == snapshot)
  }

  /// One recording added as m4a and as mp3 (converted the ordinary way): `add` says the
  /// second has the first's title and how to tell them apart; a title lookup lists both with
  /// their file kind; a mistyped title suggests both.
  @Test func aSecondFileOfOneTitleIsNamedAndToldApart() throws {
    let wav = try song("tune.wav")
    for (name, extra) in [("tune.m4a", [String]()), ("tune.mp3", ["-b:a", "192k"])] {
      let made = try runProgram(
        "/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-i", wav] + extra + [dir.file(name)],
        environment: [:], directory: dir.path, scratch: dir.path)
      try #require(made.status == 0, "\(made.stderr)")
    }
    let first = try cli.run(["add", dir.file("tune.m4a")])
    #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
    let second = try cli.run(["add", dir.file("tune.mp3")])
    #expect(second.status == 0 && second.stdout == "2\ttune\n", "\(second.stderr)")
    #expect(
      second.stderrLines == [
        "song 2 (mp3) has the same title as song 1 (m4a), 'tune'; a title then names both: "
          + "tell them apart with `practice set 2 --title NEW`"
      ], "\(second.stderr)")
    let which = try cli.run(["show", "tune"])
    #expect(which.status == 64)
    #expect(which.stderr.contains("matches 2 songs: 1 'tune' (m4a), 2 'tune' (mp3);"), "\(which.stderr)")
    let typo = try cli.run(["show", "tume"])
    #expect(typo.status == 66)
    #expect(
      typo.stderr.hasSuffix("did you mean 'tune' (id 1, m4a) or 'tune' (id 2, mp3)?\n"),
      "\(typo.stderr)")
    // Renamed, each title names one song; adding again says nothing of twins.
    #expect(try cli.run(["set", "2", "--title", "tune (mp3)"]).status == 0)
    #expect(try cli.run(["show", "tune"]).status == 0)
    #expect(try cli.run(["add", dir.file("tune.mp3")]).stderrLines.count == 1)
  }

  @Test func unknownIdsAndTitlesAreMissingInput() throws {
    let id = try cli.run(["show", "42"])
    #expect(id.status == 66)
    #expect(
      id.stderr == "practice: no song with id 42 in the library; `practice list` shows the ids\n")
    let title = try cli.run(["show", "Nothing Like It"])
    #expect(title.status == 66)
    #expect(title.stderrLines.count == 1)
  }

  @Test func aFileIsAddedOnFirstUse() throws {
    let path = try song("Zeta.wav", seconds: 4)
    let result = try cli.run(["render", path, "-o", dir.file("z.wav")])
    #expect(result.status == 0)
    #expect(try cli.run(["list"]).stdout.hasPrefix("1\tZeta\t"))
  }

  @Test func aMissingSongFileSaysHowToFindItAgain() throws {
    let path = try song("Eta.wav")
    _ = try cli.run(["add", path])
    try FileManager.default.removeItem(atPath: path)
    let result = try cli.run(["render", "1", "-o", dir.file("x.wav")])
    #expect(result.status == 66)
    #expect(result.stderr.contains("is missing"))
    #expect(result.stderrLines.count == 1)
  }

  @Test func tagsBecomeTitleArtistAlbum() throws {
    // Tagged FLAC written by the test: libsndfile reads the Vorbis comments back.
    let tagged = dir.file("tagged.flac")
    try Synth.write(
      Synth.sine(frequency: 440, seconds: 0.2), to: tagged,
      tags: ("Footprints", "W. Shorter", "Adam's Apple"))
    let result = try cli.run(["add", tagged])
    #expect(result.stdout == "1\tFootprints\n")
    let show = try cli.run(["show", "footprints"]).stdout
    #expect(show.contains("artist W. Shorter\n"))
    #expect(show.contains("album Adam's Apple\n"))
  }

  /// A song never played has no resume line (an empty one read as a place to resume from);
  /// once played, `resume` says where the next `play --resume` continues.
  @Test func showHasNoResumeLineBeforeTheFirstPlay() throws {
    let path = try song("fresh.wav", seconds: 1)
    #expect(try cli.run(["add", path]).status == 0)
    let fresh = try cli.run(["show", path])
    #expect(fresh.status == 0)
    #expect(!fresh.stdout.contains("resume"), "\(fresh.stdout)")
    #expect(fresh.stdout.contains("\nupdated_at "), "\(fresh.stdout)")
    #expect(try cli.run(["play", path, "--device", "null", "--to", "0.3"]).status == 0)
    let played = try cli.run(["show", path]).stdout
    #expect(played.contains("\nresume 0:00.0 in 0:00.0–0:00.3 (finished: from its start)"), "\(played)")
  }
}
