import Foundation
import GRDB

/// What `pull` did for one repository, for its report.
public struct PullReport: Sendable {
  public var repository: String
  /// The index was answered 304 (or a local index had not changed).
  public var indexNotModified = false
  /// Entries of the index whose song is in this library.
  public var matched = 0
  /// Entries applied: their song now has the repository's version.
  public var applied: [String] = []
  /// Entries whose version this library already has.
  public var current = 0
  /// Songs whose beat map, selections or chords were edited here since the last pull and
  /// kept: `(title, what)`, what being "beat map", "selections" or "chords" (or a setlist's
  /// name and "setlist").
  public var kept: [(title: String, what: String)] = []
  /// Entries refused: the entry's file and why (one line each).
  public var refused: [(file: String, reason: String)] = []
  /// Setlists stored from the repository, by name.
  public var setlistsApplied: [String] = []
  /// Setlists left out because songs they name are not in this library: (name, count).
  public var setlistsIncomplete: [(name: String, missing: Int)] = []
  /// Entries left for later because the repository stopped answering half-way.
  public var unreachable: FetchError?

  public init(repository: String) { self.repository = repository }

  /// `index fetched; 2 entries applied; 5 current; setlists stored: 'gig'; 7 of its songs in
  /// this library`: what `pull` says of a repository.
  public var summary: String {
    var parts = [indexNotModified ? "index unchanged" : "index fetched"]
    parts.append("\(applied.count) \(applied.count == 1 ? "entry" : "entries") applied")
    parts.append("\(current) current")
    if !refused.isEmpty { parts.append("\(refused.count) refused") }
    if !setlistsApplied.isEmpty {
      parts.append("setlists stored: " + setlistsApplied.map { "'\($0)'" }.joined(separator: ", "))
    }
    parts.append("\(matched) of its songs in this library")
    return parts.joined(separator: "; ")
  }
}

extension Library {
  /// Pulls `repository`: fetches its index (conditionally, with the validators of the last
  /// fetch) and then the entries whose version changed, for songs of this library (found as
  /// `import` finds them; only `songIDs` when given); applies each with `import`'s rules in
  /// one transaction, and records the version applied. A beat map, selections or chord track
  /// edited here since the last pull are kept unless `replace`; a detected map or chord
  /// track is the repository's.
  /// A bad entry is refused (listed in the report) and the rest still apply. The index
  /// unreachable (offline) is a `FetchError` with nothing changed.
  public func pull(
    _ repository: Repository, fetcher: HTTPFetcher, songIDs: Set<Int64>? = nil,
    replace: Bool = false, now: Date = Date()
  ) throws -> PullReport {
    var report = PullReport(repository: repository.name)
    let indexURL = HTTPFetcher.child(repository.url, RepositoryIndex.fileName)
    let stored = try read { db in
      try Row.fetchOne(
        db, sql: "SELECT etag, last_modified, index_body FROM repository WHERE id = ?",
        arguments: [repository.id])
    }
    let storedBody: Data? = stored?["index_body"]
    let validators =
      storedBody == nil
      ? nil : FetchValidators(etag: stored?["etag"], lastModified: stored?["last_modified"])
    let body: Data
    switch try fetcher.get(
      indexURL, validators: validators, maxBytes: RepositoryIndex.maxIndexBytes)
    {
    case .notModified:
      report.indexNotModified = true
      body = storedBody ?? Data()
    case .fetched(let data, let newValidators):
      body = data
      if data == storedBody { report.indexNotModified = true }
      // Decoded before it is stored: a damaged index leaves the last good one.
      _ = try RepositoryIndex.decode(data, source: indexURL)
      try write { db in
        try db.execute(
          sql: """
            UPDATE repository SET etag = ?, last_modified = ?, index_body = ?, fetched_at = ?
            WHERE id = ?
            """,
          arguments: [
            newValidators.etag, newValidators.lastModified, data, Library.timestamp(now),
            repository.id,
          ])
      }
    }
    let index = try RepositoryIndex.decode(body, source: indexURL)
    try applyEntries(
      of: index, from: repository, fetcher: fetcher, songIDs: songIDs, replace: replace, now: now,
      &report)
    return report
  }

