import Foundation
import GRDB

/// How a play ended.
public enum PlayOutcome: String, Sendable, CaseIterable {
  /// Every planned pass was played.
  case completed
  /// The player stopped it (`q`, Esc).
  case stopped
  /// Ctrl-C or SIGTERM.
  case interrupted
  /// The device or the file failed.
  case failed
}

/// One play of a song, as the practice log keeps it.
public struct PracticeEntry: Sendable, Equatable {
  public var id: Int64?
  public var songID: Int64
  /// Filled in when read back (the song's title), for listing.
  public var songTitle: String = ""
  /// Filled in when read back (the song's rate), to show the range as times.
  public var sampleRate: Int = 0
  public var selectionID: Int64?
  public var selectionName: String?
  /// The bars as given (`9-16`), when the range came from bars or a selection in bars.
  public var bars: String?
  public var range: Range<Int64>
  public var slowest: Speed
  public var fastest: Speed
  public var passes: Int
  public var startedAt: Date
  public var endedAt: Date
  /// Seconds of audio heard (pauses excluded).
  public var duration: Double
  public var outcome: PlayOutcome

  public init(
    songID: Int64, selectionID: Int64?, selectionName: String?, bars: String?,
    range: Range<Int64>, slowest: Speed, fastest: Speed, passes: Int, startedAt: Date,
    endedAt: Date, duration: Double, outcome: PlayOutcome
  ) {
    self.songID = songID
    self.selectionID = selectionID
    self.selectionName = selectionName
    self.bars = bars
    self.range = range
    self.slowest = slowest
    self.fastest = fastest
    self.passes = passes
    self.startedAt = startedAt
    self.endedAt = endedAt
    self.duration = duration
    self.outcome = outcome
  }
}

/// Time and passes practised, per song and selection (`practice stats`).
public struct PracticeTotal: Sendable, Equatable {
  public var songID: Int64
  public var songTitle: String
  /// nil: plays that were not of a selection.
  public var selectionName: String?
  public var plays: Int
  public var passes: Int
  public var seconds: Double
  /// The highest speed reached in a play of this selection (or song part).
  public var fastest: Speed
  public var lastPlayed: Date
}

extension Library {
  /// Writes one log row.
  public func log(_ entry: PracticeEntry) throws {
    try write { db in
      try db.execute(
        sql: """
          INSERT INTO practice_log (song_id, selection_id, selection_name, bars, start_frame,
            end_frame, speed_min, speed_max, passes, started_at, ended_at, duration, outcome)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          entry.songID, entry.selectionID, entry.selectionName, entry.bars,
          entry.range.lowerBound, entry.range.upperBound, entry.slowest.rate, entry.fastest.rate,
          entry.passes, Library.timestamp(entry.startedAt), Library.timestamp(entry.endedAt),
          entry.duration, entry.outcome.rawValue,
        ])
    }
  }

  /// Log rows, oldest first: of `song` (or all songs), started at or after `since`.
  public func practiceLog(of song: Song?, since: Date?) throws -> [PracticeEntry] {
    var sql = """
      SELECT l.*, s.title, s.sample_rate FROM practice_log l JOIN song s ON s.id = l.song_id WHERE 1
      """
    var arguments: StatementArguments = []
    if let id = song?.id {
      sql += " AND l.song_id = ?"
      arguments += [id]
    }
    if let since {
      sql += " AND l.started_at >= ?"
      arguments += [Library.timestamp(since)]
    }
    sql += " ORDER BY l.started_at, l.id"
    return try read { db in
      try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
        var entry = PracticeEntry(
          songID: row["song_id"], selectionID: row["selection_id"],
          selectionName: row["selection_name"], bars: row["bars"],
          range: (row["start_frame"] as Int64)..<(row["end_frame"] as Int64),
          slowest: Speed(clamping: row["speed_min"]), fastest: Speed(clamping: row["speed_max"]),
          passes: row["passes"], startedAt: Library.date(row["started_at"]),
          endedAt: Library.date(row["ended_at"]), duration: row["duration"],
          outcome: PlayOutcome(rawValue: row["outcome"]) ?? .failed)
        entry.id = row["id"]
        entry.songTitle = row["title"]
        entry.sampleRate = row["sample_rate"]
        return entry
      }
    }
  }

  /// Sums of the log per song and selection, by song title then selection name.
  public func practiceTotals(since: Date?) throws -> [PracticeTotal] {
    var sql = """
      SELECT l.song_id, s.title, l.selection_name, COUNT(*) AS plays, SUM(l.passes) AS passes,
        SUM(l.duration) AS seconds, MAX(l.speed_max) AS fastest, MAX(l.started_at) AS last
      FROM practice_log l JOIN song s ON s.id = l.song_id
      """
    var arguments: StatementArguments = []
    if let since {
      sql += " WHERE l.started_at >= ?"
      arguments += [Library.timestamp(since)]
    }
    sql += """

      GROUP BY l.song_id, l.selection_name COLLATE NOCASE
      ORDER BY s.title COLLATE NOCASE, l.song_id, l.selection_name IS NOT NULL,
        l.selection_name COLLATE NOCASE
      """
    return try read { db in
      try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
        PracticeTotal(
          songID: row["song_id"], songTitle: row["title"], selectionName: row["selection_name"],
          plays: row["plays"], passes: row["passes"], seconds: row["seconds"],
          fastest: Speed(clamping: row["fastest"]), lastPlayed: Library.date(row["last"]))
      }
    }
  }
}
