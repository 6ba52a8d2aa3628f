import Foundation
import GRDB
import GRDBSQLite

extension Library {
  /// The song's beat map, or nil if it has none.
  public func beatMap(for song: Song) throws -> BeatMap? {
    guard let id = song.id, let beats = try storedBeats(for: song) else { return nil }
    do {
      return try BeatMap(beats: beats, totalFrames: song.frames, sampleRate: song.sampleRate)
    } catch let error as PracticeError {
      throw PracticeError(
        .badData,
        "the stored beat map of song \(id) '\(song.title)' is inconsistent (\(error.message)); "
          + "import or generate it again")
    }
  }

  /// The song's beats as stored, in order, not checked against its audio (which may have
  /// changed since); nil if it has none. Enough to tell what kind of map it is.
  /// Read through SQLite's C interface rather than a GRDB `Row` per beat: for an hour's
  /// 7,200 beats, CPU per `view` went from 30.8 to 19.7 ms and per `beats show` from 42.0
  /// to 24.3 ms (bench/view-60min.py, a busy machine; `list` 16.6 and 13.8 ms).
  public func storedBeats(for song: Song) throws -> [Beat]? {
    guard let id = song.id else { return nil }
    let beats = try read { db -> [Beat] in
      guard let connection = db.sqliteConnection else {
        throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the library's connection is closed")
      }
      func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(
          resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
      }
      var statement: OpaquePointer?
      let prepared = sqlite3_prepare_v2(
        connection,
        "SELECT frame, bar, beat, source, confidence FROM beat WHERE song_id = ? ORDER BY frame",
        -1, &statement, nil)
      defer { sqlite3_finalize(statement) }
      guard prepared == SQLITE_OK else { throw failure(prepared) }
      sqlite3_bind_int64(statement, 1, id)
      var beats: [Beat] = []
      while true {
        let step = sqlite3_step(statement)
        if step == SQLITE_DONE { break }
        guard step == SQLITE_ROW else { throw failure(step) }
        let source = sqlite3_column_text(statement, 3).map { String(cString: $0) } ?? ""
        beats.append(
          Beat(
            frame: sqlite3_column_int64(statement, 0), bar: Int(sqlite3_column_int64(statement, 1)),
            beat: Int(sqlite3_column_int64(statement, 2)),
            source: BeatSource(rawValue: source) ?? .imported,
            confidence: sqlite3_column_type(statement, 4) == SQLITE_NULL
              ? nil : sqlite3_column_double(statement, 4)))
      }
      return beats
    }
    return beats.isEmpty ? nil : beats
  }

  /// Replaces the song's beat map in one transaction: all of the new one, or the old one,
  /// which goes into the song's history (`undoBeatMapChange`). `loops` become selections in
  /// the same transaction; names the song already has are kept as they are and returned.
  @discardableResult
  public func replaceBeatMap(
    for song: Song, with map: BeatMap, loops: [(name: String, frames: Range<Int64>)] = [],
    change: BeatMapChange = BeatMapChange(.replaced, "a new beat map"), now: Date = Date()
  ) throws -> [String] {
    try storeBeatMap(map, for: song, change: change, loops: loops, now: now).keptLoops
  }

  /// Stores `map` as the song's beat map in one transaction, keeping the old one in the
  /// song's history, and makes what is stored in bars follow `change` (`BeatMapChangeKind`):
  /// after a recount, selections in bars (and the resume point) are renamed so that they
  /// keep their music; after a move, the resume point moves with its bars. What is returned
  /// names the selections the new map leaves without their passage (`SelectionUpset`).
  @discardableResult
  public func storeBeatMap(
    _ map: BeatMap, for song: Song, change: BeatMapChange,
    loops: [(name: String, frames: Range<Int64>)] = [], now: Date = Date()
  ) throws -> BeatMapStored {
    guard let id = song.id else { return BeatMapStored() }
    let timestamp = Library.timestamp(now)
    var stored = try write { db in
      let before = try BeatReader(db).beats(of: id)
      let old =
        before.isEmpty
        ? nil : try? BeatMap(beats: before, totalFrames: song.frames, sampleRate: song.sampleRate)
      var stored = BeatMapStored()
      stored.before = old
      stored.followed = try store(map, song: id, replacing: old, change: change, at: timestamp, db)
      for loop in loops {
        if try Row.fetchOne(
          db, sql: "SELECT 1 FROM selection WHERE song_id = ? AND name = ?", arguments: [id, loop.name])
          != nil
        {
          stored.keptLoops.append(loop.name)
          continue
        }
        var selection = Selection(
          id: nil, songID: id, name: loop.name, span: .frames(loop.frames), note: nil,
          createdAt: timestamp, updatedAt: timestamp)
        try Library.insert(&selection, db)
      }
      return stored
    }
    stored.selectionsUpset = try selectionsUpset(
      of: song, by: map, before: change.kind == .recounted ? nil : stored.before)
    return stored
  }

