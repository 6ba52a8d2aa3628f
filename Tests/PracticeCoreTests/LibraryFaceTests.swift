import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// What the library, log, setlist, repository, view and tuner commands ask of the core:
/// the overview's window and spans, setlist files, tone names, the sharing choice, the pull
/// of several repositories, list cells, the progress chart's gaps, and key changes.
@Suite struct LibraryFaceTests {
  let dir = TemporaryDirectory()

  /// A library holding `names`, 4 s of sine each (`a.wav` …).
  func library(_ names: [String] = ["a"]) throws -> (Library, [Song]) {
    let library = try Library(path: dir.file("lib.sqlite"))
    let songs = try names.map { name in
      let path = dir.file("\(name).wav")
      try Synth.write(Synth.sine(frequency: 440, seconds: 4), to: path)
      return try library.resolve(path)
    }
    return (library, songs)
  }

  /// The player screen's content: the whole song, its envelope kept in the library on first
  /// use, the selections that fit in their colours, no chord lane without a chord track.
  @Test func thePlayerShowsTheWholeSongAndTheSelectionsThatFit() throws {
    let (library, songs) = try library()
    let song = songs[0]
    let map = try fourBars(song)
    for (name, span) in [
      ("gone", SelectionSpan.bars(try #require(BarRange(parsing: "9-10")))),
      ("verse", .bars(try #require(BarRange(parsing: "2-3")))),
    ] {
      _ = try library.addSelection(to: song, name: name, span: span, note: nil, replace: false)
    }
    #expect(try library.storedWaveformSummary(for: song) == nil)
    let (content, chords) = try library.playerContent(of: song, beatMap: map)
    #expect(content.window == 0..<song.frames)
    #expect(content.title == "a" && content.beatMap == map)
    #expect(content.summary.frames == song.frames)
    #expect(try library.storedWaveformSummary(for: song) != nil)
    let place = try #require(try library.selections(of: song).firstIndex { $0.name == "verse" })
    let verse = OverviewContent.Span(name: "verse", frames: 44100..<132300, colour: place)
    #expect(content.selections == [verse])
    #expect(library.playerSpans(of: song, beatMap: map) == [verse])
    #expect(library.playerSpans(of: song, beatMap: nil).isEmpty)
    #expect(chords == nil)
  }

  /// `setlist add`: the selection kept with its stored name, a key made the transposition
  /// from the song's, refused (nothing stored) when the song has no key or another mode.
  @Test func aSetlistEntryTakesTheSelectionsNameAndTheKeyAsATransposition() throws {
    let (library, songs) = try library()
    let song = try #require(songs.first)
    let songID = try #require(song.id)
    _ = try library.createSetlist(named: "Gig")
    _ = try library.addSelection(
      to: song, name: "Solo", span: .frames(0..<44100), note: nil, replace: false)
    let bm = try #require(MusicalKey(parsing: "Bm"))
    #expect(throws: KeyChangeError.songHasNoKey) {
      try library.addEntry(SetlistEntry(songID: songID, key: bm), of: song, to: "gig", at: nil)
    }
    #expect(try library.setlist(named: "gig").entries.isEmpty)
    var change = SongDetailsChange()
    change.key = .some(MusicalKey(parsing: "Am"))
    _ = try library.changeDetails(of: song, change)
    #expect(throws: KeyChangeError.modesDiffer(own: try #require(MusicalKey(parsing: "Am")))) {
      try library.addEntry(
        SetlistEntry(songID: songID, key: MusicalKey(parsing: "C")), of: song, to: "gig", at: nil)
    }
    let added = try library.addEntry(
      SetlistEntry(songID: songID, selection: "solo", key: bm, speed: 0.8), of: song,
      to: "gig", at: nil)
    #expect(added.position == 1 && added.setlist == "Gig")
    #expect(added.entry.selection == "Solo" && added.entry.transpose == 2)
    #expect(try library.setlist(named: "gig").entries == [added.entry])
    #expect(throws: PracticeError.self) {
      try library.addEntry(
        SetlistEntry(songID: songID, selection: "bridge"), of: song, to: "gig", at: nil)
    }
  }

  /// `select add/edit`: bars checked against the beat map asked for (only when bars are
  /// given), times against the audio, an open end at its end.
  @Test func aSelectionsSpanIsCheckedAgainstTheSong() throws {
    let (_, songs) = try library()
    let song = try #require(songs.first)
    let map = try fourBars(song)
    let bars = try #require(BarRange(parsing: "2-3"))
    #expect(
      try SelectionSpan.checked(bars: bars, from: nil, to: nil, of: song) { map } == .bars(bars))
    #expect(throws: RangeError.self) {
      try SelectionSpan.checked(
        bars: try #require(BarRange(parsing: "4-5")), from: nil, to: nil, of: song
      ) { map }
    }
    var asked = false
    let times = try SelectionSpan.checked(bars: nil, from: 1, to: nil, of: song) {
      asked = true
      return map
    }
    #expect(times == .frames(44100..<song.frames) && !asked)
    #expect(throws: RangeError.startPastEnd(start: 5, duration: 4)) {
      try SelectionSpan.checked(bars: nil, from: 5, to: nil, of: song) { map }
    }
  }

  /// `beats tap` refuses before playing to overwrite a map made another way than detection
  /// or tapping, unless told to replace it.
  @Test func tappingRefusesAMapMadeByHandUnlessReplacing() throws {
    let (library, songs) = try library()
    let song = try #require(songs.first)
    try library.checkBeatTapping(of: song, replace: false)
    let grid = try fourBars(song)
    try library.replaceBeatMap(for: song, with: grid)
    #expect(throws: DetectionRefusal.beatsMadeByHand(song: song, beats: grid.beats)) {
      try library.checkBeatTapping(of: song, replace: false)
    }
    try library.checkBeatTapping(of: song, replace: true)
    let tapped = try BeatMap(
      beats: grid.beats.map {
        Beat(frame: $0.frame, bar: $0.bar, beat: $0.beat, source: .tapped)
      }, totalFrames: song.frames, sampleRate: song.sampleRate)
    try library.replaceBeatMap(for: song, with: tapped)
    try library.checkBeatTapping(of: song, replace: false)
  }

  /// A missing file and a folder are the same values whether a song is resolved (`play`)
  /// or scanned (`add`), with the path as given; nothing is added.
  @Test func aMissingFileAndAFolderAreSaidAsGiven() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let nope = dir.file("nope.wav")
    #expect(throws: AudioPathError.noSuchFile(path: nope)) { try library.resolve(nope) }
    #expect(throws: AudioPathError.noSuchFile(path: nope)) { try SongScanner.scan(nope) }
    #expect(throws: AudioPathError.folder(path: dir.path)) { try library.resolve(dir.path) }
    #expect(AudioPathError.folder(path: "x").category == .missingInput)
    #expect(try library.isEmpty())
  }

  /// A file in a folder that cannot be read is reported when its name says it is audio
  /// (every format the decoders open), skipped without a word when it is the folder's
  /// pictures or notes.
  @Test func anUnreadableFileInAFolderIsReportedWhenItsNameSaysAudio() {
    for name in ["a.flac", "a.wv", "a.tta", "a.ape", "a.dsf", "a.amr", "a.m4r", "A.TTA"] {
      #expect(SongScanner.reportsFailure(of: .init(path: "album/" + name, named: false)), "\(name)")
    }
    for name in ["cover.jpg", "notes.txt", "a.cue"] {
      #expect(!SongScanner.reportsFailure(of: .init(path: "album/" + name, named: false)), "\(name)")
    }
    #expect(SongScanner.reportsFailure(of: .init(path: "cover.jpg", named: true)))
  }

  /// A folder's hidden files (a sync tool's, an editor's) are not songs; a hidden folder
  /// is not walked.
  @Test func aFoldersHiddenFilesAndFoldersAreLeftOut() throws {
    let folder = TemporaryDirectory()
    try FileManager.default.createDirectory(
      atPath: folder.file(".trash"), withIntermediateDirectories: true)
    for name in ["a.wav", ".a.wav", ".trash/b.wav"] {
      try "x".write(toFile: folder.file(name), atomically: true, encoding: .utf8)
    }
    #expect(SongScanner.targets([folder.path]) == [.init(path: folder.file("a.wav"), named: false)])
  }

  /// Four bars of 4/4 at 120 bpm from the start.
  func fourBars(_ song: Song) throws -> BeatMap {
    let beats = (0..<16).map {
      Beat(frame: Int64($0) * 11025, bar: 1 + $0 / 4, beat: 1 + $0 % 4, source: .grid)
    }
    return try BeatMap(beats: beats, totalFrames: song.frames, sampleRate: song.sampleRate)
  }

  @Test func theOverviewShowsItsWindowAndTheSelectionsThatStillFit() throws {
    let (library, songs) = try library()
    let song = songs[0]
    let map = try fourBars(song)
    try library.replaceBeatMap(for: song, with: map)
    for (name, span) in [
      ("intro", SelectionSpan.frames(0..<22050)),
      ("gone", .bars(try #require(BarRange(parsing: "9-10")))),
      ("verse", .bars(try #require(BarRange(parsing: "2-3")))),
    ] {
      _ = try library.addSelection(to: song, name: name, span: span, note: nil, replace: false)
    }
    // Bars from the map, open to its end; times from the audio, an open end at its end.
    let bars = OverviewWindow.bars(try #require(BarRangeText(parsing: "2-")))
    #expect(try bars.frames(of: song, beatMap: map) == 44100..<song.frames)
    #expect(try OverviewWindow.times(from: 1, to: nil).frames(of: song, beatMap: nil)
      == 44100..<song.frames)
    #expect(throws: RangeError.startPastEnd(start: 5, duration: 4)) {
      try OverviewWindow.times(from: 5, to: nil).frames(of: song, beatMap: map)
    }
    #expect(throws: PracticeError.self) { try bars.frames(of: song, beatMap: nil) }

    // A selection keeps its colour (its place among the song's) when another is left out.
    let placed = OverviewSpans(try library.selections(of: song), beatMap: map)
    let expected = Dictionary(
      uniqueKeysWithValues: try library.selections(of: song).enumerated().map {
        ($0.element.name, $0.offset)
      })
    #expect(placed.spans.map(\.name).sorted() == ["intro", "verse"])
    for span in placed.spans { #expect(span.colour == expected[span.name]) }
    #expect(placed.spans.first { $0.name == "verse" }?.frames == 44100..<132300)
    #expect(placed.undrawn.map(\.selection.name) == ["gone"])
    #expect(placed.undrawn.first?.failure.category == .usage)
    // Without a map, only the time selection is drawn.
    let withoutMap = OverviewSpans(try library.selections(of: song), beatMap: nil)
    #expect(withoutMap.spans.map(\.name) == ["intro"])

    let summary = try library.waveformSummary(for: song).summary
    let content = try library.overviewContent(
      of: song, summary: summary, beatMap: map, spans: placed.spans, window: 0..<song.frames)
    #expect(content.title == "a" && content.chords.isEmpty && content.selections == placed.spans)
    let escaped = content.escaped { "<\($0)>" }
    #expect(escaped.title == "<a>" && escaped.artist == nil)
    #expect(escaped.selections.map(\.name) == content.selections.map { "<\($0.name)>" })
    #expect(escaped.selections.map(\.frames) == content.selections.map(\.frames))
  }

  @Test func aSetlistIsWrittenAsItsExtensionSays() throws {
    let (library, songs) = try library(["a", "b"])
    _ = try library.createSetlist(named: "Gig")
    for song in songs {
      _ = try library.addEntry(SetlistEntry(songID: try #require(song.id)), to: "gig", at: nil)
    }
    #expect(SetlistFileKind(path: "set.PDF") == .pdf && SetlistFileKind(path: "set.md") == .md)
    #expect(SetlistFileKind(path: "set.doc") == nil && SetlistFileKind(path: "set") == nil)
    let layout = try library.setlistLayout(named: "gig")
    let escape = { (text: String) in text }
    for kind in SetlistFileKind.allCases {
      let path = dir.file("set.\(kind.rawValue)")
      #expect(try layout.write(to: path, as: kind, paper: .a4, escape: escape) == 2)
      let data = try Data(contentsOf: URL(fileURLWithPath: path))
      switch kind {
      case .pdf: #expect(data.starts(with: Array("%PDF".utf8)))
      case .md: #expect(String(decoding: data, as: UTF8.self) == layout.markdown(escape: escape))
      case .txt: #expect(String(decoding: data, as: UTF8.self) == layout.text(escape: escape))
      }
    }
    // A PDF into a folder that is not there is refused before anything is drawn.
    #expect(throws: (any Error).self) {
      try layout.write(to: dir.file("none/set.pdf"), as: .pdf, paper: .a4, escape: escape)
    }
  }

  @Test func tonesAreNamedAndRefusedAsValues() {
    #expect(ToneProblem("A4", a4: 440) == nil && ToneProblem("440Hz", a4: 440) == nil)
    let c0 = Note(midi: 12).frequency(a4: 440)
    #expect(ToneProblem("C0", a4: 440) == .noteOutOfRange(hertz: c0))
    #expect(ToneProblem("B8", a4: 440) == nil)
    #expect(ToneProblem("C9", a4: 440) == .noteOutOfRange(hertz: Note(midi: 120).frequency()))
    #expect(ToneProblem("B9", a4: 440) == .aboveHighestNote)
    #expect(ToneProblem("H4", a4: 440) == .notANote && ToneProblem("9000", a4: 440) == .notANote)
    #expect(toneLabel("A4", hertz: 432) == "A4 (432 Hz)")
    #expect(toneLabel("82.41 Hz", hertz: 82.41) == "82.41 Hz")

    let dash = "─"
    let inTune = PitchReading(frequency: 440)!
    #expect(
      inTune.tunerLine
        == "A4     0 ¢  \(String(repeating: dash, count: 10))●\(String(repeating: dash, count: 10))"
        + "  440.00 Hz")
    // 445 Hz is 19.6 cents sharp: +20, the needle 4 cells right of the centre.
    let sharp = PitchReading(frequency: 445)!
    #expect(sharp.tunerLine.hasPrefix("A4   +20 ¢  ") && sharp.tunerLine.hasSuffix("  445.00 Hz"))
    #expect(sharp.tunerLine.contains(String(repeating: dash, count: 10) + "|───●"))
    #expect(PitchReading(frequency: 41.2)!.tunerLine.hasPrefix("E1 "))
    #expect(TunerReadout(a4: 440, duration: nil).statusText == "—")

    let flag = StopFlag()
    #expect(!flag.isSet)
    flag.set()
    #expect(flag.isSet)
  }

  @Test func sharingCarriesTheSongsNamedAndThoseOfTheSetlists() throws {
    let (library, songs) = try library(["a", "b", "c"])
    _ = try library.createSetlist(named: "gig")
    _ = try library.addEntry(SetlistEntry(songID: try #require(songs[2].id)), to: "gig", at: nil)
    _ = try library.addEntry(SetlistEntry(songID: try #require(songs[0].id)), to: "gig", at: nil)
    let some = try library.sharedChoice(all: false, songs: ["a"], setlists: ["GIG"])
    #expect(some.songs.map(\.title) == ["a", "c"] && some.setlists.map(\.name) == ["gig"])
    let everything = try library.sharedChoice(all: true, songs: [], setlists: [])
    #expect(everything.songs.count == 3 && everything.setlists.count == 1)
    #expect(try library.sharedChoice(all: false, songs: ["b"], setlists: []).setlists.isEmpty)
    #expect(throws: (any Error).self) {
      try library.sharedChoice(all: false, songs: [], setlists: ["tour"])
    }
    // What `export` counts: the beats of the maps and the selections of the songs carried.
    try library.replaceBeatMap(for: songs[0], with: try fourBars(songs[0]))
    _ = try library.addSelection(
      to: songs[2], name: "intro", span: .frames(0..<100), note: nil, replace: false)
    let file = try library.export(songs: some.songs, setlists: some.setlists)
    #expect(file.beatCount == 16 && file.selectionCount == 1)
    #expect(try library.export(songs: [songs[1]], setlists: []).beatCount == 0)
  }

  @Test func pullPicksItsRepositoriesAndGoesOnPastOneOffline() throws {
    let (member, songs) = try library(["a", "b"])
    // No repositories: nothing to pull, and the names are not looked up.
    #expect(try member.pullTargets(["no such song"]).repositories.isEmpty)

    let leader = try Library(path: dir.file("leader.sqlite"))
    let shared = try leader.resolve(dir.file("a.wav"))
    try leader.replaceBeatMap(for: shared, with: try fourBars(shared))
    _ = try leader.publish(to: dir.file("repo"), songs: [shared], setlists: [])
    _ = try member.addRepository(name: "band", url: dir.file("repo"))
    _ = try member.addRepository(name: "teacher", url: "http://127.0.0.1:1/")

    var targets = try member.pullTargets(["BAND", "b"])
    #expect(targets.repositories.map(\.name) == ["band"] && targets.songIDs == [songs[1].id!])
    targets = try member.pullTargets(["a"])
    #expect(targets.repositories.count == 2 && targets.songIDs == [songs[0].id!])
    #expect(try member.pullTargets([]).songIDs == nil)

    // Two repositories, one offline: reported, the other applied.
    var heard: [String] = []
    let tally = try member.pull(
      try member.pullTargets([]), fetcher: HTTPFetcher(), replace: false
    ) { repository, result in
      switch result {
      case .success(let report): heard.append("\(repository.name): \(report.applied.count)")
      case .failure(let error): heard.append("\(repository.name): \(error.category)")
      }
    }
    #expect(heard.sorted() == ["band: 1", "teacher: unavailable"])
    #expect(tally.applied == 1 && tally.refused == 0 && tally.unreachable == 1)
    #expect(try member.beatMap(for: songs[0]) != nil)
    // The offline one alone: its error is thrown.
    #expect(throws: FetchError.self) {
      _ = try member.pull(
        try member.pullTargets(["teacher"]), fetcher: HTTPFetcher(), replace: false
      ) { _, _ in }
    }
  }

  @Test func listsHaveTheirCells() throws {
    let (library, songs) = try library(["a", "b"])
    var change = SongDetailsChange()
    change.key = .some(MusicalKey(parsing: "Am"))
    change.bpm = .some(96.5)
    change.addTags = ["Gig", "jazz"]
    let details = try library.changeDetails(of: songs[0], change)
    let cells = songs[0].listCells(details: details, known: try library.keyAndTempo(of: songs[0]))
    #expect(cells[0] == "\(songs[0].id!)" && cells[1] == "a" && cells[2] == "")
    #expect(cells[3] == formatTime(songs[0].duration) && cells[4] == songs[0].path)
    #expect(Array(cells[5...]) == ["Am", formatNumber(96.5), details.tags.joined(separator: ",")])
    let bare = songs[1].listCells(
      details: SongDetails(), known: try library.keyAndTempo(of: songs[1]))
    #expect(bare[5] == "" && bare[6] == "" && bare[7] == "")
    #expect(try library.songs(tagged: "GIG").map(\.title) == ["a"])
    #expect(try library.songs(tagged: "rock").isEmpty)
    #expect(try library.songs(tagged: nil).count == 2)
    // `list`'s rows: each song with its own details and key, the tag as for `songs`.
    let listed = try library.songList(tagged: nil)
    #expect(listed.map(\.song.title) == ["a", "b"])
    #expect(listed.map(\.details.tags) == [details.tags, []])
    #expect(listed.map(\.known.keyText) == ["Am", ""])
    #expect(try library.songList(tagged: "jazz").map(\.known.bpmText) == [formatNumber(96.5)])

    let setlist = try library.createSetlist(named: "gig")
    #expect(setlist.listCells.prefix(2) == ["gig", "0"])
    #expect(setlist.listCells[2].wholeMatch(of: #/\d{4}-\d\d-\d\d \d\d:\d\d/#) != nil)
    let repository = try library.addRepository(name: "band", url: dir.file("repo"))
    #expect(repository.listCells == ["band", dir.file("repo"), "never", "0"])
    #expect(TextTable.repositories([repository.listCells]).columns.count == 4)
  }

  @Test func theProgressChartSaysWhyItHasNothingAndAnAgendaIsStored() throws {
    let (library, songs) = try library()
    let song = songs[0]
    let selection = try library.addSelection(
      to: song, name: "riff", span: .frames(0..<44100), note: nil, replace: false)
    try library.setPractice(
      SelectionPractice(goal: .speed(try #require(Speed(parsing: "120%")))), of: selection)
    #expect(throws: ProgressChartGap.noPlays) { try library.progressChart(of: song, since: nil) }
    func play(_ mark: PassMark?) throws {
      var entry = PracticeEntry(
        songID: song.id!, selectionID: selection.id, selectionName: "riff", bars: nil,
        range: 0..<44100, slowest: .normal, fastest: .normal, passes: 1, startedAt: Date(),
        endedAt: Date(), duration: 10, outcome: .completed)
      entry.passRecords = [PassRecord(pass: 1, speed: Speed(clamping: 0.8), mark: mark)]
      try library.log(entry)
    }
    try play(nil)
    #expect(throws: ProgressChartGap.noCleanPass) { try library.progressChart(of: song, since: nil) }
    try play(.clean)
    let chart = try library.progressChart(of: song, since: nil)
    #expect(chart.series.map(\.name) == ["riff"] && chart.series[0].points.first?.speed == 0.8)
    // Nothing since a minute from now.
    #expect(throws: ProgressChartGap.noPlays) {
      try library.progressChart(of: song, since: Date().addingTimeInterval(60))
    }

    let agenda = try library.practiceAgenda()
    #expect(agenda.map(\.selection.name) == ["riff"])
    try library.storeAgenda(agenda, as: "tonight")
    try library.storeAgenda(agenda, as: "tonight")
    let stored = try library.setlist(named: "tonight")
    #expect(stored.entries == [SetlistEntry(songID: song.id!, selection: "riff")])
  }

  /// `setlist show` and `print`: a song with no key of its own plays in the key its chord
  /// track found, moved by the entry's transposition (Am up 2 is Bm); the tempo played is
  /// the song's times the entry's speed (121 BPM at 75 % is 90.75), on paper the nearest
  /// whole BPM.
  @Test func aSetlistLaysOutTheDetectedKeyMovedAndTheTempoAtItsSpeed() throws {
    let (library, songs) = try library()
    let song = songs[0]
    let am = try #require(MusicalKey(parsing: "Am"))
    try library.replaceChordTrack(
      for: song,
      with: ChordTrack(
        spans: [ChordSpan(start: 0, end: song.frames, chord: Chord(root: 9, quality: .min))],
        source: .detected, detectedKey: am))
    var change = SongDetailsChange()
    change.bpm = .some(121)
    _ = try library.changeDetails(of: song, change)
    _ = try library.createSetlist(named: "Gig")
    try library.addEntry(
      SetlistEntry(songID: try #require(song.id), transpose: 2, speed: 0.75), to: "gig", at: nil)
    let layout = try library.setlistLayout(named: "gig")
    #expect(layout.name == "Gig" && layout.rows.count == 1)
    #expect(layout.rows[0].key == MusicalKey(parsing: "Bm"))
    #expect(layout.rows[0].tempo == 121 * 0.75)
    #expect(layout.lines { $0 }.map(\.tempo) == ["91 BPM"])
  }

  @Test func aKeyChangeIsTheNearestTranspositionFromTheSongsKey() throws {
    let (library, songs) = try library()
    let bm = try #require(MusicalKey(parsing: "Bm"))
    #expect(throws: KeyChangeError.songHasNoKey) {
      try library.transposition(of: songs[0], to: bm)
    }
    var change = SongDetailsChange()
    change.key = .some(MusicalKey(parsing: "Am"))
    _ = try library.changeDetails(of: songs[0], change)
    #expect(try library.transposition(of: songs[0], to: bm) == 2)
    #expect(try library.transposition(of: songs[0], to: try #require(MusicalKey(parsing: "Em"))) == -5)
    let am = try #require(MusicalKey(parsing: "Am"))
    #expect(throws: KeyChangeError.modesDiffer(own: am)) {
      try library.transposition(of: songs[0], to: try #require(MusicalKey(parsing: "C")))
    }
  }
}
