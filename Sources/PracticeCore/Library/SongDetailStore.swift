import Foundation
import GRDB

/// What a band keeps beside a song: its key, tempo, a note ("capo 2, drop D") and tags.
public struct SongDetails: Sendable, Equatable {
  public var key: MusicalKey?
  /// Beats per minute as set by the musician; nil when not set (the beat map's median
  /// tempo then stands in, see `Library.keysAndTempi`).
  public var bpm: Double?
  public var note: String?
  /// Sorted, case kept as first typed.
  public var tags: [String]

  public init(key: MusicalKey? = nil, bpm: Double? = nil, note: String? = nil, tags: [String] = []) {
    self.key = key
    self.bpm = bpm
    self.note = note
    self.tags = tags
  }

  /// The range `--bpm` accepts.
  public static let bpmRange: ClosedRange<Double> = 10...400
}

/// A change to a song's details: each field is left alone, set, or cleared.
public struct SongDetailsChange: Sendable {
  public var key: MusicalKey??
  public var bpm: Double??
  public var note: String??
  public var addTags: [String] = []
  public var removeTags: [String] = []
  public var clearTags = false

  public init() {}
}

extension Library {
  /// The song's details (empty when none were set).
  public func details(of song: Song) throws -> SongDetails {
    guard let id = song.id else { return SongDetails() }
    return try read { db in try Library.details(songID: id, db) }
  }

  static func details(songID id: Int64, _ db: Database) throws -> SongDetails {
    var details = SongDetails()
    if let row = try Row.fetchOne(
      db.cachedStatement(sql: "SELECT key, bpm, note FROM song_detail WHERE song_id = ?"),
      arguments: [id])
    {
      details.key = (row["key"] as String?).flatMap(MusicalKey.init(parsing:))
      details.bpm = row["bpm"]
      details.note = row["note"]
    }
    details.tags = try String.fetchAll(
      db.cachedStatement(sql: "SELECT tag FROM song_tag WHERE song_id = ? ORDER BY tag COLLATE NOCASE"),
      arguments: [id])
    return details
  }

  /// Every song's details, by song id (for `list`; one query per table).
  public func allDetails() throws -> [Int64: SongDetails] {
    try read { db in try Library.allDetails(db) }
  }

  static func allDetails(_ db: Database) throws -> [Int64: SongDetails] {
    var all: [Int64: SongDetails] = [:]
    for row in try Row.fetchAll(db, sql: "SELECT song_id, key, bpm, note FROM song_detail") {
      all[row["song_id"]] = SongDetails(
        key: (row["key"] as String?).flatMap(MusicalKey.init(parsing:)), bpm: row["bpm"],
        note: row["note"])
    }
    for row in try Row.fetchAll(
      db, sql: "SELECT song_id, tag FROM song_tag ORDER BY song_id, tag COLLATE NOCASE")
    {
      all[row["song_id"], default: SongDetails()].tags.append(row["tag"])
    }
    return all
  }

  /// Applies `change` in one transaction and returns the details as they now are.
  @discardableResult
  public func changeDetails(of song: Song, _ change: SongDetailsChange) throws -> SongDetails {
    guard let id = song.id else { return SongDetails() }
    return try write { db in
      try Library.changeDetails(songID: id, change, db)
      return try Library.details(songID: id, db)
    }
  }

  static func changeDetails(songID id: Int64, _ change: SongDetailsChange, _ db: Database) throws {
    var details = try details(songID: id, db)
    if let key = change.key { details.key = key }
    if let bpm = change.bpm { details.bpm = bpm }
    if let note = change.note { details.note = note }
    if details.key == nil && details.bpm == nil && details.note == nil {
      try db.execute(sql: "DELETE FROM song_detail WHERE song_id = ?", arguments: [id])
    } else {
      try db.cachedStatement(
        sql: """
          INSERT INTO song_detail (song_id, key, bpm, note) VALUES (?, ?, ?, ?)
          ON CONFLICT (song_id) DO UPDATE SET key = excluded.key, bpm = excluded.bpm,
            note = excluded.note
          """
      ).execute(arguments: [id, details.key?.description, details.bpm, details.note])
    }
    if change.clearTags {
      try db.execute(sql: "DELETE FROM song_tag WHERE song_id = ?", arguments: [id])
    }
    for tag in change.removeTags {
      try db.execute(
        sql: "DELETE FROM song_tag WHERE song_id = ? AND tag = ?", arguments: [id, tag])
    }
    for tag in change.addTags {
      try db.cachedStatement(sql: "INSERT OR IGNORE INTO song_tag (song_id, tag) VALUES (?, ?)")
        .execute(arguments: [id, tag])
    }
  }

