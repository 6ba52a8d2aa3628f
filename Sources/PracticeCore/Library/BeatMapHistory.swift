import Foundation
import GRDB

/// A change to a song's beat map, as `Library.storeBeatMap` records it.
public struct BeatMapChange: Sendable, Equatable {
  public var kind: BeatMapChangeKind
  /// What made it, as the user would name it (`beats double --bars 9-16`); `undo` says it.
  public var summary: String

  public init(_ kind: BeatMapChangeKind, _ summary: String) {
    self.kind = kind
    self.summary = summary
  }
}

/// Something stored in bars whose bars changed with the map.
public struct BarsFollowed: Sendable, Equatable {
  public enum Owner: Sendable, Equatable {
    case selection(String)
    case resumePoint
  }
  public var owner: Owner
  public var old: BarRange
  public var new: BarRange
}

/// What storing a beat map did besides storing it.
public struct BeatMapStored: Sendable, Equatable {
  /// The file's loops not made selections because the song has selections of those names.
  public var keptLoops: [String] = []
  /// Selections (and the resume point) whose bars were renamed to keep their music.
  public var followed: [BarsFollowed] = []
  /// The map replaced; nil when the song had none (or it no longer fit its audio).
  public var before: BeatMap?
  /// The selections in bars the new map leaves without their passage.
  public var selectionsUpset: [SelectionUpset] = []
}

/// What `undoBeatMapChange` (or `redoBeatMapChange`) brought back.
public struct BeatMapUndone: Sendable {
  /// The change undone (or redone), as it was recorded, its kind, and when it was made.
  public var change: BeatMapChange
  public var madeAt: Date
  /// The map back; nil when the song had none before that change.
  public var restored: BeatMap?
  public var followed: [BarsFollowed]
  /// Earlier maps still kept (what `undo` can take back).
  public var remaining: Int
  /// Maps undone still kept (what `redo` can bring back).
  public var redoable: Int = 0
  /// The selections in bars the map brought back (or none) leaves without their passage.
  public var selectionsUpset: [SelectionUpset] = []
}

/// Nothing to redo: no undo since the map last changed.
public struct NothingToRedo: PracticeFailure, Equatable {
  public var title: String
  public var category: FailureCategory { .usage }
  public var description: String {
    "'\(title)' has nothing to redo: redo brings back what `beats undo` took, until the map "
      + "changes again; the map was left as it is"
  }
}

extension Library {
  /// How many earlier maps each song keeps.
  public static let beatMapHistoryDepth = 10

  /// Keeps the song's current beat map (none: an empty entry) in its history, as replaced by
  /// `change`, dropping the oldest beyond `beatMapHistoryDepth`. Inside the caller's
  /// transaction, before the map is replaced. A new change drops the maps kept for redo.
  static func pushBeatMapHistory(
    songID: Int64, change: BeatMapChange, at timestamp: String, _ db: Database
  ) throws {
    try db.execute(
      sql: "DELETE FROM beat_map_history WHERE song_id = ? AND redo = 1", arguments: [songID])
    try keepCurrentBeatMap(songID: songID, change: change, at: timestamp, redo: false, db)
  }

  /// Copies the song's current beats into a history entry: for undo (`redo` false, kept
  /// `beatMapHistoryDepth` deep) or for redo.
  private static func keepCurrentBeatMap(
    songID: Int64, change: BeatMapChange, at timestamp: String, redo: Bool, _ db: Database
  ) throws {
    try db.execute(
      sql: """
        INSERT INTO beat_map_history (song_id, saved_at, replaced_by, kind, redo)
        VALUES (?, ?, ?, ?, ?)
        """,
      arguments: [songID, timestamp, change.summary, change.kind.rawValue, redo])
    let mapID = db.lastInsertedRowID
    try db.execute(
      sql: """
        INSERT INTO beat_map_history_beat (map_id, frame, bar, beat, source, confidence)
        SELECT ?, frame, bar, beat, source, confidence FROM beat WHERE song_id = ?
        """,
      arguments: [mapID, songID])
    try db.execute(
      sql: """
        DELETE FROM beat_map_history WHERE song_id = ? AND redo = ? AND id NOT IN
          (SELECT id FROM beat_map_history WHERE song_id = ? AND redo = ? ORDER BY id DESC LIMIT ?)
        """,
      arguments: [songID, redo, songID, redo, beatMapHistoryDepth])
  }

