import Foundation
import GRDB

/// What `import` did, for its report.
public struct ImportReport: Sendable {
  /// Each song of the file found in this library, with the song it was found as.
  public var found: [(shared: PracticeFile.SharedSong, song: Song)] = []
  public var missing: [PracticeFile.SharedSong] = []
  /// Songs of the file found as a song an earlier song of the file was already found as
  /// (the same recording twice): `first` was imported, `shared` was not.
  public var duplicates: [(shared: PracticeFile.SharedSong, first: PracticeFile.SharedSong, song: Song)] = []
  public var mapsStored = 0
  /// Beat maps not stored because the song has one (`--replace` stores them).
  public var mapsKept = 0
  public var selectionsStored = 0
  /// Selections not stored because one of that name differs (`--replace` stores them).
  public var selectionsKept: [String] = []
  public var setlistsStored: [String] = []
  /// Setlists stored without the entries whose songs are not in this library (`partial`).
  public var setlistsShortened: [(name: String, stored: Int, entries: Int)] = []
  /// Setlists not stored because one of that name differs (`--replace` stores them).
  public var setlistsKept: [String] = []

  /// True when importing changed nothing (the same file imported again).
  public var changedNothing: Bool {
    mapsStored == 0 && selectionsStored == 0 && setlistsStored.isEmpty && detailsChanged == 0
  }
  public var detailsChanged = 0
}

extension Library {
  // MARK: Export

  /// The `.practice` document for `songs` and `setlists` (every song a setlist names must
  /// be among `songs`; `sharedSongs(for:)` gives them).
  public func export(songs: [Song], setlists: [Setlist], now: Date = Date()) throws -> PracticeFile {
    var refs: [Int64: Int] = [:]
    // Details and selections of the whole library in three queries, beats through one
    // statement reused per song: a query per song and table took seconds for 10,000 songs.
    let shared = try read { db in
      let details = try Library.allDetails(db)
      var selectionsBySong: [Int64: [PracticeFile.SharedSelection]] = [:]
      for row in try Row.fetchAll(
        db,
        sql: """
          SELECT s.song_id, s.name, s.bars, s.start_frame, s.end_frame, s.note, p.*
          FROM selection s LEFT JOIN selection_practice p ON p.selection_id = s.id
          ORDER BY s.song_id, s.name
          """)
      {
        selectionsBySong[row["song_id"], default: []].append(
          PracticeFile.SharedSelection(
            name: TextRule.cleaned(row["name"]), bars: row["bars"], startFrame: row["start_frame"],
            endFrame: row["end_frame"], note: (row["note"] as String?).map(TextRule.cleaned),
            practice: PracticeFile.SharedPractice(Library.selectionPractice(from: row))))
      }
      let beats = try BeatReader(db)
      return try songs.enumerated().map { index, song -> PracticeFile.SharedSong in
        guard let id = song.id else { throw PracticeError(.other, "song has no id") }
        refs[id] = index + 1
        let details = details[id] ?? SongDetails()
        let songBeats = try beats.beats(of: id)
        return PracticeFile.SharedSong(
          ref: index + 1, title: song.title, artist: song.artist, album: song.album,
          duration: song.duration, frames: song.frames, sampleRate: song.sampleRate,
          contentHash: song.contentHash, key: details.key?.description, bpm: details.bpm,
          note: details.note.map(TextRule.cleaned), tags: details.tags.map(TextRule.cleaned),
          beatMap: songBeats.isEmpty ? nil : PracticeFile.SharedBeatMap(songBeats),
          selections: selectionsBySong[id] ?? [],
          chords: try Library.chordTrack(songID: id, title: song.title, db).map {
            PracticeFile.SharedChords($0)
          })
      }
    }
    let sharedSetlists = try setlists.map { setlist in
      // Text an older practice let in is written as the one rule (`TextRule`) has it, so
      // that what is exported always imports again.
      PracticeFile.SharedSetlist(
        name: TextRule.cleaned(setlist.name),
        entries: try setlist.entries.map { entry in
          guard let ref = refs[entry.songID] else {
            throw PracticeError(.other, "setlist '\(setlist.name)' names a song not exported")
          }
          return PracticeFile.SharedEntry(
            song: ref, selection: entry.selection.map(TextRule.cleaned), key: entry.key?.description,
            transpose: entry.transpose, speed: entry.speed, repeats: entry.repeats,
            note: entry.note.map(TextRule.cleaned))
        })
    }
    return PracticeFile(
      format: PracticeFile.formatName, version: PracticeFile.currentVersion,
      exportedAt: Library.timestamp(now), songs: shared, setlists: sharedSetlists)
  }

