import Foundation
import GRDB

/// One entry of a setlist: a song (or one of its selections) with what this setlist
/// changes for it. The song keeps its own key, tempo and settings.
public struct SetlistEntry: Sendable, Equatable {
  public var songID: Int64
  /// A selection of the song by name; nil for the whole song.
  public var selection: String?
  /// The key the setlist plays it in, as given (`--key Bm`); `transpose` holds what it
  /// means for the song.
  public var key: MusicalKey?
  /// Semitones, from `--transpose` or from `key` against the song's key.
  public var transpose: Int?
  public var speed: Double?
  public var repeats: Int?
  public var note: String?

  public init(
    songID: Int64, selection: String? = nil, key: MusicalKey? = nil, transpose: Int? = nil,
    speed: Double? = nil, repeats: Int? = nil, note: String? = nil
  ) {
    self.songID = songID
    self.selection = selection
    self.key = key
    self.transpose = transpose
    self.speed = speed
    self.repeats = repeats
    self.note = note
  }

  /// The key the entry is played in: its own (`--key`), else the song's moved by its
  /// transpose; nil when neither is known.
  public func keyPlayed(songKey: MusicalKey?) -> MusicalKey? {
    key ?? songKey.map { $0.transposed(by: transpose ?? 0) }
  }

  /// What `--repeat` accepts on an entry.
  public static let repeatRange = 1...999
}

/// An ordered list of songs and drills: a gig, a rehearsal, tonight's routine.
public struct Setlist: Sendable, Equatable {
  public var id: Int64
  public var name: String
  public var createdAt: String
  public var updatedAt: String
  /// In order; shown numbered from 1.
  public var entries: [SetlistEntry]
}

extension Library {
  /// Every setlist (entries included), by name.
  public func setlists() throws -> [Setlist] {
    try read { db in
      try Row.fetchAll(db, sql: "SELECT * FROM setlist ORDER BY name COLLATE NOCASE").map {
        try Library.setlist(from: $0, db)
      }
    }
  }

  /// The setlist `name` (any case); exit 66 naming the ones there are.
  public func setlist(named name: String) throws -> Setlist {
    try read { db in try Library.setlist(named: name, db) }
  }

  /// Makes an empty setlist; a name in use is a usage error.
  @discardableResult
  public func createSetlist(named name: String, now: Date = Date()) throws -> Setlist {
    let timestamp = Library.timestamp(now)
    return try write { db in
      try Library.refuseTaken(name, except: nil, db)
      try db.execute(
        sql: "INSERT INTO setlist (name, created_at, updated_at) VALUES (?, ?, ?)",
        arguments: [name, timestamp, timestamp])
      return Setlist(
        id: db.lastInsertedRowID, name: name, createdAt: timestamp, updatedAt: timestamp,
        entries: [])
    }
  }

  /// Inserts `entry` at `position` (1-based; nil or past the end: appended) and returns
  /// the position it took.
  @discardableResult
  public func addEntry(
    _ entry: SetlistEntry, to setlistName: String, at position: Int?, now: Date = Date()
  ) throws -> Int {
    try editEntries(of: setlistName, now: now) { entries in
      guard let position else {
        entries.append(entry)
        return entries.count
      }
      guard position >= 1 else {
        throw RangeError.positionFromOne(position)
      }
      let index = min(position - 1, entries.count)
      entries.insert(entry, at: index)
      return index + 1
    }
  }

  /// Adds an entry for `song` as `setlist add` does: `entry`'s selection found among the
  /// song's (kept with its stored name, whatever the case typed), its `key` made the
  /// transposition from the song's key (`transposition(of:to:)`: a `KeyChangeError` when the
  /// song has none or the modes differ), then inserted at `position` (`addEntry(_:to:at:)`).
  /// Returns the entry stored, the position it took and the setlist's name as stored.
  public func addEntry(
    _ entry: SetlistEntry, of song: Song, to setlistName: String, at position: Int?,
    now: Date = Date()
  ) throws -> (entry: SetlistEntry, position: Int, setlist: String) {
    var entry = entry
    if let name = entry.selection { entry.selection = try selection(named: name, of: song).name }
    if let key = entry.key { entry.transpose = try transposition(of: song, to: key) }
    let taken = try addEntry(entry, to: setlistName, at: position, now: now)
    return (entry, taken, try setlist(named: setlistName).name)
  }

  /// Moves the entry at `from` to `to` (both 1-based, as `setlist show` numbers them).
  public func moveEntry(of setlistName: String, from: Int, to: Int, now: Date = Date()) throws {
    try editEntries(of: setlistName, now: now) { entries in
      let source = try Library.index(of: from, in: entries, setlist: setlistName)
      let target = try Library.index(of: to, in: entries, setlist: setlistName)
      entries.insert(entries.remove(at: source), at: target)
    }
  }

  /// Removes the entry at `position` and returns it.
  @discardableResult
  public func removeEntry(of setlistName: String, at position: Int, now: Date = Date()) throws
    -> SetlistEntry
  {
    try editEntries(of: setlistName, now: now) { entries in
      entries.remove(at: try Library.index(of: position, in: entries, setlist: setlistName))
    }
  }