  /// How many earlier maps the song has kept.
  public func beatMapHistoryCount(for song: Song) throws -> Int {
    guard let id = song.id else { return 0 }
    return try read { db in
      try Int.fetchOne(
        db, sql: "SELECT count(*) FROM beat_map_history WHERE song_id = ? AND redo = 0",
        arguments: [id]) ?? 0
    }
  }

  /// Brings back the map the song had before its last change, in one transaction, and makes
  /// what is stored in bars follow back (a recount undone renames selections again so that
  /// they keep their music). The map undone is kept for `redoBeatMapChange` until the map
  /// changes again.
  public func undoBeatMapChange(for song: Song) throws -> BeatMapUndone {
    let nothing = PracticeError(
      .missingInput,
      "'\(song.title)' has no earlier beat map to go back to (each change keeps the map before it, "
        + "\(Library.beatMapHistoryDepth) deep)")
    return try stepBeatMapHistory(of: song, redo: false, nothing: nothing)
  }

  /// Brings back the map the last `undoBeatMapChange` took away, keeping the current one for
  /// undo; selections follow as they did for the change. Throws `NothingToRedo` when the map
  /// has changed (or nothing was undone) since.
  public func redoBeatMapChange(for song: Song) throws -> BeatMapUndone {
    try stepBeatMapHistory(of: song, redo: true, nothing: NothingToRedo(title: song.title))
  }