  /// The songs `setlists` name, in the order they first appear.
  public func songs(of setlists: [Setlist]) throws -> [Song] {
    var seen: Set<Int64> = []
    var songs: [Song] = []
    for entry in setlists.flatMap(\.entries) where seen.insert(entry.songID).inserted {
      if let song = try song(id: entry.songID) { songs.append(song) }
    }
    return songs
  }

  /// What sharing `songs` and `setlists` carries: the songs named, then those the setlists
  /// name that are not among them (`export`, `repo publish`).
  public func songs(_ songs: [Song], withThoseOf setlists: [Setlist]) throws -> [Song] {
    var chosen = songs
    var seen = Set(chosen.compactMap(\.id))
    for song in try self.songs(of: setlists) where seen.insert(song.id ?? 0).inserted {
      chosen.append(song)
    }
    return chosen
  }

  /// What `export` and `repo publish` carry: every song and every setlist (`all`), or the
  /// songs named (path, id or title) and the setlists named, with the songs they hold.
  public func sharedChoice(all: Bool, songs names: [String], setlists setlistNames: [String])
    throws -> (songs: [Song], setlists: [Setlist])
  {
    let setlists = try all ? setlists() : setlistNames.map { try setlist(named: $0) }
    let chosen = try songs(all ? songs() : names.map { try resolve($0) }, withThoseOf: setlists)
    return (chosen, setlists)
  }

  // MARK: Import

  /// Finds the file's songs in this library (by content hash, then by title, artist and
  /// duration within a second) and stores what the file holds for them, in one
  /// transaction: beat maps (a song's own map is kept unless `replace`), selections (one
  /// of the same name that differs is kept unless `replace`), key, tempo and note where
  /// the song has none (all of them with `replace`), tags (added), and setlists (one of the
  /// same name that differs is kept unless `replace`). Songs it cannot find are an error
  /// (66, nothing stored) unless `partial`. Importing the same file again changes nothing.
  public func importFile(
    _ file: PracticeFile, path: String, partial: Bool, replace: Bool, now: Date = Date()
  ) throws -> ImportReport {
    let decoded = try Library.check(file, path: path)
    let timestamp = Library.timestamp(now)
    return try write { db in
      var report = ImportReport()
      var songsByRef: [Int: Song] = [:]
      var beatsOfFound: [[Beat]?] = []
      // Each song of the library stands for one entry of the file: two copies of a recording
      // exported from one library find their two copies again. An entry whose only match
      // an earlier entry took is the same recording twice: the first entry is imported, the
      // later one only reported (its setlist entries name the song), never merged into it.
      var claimed: [Int64: PracticeFile.SharedSong] = [:]
      for (shared, beats) in zip(file.songs, decoded) {
        let candidates = try Library.candidates(shared, db)
        if let song = candidates.first(where: { claimed[$0.id ?? 0] == nil }), let id = song.id {
          claimed[id] = shared
          report.found.append((shared, song))
          beatsOfFound.append(beats)
          songsByRef[shared.ref] = song
        } else if let song = candidates.first, let first = claimed[song.id ?? 0] {
          report.duplicates.append((shared, first, song))
          songsByRef[shared.ref] = song
        } else {
          report.missing.append(shared)
        }
      }
      if !report.missing.isEmpty && !partial {
        let named = report.missing.prefix(10).map { Library.describe($0) }.joined(separator: "; ")
        let more = report.missing.count > 10 ? "; and \(report.missing.count - 10) more" : ""
        throw PracticeError(
          .missingInput,
          "\(report.missing.count) of the \(file.songs.count) songs in '\(path)' are not in the "
            + "library: \(named)\(more); add their files with `practice add`",
          remedy: .importPartially)
      }
      let reader = try BeatReader(db)
      var maps: [(song: Int64, beats: [Beat])] = []
      for ((shared, song), beats) in zip(report.found, beatsOfFound) {
        try importSong(
          shared, beats: beats, into: song, replace: replace, timestamp: timestamp, reader: reader,
          maps: &maps, &report, db)
      }
      try Library.insertChecked(maps, db)
      for setlist in file.setlists {
        let entries = setlist.entries.compactMap { entry -> SetlistEntry? in
          guard let song = songsByRef[entry.song], let id = song.id else { return nil }
          return SetlistEntry(
            songID: id, selection: entry.selection,
            key: entry.key.flatMap(MusicalKey.init(parsing:)), transpose: entry.transpose,
            speed: entry.speed, repeats: entry.repeats, note: entry.note)
        }
        let existing = try Int64.fetchOne(
          db, sql: "SELECT id FROM setlist WHERE name = ?", arguments: [setlist.name])
        if existing != nil {
          let current = try Row.fetchAll(
            db,
            sql: """
              SELECT song_id, selection_name, key, transpose, speed, repeats, note FROM setlist_entry
              WHERE setlist_id = ? ORDER BY position
              """, arguments: [existing]
          ).map {
            SetlistEntry(
              songID: $0[0], selection: $0[1], key: ($0[2] as String?).flatMap(MusicalKey.init(parsing:)),
              transpose: $0[3], speed: $0[4], repeats: $0[5], note: $0[6])
          }
          if current == entries { continue }
          guard replace else {
            report.setlistsKept.append(setlist.name)
            continue
          }
        }
        try Library.storeSetlist(named: setlist.name, entries: entries, timestamp: timestamp, db)
        report.setlistsStored.append(setlist.name)
        if entries.count < setlist.entries.count {
          report.setlistsShortened.append((setlist.name, entries.count, setlist.entries.count))
        }
      }
      return report
    }
  }