  public func renameSetlist(_ name: String, to newName: String, now: Date = Date()) throws {
    try write { db in
      let setlist = try Library.setlist(named: name, db)
      try Library.refuseTaken(newName, except: setlist.id, db)
      try db.execute(
        sql: "UPDATE setlist SET name = ?, updated_at = ? WHERE id = ?",
        arguments: [newName, Library.timestamp(now), setlist.id])
    }
  }

  public func deleteSetlist(_ name: String) throws {
    try write { db in
      let setlist = try Library.setlist(named: name, db)
      try db.execute(sql: "DELETE FROM setlist WHERE id = ?", arguments: [setlist.id])
    }
  }

  /// Replaces the entries of setlist `name` (made when missing) with `entries`: how an
  /// imported setlist or a saved routine is stored.
  public func storeSetlist(named name: String, entries: [SetlistEntry], now: Date = Date()) throws {
    let timestamp = Library.timestamp(now)
    try write { db in
      try Library.storeSetlist(named: name, entries: entries, timestamp: timestamp, db)
    }
  }

  static func storeSetlist(
    named name: String, entries: [SetlistEntry], timestamp: String, _ db: Database
  ) throws {
    let id: Int64
    if let existing = try Int64.fetchOne(
      db, sql: "SELECT id FROM setlist WHERE name = ?", arguments: [name])
    {
      id = existing
    } else {
      try db.execute(
        sql: "INSERT INTO setlist (name, created_at, updated_at) VALUES (?, ?, ?)",
        arguments: [name, timestamp, timestamp])
      id = db.lastInsertedRowID
    }
    try writeEntries(entries, setlist: id, timestamp: timestamp, db)
  }

  // MARK: Private

  /// Loads the setlist's entries, lets `body` change them, and writes them back numbered
  /// 1...n, all in one transaction.
  private func editEntries<T>(
    of name: String, now: Date, _ body: (inout [SetlistEntry]) throws -> T
  ) throws -> T {
    let timestamp = Library.timestamp(now)
    return try write { db in
      var setlist = try Library.setlist(named: name, db)
      let result = try body(&setlist.entries)
      try Library.writeEntries(setlist.entries, setlist: setlist.id, timestamp: timestamp, db)
      return result
    }
  }

  private static func writeEntries(
    _ entries: [SetlistEntry], setlist id: Int64, timestamp: String, _ db: Database
  ) throws {
    try db.execute(sql: "DELETE FROM setlist_entry WHERE setlist_id = ?", arguments: [id])
    let insert = try db.makeStatement(
      sql: """
        INSERT INTO setlist_entry (setlist_id, position, song_id, selection_name, key, transpose,
          speed, repeats, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """)
    for (i, entry) in entries.enumerated() {
      try insert.execute(arguments: [
        id, i + 1, entry.songID, entry.selection, entry.key?.description, entry.transpose,
        entry.speed, entry.repeats, entry.note,
      ])
    }
    try db.execute(
      sql: "UPDATE setlist SET updated_at = ? WHERE id = ?", arguments: [timestamp, id])
  }

  private static func index(of position: Int, in entries: [SetlistEntry], setlist: String) throws
    -> Int
  {
    guard (1...max(1, entries.count)).contains(position), !entries.isEmpty else {
      throw PracticeError(
        .usage,
        entries.isEmpty
          ? "setlist '\(setlist)' is empty; add songs with `practice setlist add`"
          : "setlist '\(setlist)' has no entry \(position); its entries are 1-\(entries.count)")
    }
    return position - 1
  }

  private static func refuseTaken(_ name: String, except id: Int64?, _ db: Database) throws {
    if let taken = try Row.fetchOne(
      db, sql: "SELECT id, name FROM setlist WHERE name = ?", arguments: [name]),
      taken["id"] as Int64 != id
    {
      throw PracticeError(
        .usage, "there is already a setlist named '\(taken["name"] as String)'; pick another name")
    }
  }

  static func setlist(named name: String, _ db: Database) throws -> Setlist {
    if let row = try Row.fetchOne(db, sql: "SELECT * FROM setlist WHERE name = ?", arguments: [name])
    {
      return try setlist(from: row, db)
    }
    let names = try String.fetchAll(db, sql: "SELECT name FROM setlist ORDER BY name COLLATE NOCASE")
    throw PracticeError(
      .missingInput,
      "no setlist named '\(name)'"
        + (names.isEmpty
          ? "; make one with `practice setlist new NAME`"
          : "; there are: \(names.joined(separator: ", "))"))
  }

  private static func setlist(from row: Row, _ db: Database) throws -> Setlist {
    let id: Int64 = row["id"]
    let entries = try Row.fetchAll(
      db, sql: "SELECT * FROM setlist_entry WHERE setlist_id = ? ORDER BY position",
      arguments: [id]
    ).map { entry in
      SetlistEntry(
        songID: entry["song_id"], selection: entry["selection_name"],
        key: (entry["key"] as String?).flatMap(MusicalKey.init(parsing:)),
        transpose: entry["transpose"], speed: entry["speed"], repeats: entry["repeats"],
        note: entry["note"])
    }
    return Setlist(
      id: id, name: row["name"], createdAt: row["created_at"], updatedAt: row["updated_at"],
      entries: entries)
  }
}
