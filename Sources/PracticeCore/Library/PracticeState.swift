import Foundation
import GRDB

/// Where a song's last play stopped, and how it was playing then (`play --resume`).
public struct ResumePoint: Sendable, Equatable {
  public var songID: Int64
  /// The source frame audible when it stopped (not the one decoded: what was queued on
  /// the device and dropped was never heard).
  public var frame: Int64
  /// The loop it was in (changed at the keyboard, the new one), and how it was named:
  /// `bars 9-16`, `'solo'`, `bar 12`; nil for plain times.
  public var range: Range<Int64>
  public var label: String?
  /// The bars of the range when it was given in bars (`9-16`), for the log.
  public var bars: String?
  /// The selection played, by name (it may have been removed since).
  public var selectionName: String?
  /// Passes still to play (the one it stopped in counts); nil for a loop.
  public var passesLeft: Int?
  public var speed: Speed
  public var transpose: Double
  public var volume: Volume
  /// The play ran to its end: a resume starts the range again.
  public var finished: Bool
  public var stoppedAt: Date

  public init(
    songID: Int64, frame: Int64, range: Range<Int64>, label: String?, bars: String?,
    selectionName: String?, passesLeft: Int?, speed: Speed, transpose: Double, volume: Volume,
    finished: Bool, stoppedAt: Date
  ) {
    self.songID = songID
    self.frame = frame
    self.range = range
    self.label = label
    self.bars = bars
    self.selectionName = selectionName
    self.passesLeft = passesLeft
    self.speed = speed
    self.transpose = transpose
    self.volume = volume
    self.finished = finished
    self.stoppedAt = stoppedAt
  }

  /// Where a resumed play starts within `range`: the remembered frame when it lies in it
  /// and the play did not finish, else the range's start.
  public func startFrame(in range: Range<Int64>) -> Int64 {
    !finished && range.contains(frame) ? frame : range.lowerBound
  }
}

extension Library {
  // MARK: Selection settings and goals

  /// The settings and goal of `selection` (empty when none were set).
  public func practice(of selection: Selection) throws -> SelectionPractice {
    guard let id = selection.id else { return SelectionPractice() }
    return try read { db in
      try Row.fetchOne(
        db, sql: "SELECT * FROM selection_practice WHERE selection_id = ?", arguments: [id]
      ).map(Library.selectionPractice(from:)) ?? SelectionPractice()
    }
  }

  /// Every selection's settings and goal that has any, by selection id.
  public func practiceOfSelections() throws -> [Int64: SelectionPractice] {
    try read { db in
      var result: [Int64: SelectionPractice] = [:]
      for row in try Row.fetchAll(db, sql: "SELECT * FROM selection_practice") {
        result[row["selection_id"]] = Library.selectionPractice(from: row)
      }
      return result
    }
  }

  /// Stores the settings and goal of `selection`, replacing what it had; empty ones remove
  /// the row.
  public func setPractice(_ practice: SelectionPractice, of selection: Selection) throws {
    guard let id = selection.id else { throw PracticeError(.other, "selection has no id") }
    try write { db in try Library.storePractice(practice, selectionID: id, db) }
  }

  /// Sets how `selection` of `song` is practised, as `select set` does: `given` added to
  /// (or replacing) the settings it has, all of them and its goal removed first when
  /// `clearing`; `goal`, when given, checked against the song (`checkGoal`). Throws the
  /// merged settings' `SettingsProblem`, `NoBeatMap` or a `GoalProblem`, storing nothing;
  /// returns what was stored.
  public func setPractice(
    of selection: Selection, song: Song, adding given: PracticeSettings, goal: PracticeGoal?,
    clearing: Bool
  ) throws -> SelectionPractice {
    var practice = clearing ? SelectionPractice() : try self.practice(of: selection)
    practice.settings = practice.settings.overridden(by: given)
    if let problem = practice.settings.problem { throw problem }
    if let goal {
      try checkGoal(goal, of: selection, song: song)
      practice.goal = goal
    }
    try setPractice(practice, of: selection)
    return practice
  }