  func importSong(
    _ shared: PracticeFile.SharedSong, beats sharedBeats: [Beat]?, into song: Song, replace: Bool,
    timestamp: String, reader: BeatReader, maps: inout [(song: Int64, beats: [Beat])],
    _ report: inout ImportReport, _ db: Database
  ) throws {
    guard let id = song.id else { return }
    // Frames are the file's sample rate; a copy of the song at another rate gets them scaled.
    let scale = Double(song.sampleRate) / Double(shared.sampleRate)
    func frame(_ value: Int64) -> Int64 {
      scale == 1 ? value : Int64((Double(value) * scale).rounded())
    }
    // Details: what the song lacks (everything with replace); tags are added.
    let details = try Library.details(songID: id, db)
    var change = SongDetailsChange()
    if let key = shared.key.flatMap(MusicalKey.init(parsing:)), replace || details.key == nil,
      details.key != key
    {
      change.key = .some(key)
    }
    if let bpm = shared.bpm, replace || details.bpm == nil, details.bpm != bpm {
      change.bpm = .some(bpm)
    }
    if let note = shared.note, replace || details.note == nil, details.note != note {
      change.note = .some(note)
    }
    let have = Set(details.tags.map { $0.lowercased() })
    change.addTags = shared.tags.filter { !have.contains($0.lowercased()) }
    if change.key != nil || change.bpm != nil || change.note != nil || !change.addTags.isEmpty {
      try Library.changeDetails(songID: id, change, db)
      report.detailsChanged += 1
    }
    // The beat map.
    if let sharedBeats {
      let hasMap =
        try Bool.fetchOne(
          db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM beat WHERE song_id = ?)"),
          arguments: [id]) ?? false
      var beats = sharedBeats
      if scale != 1 {
        for i in beats.indices { beats[i].frame = frame(beats[i].frame) }
      }
      // Checked first: removing nothing would still copy the 500 beats the file holds.
      if beats.contains(where: { $0.frame >= song.frames }) {
        beats.removeAll { $0.frame >= song.frames }
      }
      if hasMap && !replace {
        // Kept is said only of a map that differs: the same file imported again keeps none.
        if try reader.beats(of: id) != beats { report.mapsKept += 1 }
      } else {
        do {
          _ = try BeatMap(beats: beats, totalFrames: song.frames, sampleRate: song.sampleRate)
        } catch let error as PracticeError {
          throw PracticeError(
            .badData, "the beat map of '\(shared.title)' does not fit its song: \(error.message)")
        }
        // Only a song with a map (and --replace) has one to compare and delete.
        if !hasMap {
          // A new map: what `beats undo` took away is not brought back over it.
          try db.execute(
            sql: "DELETE FROM beat_map_history WHERE song_id = ? AND redo = 1", arguments: [id])
          maps.append((id, beats))
          report.mapsStored += 1
        } else if try reader.beats(of: id) != beats {
          try Library.pushBeatMapHistory(
            songID: id, change: BeatMapChange(.replaced, "import of a .practice file"),
            at: timestamp, db)
          try db.execute(sql: "DELETE FROM beat WHERE song_id = ?", arguments: [id])
          maps.append((id, beats))
          report.mapsStored += 1
        }
      }
    }
    // The chords, as the beat map: kept where the song has some, unless replace.
    if let chords = shared.chords {
      _ = try Library.importChords(
        chords, into: song, replace: replace, scale: scale, now: Date(), db)
    }
    // Selections, by name.
    for selection in shared.selections {
      let span: SelectionSpan
      if let bars = selection.bars, let range = BarRange(parsing: bars) {
        span = .bars(range)
      } else if let start = selection.startFrame, let end = selection.endFrame {
        span = .frames(frame(start)..<max(frame(start) + 1, frame(end)))
      } else {
        continue  // checked before the transaction
      }
      let existing = try Row.fetchOne(
        db.cachedStatement(
          sql: "SELECT id, bars, start_frame, end_frame, note FROM selection WHERE song_id = ? AND name = ?"),
        arguments: [id, selection.name])
      let practice = try selection.practice?.selectionPractice().get() ?? SelectionPractice()
      if let existing {
        let same =
          (existing["bars"] as String?).flatMap(BarRange.init(parsing:)).map(SelectionSpan.bars)
          ?? (existing["start_frame"] as Int64?).flatMap { start in
            (existing["end_frame"] as Int64?).map { SelectionSpan.frames(start..<$0) }
          }
        let existingPractice = try Library.storedPractice(selectionID: existing["id"], db)
        if same == span && (existing["note"] as String?) == selection.note
          && existingPractice == practice
        {
          continue
        }
        guard replace else {
          report.selectionsKept.append("'\(selection.name)' of '\(song.title)'")
          continue
        }
        try db.execute(
          sql: "DELETE FROM selection WHERE id = ?", arguments: [existing["id"] as Int64])
      }
      var stored = Selection(
        id: nil, songID: id, name: selection.name, span: span, note: selection.note,
        createdAt: timestamp, updatedAt: timestamp)
      try Library.insert(&stored, db)
      if let storedID = stored.id, !practice.isEmpty {
        try Library.storePractice(practice, selectionID: storedID, db)
      }
      report.selectionsStored += 1
    }
  }

  /// Inserts the beat maps an import stores, after `check` bounded every frame, bar and beat
  /// and `BeatMap` checked their order: with the table's CHECK constraints off for these
  /// statements, which were half of SQLite's time inserting 5 M beats (bench/sharing-10k.py).
  static func insertChecked(_ maps: [(song: Int64, beats: [Beat])], _ db: Database) throws {
    guard !maps.isEmpty else { return }
    // A connection flag, read when a statement is prepared: the inserter's statements are
    // prepared while it is on, and setting it back expires them.
    try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
    defer { try? db.execute(sql: "PRAGMA ignore_check_constraints = OFF") }
    let inserter = try BeatInserter(db)
    for map in maps { try inserter.insert(map.beats, song: map.song) }
  }

  /// The song `shared` stands for (a repository entry): the best of `candidates`.
  static func find(_ shared: PracticeFile.SharedSong, _ db: Database) throws -> Song? {
    try candidates(shared, db).first
  }

  /// The songs `shared` may stand for, best first: those of the same content (by id), else
  /// those of the same title and artist (any case) and duration within a second (nearest
  /// duration first).
  static func candidates(_ shared: PracticeFile.SharedSong, _ db: Database) throws -> [Song] {
    let same = try Song.fetchAll(
      db.cachedStatement(sql: "SELECT * FROM song WHERE content_hash = ? ORDER BY id"),
      arguments: [shared.contentHash])
    if !same.isEmpty { return same }
    return try Song.fetchAll(
      db,
      sql: """
        SELECT * FROM song WHERE title = ? COLLATE NOCASE
          AND coalesce(artist, '') = ? COLLATE NOCASE AND abs(duration - ?) <= 1
        ORDER BY abs(duration - ?), id
        """,
      arguments: [shared.title, shared.artist ?? "", shared.duration, shared.duration])
  }

  /// The largest frame position and bar number a shared file may hold (see `check`).
  static let framesLimit: Int64 = 768_000 * 86_400 * 7
  static let barsLimit = 1_000_000

  /// Whether `range` ends where or after it starts (`9-1` and `9.3-9.2` do not).
  static func runsForwards(_ range: BarRange) -> Bool {
    range.start.bar < range.end.bar
      || (range.start.bar == range.end.bar && (range.start.beat ?? 1) <= (range.end.beat ?? Int.max))
  }

  /// `'Title' by Artist (3:05)`.
  static func describe(_ shared: PracticeFile.SharedSong) -> String {
    "'\(shared.title)'" + (shared.artist.map { " by \($0)" } ?? "")
      + " (\(formatTime(shared.duration)))"
  }

  /// Everything in the file that could fail half-way is checked before anything is stored,
  /// as the commands that make the same things check them: names and notes follow
  /// `TextRule`, beat maps decode, spans parse and run forwards, settings are in range,
  /// setlist entries name songs of the file and give keys that are keys.
  /// Returns each song's beats (nil where it has no map), decoded once for the import.
  static func check(_ file: PracticeFile, path: String) throws -> [[Beat]?] {
    func bad(_ what: String) -> PracticeError {
      PracticeError(.badData, "'\(path)': \(what); the file is damaged or was edited by hand")
    }
    var refs: Set<Int> = []
    var decoded: [[Beat]?] = []
    decoded.reserveCapacity(file.songs.count)
    for (index, song) in file.songs.enumerated() {
      let label = "song \(index + 1) ('\(song.title)')"
      guard refs.insert(song.ref).inserted else { throw bad("\(label) repeats ref \(song.ref)") }
      // Bounds that keep every sum and every scaling to another sample rate in range: a
      // week of audio at 768 kHz, and bars and beats as no beat map has them.
      guard (1...768_000).contains(song.sampleRate), (0...Library.framesLimit).contains(song.frames),
        (0...Double(Library.framesLimit)).contains(song.duration)
      else {
        throw bad("\(label) has an impossible length or sample rate")
      }
      if let key = song.key, MusicalKey(parsing: key) == nil {
        throw bad("\(label) has the key '\(key)', which is not a key")
      }
      if let bpm = song.bpm, !SongDetails.bpmRange.contains(bpm) {
        throw bad("\(label) has a tempo of \(bpm) BPM")
      }
      for text in [song.note].compactMap({ $0 }) + song.tags {
        if let problem = Selection.typedTextProblem(text) { throw bad("\(label): a note or tag \(problem)") }
      }
      if let map = song.beatMap {
        let beats: [Beat]
        do { beats = try map.beats() } catch let error as PracticeError {
          throw bad("\(label): \(error.message)")
        }
        guard
          beats.allSatisfy({
            (0...Library.framesLimit).contains($0.frame) && (0...Library.barsLimit).contains($0.bar)
              && (1...64).contains($0.beat)
          })
        else { throw bad("\(label): its beat map has a beat out of range") }
        decoded.append(beats)
      } else {
        decoded.append(nil)
      }
      if let chords = song.chords {
        do { _ = try chords.spans() } catch let error as PracticeError {
          throw bad("\(label): \(error.message)")
        }
      }
      for selection in song.selections {
        if let problem = Selection.typedTextProblem(selection.name) ?? selection.note.flatMap(Selection.typedTextProblem)
        {
          throw bad("\(label): selection '\(selection.name)' \(problem)")
        }
        let valid: Bool
        if let bars = selection.bars {
          // As `select add` takes them: a range that runs forwards.
          valid = BarRange(parsing: bars).map(Library.runsForwards) ?? false
        } else if let start = selection.startFrame, let end = selection.endFrame {
          valid = start >= 0 && end > start && end <= Library.framesLimit
        } else {
          valid = false
        }
        guard valid, !selection.name.trimmingCharacters(in: .whitespaces).isEmpty else {
          throw bad("\(label): selection '\(selection.name)' has no valid span")
        }
        if case .failure(let error) = selection.practice?.selectionPractice() {
          throw bad("\(label): selection '\(selection.name)': \(error.message)")
        }
      }
    }
    for setlist in file.setlists {
      guard !setlist.name.isEmpty else { throw bad("a setlist has no name") }
      if let problem = Selection.typedTextProblem(setlist.name) {
        throw bad("setlist '\(setlist.name)' \(problem)")
      }
      for (index, entry) in setlist.entries.enumerated() {
        guard refs.contains(entry.song) else {
          throw bad("entry \(index + 1) of setlist '\(setlist.name)' names song \(entry.song), which the file does not hold")
        }
        let place = "entry \(index + 1) of setlist '\(setlist.name)'"
        for text in [entry.selection, entry.note].compactMap({ $0 }) {
          if let problem = TextRule.problem(text) { throw bad("\(place): a name or note \(problem)") }
        }
        if let key = entry.key, MusicalKey(parsing: key) == nil {
          throw bad("\(place) has the key '\(key)', which is not a key")
        }
        if let selection = entry.selection, selection.trimmingCharacters(in: .whitespaces).isEmpty {
          throw bad("\(place) names a selection without a name")
        }
        if let speed = entry.speed, !Speed.allowed.contains(speed) {
          throw bad("entry \(index + 1) of setlist '\(setlist.name)' has speed \(speed)")
        }
        if let transpose = entry.transpose, !(-12...12).contains(transpose) {
          throw bad("entry \(index + 1) of setlist '\(setlist.name)' transposes by \(transpose)")
        }
        if let repeats = entry.repeats, !SetlistEntry.repeatRange.contains(repeats) {
          throw bad("entry \(index + 1) of setlist '\(setlist.name)' repeats \(repeats) times")
        }
      }
    }
    return decoded
  }
}