  /// Applies `fix` to the song's stored map in one transaction (read, fixed, the old one
  /// kept in the history, stored, selections following): the map before and after, and what
  /// followed, and the selections the fixed map leaves without their passage. Nothing is
  /// stored when the fix changes nothing (`after` is nil then). Exit 66 without a map; a fix
  /// that cannot apply throws and leaves everything as it was.
  public func fixBeatMap(
    of song: Song, _ fix: BeatMapFix, summary: String, now: Date = Date()
  ) throws -> (
    before: BeatMap, after: BeatMap?, followed: [BarsFollowed], selectionsUpset: [SelectionUpset]
  ) {
    guard let id = song.id else { throw PracticeError(.other, "song has no id") }
    let timestamp = Library.timestamp(now)
    let (before, after, followed) = try write { db -> (BeatMap, BeatMap?, [BarsFollowed]) in
      let beats = try BeatReader(db).beats(of: id)
      guard !beats.isEmpty else {
        throw PracticeError(.missingInput, "'\(song.title)' has no beat map to fix")
      }
      let before: BeatMap
      do {
        before = try BeatMap(beats: beats, totalFrames: song.frames, sampleRate: song.sampleRate)
      } catch let error as PracticeError {
        throw PracticeError(
          .badData,
          "the stored beat map of song \(id) '\(song.title)' is inconsistent (\(error.message)); "
            + "import or generate it again")
      }
      guard let after = try fix.applied(to: before) else { return (before, nil, []) }
      let followed = try store(
        after, song: id, replacing: before, change: BeatMapChange(fix.kind, summary),
        at: timestamp, db)
      return (before, after, followed)
    }
    guard let after else { return (before, nil, [], []) }
    let upset = try selectionsUpset(
      of: song, by: after, before: fix.kind == .recounted ? nil : before)
    return (before, after, followed, upset)
  }

  /// Inside a write: keeps the current map in the history, stores `map`, and makes what is
  /// stored in bars follow the change from `old` (nil: the song had no usable map).
  private func store(
    _ map: BeatMap, song id: Int64, replacing old: BeatMap?, change: BeatMapChange,
    at timestamp: String, _ db: Database
  ) throws -> [BarsFollowed] {
    try Library.pushBeatMapHistory(songID: id, change: change, at: timestamp, db)
    try db.execute(sql: "DELETE FROM beat WHERE song_id = ?", arguments: [id])
    try insertBeats(map.beats, song: id, db)
    guard let old else { return [] }
    return try Library.follow(songID: id, from: old, to: map, kind: change.kind, at: timestamp, db)
  }

  /// Inserts beats with multi-row statements (one execution per 200 beats) bound through
  /// SQLite's C interface: building GRDB's StatementArguments for 4,000 beats took longer
  /// than SQLite's own work (bench/beats-1000.py).
  func insertBeats(_ beats: [Beat], song id: Int64, _ db: Database) throws {
    try BeatInserter(db).insert(beats, song: id)
  }
}

/// Inserts beats with multi-row statements, each size prepared once and reused: an import of
/// 10,000 maps spent more time parsing a 200-row INSERT per song than running it. Every
/// writer of table `beat` stores a song's map through `insert`, which keeps the song's
/// median beat interval (`song.beat_interval`) with its beats.
final class BeatInserter {
  private let connection: OpaquePointer
  private static let batch = 200
  /// Prepared statements by row count; owned, finalized in deinit.
  private var statements: [Int: OpaquePointer] = [:]
  /// `UPDATE song SET beat_interval`, prepared on first use; owned, finalized in deinit.
  private var intervalStatement: OpaquePointer?
  /// The sources as C strings, bound without a copy; owned, freed in deinit.
  private let sources: [BeatSource: UnsafeMutablePointer<CChar>]

  init(_ db: Database) throws {
    guard let connection = db.sqliteConnection else {
      throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the library's connection is closed")
    }
    self.connection = connection
    var sources: [BeatSource: UnsafeMutablePointer<CChar>] = [:]
    for source in BeatSource.allCases { sources[source] = strdup(source.rawValue) }
    self.sources = sources
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_finalize(intervalStatement)
    for text in sources.values { free(text) }
  }