  /// Swaps the song's map with the newest undo (or redo) entry: the current map becomes an
  /// entry on the other side, the entry's map the song's.
  private func stepBeatMapHistory(
    of song: Song, redo: Bool, nothing: any PracticeFailure
  ) throws -> BeatMapUndone {
    guard let id = song.id else { throw nothing }
    var current: BeatMap?
    var undone = try write { db in
      guard
        let row = try Row.fetchOne(
          db,
          sql: """
            SELECT id, saved_at, replaced_by, kind FROM beat_map_history
            WHERE song_id = ? AND redo = ? ORDER BY id DESC LIMIT 1
            """,
          arguments: [id, redo])
      else { throw nothing }
      let mapID: Int64 = row["id"]
      let savedAt: String = row["saved_at"]
      let change = BeatMapChange(
        BeatMapChangeKind(rawValue: row["kind"]) ?? .replaced, row["replaced_by"])
      let beatsNow = try BeatReader(db).beats(of: id)
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT frame, bar, beat, source, confidence FROM beat_map_history_beat
          WHERE map_id = ? ORDER BY frame
          """,
        arguments: [mapID])
      let beats = rows.map { row in
        Beat(
          frame: row["frame"], bar: row["bar"], beat: row["beat"],
          source: BeatSource(rawValue: row["source"]) ?? .imported, confidence: row["confidence"])
      }
      var restored: BeatMap?
      if !beats.isEmpty {
        do {
          restored = try BeatMap(
            beats: beats, totalFrames: song.frames, sampleRate: song.sampleRate)
        } catch let error as PracticeError {
          throw PracticeError(
            .badData,
            "the \(redo ? "undone" : "earlier") beat map of '\(song.title)' no longer fits its "
              + "audio (\(error.message)); the map was left as it is")
        }
      }
      // The map now goes to the other side, under the same change and time.
      try Library.keepCurrentBeatMap(songID: id, change: change, at: savedAt, redo: !redo, db)
      try db.execute(sql: "DELETE FROM beat WHERE song_id = ?", arguments: [id])
      try BeatInserter(db).insert(beats, song: id)
      try db.execute(sql: "DELETE FROM beat_map_history WHERE id = ?", arguments: [mapID])
      var followed: [BarsFollowed] = []
      current =
        beatsNow.isEmpty
        ? nil : try? BeatMap(beats: beatsNow, totalFrames: song.frames, sampleRate: song.sampleRate)
      if let restored, let current {
        followed = try Library.follow(
          songID: id, from: current, to: restored, kind: change.kind,
          at: Library.timestamp(Date()), db)
      }
      func count(_ redo: Bool) throws -> Int {
        try Int.fetchOne(
          db, sql: "SELECT count(*) FROM beat_map_history WHERE song_id = ? AND redo = ?",
          arguments: [id, redo]) ?? 0
      }
      return BeatMapUndone(
        change: change, madeAt: Library.date(savedAt), restored: restored,
        followed: followed, remaining: try count(false), redoable: try count(true))
    }
    undone.selectionsUpset = try selectionsUpset(
      of: song, by: undone.restored, before: undone.change.kind == .recounted ? nil : current)
    return undone
  }

  /// Makes the song's selections in bars and its resume point follow a change of its map
  /// from `old` to `new` (`BarRange.following`): after a recount their bars are renamed
  /// (frames kept); after a move the resume point, which keeps frames, moves with its bars.
  static func follow(
    songID: Int64, from old: BeatMap, to new: BeatMap, kind: BeatMapChangeKind,
    at timestamp: String, _ db: Database
  ) throws -> [BarsFollowed] {
    guard kind != .replaced else { return [] }
    var followed: [BarsFollowed] = []
    let selections = try Row.fetchAll(
      db,
      sql:
        "SELECT id, name, bars FROM selection WHERE song_id = ? AND bars IS NOT NULL ORDER BY name",
      arguments: [songID])
    for row in selections {
      guard let text: String = row["bars"], let range = BarRange(parsing: text),
        let renamed = range.following(from: old, to: new, kind: kind)
      else { continue }
      try db.execute(
        sql: "UPDATE selection SET bars = ?, updated_at = ? WHERE id = ?",
        arguments: [renamed.description, timestamp, row["id"] as Int64])
      followed.append(BarsFollowed(owner: .selection(row["name"]), old: range, new: renamed))
    }
    // The resume point keeps frames and names its bars: renamed after a recount, moved
    // with its bars after a move.
    if let point = try Row.fetchOne(
      db,
      sql: "SELECT frame, start_frame, end_frame, label, bars FROM resume_point WHERE song_id = ?",
      arguments: [songID]),
      let text: String = point["bars"], let range = BarRange(parsing: text)
    {
      let start: Int64 = point["start_frame"]
      let end: Int64 = point["end_frame"]
      let label: String? = point["label"]
      switch kind {
      case .recounted:
        if (try? new.frames(of: range)) != start..<end,
          let renamed = new.barRange(covering: start..<end),
          renamed != range
        {
          // Named by its bars, the name changes and is reported; one in a selection keeps
          // its name (the selection's own line says where it went).
          let namedByBars = label == range.label
          try db.execute(
            sql: "UPDATE resume_point SET bars = ?, label = ? WHERE song_id = ?",
            arguments: [renamed.description, namedByBars ? renamed.label : label, songID])
          if namedByBars {
            followed.append(BarsFollowed(owner: .resumePoint, old: range, new: renamed))
          }
        }
      case .moved:
        if let was = try? old.frames(of: range), was == start..<end,
          let moved = try? new.frames(of: range), moved != was
        {
          let frame: Int64 = point["frame"]
          let at = min(
            max(frame + moved.lowerBound - was.lowerBound, moved.lowerBound), moved.upperBound - 1)
          try db.execute(
            sql:
              "UPDATE resume_point SET frame = ?, start_frame = ?, end_frame = ? WHERE song_id = ?",
            arguments: [at, moved.lowerBound, moved.upperBound, songID])
        }
      case .replaced:
        break
      }
    }
    return followed
  }
}