  /// Replaces the settings and goal of selection `id` inside the caller's transaction.
  static func storePractice(_ practice: SelectionPractice, selectionID id: Int64, _ db: Database)
    throws
  {
    try db.execute(sql: "DELETE FROM selection_practice WHERE selection_id = ?", arguments: [id])
    guard !practice.isEmpty else { return }
    let s = practice.settings
    var goalSpeed: Double?
    var goalBPM: Double?
    switch practice.goal {
    case .speed(let speed)?: goalSpeed = speed.rate
    case .tempo(let bpm)?: goalBPM = bpm
    case nil: break
    }
    try db.execute(
      sql: """
        INSERT INTO selection_practice (selection_id, speed, ramp_to, step, every, count_in,
          click, gap, transpose, volume, goal_speed, goal_bpm, passes)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
      arguments: [
        id, s.speed?.rate, s.rampTo?.rate, s.step, s.every, s.countIn, s.click, s.gap,
        s.transpose, s.volume?.gain, goalSpeed, goalBPM, s.passes.map(\.stored),
      ])
  }

  /// The settings and goal of selection `id` inside the caller's transaction.
  static func storedPractice(selectionID id: Int64, _ db: Database) throws -> SelectionPractice {
    try Row.fetchOne(
      db.cachedStatement(sql: "SELECT * FROM selection_practice WHERE selection_id = ?"),
      arguments: [id]
    ).map(selectionPractice(from:)) ?? SelectionPractice()
  }

  static func selectionPractice(from row: Row) -> SelectionPractice {
    let speed: Double? = row["speed"]
    let rampTo: Double? = row["ramp_to"]
    let volume: Double? = row["volume"]
    let goalSpeed: Double? = row["goal_speed"]
    let goalBPM: Double? = row["goal_bpm"]
    let passes: Int? = row["passes"]
    let settings = PracticeSettings(
      speed: speed.map(Speed.init(clamping:)), rampTo: rampTo.map(Speed.init(clamping:)),
      step: row["step"], every: row["every"], countIn: row["count_in"], click: row["click"],
      gap: row["gap"], transpose: row["transpose"], volume: volume.map(Volume.init(clamping:)),
      passes: passes.map(Passes.init(stored:)))
    let goal =
      goalSpeed.map { PracticeGoal.speed(Speed(clamping: $0)) } ?? goalBPM.map { .tempo($0) }
    return SelectionPractice(settings: settings, goal: goal)
  }

  // MARK: Resume points

  /// Remembers where a play of the song stopped (one point per song, the latest).
  public func remember(_ point: ResumePoint) throws {
    try write { db in
      try db.execute(
        sql: """
          INSERT OR REPLACE INTO resume_point (song_id, frame, start_frame, end_frame, label, bars,
            selection_name, passes_left, speed, transpose, volume, finished, stopped_at, sequence)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
            (SELECT COALESCE(MAX(sequence), 0) + 1 FROM resume_point))
          """,
        arguments: [
          point.songID, point.frame, point.range.lowerBound, point.range.upperBound, point.label,
          point.bars, point.selectionName, point.passesLeft, point.speed.rate, point.transpose,
          point.volume.gain, point.finished, Library.timestamp(point.stoppedAt),
        ])
    }
  }

  /// Where the last play of `song` stopped; nil if it was never played (or only rendered).
  public func resumePoint(of song: Song) throws -> ResumePoint? {
    guard let id = song.id else { return nil }
    return try read { db in
      try Row.fetchOne(db, sql: "SELECT * FROM resume_point WHERE song_id = ?", arguments: [id])
        .map(Library.resumePoint(from:))
    }
  }

  /// The most recent resume point of any song.
  public func latestResumePoint() throws -> ResumePoint? {
    try read { db in
      try Row.fetchOne(
        db, sql: "SELECT * FROM resume_point ORDER BY sequence DESC LIMIT 1"
      ).map(Library.resumePoint(from:))
    }
  }

  private static func resumePoint(from row: Row) -> ResumePoint {
    ResumePoint(
      songID: row["song_id"], frame: row["frame"],
      range: (row["start_frame"] as Int64)..<(row["end_frame"] as Int64), label: row["label"],
      bars: row["bars"], selectionName: row["selection_name"], passesLeft: row["passes_left"],
      speed: Speed(clamping: row["speed"]), transpose: row["transpose"],
      volume: Volume(clamping: row["volume"]), finished: row["finished"],
      stoppedAt: Library.date(row["stopped_at"]))
  }
}
