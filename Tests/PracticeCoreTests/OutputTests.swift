import Foundation
import Testing

@testable import PracticeCore

/// The one JSON output protocol, the one setlist layout and the printed records built on them.
@Suite struct OutputTests {
  private func json(_ value: some JSONOutput) -> String { value.jsonText }

  @Test func optionalsAreNullInPrintedShapesAndLeftOutInTheFile() {
    var out = JSONWriter()
    out.object { o in
      o.field("a", Int?.none)
      o.field("b", ifPresent: Int?.none)
      o.field("c", ifPresent: [1.5, 2])
      o.field("d", ["x\u{9b}y"])
      o.field("e", Rounded(2.0 / 3, 3))
    }
    #expect(out.text == "{\"a\":null,\"c\":[1.5,2],\"d\":[\"x\u{9b}y\"],\"e\":0.667}")
    #expect(json(["x\u{9b}y"]) == "[\"x\\u009by\"]")
  }

  /// Negative numbers keep their sign (a transpose of -1, a step of -0.5); what a terminal
  /// would obey is escaped, the bidirectional controls at both ends of their ranges too.
  @Test func numbersKeepTheirSignAndTerminalControlsAreEscaped() {
    var numbers = JSONWriter()
    numbers.array([-1.0, -0.5, -2.25, 0.125, -1_234_567.0]) { $0.number($1) }
    #expect(numbers.text == "[-1,-0.5,-2.25,0.125,-1234567]")
    var ints = JSONWriter()
    ints.array([-1, 0, -10] as [Int64]) { $0.int($1) }
    #expect(ints.text == "[-1,0,-10]")
    #expect(
      json(["a\u{7f}b\u{202a}c\u{202e}d\u{2066}e\u{2069}f"])
        == "[\"a\\u007fb\\u202ac\\u202ed\\u2066e\\u2069f\"]")
  }

  @Test func aFormattedNumberIsWrittenAsItIsAndAnythingElseIsAProblem() {
    var out = JSONWriter()
    out.array([FormattedNumber("0.500000000"), FormattedNumber("1e-7")]) { $1.write(to: &$0) }
    #expect(out.text == "[0.500000000,1e-7]" && out.problem == nil)
    var bad = JSONWriter()
    FormattedNumber("1,5").write(to: &bad)
    #expect(bad.text == "null" && bad.problem != nil)
  }

  @Test func arraysOnePerLineKeepTheBeatExportsLayout() throws {
    let text = try BeatFiles.export(
      [(frame: 22050, bar: 1, beatInBar: 1), (frame: 33075, bar: 1, beatInBar: 2)],
      sampleRate: 44100, format: .json)
    #expect(
      text
        == "{\"sample_rate\":44100,\"beats\":[\n{\"time\":0.500000000,\"frame\":22050,\"bar\":1,\"beat\":1},\n"
        + "{\"time\":0.750000000,\"frame\":33075,\"bar\":1,\"beat\":2}\n]}\n")
    #expect(
      try BeatFiles.export([], sampleRate: 8000, format: .json)
        == "{\"sample_rate\":8000,\"beats\":[]}\n")
  }

  @Test func passAndStopEventsKeepTheirKeysInOrder() {
    #expect(
      json(PassEvent(pass: 3, passes: nil, speed: 0.8, bar: 9, beat: nil, time: 1.23456789))
        == "{\"event\":\"pass\",\"pass\":3,\"passes\":null,\"speed\":0.8,\"bar\":9,\"beat\":null,\"time\":1.234568}"
    )
    #expect(
      json(StopEvent(frame: 44100, time: 1, bar: nil, beat: nil, finished: true))
        == "{\"event\":\"stopped\",\"frame\":44100,\"time\":1,\"bar\":null,\"beat\":null,\"finished\":true}"
    )
    #expect(
      json(TunerLine(TunerReading(time: 1.2534, frequency: nil, level: -23.46), a4: 440))
        == "{\"t\":1.253,\"hz\":null,\"note\":null,\"cents\":null,\"level\":-23.5}")
  }

  @Test func aBarLineLeavesOutWhatTheMapDoesNotHave() {
    let plain = BarLine(
      bar: 2, beats: 4, bpm: 119.996, chords: nil, confidence: nil, doubtful: false,
      start: 2.0000004)
    #expect(json(plain) == "{\"bar\":2,\"beats\":4,\"bpm\":120,\"start\":2}")
    let detected = BarLine(
      bar: 3, beats: 3, bpm: 90, chords: ["Am", "N"], confidence: 0.414, doubtful: true, start: 4.5)
    #expect(
      json(detected)
        == "{\"bar\":3,\"beats\":3,\"bpm\":90,\"chords\":[\"Am\",\"N\"],\"confidence\":0.41,\"doubtful\":true,\"start\":4.5}"
    )
  }

  @Test func nearestNamesAreSuggestedOnlyWhenNearEnough() {
    #expect(Nearest.name(to: "lst", among: ["add", "list", "log"]) { _ in 1 } == "list")
    #expect(Nearest.name(to: "zzzz", among: ["add", "list"]) { _ in 2 } == nil)
    // One edit from both: the first given wins; two edits within a limit of two is near.
    #expect(Nearest.name(to: "lot", among: ["log", "lit"]) { _ in 1 } == "log")
    #expect(Nearest.name(to: "lsit", among: ["list", "add"]) { _ in 2 } == "list")
    #expect(Nearest.editDistance(Array("kitten"), Array("sitting")) == 3)
    #expect(Nearest.editDistance([], Array("abc")) == 3)
  }

  private func fridayLayout() throws -> SetlistLayout {
    let am = try #require(MusicalKey(parsing: "Am"))
    let entry = SetlistEntry(songID: 1, transpose: 2, speed: 0.5, note: "count in slow")
    return SetlistLayout(
      name: "friday",
      rows: [
        .init(
          position: 1, entry: entry, title: "練習曲 | two", artist: nil,
          key: entry.keyPlayed(songKey: am), tempo: 96 * 0.5, songNote: "capo 2"),
        .init(
          position: 2, entry: SetlistEntry(songID: 9), title: nil, artist: nil, key: nil,
          tempo: nil, songNote: nil),
        .init(
          position: 3, entry: SetlistEntry(songID: 2, selection: "solo"), title: "One",
          artist: "B", key: nil, tempo: nil, songNote: ""),
      ])
  }

  /// One layout, three texts: the key played (Am up 2 is Bm), the tempo played, the notes of
  /// the entry and the song, a gone song left off paper, wide characters padded as two columns.
  @Test func oneSetlistLayoutRendersAsTextAndMarkdown() throws {
    let layout = try fridayLayout()
    let lines = layout.lines { $0 }
    #expect(lines.map(\.position) == ["1.", "3."])
    #expect(
      lines[0]
        == .init(
          position: "1.", title: "練習曲 | two", key: "Bm", tempo: "48 BPM",
          notes: "count in slow; capo 2"))
    #expect(lines[1].title == "One (solo)" && lines[1].notes == "")
    #expect(
      layout.text { $0 }
        == "FRIDAY\n\n1.   練習曲 | two   Bm   48 BPM   count in slow; capo 2\n3.   One (solo)\n")
    #expect(
      layout.markdown { $0 }
        == "# friday\n\n| # | Title | Key | Tempo | Notes |\n|---|---|---|---|---|\n"
        + "| 1 | 練習曲 \\| two | Bm | 48 BPM | count in slow; capo 2 |\n| 3 | One (solo) |  |  |  |\n"
    )
    #expect(layout.text { $0.uppercased() }.contains("ONE (SOLO)"))
    #expect(
      layout.rows[0].fields == ["1", "1", "練習曲 | two", "", "Bm", "+2", "50%", "", "count in slow"])
  }

  /// A setlist's name is put in capitals and then escaped, so a control in it (`TextRule`
  /// keeps them out of names today) reads as the door writes it everywhere (`\x1b`, not `\X1B`).
  @Test func aSetlistsNameIsInCapitalsWithItsControlsEscapedAsEverywhere() {
    let layout = SetlistLayout(name: "gig\u{1B}[2J", rows: [])
    #expect(
      layout.text { $0.replacingOccurrences(of: "\u{1B}", with: "\\x1b") } == "GIG\\x1b[2J\n\n")
  }

  @Test func setlistShowJSONKeepsEveryKey() throws {
    let text = json(try fridayLayout())
    #expect(
      text.hasPrefix(
        "{\"entries\":[{\"artist\":null,\"key\":\"Bm\",\"note\":\"count in slow\",\"position\":1,"
          + "\"repeat\":null,\"selection\":null,\"song_id\":1,\"speed\":0.5,\"title\":\"練習曲 | two\",\"transpose\":2},"
      ))
    #expect(text.hasSuffix("],\"name\":\"friday\"}"))
  }

  /// The chart `chords show` prints: moved by the transposition less the capo, bars of beats.
  @Test func aChordChartShowsShapesForTheCapo() throws {
    let beats = (0..<8).map {
      Beat(frame: Int64($0) * 100, bar: 1 + $0 / 4, beat: 1 + $0 % 4, source: .grid)
    }
    let map = try BeatMap(beats: beats, totalFrames: 800, sampleRate: 100)
    let am = try Chord.parseSymbol("Am")
    let d = try Chord.parseSymbol("D")
    let track = ChordTrack(
      spans: [
        ChordSpan(start: 0, end: 200, chord: am), ChordSpan(start: 200, end: 400, chord: d),
        ChordSpan(start: 400, end: 800, chord: nil),
      ], source: .imported, detectedKey: MusicalKey(parsing: "Am"))
    let chart = ChordChart(
      track: track, beatMap: map, sampleRate: 100, setKey: nil, capo: 2, transpose: 0)
    #expect(chart.keyText == "Am (detected) — shapes in Gm with capo 2")
    #expect(chart.barRows?.map(\.chords) == ["Gm . C .", "N . . ."])
    #expect(chart.changes.map(\.symbol) == ["Gm", "C", "N"])
    let text = json(chart)
    #expect(
      text.hasPrefix(
        "{\"song_key\":\"A minor\",\"key_source\":\"detected\",\"sounding_key\":\"A minor\","
          + "\"shapes_key\":\"G minor\",\"capo\":2,\"transpose\":0,\"bars\":[{\"bar\":1,\"start\":0,\"beats\":[\"Gm\",\"Gm\",\"C\",\"C\"]}"
      ))
    let unmapped = ChordChart(
      track: track, beatMap: nil, sampleRate: 100, setKey: MusicalKey(parsing: "C"), capo: 0,
      transpose: 2)
    #expect(unmapped.keyText == "D — transposed +2 from C" && unmapped.barRows == nil)
    #expect(!json(unmapped).contains("\"bars\""))
  }

  /// A table never wider than the terminal: cuttable columns narrow first, then columns
  /// are dropped by rank; cells are measured as the door shows them.
  @Test func aTableFitsItsWidthByCuttingThenDropping() {
    let table = TextTable(
      columns: [
        .init("ID", .right), .init("TITLE", cut: .end), .init("PATH", cut: .start, drop: 1),
      ],
      rows: [["1", "A long title here", "/very/long/path/to/file.wav"]])
    let wide = table.layout(width: 200) { $0 }
    #expect(
      wide == ["ID  TITLE              PATH", " 1  A long title here  /very/long/path/to/file.wav"])
    let thirty = table.layout(width: 30) { $0 }
    #expect(thirty.count == 2 && thirty.allSatisfy { DisplayWidth.of($0) <= 30 })
    #expect(
      thirty[1].hasPrefix(" 1  A long") && thirty[1].hasSuffix("file.wav")
        && thirty[1].contains("…"))
    #expect(table.layout(width: 12) { $0 } == ["ID  TITLE", " 1  A long …"])
    let escaped = TextTable(columns: [.init("X")], rows: [["a\u{1}b"]])
      .layout(width: 80) { $0.replacingOccurrences(of: "\u{1}", with: "\\x01") }
    #expect(escaped == ["X", "a\u{1}b"])
    #expect(
      DisplayWidth.shown("a\u{1}b") { $0.replacingOccurrences(of: "\u{1}", with: "\\x01") } == 6)
  }

  /// A table exactly as wide as the terminal is left whole; a cut column keeps at least
  /// `narrowest` columns (the line is cut at the edge instead); the highest drop rank goes
  /// first; wide characters are cut whole, to the last column; a backslash is measured as the
  /// door shows it, two columns.
  @Test func aTableAsWideAsTheTerminalIsWholeAndCutsStopAtTheNarrowest() {
    // 2 + 2 + 10 = 14 columns.
    let exact = TextTable(
      columns: [.init("ID", .right), .init("TITLE", cut: .end)], rows: [["1", "Ten chars!"]])
    #expect(exact.layout(width: 14) { $0 } == ["ID  TITLE", " 1  Ten chars!"])
    // Two cuttable columns at 14: both stop at 8 (8 + 2 + 8 = 18), and the row is cut at the
    // edge after 13 columns and the ellipsis.
    let two = TextTable(
      columns: [.init("TITLE", cut: .end), .init("PATH", cut: .start)],
      rows: [["A long title here", "/very/long/path/file.wav"]])
    #expect(two.layout(width: 14) { $0 } == ["TITLE     PATH", "A long …  …il…"])
    // 4 + 2 + 2 + 2 + 2 = 12 columns at 10: leaving out Y (rank 2) fits.
    let ranked = TextTable(
      columns: [.init("NAME"), .init("X", drop: 1), .init("Y", drop: 2)],
      rows: [["name", "xx", "yy"]])
    #expect(ranked.layout(width: 10) { $0 } == ["NAME  X", "name  xx"])
    // Columns empty in every row go before a title is cut (`list` of songs with no key,
    // tempo or tags at 80 columns), and only then; a short row's missing cell is empty.
    let sparse = TextTable(
      columns: [.init("TITLE", cut: .end), .init("KEY"), .init("BPM", .right), .init("TAGS")],
      rows: [["A title of twenty ch", "", ""], ["Short", "", "", ""]])
    #expect(sparse.layout(width: 20) { $0 } == ["TITLE", "A title of twenty ch", "Short"])
    #expect(
      sparse.layout(width: 40) { $0 } == ["TITLE                 KEY  BPM  TAGS", "A title of twenty ch", "Short"])
    // Six characters two columns wide in 7 columns: three and the ellipsis, either end.
    let wide = String(repeating: "練習曲", count: 2)
    #expect(DisplayWidth.fit(wide, width: 7, cut: .end) { $0 } == "練習曲…")
    #expect(DisplayWidth.fit(wide, width: 7, cut: .start) { $0 } == "…練習曲")
    #expect(DisplayWidth.fit(wide, width: 6, cut: .end) { $0 } == "練習…")
    let doubled: (String) -> String = { $0.replacingOccurrences(of: "\\", with: "\\\\") }
    #expect(DisplayWidth.shown("a\\b", escape: doubled) == 4)
    #expect(
      TextTable(columns: [.init("P"), .init("Q")], rows: [["a\\b", "q"]]).layout(
        width: 80, escape: doubled) == ["P     Q", "a\\b  q"])
  }

  /// What moved out of the commands: the developers' knobs, `--since` dates, shell words,
  /// a goal's text and pull's summary line.
  @Test func theCommandsSmallTextsAreComputedInTheCore() throws {
    let chords = ChordSettings.fromEnvironment([
      "PRACTICE_CHORD_SETTINGS": "bassWeight=0.4, nope=1,x"
    ])
    #expect(chords.bassWeight == 0.4 && chords.noChord == ChordSettings().noChord)
    let beats = BeatDetectionOptions.fromEnvironment(
      maxBPM: 200, environment: ["PRACTICE_BEAT_MODEL": "net", "PRACTICE_BEAT_FEATURES": ""])
    #expect(beats.model == .network && beats.featureDump == nil && beats.maxBPM == 200)
    let now = Date(timeIntervalSince1970: 1_000_000)
    #expect(parseSince("2d", now: now) == now.addingTimeInterval(-172_800))
    #expect(
      parseSince("2026-11-01") != nil && parseSince("1899-12-31") == nil
        && parseSince("soon") == nil)
    #expect(ShellWord.quoted("/a/b.wav") == "/a/b.wav")
    #expect(ShellWord.quoted("it's") == "'it'\\''s'")
    #expect(ShellWord.quoted("a\nb") == "$'a\\x0ab'")
    // Nothing typed is still one word: an empty one.
    #expect(ShellWord.quoted("") == "''")
    var total = PracticeTotal(
      songID: 1, songTitle: "T", selectionName: nil, plays: 1, passes: 2, seconds: 61,
      fastest: Speed(clamping: 0.8), lastPlayed: now)
    #expect(total.goalText == "-")
    total.goal = PracticeGoal(parsing: "100%")
    #expect(total.goalText == "100%")
    #expect(
      total.statsCells { "\(Int($0))s" }[4] == "61s" && total.statsCells { _ in "" }[1] == "-")
    var report = PullReport(repository: "band")
    report.applied = ["a.practice"]
    report.current = 2
    report.matched = 3
    #expect(
      report.summary == "index fetched; 1 entry applied; 2 current; 3 of its songs in this library")
  }
}