  /// The beat map of `song` from the first repository whose last fetched index has an entry
  /// for it (no index is fetched; the entry is, and applied as `pull` applies it), with the
  /// repository's name; nil when none has one or it cannot be had now (offline, refused).
  public func beatMapFromRepositories(
    for song: Song, fetcher: HTTPFetcher = HTTPFetcher(limits: .interactive), now: Date = Date()
  ) -> (map: BeatMap, repository: String)? {
    guard let id = song.id, let repositories = try? self.repositories() else { return nil }
    for repository in repositories {
      guard
        let body = try? read({ db in
          try Data.fetchOne(
            db, sql: "SELECT index_body FROM repository WHERE id = ?", arguments: [repository.id])
        }),
        let index = try? RepositoryIndex.decode(body, source: repository.name)
      else { continue }
      var report = PullReport(repository: repository.name)
      do {
        try applyEntries(
          of: index, from: repository, fetcher: fetcher, songIDs: [id], replace: false, now: now,
          &report)
      } catch { continue }
      if !report.applied.isEmpty, let map = try? beatMap(for: song) {
        return (map, repository.name)
      }
    }
    return nil
  }

  /// Fetches and applies the entries of `index` that changed (see `pull`), into `report`.
  private func applyEntries(
    of index: RepositoryIndex, from repository: Repository, fetcher: HTTPFetcher,
    songIDs: Set<Int64>?, replace: Bool, now: Date, _ report: inout PullReport
  ) throws {
    // Each entry's song in this library, found as `import` finds it.
    let songs = try self.songs()
    var byHash: [String: Song] = [:]
    var byName: [String: [Song]] = [:]
    for song in songs.sorted(by: { ($0.id ?? 0) < ($1.id ?? 0) }) {
      if byHash[song.contentHash] == nil { byHash[song.contentHash] = song }
      byName["\(song.title.lowercased())\u{0}\((song.artist ?? "").lowercased())", default: []]
        .append(song)
    }
    func find(_ entry: RepositoryIndex.SongEntry) -> Song? {
      if let song = byHash[entry.contentHash] { return song }
      let named =
        byName["\(entry.title.lowercased())\u{0}\((entry.artist ?? "").lowercased())"] ?? []
      return named.filter { abs($0.duration - entry.duration) <= 1 }
        .min { abs($0.duration - entry.duration) < abs($1.duration - entry.duration) }
    }
    let records = try read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT song_id, version, map_fingerprint, selections_fingerprint, chords_fingerprint
          FROM repository_song WHERE repository_id = ?
          """, arguments: [repository.id]
      ).reduce(into: [Int64: PullRecord]()) {
        $0[$1["song_id"]] = PullRecord(
          version: $1["version"], map: $1["map_fingerprint"],
          selections: $1["selections_fingerprint"], chords: $1["chords_fingerprint"])
      }
    }

    // Checked entries are applied in batches, one transaction each with a savepoint per
    // entry (all or nothing per entry): a commit per entry was most of a 1,000-song pull.
    // Nothing is fetched while the transaction is open.
    var batch: [PreparedEntry] = []
    var batchBytes = 0
    func flush() throws {
      guard !batch.isEmpty else { return }
      let timestamp = Library.timestamp(now)
      let outcomes = try write { db -> [(PreparedEntry, Result<[String], PracticeError>)] in
        var outcomes: [(PreparedEntry, Result<[String], PracticeError>)] = []
        for item in batch {
          do {
            var kept: [String] = []
            try db.inSavepoint {
              kept = try apply(
                item, repository: repository, replace: replace, timestamp: timestamp, db)
              return .commit
            }
            outcomes.append((item, .success(kept)))
          } catch let failure as any PracticeFailure {
            outcomes.append((item, .failure(PracticeError(failure.category, failure.description))))
          }
        }
        return outcomes
      }
      for (item, outcome) in outcomes {
        switch outcome {
        case .success(let kept):
          report.applied.append(item.song.title)
          report.kept += kept.map { (item.song.title, $0) }
        case .failure(let error):
          report.refused.append((item.file, error.message))
        }
      }
      batch.removeAll()
      batchBytes = 0
    }

    var seen: Set<Int64> = []
    entries: for entry in index.songs {
      guard let song = find(entry), let id = song.id else { continue }
      if let songIDs, !songIDs.contains(id) { continue }
      guard seen.insert(id).inserted else { continue }
      report.matched += 1
      let record = records[id]
      if let record, record.version == entry.version {
        // Up to date; with `replace`, a song edited here since takes the repository's again.
        let edited =
          try replace && read { db in try SongState(songID: id, db).edited(since: record) }
        if !edited {
          report.current += 1
          continue
        }
      }
      guard RepositoryIndex.isSafeFileName(entry.file) else {
        report.refused.append(
          (entry.file, "its file name could leave the repository or is not a .practice file"))
        continue
      }
      guard entry.size <= RepositoryIndex.maxEntryBytes else {
        report.refused.append(
          (
            entry.file,
            "it is \(entry.size) bytes, over the \(RepositoryIndex.maxEntryBytes / 1_048_576) MiB limit"
          ))
        continue
      }
      let location = HTTPFetcher.child(repository.url, entry.file)
      let data: Data
      do {
        guard
          case .fetched(let fetched, _) = try fetcher.get(
            location, validators: nil, maxBytes: RepositoryIndex.maxEntryBytes)
        else { continue }
        data = fetched
      } catch let error as FetchError {
        if error.category == .unavailable {
          report.unreachable = error
          break entries
        }
        report.refused.append((entry.file, error.description))
        continue
      }
      do {
        let file = try PracticeFile.decode(data, path: entry.file)
        guard file.songs.count == 1, let shared = file.songs.first else {
          throw PracticeError(.badData, "it holds \(file.songs.count) songs, not one")
        }
        guard
          shared.contentHash == entry.contentHash
            || (shared.title == entry.title && abs(shared.duration - entry.duration) <= 1)
        else {
          throw PracticeError(.badData, "it holds '\(shared.title)', not the song the index names")
        }
        let decoded = try Library.check(
          PracticeFile(
            format: file.format, version: file.version, exportedAt: file.exportedAt,
            songs: [shared], setlists: []), path: entry.file)
        batch.append(
          PreparedEntry(
            file: entry.file, song: song, shared: shared, beats: decoded[0],
            version: entry.version, record: record))
        batchBytes += data.count
        if batch.count >= 100 || batchBytes >= 16 * 1_048_576 { try flush() }
      } catch let error as any PracticeFailure {
        report.refused.append((entry.file, error.description))
      }
    }
    try flush()
    // Setlists, on a pull of every song: stored when all their songs are here.
    if songIDs == nil && report.unreachable == nil {
      try applySetlists(
        of: index, from: repository, fetcher: fetcher, replace: replace, now: now, &report)
    }
  }

  /// Fetches the setlists of `index` whose version changed and stores each whose songs are
  /// all in this library (found as `import` finds them), one transaction each. A setlist of
  /// that name changed here since the last pull is kept unless `replace`.
  private func applySetlists(
    of index: RepositoryIndex, from repository: Repository, fetcher: HTTPFetcher, replace: Bool,
    now: Date, _ report: inout PullReport
  ) throws {
    let records = try read { db in
      try Row.fetchAll(
        db,
        sql: "SELECT name, version, fingerprint FROM repository_setlist WHERE repository_id = ?",
        arguments: [repository.id]
      ).reduce(into: [String: (version: String, fingerprint: String?)]()) {
        $0[($1["name"] as String).lowercased()] = ($1["version"], $1["fingerprint"])
      }
    }
    for entry in index.setlists {
      let record = records[entry.name.lowercased()]
      if record?.version == entry.version && !replace { continue }
      guard RepositoryIndex.isSafeFileName(entry.file), entry.size <= RepositoryIndex.maxEntryBytes
      else {
        report.refused.append(
          (entry.file, "its file name could leave the repository or it is too large"))
        continue
      }
      let data: Data
      do {
        guard
          case .fetched(let fetched, _) = try fetcher.get(
            HTTPFetcher.child(repository.url, entry.file), validators: nil,
            maxBytes: RepositoryIndex.maxEntryBytes)
        else { continue }
        data = fetched
      } catch let error as FetchError {
        if error.category == .unavailable {
          report.unreachable = error
          return
        }
        report.refused.append((entry.file, error.description))
        continue
      }
      do {
        let file = try PracticeFile.decode(data, path: entry.file)
        _ = try Library.check(file, path: entry.file)
        guard file.setlists.count == 1, let setlist = file.setlists.first,
          setlist.name.lowercased() == entry.name.lowercased()
        else {
          throw PracticeError(.badData, "it does not hold the setlist '\(entry.name)' alone")
        }
        let timestamp = Library.timestamp(now)
        let outcome = try write { db -> String in
          var songs: [Int: Int64] = [:]
          for shared in file.songs {
            if let id = try Library.find(shared, db)?.id { songs[shared.ref] = id }
          }
          let missing = Set(setlist.entries.map(\.song)).subtracting(songs.keys).count
          if missing > 0 { return "missing \(missing)" }
          // Every entry's song is known (`missing` is 0).
          let entries = setlist.entries.compactMap { item in
            songs[item.song].map { id in
              SetlistEntry(
                songID: id, selection: item.selection,
                key: item.key.flatMap(MusicalKey.init(parsing:)), transpose: item.transpose,
                speed: item.speed, repeats: item.repeats, note: item.note)
            }
          }
          let local = try Library.setlistFingerprint(named: setlist.name, db)
          if let local, local != record?.fingerprint, !replace {
            return "kept"
          }
          try Library.storeSetlist(named: setlist.name, entries: entries, timestamp: timestamp, db)
          try db.execute(
            sql: """
              INSERT INTO repository_setlist (repository_id, name, version, fingerprint, applied_at)
              VALUES (?, ?, ?, ?, ?)
              ON CONFLICT (repository_id, name) DO UPDATE SET version = excluded.version,
                fingerprint = excluded.fingerprint, applied_at = excluded.applied_at
              """,
            arguments: [
              repository.id, setlist.name, entry.version,
              try Library.setlistFingerprint(named: setlist.name, db), timestamp,
            ])
          return "stored"
        }
        switch outcome {
        case "stored": report.setlistsApplied.append(setlist.name)
        case "kept": report.kept.append((setlist.name, "setlist"))
        default:
          report.setlistsIncomplete.append(
            (setlist.name, Int(outcome.dropFirst("missing ".count)) ?? 0))
        }
      } catch let error as any PracticeFailure {
        report.refused.append((entry.file, error.description))
      }
    }
  }

  /// A fingerprint of a setlist's entries as they are now; nil when there is no such setlist.
  static func setlistFingerprint(named name: String, _ db: Database) throws -> String? {
    guard
      let id = try Int64.fetchOne(
        db, sql: "SELECT id FROM setlist WHERE name = ?", arguments: [name])
    else { return nil }
    var fingerprint = Fingerprint()
    let rows = try Row.fetchCursor(
      db,
      sql: """
        SELECT song_id, selection_name, key, transpose, speed, repeats, note FROM setlist_entry
        WHERE setlist_id = ? ORDER BY position
        """, arguments: [id])
    while let row = try rows.next() {
      for value in row.databaseValues { fingerprint.add(value.description) }
    }
    return fingerprint.hex
  }

  /// Applies one entry's song in the caller's transaction and records its version; returns
  /// what was kept because it was edited here ("beat map", "selections", "chords").
  private func apply(
    _ item: PreparedEntry, repository: Repository, replace: Bool, timestamp: String,
    _ db: Database
  ) throws -> [String] {
    let (shared, beats, song, version, record) = (
      item.shared, item.beats, item.song, item.version, item.record
    )
    guard let id = song.id else { return [] }
    let before = try SongState(songID: id, db)
    let takeMap = replace || !before.mapEdited(since: record)
    let takeSelections = replace || !before.selectionsEdited(since: record)
    let takeChords = replace || !before.chordsEdited(since: record)
    let reader = try BeatReader(db)
    var maps: [(song: Int64, beats: [Beat])] = []
    var report = ImportReport()
    // What the repository wins is imported with `replace` on its own; the rest (details,
    // tags, and what was edited here) with import's ordinary rules.
    var rest = shared
    if takeMap && !replace, beats != nil {
      var mapOnly = shared
      mapOnly.key = nil
      mapOnly.bpm = nil
      mapOnly.note = nil
      mapOnly.tags = []
      mapOnly.selections = []
      mapOnly.chords = nil
      try importSong(
        mapOnly, beats: beats, into: song, replace: true, timestamp: timestamp, reader: reader,
        maps: &maps, &report, db)
      rest.beatMap = nil
    }
    if takeSelections && !replace, !shared.selections.isEmpty {
      var selectionsOnly = shared
      selectionsOnly.key = nil
      selectionsOnly.bpm = nil
      selectionsOnly.note = nil
      selectionsOnly.tags = []
      selectionsOnly.beatMap = nil
      selectionsOnly.chords = nil
      try importSong(
        selectionsOnly, beats: nil, into: song, replace: true, timestamp: timestamp,
        reader: reader, maps: &maps, &report, db)
      rest.selections = []
    }
    if takeChords && !replace, shared.chords != nil {
      var chordsOnly = shared
      chordsOnly.key = nil
      chordsOnly.bpm = nil
      chordsOnly.note = nil
      chordsOnly.tags = []
      chordsOnly.beatMap = nil
      chordsOnly.selections = []
      try importSong(
        chordsOnly, beats: nil, into: song, replace: true, timestamp: timestamp,
        reader: reader, maps: &maps, &report, db)
      rest.chords = nil
    }
    // Chords edited here are kept: the rest is imported without them.
    if !takeChords { rest.chords = nil }
    try importSong(
      rest, beats: rest.beatMap == nil ? nil : beats, into: song, replace: replace,
      timestamp: timestamp, reader: reader, maps: &maps, &report, db)
    try Library.insertChecked(maps, db)
    var kept: [String] = []
    if report.mapsKept > 0 { kept.append("beat map") }
    if !report.selectionsKept.isEmpty { kept.append("selections") }
    if !takeChords && shared.chords != nil { kept.append("chords") }
    let after = try SongState(songID: id, db)
    try db.execute(
      sql: """
        INSERT INTO repository_song
          (repository_id, song_id, version, map_fingerprint, selections_fingerprint,
           chords_fingerprint, applied_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (repository_id, song_id) DO UPDATE SET version = excluded.version,
          map_fingerprint = excluded.map_fingerprint,
          selections_fingerprint = excluded.selections_fingerprint,
          chords_fingerprint = excluded.chords_fingerprint, applied_at = excluded.applied_at
        """,
      arguments: [
        repository.id, id, version,
        takeMap ? after.map : record?.map,
        takeSelections ? after.selections : record?.selections,
        takeChords ? after.chords : record?.chords,
        timestamp,
      ])
    return kept
  }
}

/// An entry fetched, decoded and checked, waiting for its batch's transaction.
private struct PreparedEntry {
  var file: String
  var song: Song
  var shared: PracticeFile.SharedSong
  var beats: [Beat]?
  var version: String
  var record: PullRecord?
}

/// What the last pull applied to a song: the version, and fingerprints of the song's map,
/// selections and chord track just after it (chords: nil before `v15-repository-chords`).
struct PullRecord {
  var version: String
  var map: String?
  var selections: String?
  var chords: String?
}

/// Fingerprints of a song's beat map, selections and chord track as they are now.
struct SongState {
  /// nil when the song has no map.
  var map: String?
  /// Every beat was detected (a detector's map, which a repository's replaces).
  var detectedOnly: Bool
  /// nil when the song has no selections.
  var selections: String?
  /// nil when the song has no chord track.
  var chords: String?
  /// Its chord track is a detector's (which a repository's replaces).
  var chordsDetected: Bool

  init(songID: Int64, _ db: Database) throws {
    var fingerprint = Fingerprint()
    var count = 0
    var detected = true
    let beats = try Row.fetchCursor(
      db.cachedStatement(
        sql: "SELECT frame, bar, beat, source FROM beat WHERE song_id = ? ORDER BY frame"),
      arguments: [songID])
    while let row = try beats.next() {
      let source: String = row[3]
      fingerprint.add("\(row[0] as Int64) \(row[1] as Int) \(row[2] as Int) \(source)")
      if source != BeatSource.detected.rawValue { detected = false }
      count += 1
    }
    map = count == 0 ? nil : fingerprint.hex
    detectedOnly = count > 0 && detected
    var selectionPrint = Fingerprint()
    var selectionCount = 0
    let rows = try Row.fetchCursor(
      db.cachedStatement(
        sql: """
          SELECT s.name, s.bars, s.start_frame, s.end_frame, s.note, p.speed, p.ramp_to, p.step,
            p.every, p.count_in, p.click, p.gap, p.transpose, p.volume, p.goal_speed, p.goal_bpm
          FROM selection s LEFT JOIN selection_practice p ON p.selection_id = s.id
          WHERE s.song_id = ? ORDER BY s.name
          """), arguments: [songID])
    while let row = try rows.next() {
      for value in row.databaseValues { selectionPrint.add(value.description) }
      selectionCount += 1
    }
    selections = selectionCount == 0 ? nil : selectionPrint.hex
    let track = try Row.fetchOne(
      db.cachedStatement(sql: "SELECT source, detected_key FROM chord_track WHERE song_id = ?"),
      arguments: [songID])
    if let track {
      var chordPrint = Fingerprint()
      for value in track.databaseValues { chordPrint.add(value.description) }
      let spans = try Row.fetchCursor(
        db.cachedStatement(
          sql: "SELECT start_frame, end_frame, label FROM chord WHERE song_id = ? ORDER BY start_frame"),
        arguments: [songID])
      while let row = try spans.next() {
        chordPrint.add("\(row[0] as Int64) \(row[1] as Int64) \(row[2] as String)")
      }
      chords = chordPrint.hex
      chordsDetected = (track["source"] as String) == "detected"
    } else {
      chords = nil
      chordsDetected = false
    }
  }

  /// A map made or changed here (not a detector's) since `record`'s pull; any map a song
  /// had before its first pull counts as its own.
  func mapEdited(since record: PullRecord?) -> Bool {
    guard let map, !detectedOnly else { return false }
    return map != record?.map
  }

  func selectionsEdited(since record: PullRecord?) -> Bool {
    guard let selections else { return false }
    return selections != record?.selections
  }

  /// A chord track made or changed here (not a detector's) since `record`'s pull; any track
  /// a song had before its first pull (or before pulls recorded chords) counts as its own.
  func chordsEdited(since record: PullRecord?) -> Bool {
    guard let chords, !chordsDetected else { return false }
    return chords != record?.chords
  }

  func edited(since record: PullRecord) -> Bool {
    mapEdited(since: record) || selectionsEdited(since: record) || chordsEdited(since: record)
  }
}