  private func check(_ code: Int32, _ expected: Int32 = SQLITE_OK) throws {
    guard code == expected else {
      throw DatabaseError(
        resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
    }
  }

  private func statement(rows: Int) throws -> OpaquePointer {
    if let statement = statements[rows] {
      try check(sqlite3_reset(statement))
      return statement
    }
    let sql =
      "INSERT INTO beat (song_id, frame, bar, beat, source, confidence) VALUES "
      + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
    guard code == SQLITE_OK, let statement else {
      sqlite3_finalize(statement)
      try check(code)
      throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no statement for \(rows) beats")
    }
    statements[rows] = statement
    return statement
  }

  /// Stores `beats` (in order) as the song's map, whose old rows are gone already: the
  /// rows, and the song's median beat interval (`BeatMap.medianInterval`; NULL with fewer
  /// than two beats, so an empty `beats` leaves the song without a map).
  func insert(_ beats: [Beat], song id: Int64) throws {
    try storeInterval(BeatMap.medianInterval(frames: beats.map(\.frame)), song: id)
    var start = 0
    while start < beats.count {
      let rows = min(BeatInserter.batch, beats.count - start)
      let statement = try statement(rows: rows)
      var index: Int32 = 1
      for beat in beats[start..<(start + rows)] {
        sqlite3_bind_int64(statement, index, id)
        sqlite3_bind_int64(statement, index + 1, beat.frame)
        sqlite3_bind_int64(statement, index + 2, Int64(beat.bar))
        sqlite3_bind_int64(statement, index + 3, Int64(beat.beat))
        try check(sqlite3_bind_text(statement, index + 4, sources[beat.source], -1, nil))
        if let confidence = beat.confidence {
          sqlite3_bind_double(statement, index + 5, confidence)
        } else {
          sqlite3_bind_null(statement, index + 5)
        }
        index += 6
      }
      try check(sqlite3_step(statement), SQLITE_DONE)
      start += rows
    }
  }

  /// Sets `song.beat_interval`: what `list` shows a map's tempo from without its beats.
  func storeInterval(_ interval: Double?, song id: Int64) throws {
    if let statement = intervalStatement {
      try check(sqlite3_reset(statement))
    } else {
      let sql = "UPDATE song SET beat_interval = ? WHERE id = ?"
      try check(sqlite3_prepare_v2(connection, sql, -1, &intervalStatement, nil))
    }
    if let interval {
      sqlite3_bind_double(intervalStatement, 1, interval)
    } else {
      sqlite3_bind_null(intervalStatement, 1)
    }
    sqlite3_bind_int64(intervalStatement, 2, id)
    try check(sqlite3_step(intervalStatement), SQLITE_DONE)
  }
}

/// Reads songs' beats through one prepared statement, reset for each song (export and
/// import read thousands of maps); the source column is told apart by its first byte,
/// which the schema's CHECK makes enough, instead of a String per beat.
final class BeatReader {
  private let connection: OpaquePointer
  private var statement: OpaquePointer?  // owned: finalized in deinit

  init(_ db: Database) throws {
    guard let connection = db.sqliteConnection else {
      throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the library's connection is closed")
    }
    self.connection = connection
    let prepared = sqlite3_prepare_v2(
      connection,
      "SELECT frame, bar, beat, source, confidence FROM beat WHERE song_id = ? ORDER BY frame",
      -1, &statement, nil)
    guard prepared == SQLITE_OK else { throw failure(prepared) }
  }

  deinit { sqlite3_finalize(statement) }

  private func failure(_ code: Int32) -> DatabaseError {
    DatabaseError(
      resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)))
  }

  /// The song's beats in order (empty when it has none).
  func beats(of song: Int64) throws -> [Beat] {
    sqlite3_reset(statement)
    sqlite3_bind_int64(statement, 1, song)
    var beats: [Beat] = []
    while true {
      let step = sqlite3_step(statement)
      if step == SQLITE_DONE { break }
      guard step == SQLITE_ROW else { throw failure(step) }
      let source: BeatSource
      switch sqlite3_column_text(statement, 3)?.pointee {
      case UInt8(ascii: "g"): source = .grid
      case UInt8(ascii: "d"): source = .detected
      case UInt8(ascii: "t"): source = .tapped
      default: source = .imported
      }
      beats.append(
        Beat(
          frame: sqlite3_column_int64(statement, 0), bar: Int(sqlite3_column_int64(statement, 1)),
          beat: Int(sqlite3_column_int64(statement, 2)), source: source,
          confidence: sqlite3_column_type(statement, 4) == SQLITE_NULL
            ? nil : sqlite3_column_double(statement, 4)))
    }
    return beats
  }
}
