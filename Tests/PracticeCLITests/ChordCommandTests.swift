import Foundation
import TestSupport
import Testing

/// `practice chords detect|show|export|import`: output shapes, the key line, transposition,
/// round trips, and bad input's exit codes.
@Suite struct ChordCommandTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// C – Am7 – D7 – G, a bar each at 100 BPM, then C for two bars, with its beats as a
  /// mirex file (`NAME.beats`).
  func song(_ name: String = "song.wav", drums: Bool = false) throws -> String {
    let steps: [ChordSynth.Step] = [
      .chord(60, [0, 4, 7]), .chord(57, [0, 3, 7, 10]), .chord(62, [0, 4, 7, 10]),
      .chord(55, [0, 4, 7]), .chord(60, [0, 4, 7], beats: 8),
    ]
    let (samples, beats, _) = ChordSynth.render(steps, drums: drums)
    let path = dir.file(name)
    try Synth.write(samples, to: path)
    let mirex = beats.enumerated().map {
      String(format: "%.6f\t%d\n", Double($1) / 44100, $0 % 4 + 1)
    }.joined()
    try mirex.write(toFile: path + ".beats", atomically: true, encoding: .utf8)
    return path
  }

  func detected(_ name: String = "song.wav") throws -> String {
    let path = try song(name)
    #expect(
      try cli.run(["beats", "import", path, path + ".beats", "--format", "mirex"]).status == 0)
    let result = try cli.run(["chords", "detect", path])
    #expect(result.status == 0, "\(result.stderr)")
    return path
  }

  @Test func detectSummarisesAndShowPrintsBars() throws {
    let path = try song()
    #expect(
      try cli.run(["beats", "import", path, path + ".beats", "--format", "mirex"]).status == 0)
    let result = try cli.run(["chords", "detect", path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderrLines == ["song.wav: 5 chords (4 different), key C, on the beats"],
      "\(result.stderrLines)")
    let show = try cli.run(["chords", "show", path])
    #expect(show.status == 0, "\(show.stderr)")
    #expect(
      show.stdout == "key\tC (detected)\n1\tC . . .\n2\tAm7 . . .\n3\tD7 . . .\n4\tG . . .\n"
        + "5\tC . . .\n6\tC . . .\n", "\(show.stdout)")
    // The key set by hand wins; the chords are the same.
    #expect(try cli.run(["set", path, "--key", "C"]).status == 0)
    let set = try cli.run(["chords", "show", path])
    #expect(set.stdout.hasPrefix("key\tC\n"), "\(set.stdout)")
  }

  @Test func capoTransposeAndKey() throws {
    let path = try detected()
    // A capo at 3: the shapes of A (C sounding), F#m7, B7, E.
    let capo = try cli.run(["chords", "show", path, "--capo", "3"])
    #expect(
      capo.stdout.hasPrefix(
        "key\tC (detected) — shapes in A with capo 3\n1\tA . . .\n2\tF#m7 . . .\n3\tB7 . . .\n4\tE . . .\n"), "\(capo.stdout)"
    )
    let up = try cli.run(["chords", "show", path, "--transpose", "-2"])
    #expect(
      up.stdout.hasPrefix(
        "key\tBb — transposed -2 from C (detected)\n1\tBb . . .\n2\tGm7 . . .\n3\tC7 . . .\n4\tF . . .\n"), "\(up.stdout)")
    let key = try cli.run(["chords", "show", path, "--key", "D"])
    #expect(key.stdout.hasPrefix("key\tD — transposed +2 from C (detected)\n1\tD . . .\n2\tBm7 . . .\n"), "\(key.stdout)")
    let both = try cli.run(["chords", "show", path, "--key", "D", "--capo", "2"])
    #expect(
      both.stdout.hasPrefix(
        "key\tD — transposed +2 from C (detected); shapes in C with capo 2\n1\tC . . ."),
      "\(both.stdout)")
    let minor = try cli.run(["chords", "show", path, "--key", "Dm"])
    #expect(minor.status == 64 && minor.stderrLines.count == 1, "\(minor.stderr)")
    let bad = try cli.run(["chords", "show", path, "--capo", "12"])
    #expect(bad.status == 64, "\(bad.stderr)")
    // play and render --key transpose from the detected key when none was set.
    let render = try cli.run(["render", path, "--key", "D", "--to", "1", "-o", dir.file("d.wav")])
    #expect(render.status == 0, "\(render.stderr)")
    // A key that is not one is refused by the parser every --key uses.
    let notAKey = try cli.run(["render", path, "--key", "H", "--to", "1", "-o", dir.file("h.wav")])
    #expect(notAKey.status == 64 && notAKey.stderrLines.count == 1, "\(notAKey.stderr)")
    #expect(notAKey.stderr.contains("--key H: not a key; write a letter"), "\(notAKey.stderr)")
  }

  @Test func beatsShowHasAChordsColumn() throws {
    let path = try detected()
    let show = try cli.run(["beats", "show", path])
    let lines = show.stdout.split(separator: "\n").map {
      $0.split(separator: "\t").map(String.init)
    }
    #expect(lines.count == 6)
    #expect(lines[1].count == 5 && lines[1][4] == "Am7 . . .", "\(lines)")
    let json = try cli.run(["beats", "show", path, "--json"]).stdout
    #expect(json.contains(#""bpm":100,"chords":["D7","D7","D7","D7"]"#), "\(json)")
  }

  @Test func viewDrawsAChordLane() throws {
    let path = try detected()
    let view = try cli.run(["view", path, "--width", "100"])
    #expect(view.status == 0, "\(view.stderr)")
    let lines = view.stdout.split(separator: "\n")
    // The title, then the chords above the bar numbers.
    #expect(lines.count > 3)
    #expect(
      lines[1].split(separator: " ").map(String.init) == ["C", "Am7", "D7", "G", "C"],
      "\(view.stdout)")
    // The first chord starts where bar 1 does.
    #expect(
      lines[1].prefix(while: { $0 == " " }).count == lines[2].prefix(while: { $0 == " " }).count,
      "\(view.stdout)")
  }

  @Test func viewPicturesCarryTheChords() throws {
    let path = try detected()
    let pdf = dir.file("chords.pdf")
    let result = try cli.run(["view", path, "-o", pdf])
    #expect(result.status == 0, "\(result.stderr)")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/pdftotext")
    process.arguments = [pdf, "-"]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    for word in ["Am7", "D7"] { #expect(text.contains(word), "\(word) in \(text)") }
  }

  @Test func practiceFilesCarryTheChords() throws {
    let path = try detected()
    #expect(try cli.run(["chords", "import", path, try imported()]).status == 0)
    let lab = try cli.run(["chords", "export", path]).stdout
    let file = dir.file("song.practice")
    #expect(try cli.run(["export", path, "-o", file]).status == 0)
    let text = try String(contentsOfFile: file, encoding: .utf8)
    #expect(
      text.contains(#""chords":{"ends":["#) && text.contains(#""source":"imported""#), "\(text)")
    // A bandmate's library with the same recording gets them; one with chords keeps its own.
    let other = CLI(database: dir.file("other.sqlite"))
    #expect(try other.run(["add", path]).status == 0)
    let result = try other.run(["import", file])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try other.run(["chords", "export", path]).stdout == lab)
    #expect(
      try other.run(["chords", "show", path]).stdout.hasPrefix(
        "key\tC (detected)\n1\tC . . .\n2\tAm7"))
    // A label that is not Harte's is refused (65) and nothing is imported.
    let bad = dir.file("bad.practice")
    try text.replacingOccurrences(of: "\"A:min7\"", with: "\"A:minor7\"")
      .write(toFile: bad, atomically: true, encoding: .utf8)
    let third = CLI(database: dir.file("third.sqlite"))
    #expect(try third.run(["add", path]).status == 0)
    let refused = try third.run(["import", bad])
    #expect(refused.status == 65 && refused.stderr.contains("A:minor7"), "\(refused.stderr)")
    #expect(try third.run(["chords", "show", path]).status == 66)
  }

  /// A .lab of the song's chords, a little off the detected ones (a teacher's edit).
  func imported() throws -> String {
    let lab = dir.file("teacher.lab")
    try
      "0\t0.5\tN\n0.5\t2.9\tC:maj\n2.9\t5.3\tA:min7\n5.3\t7.7\tD:7/3\n7.7\t10.1\tG:maj\n10.1\t14.9\tC:maj\n"
      .write(toFile: lab, atomically: true, encoding: .utf8)
    return lab
  }

  @Test func setlistsShowTheDetectedKey() throws {
    let path = try detected()
    #expect(try cli.run(["setlist", "new", "gig"]).status == 0)
    #expect(try cli.run(["setlist", "add", "gig", path]).status == 0)
    let show = try cli.run(["setlist", "show", "gig"]).stdout
    #expect(
      show.split(separator: "\n").first?.split(separator: "\t", omittingEmptySubsequences: false)
        .contains("C") == true, "\(show)")
  }

  @Test func showJSON() throws {
    let path = try detected()
    let result = try cli.run(["chords", "show", path, "--json"])
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(object["song_key"] as? String == "C major")
    #expect(object["key_source"] as? String == "detected")
    #expect(object["sounding_key"] as? String == "C major")
    #expect(object["shapes_key"] as? String == "C major")
    let bars = try #require(object["bars"] as? [[String: Any]])
    #expect(bars.count == 6)
    #expect(bars[1]["beats"] as? [String] == ["Am7", "Am7", "Am7", "Am7"])
    let chords = try #require(object["chords"] as? [[String: Any]])
    #expect(chords.contains { $0["label"] as? String == "D:7" && $0["symbol"] as? String == "D7" })
  }

  /// With a capo and a transposition the JSON names each key for what it is, as the key
  /// line does: the song's, the one that sounds, the shapes'. No bare `key` to misread.
  @Test func showJSONNamesTheSoundingKeyAndTheShapesKey() throws {
    let path = try detected()
    let result = try cli.run(["chords", "show", path, "--key", "D", "--capo", "2", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    #expect(object["song_key"] as? String == "C major", "\(result.stdout)")
    #expect(object["key_source"] as? String == "detected")
    #expect(object["sounding_key"] as? String == "D major", "\(result.stdout)")
    #expect(object["shapes_key"] as? String == "C major", "\(result.stdout)")
    #expect(object["key"] == nil, "\(result.stdout)")
    #expect(object["capo"] as? Int == 2 && object["transpose"] as? Int == 2)
    let capo = try cli.run(["chords", "show", path, "--capo", "3", "--json"]).stdout
    let capoObject = try #require(
      try JSONSerialization.jsonObject(with: Data(capo.utf8)) as? [String: Any])
    #expect(capoObject["sounding_key"] as? String == "C major", "\(capo)")
    #expect(capoObject["shapes_key"] as? String == "A major", "\(capo)")
  }

  @Test func exportLabAndJSONAndImportBack() throws {
    let path = try detected()
    let lab = try cli.run(["chords", "export", path, "--format", "lab"])
    #expect(lab.status == 0)
    let lines = lab.stdout.split(separator: "\n")
    #expect(lines.allSatisfy { $0.split(separator: "\t").count == 3 }, "\(lab.stdout)")
    #expect(
      lines.map { $0.split(separator: "\t")[2] }.filter { $0 != "N" } == [
        "C:maj", "A:min7", "D:7", "G:maj", "C:maj",
      ])
    let json = try cli.run(["chords", "export", path, "--format", "json"])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect(object["key"] as? String == "C major")
    #expect(
      (object["chords"] as? [[String: Any]])?.first?.keys.sorted() == ["end", "label", "start"])
    // -o writes the file; a second song imports it and exports the same lines.
    let file = dir.file("out.lab")
    #expect(try cli.run(["chords", "export", path, "-o", file]).status == 0)
    #expect(try String(contentsOfFile: file, encoding: .utf8) == lab.stdout)
    let other = try song("other.wav")
    let imported = try cli.run(["chords", "import", other, file])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(
      imported.stderrLines == ["'other': 5 chords imported, key C from them"], "\(imported.stderr)")
    #expect(try cli.run(["chords", "export", other]).stdout == lab.stdout)
    // Detecting over imported chords needs --replace.
    let refused = try cli.run(["chords", "detect", other])
    #expect(refused.status == 64 && refused.stderr.contains("--replace"), "\(refused.stderr)")
    #expect(try cli.run(["chords", "detect", other, "--replace"]).status == 0)
    // No beat map: the chords are on their own times, listed one a line.
    let show = try cli.run(["chords", "show", other])
    #expect(
      show.stdout.split(separator: "\n").dropFirst().allSatisfy {
        $0.split(separator: "\t").count == 2
      })
    let cannot = try cli.run(["chords", "export", path, "-o", dir.path])
    #expect(cannot.status == 73, "\(cannot.stderr)")
  }

  @Test func importChordinoCSV() throws {
    let path = try song()
    let csv = dir.file("chordino.csv")
    try "\"\(path)\",0.000000000,\"N\"\n,0.5,\"C\"\n,2.9,\"Am7\"\n,5.3,\"D7\"\n,7.7,\"G/B\"\n"
      .write(toFile: csv, atomically: true, encoding: .utf8)
    let result = try cli.run(["chords", "import", path, csv])
    #expect(result.status == 0, "\(result.stderr)")
    let lab = try cli.run(["chords", "export", path]).stdout
    #expect(lab.contains("\tG:maj/3\n") && lab.contains("0.5\t2.9\tC:maj\n"), "\(lab)")
  }

  /// A slash chord's bass is named as the interval it is: D/F# (the third of D), in a key
  /// written with flats as well (it was D/Gb in Dm), and so when `--transpose` moves it.
  @Test func slashChordsAreSpelledAsMusiciansReadThem() throws {
    let path = try song()
    #expect(
      try cli.run(["beats", "import", path, path + ".beats", "--format", "mirex"]).status == 0)
    let bars = try String(contentsOfFile: path + ".beats", encoding: .utf8)
      .split(separator: "\n").enumerated().filter { $0.offset % 4 == 0 }
      .map { String($0.element.split(separator: "\t")[0]) }
    let labels = ["D:maj/3", "A:maj/3", "Bb:maj/3", "E:maj/3", "Eb:maj/3", "G:maj/3"]
    let lab = dir.file("slash.lab")
    try zip(bars, labels).enumerated().map { index, pair in
      let end = index + 1 < bars.count ? bars[index + 1] : "60.0"
      return "\(pair.0)\t\(end)\t\(pair.1)\n"
    }.joined().write(toFile: lab, atomically: true, encoding: .utf8)
    let imported = try cli.run(["chords", "import", path, lab])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(try cli.run(["set", path, "--key", "Dm"]).status == 0)
    let show = try cli.run(["chords", "show", path])
    #expect(show.status == 0, "\(show.stderr)")
    #expect(
      show.stdout == "key\tDm\n1\tD/F# . . .\n2\tA/C# . . .\n3\tBb/D . . .\n4\tE/G# . . .\n"
        + "5\tEb/G . . .\n6\tG/B . . .\n", "\(show.stdout)")
    let up = try cli.run(["chords", "show", path, "--transpose", "2"])
    #expect(up.stdout.contains("\n1\tE/G# . . .\n2\tB/D# . . .\n3\tC/E . . .\n"), "\(up.stdout)")
  }

  @Test func badChordFilesExit65AndChangeNothing() throws {
    let path = try detected()
    let before = try cli.run(["chords", "export", path]).stdout
    let bad = dir.file("bad.lab")
    try "0\t1\tC:maj\n1\t2\tG:maj\n2\t3\tQ:maj\n".write(
      toFile: bad, atomically: true, encoding: .utf8)
    let result = try cli.run(["chords", "import", path, bad])
    #expect(result.status == 65)
    #expect(result.stderrLines.count == 1)
    #expect(
      result.stderr.contains("bad.lab' line 3: 'Q:maj' is not a chord label"), "\(result.stderr)")
    #expect(try cli.run(["chords", "export", path]).stdout == before)
    let missing = try cli.run(["chords", "import", path, dir.file("nothing.lab")])
    #expect(missing.status == 66, "\(missing.stderr)")
  }

  /// A time no recording reaches (found by fuzz/: a finite `1e300` overflowed the frame
  /// count and trapped): a start past the end is refused naming its line, an end past it
  /// is cut there, in a `.lab` file and in Chordino's CSV alike.
  @Test func timesPastAnyFrameCountAreNotATrap() throws {
    let path = try detected()
    let before = try cli.run(["chords", "export", path]).stdout
    for (name, text) in [
      ("far.lab", "0\t1.5\tC:maj\n1e300\t1e301\tG:maj\n"),
      ("far.csv", "\"\(path)\",0.0,\"C\"\n,1e300,\"G\"\n"),
    ] {
      let file = dir.file(name)
      try text.write(toFile: file, atomically: true, encoding: .utf8)
      let result = try cli.run(["chords", "import", path, file])
      #expect(result.status == 65, "\(result.stderr)")
      #expect(result.stderrLines.count == 1, "\(result.stderr)")
      #expect(result.stderr.contains("\(name)' line 2: it starts at "), "\(result.stderr)")
      #expect(result.stderr.contains("after the end of the audio"), "\(result.stderr)")
    }
    #expect(try cli.run(["chords", "export", path]).stdout == before)
    let long = dir.file("long.lab")
    try "0\t1e300\tC:maj\n".write(toFile: long, atomically: true, encoding: .utf8)
    let cut = try cli.run(["chords", "import", path, long])
    #expect(cut.status == 0, "\(cut.stderr)")
    #expect(try cli.run(["chords", "export", path]).stdout.hasSuffix("\tC:maj\n"))
  }

  @Test func drumsOnlyIsNWithANote() throws {
    var piece = BeatSynth.Piece()
    piece.chords = false
    let path = dir.file("drums.wav")
    try Synth.write(BeatSynth.render(piece).samples, to: path)
    let result = try cli.run(["chords", "detect", path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderrLines.count == 2, "\(result.stderrLines)")
    #expect(
      result.stderrLines[0]
        == "drums.wav: 0 chords (0 different), no key, on their own times (no beat map)")
    #expect(result.stderrLines[1].hasPrefix("practice: warning: drums.wav: no "))
    #expect(try cli.run(["chords", "export", path]).stdout.split(separator: "\n").count == 1)
    #expect(try cli.run(["chords", "show", path]).stdout.hasPrefix("key\tunknown\n"))
    // No key to transpose to C from: refused as play's --key is, with the same advice.
    let key = try cli.run(["chords", "show", path, "--key", "C"])
    #expect(key.status == 64 && key.stderrLines.count == 1, "\(key.stderr)")
    #expect(
      key.stderr.contains("--key C: 'drums' has no key to transpose from; set it with "
        + "`practice set 1 --key KEY` or find it with `practice chords detect 1`, or give --transpose"),
      "\(key.stderr)")
  }

  @Test func silenceShortAndNoChordsAreRefused() throws {
    let silence = dir.file("silence.wav")
    try Synth.write([Float](repeating: 0, count: 44100 * 5), to: silence)
    let short = dir.file("short.wav")
    try Synth.write(ToneSynth.sine(440, seconds: 1), to: short)
    let snapshot = try cli.snapshot()
    for (path, words) in [(silence, "silent"), (short, "too short")] {
      let result = try cli.run(["chords", "detect", path])
      #expect(result.status == 65, "\(result.stderr)")
      #expect(result.stderrLines.count == 1 && result.stderr.contains(words), "\(result.stderr)")
    }
    // Songs added by naming their file are not kept when detection fails.
    #expect(try cli.snapshot() == snapshot)
    let path = try song()
    let show = try cli.run(["chords", "show", path])
    #expect(show.status == 66 && show.stderr.contains("chords detect"), "\(show.stderr)")
    #expect(try cli.run(["chords", "detect"]).status == 64)
  }
}