  /// Ids of the songs tagged `tag` (any case).
  public func songIDs(tagged tag: String) throws -> Set<Int64> {
    try read { db in
      Set(try Int64.fetchAll(db, sql: "SELECT song_id FROM song_tag WHERE tag = ?", arguments: [tag]))
    }
  }
}

extension BeatMap {
  /// The median tempo of the map's beats in BPM (nil with fewer than two beats): what a
  /// song's tempo is taken to be when the musician has not set one.
  public var medianTempo: Double? {
    BeatMap.tempo(
      interval: BeatMap.medianInterval(frames: beats.map(\.frame)), sampleRate: sampleRate)
  }

  /// The median interval between consecutive beats at `frames` (in order), in frames; nil
  /// with fewer than two. Every writer of a song's beats stores it beside them
  /// (`song.beat_interval`, `BeatInserter`), so that a listing reads one number a song.
  static func medianInterval(frames: [Int64]) -> Double? {
    guard frames.count >= 2 else { return nil }
    let intervals = zip(frames.dropFirst(), frames).map { Double($0 - $1) }.sorted()
    let middle = intervals.count / 2
    return intervals.count % 2 == 1
      ? intervals[middle] : (intervals[middle - 1] + intervals[middle]) / 2
  }

  /// The tempo in BPM of beats `interval` frames apart at `sampleRate`; nil without one.
  static func tempo(interval: Double?, sampleRate: Int) -> Double? {
    guard let interval, interval > 0 else { return nil }
    return 60 * Double(sampleRate) / interval
  }
}

/// A song's key and tempo as every listing shows them (`show`, `list`, a setlist): the
/// ones set (`practice set`), else the key its chord track found and its beat map's median
/// tempo, each saying where it came from.
public struct KeyAndTempo: Sendable, Equatable {
  public var key: MusicalKey?
  /// The key is the chord track's, not one set.
  public var keyFromChords = false
  public var bpm: Double?
  /// The tempo is the beat map's median, not one set.
  public var bpmFromBeatMap = false

  public init(key: MusicalKey? = nil, bpm: Double? = nil) {
    self.key = key
    self.bpm = bpm
  }

  /// `Am`, or empty.
  public var keyText: String { key?.description ?? "" }

  /// `96` as set; a beat map's to a tenth, `95.8`; or empty.
  public var bpmText: String {
    bpm.map { formatNumber(bpmFromBeatMap ? ($0 * 10).rounded() / 10 : $0) } ?? ""
  }
}

extension Library {
  /// The key and tempo of `song` (`KeyAndTempo`).
  public func keyAndTempo(of song: Song) throws -> KeyAndTempo {
    guard let id = song.id else { return KeyAndTempo() }
    return try keysAndTempi(of: [id])[id] ?? KeyAndTempo()
  }

  /// The key and tempo (`KeyAndTempo`) of each song of `ids` that is in the library, in
  /// one query: a beat map's tempo from the median beat interval stored with it.
  public func keysAndTempi(of ids: [Int64]) throws -> [Int64: KeyAndTempo] {
    let wanted = Set(ids)
    return try read { db in
      var known: [Int64: KeyAndTempo] = [:]
      let one: Int64? = ids.count == 1 ? ids[0] : nil
      let rows = try Row.fetchCursor(
        db,
        sql: """
          SELECT s.id, s.sample_rate, d.key, d.bpm, c.detected_key, s.beat_interval FROM song s
            LEFT JOIN song_detail d ON d.song_id = s.id
            LEFT JOIN chord_track c ON c.song_id = s.id
          WHERE ?1 IS NULL OR s.id = ?1
          """, arguments: [one])
      let parse = { (text: String?) in text.flatMap(MusicalKey.init(parsing:)) }
      while let row = try rows.next() {
        guard wanted.contains(row[0]) else { continue }
        let id: Int64 = row[0]
        var entry = KeyAndTempo(key: parse(row[2]), bpm: row[3])
        if entry.key == nil, let found = parse(row[4]) {
          entry.key = found
          entry.keyFromChords = true
        }
        if entry.bpm == nil {
          entry.bpm = BeatMap.tempo(interval: row[5], sampleRate: row[1])
          entry.bpmFromBeatMap = entry.bpm != nil
        }
        known[id] = entry
      }
      return known
    }
  }
}
