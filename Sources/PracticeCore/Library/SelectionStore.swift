import Foundation
import GRDB

/// A named selection of a song.
public struct Selection: Sendable, Equatable {
  public var id: Int64?
  public var songID: Int64
  public var name: String
  public var span: SelectionSpan
  public var note: String?
  public var createdAt: String
  public var updatedAt: String

  /// What is wrong with a name or note typed in, or nil: `TextRule`.
  public static func typedTextProblem(_ text: String) -> String? { TextRule.problem(text) }
}

extension Selection {
  /// `selections` (of one song) in the order they start in the song: by first source frame
  /// (selections in bars through `beatMap`), ties by name. Selections in bars that the map
  /// cannot place (no map, or bars beyond it) come last, by their first bar, then name.
  public static func inSongOrder(_ selections: [Selection], beatMap: BeatMap?) -> [Selection] {
    func key(_ selection: Selection) -> (placed: Bool, position: Int64, beat: Int) {
      if let frames = try? selection.span.frames(beatMap: beatMap) {
        return (true, frames.lowerBound, 0)
      }
      if case .bars(let range) = selection.span {
        return (false, Int64(range.start.bar), range.start.beat ?? 0)
      }
      return (false, 0, 0)
    }
    return selections.map { (key: key($0), selection: $0) }
      .sorted { a, b in
        if a.key.placed != b.key.placed { return a.key.placed }
        if a.key.position != b.key.position { return a.key.position < b.key.position }
        if a.key.beat != b.key.beat { return a.key.beat < b.key.beat }
        return a.selection.name < b.selection.name
      }
      .map(\.selection)
  }
}

extension Library {
  /// Every selection of `song`, or of the whole library when nil: by song id, then in song
  /// order (`Selection.inSongOrder`, through each song's beat map), the order the player's
  /// keys `1`–`0` count them in.
  public func selections(of song: Song?) throws -> [Selection] {
    let all = try read { db in
      let rows: [Row]
      if let id = song?.id {
        rows = try Row.fetchAll(
          db, sql: "SELECT * FROM selection WHERE song_id = ? ORDER BY name", arguments: [id])
      } else {
        rows = try Row.fetchAll(db, sql: "SELECT * FROM selection ORDER BY song_id, name")
      }
      return try rows.map(Library.selection(from:))
    }
    var ordered: [Selection] = []
    var start = all.startIndex
    while start < all.endIndex {
      let songID = all[start].songID
      let end = all[start...].firstIndex { $0.songID != songID } ?? all.endIndex
      let group = Array(all[start..<end])
      // Selections of times need no map; a map that cannot be read places none in bars.
      let owner = song?.id == songID ? song : try self.song(id: songID)
      let needsMap = group.contains { if case .bars = $0.span { true } else { false } }
      let map = needsMap ? owner.flatMap { try? beatMap(for: $0) } : nil
      ordered += Selection.inSongOrder(group, beatMap: map)
      start = end
    }
    return ordered
  }

  /// The selection `name` (any case) of `song`; exit 66 listing the names there are, the
  /// nearest first when it is near enough to be a slip (at most a third of it to change).
  public func selection(named name: String, of song: Song) throws -> Selection {
    let all = try selections(of: song)
    if let found = all.first(where: { $0.name.lowercased() == name.lowercased() }) { return found }
    let names = all.map(\.name).joined(separator: ", ")
    let nearest = Nearest.name(to: name.lowercased(), among: all.map { $0.name.lowercased() }) {
      max(1, $0.count / 3)
    }.flatMap { near in all.first { $0.name.lowercased() == near } }
    throw PracticeError(
      .missingInput,
      "'\(song.title)' has no selection '\(name)'"
        + (all.isEmpty
          ? "; make one with `practice select add`"
          : "; " + (nearest.map { "did you mean '\($0.name)'? " } ?? "") + "it has: \(names)"))
  }

  /// Stores a new selection; an existing name is an error unless `replace`.
  public func addSelection(
    to song: Song, name: String, span: SelectionSpan, note: String?, replace: Bool,
    now: Date = Date()
  ) throws -> Selection {
    guard let songID = song.id else { throw PracticeError(.other, "song has no id") }
    let timestamp = Library.timestamp(now)
    return try write { db in
      if let existing = try Row.fetchOne(
        db, sql: "SELECT id, name FROM selection WHERE song_id = ? AND name = ?",
        arguments: [songID, name])
      {
        guard replace else {
          throw PracticeError(
            .usage, "'\(song.title)' already has a selection '\(existing["name"] as String)'",
            remedy: .replaceOrRename)
        }
        try db.execute(
          sql: "DELETE FROM selection WHERE id = ?", arguments: [existing["id"] as Int64])
      }
      var selection = Selection(
        id: nil, songID: songID, name: name, span: span, note: note, createdAt: timestamp,
        updatedAt: timestamp)
      try Library.insert(&selection, db)
      return selection
    }
  }

  /// Writes an edited selection (same id); a rename onto another name is an error.
  public func updateSelection(_ selection: Selection, now: Date = Date()) throws {
    guard let id = selection.id else { return }
    var updated = selection
    updated.updatedAt = Library.timestamp(now)
    try write { db in
      if try Row.fetchOne(
        db, sql: "SELECT 1 FROM selection WHERE song_id = ? AND name = ? AND id != ?",
        arguments: [selection.songID, selection.name, id]) != nil
      {
        throw PracticeError(
          .usage, "there is already a selection named '\(selection.name)'; pick another name")
      }
      let (bars, start, end) = Library.columns(updated.span)
      try db.execute(
        sql: """
          UPDATE selection SET name = ?, bars = ?, start_frame = ?, end_frame = ?, note = ?,
            updated_at = ? WHERE id = ?
          """,
        arguments: [updated.name, bars, start, end, updated.note, updated.updatedAt, id])
    }
  }

  public func removeSelection(_ selection: Selection) throws {
    guard let id = selection.id else { return }
    try write { db in try db.execute(sql: "DELETE FROM selection WHERE id = ?", arguments: [id]) }
  }

  static func insert(_ selection: inout Selection, _ db: Database) throws {
    let (bars, start, end) = columns(selection.span)
    try db.cachedStatement(
      sql: """
        INSERT INTO selection (song_id, name, bars, start_frame, end_frame, note, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
    ).execute(
      arguments: [
        selection.songID, selection.name, bars, start, end, selection.note, selection.createdAt,
        selection.updatedAt,
      ])
    selection.id = db.lastInsertedRowID
  }

  private static func columns(_ span: SelectionSpan) -> (String?, Int64?, Int64?) {
    switch span {
    case .bars(let range): return (range.description, nil, nil)
    case .frames(let range): return (nil, range.lowerBound, range.upperBound)
    }
  }

  private static func selection(from row: Row) throws -> Selection {
    let span: SelectionSpan
    if let text: String = row["bars"] {
      guard let range = BarRange(parsing: text) else {
        throw PracticeError(.badData, "a stored selection has malformed bars '\(text)'")
      }
      span = .bars(range)
    } else {
      span = .frames((row["start_frame"] as Int64)..<(row["end_frame"] as Int64))
    }
    return Selection(
      id: row["id"], songID: row["song_id"], name: row["name"], span: span, note: row["note"],
      createdAt: row["created_at"], updatedAt: row["updated_at"])
  }
}

extension SelectionSpan {
  /// The span a selection is given (`select add`, `select edit`), checked against `song`:
  /// bars against its beat map (asked of `beatMap`, which may detect one), else times
  /// against its audio (nil: its start, its end).
  public static func checked(
    bars: BarRange?, from: Double?, to: Double?, of song: Song, beatMap: () throws -> BeatMap
  ) throws -> SelectionSpan {
    if let bars {
      _ = try beatMap().frames(of: bars)
      return .bars(bars)
    }
    return .frames(
      try resolveTimeRange(from: from, to: to, sampleRate: song.sampleRate, frames: song.frames))
  }
}
