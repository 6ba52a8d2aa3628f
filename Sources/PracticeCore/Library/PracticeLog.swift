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
  /// Filled in when read back: the file's kind (`m4a`) when another song has its title.
  public var songKind: String?
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
  /// Seconds of audio heard (pauses excluded): what played out at the device, never more
  /// than the real time the play took (see `PlayTracker.heardSeconds`).
  public var duration: Double
  public var outcome: PlayOutcome
  /// Seconds of audio the play produced (output frames; at another speed not the
  /// source's length); nil in rows logged before it was kept.
  public var played: Double?
  /// Semitones the play was transposed by (a setlist entry's, `--transpose` or `--key`, or
  /// where the keys left it), 0 when not; nil in rows logged before it was kept.
  public var transpose: Double?
  /// Each pass with its speed and mark (filled in when read back with `passes: true`).
  public var passRecords: [PassRecord] = []

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
  /// The highest speed of a pass marked clean; nil without one. Unmarked passes do not
  /// count: only the player can say a pass was clean.
  public var cleanSpeed: Speed?
  public var cleanPasses = 0
  public var flubbedPasses = 0
  /// Clean passes among the marked ones, 0-1; nil when none is marked.
  public var cleanRatio: Double? {
    cleanPasses + flubbedPasses == 0
      ? nil : Double(cleanPasses) / Double(cleanPasses + flubbedPasses)
  }
  /// The selection's goal, and the speed that reaches it (nil for a tempo goal without
  /// a beat map to read the passage's tempo from).
  public var goal: PracticeGoal?
  public var goalSpeed: Double?
  /// How far the clean top speed is below the goal (rate; 0 when reached); nil without a
  /// goal speed or a clean pass.
  public var distance: Double? {
    guard let goalSpeed, let cleanSpeed else { return nil }
    return max(0, ((goalSpeed - cleanSpeed.rate) * 1e9).rounded() / 1e9)
  }
  public var goalReached: Bool { distance == 0 }
  /// Days in a row (local calendar days) with a play of it heard, back from today, or from
  /// yesterday while today has none yet; 0 when the last was before yesterday.
  public var streakDays = 0

  public var songID: Int64
  public var songTitle: String
  /// The file's kind (`m4a`) when another song has its title.
  public var songKind: String?
  /// nil: plays that were not of a selection.
  public var selectionName: String?
  public var plays: Int
  public var passes: Int
  public var seconds: Double
  /// Passes played with no time heard: every play was on a device with no audible clock.
  /// They count toward the goal; the time does not.
  public var passesUnheard: Bool { passes > 0 && seconds == 0 }
  /// The highest speed reached in a play of this selection (or song part).
  public var fastest: Speed
  /// The transposes its plays were made at, in semitones, lowest first (0 for plays not
  /// transposed; rows logged before transposes were kept add none).
  public var transposes: [Double] = []
  public var lastPlayed: Date

  public init(
    songID: Int64, songTitle: String, selectionName: String?, plays: Int, passes: Int,
    seconds: Double, fastest: Speed, lastPlayed: Date
  ) {
    self.songID = songID
    self.songTitle = songTitle
    self.selectionName = selectionName
    self.plays = plays
    self.passes = passes
    self.seconds = seconds
    self.fastest = fastest
    self.lastPlayed = lastPlayed
  }
}

extension Library {
  /// Writes one log row.
  public func log(_ entry: PracticeEntry) throws {
    try write { db in
      try db.execute(
        sql: """
          INSERT INTO practice_log (song_id, selection_id, selection_name, bars, start_frame,
            end_frame, speed_min, speed_max, passes, started_at, ended_at, duration, outcome,
            played, transpose)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          entry.songID, entry.selectionID, entry.selectionName, entry.bars,
          entry.range.lowerBound, entry.range.upperBound, entry.slowest.rate, entry.fastest.rate,
          entry.passes, Library.timestamp(entry.startedAt), Library.timestamp(entry.endedAt),
          entry.duration, entry.outcome.rawValue, entry.played, entry.transpose,
        ])
      let id = db.lastInsertedRowID
      for record in entry.passRecords {
        try db.execute(
          sql: "INSERT INTO practice_pass (log_id, pass, speed, mark) VALUES (?, ?, ?, ?)",
          arguments: [id, record.pass, record.speed.rate, record.mark?.rawValue])
      }
    }
  }

  /// The file kind (`Song.fileKind`) of each song whose title another song has (any case),
  /// by song id: what tells their rows apart.
  static func twinKinds(_ db: Database) throws -> [Int64: String] {
    var kinds: [Int64: String] = [:]
    for row in try Row.fetchAll(
      db,
      sql: """
        SELECT id, path, format FROM song WHERE title COLLATE NOCASE IN
          (SELECT title FROM song GROUP BY title COLLATE NOCASE HAVING COUNT(*) > 1)
        """)
    {
      kinds[row["id"]] = Song.fileKind(path: row["path"], format: row["format"])
    }
    return kinds
  }

  /// Log rows, oldest first: of `song` (or all songs), started at or after `since`.
  public func practiceLog(of song: Song?, since: Date?, passes: Bool = false) throws
    -> [PracticeEntry]
  {
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
      var records: [Int64: [PassRecord]] = [:]
      if passes {
        for row in try Row.fetchAll(
          db, sql: "SELECT * FROM practice_pass ORDER BY log_id, pass")
        {
          let mark: String? = row["mark"]
          records[row["log_id"], default: []].append(
            PassRecord(
              pass: row["pass"], speed: Speed(clamping: row["speed"]),
              mark: mark.flatMap(PassMark.init(rawValue:))))
        }
      }
      let twins = try Library.twinKinds(db)
      return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
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
        entry.songKind = twins[entry.songID]
        entry.sampleRate = row["sample_rate"]
        entry.passRecords = records[row["id"]] ?? []
        entry.played = row["played"]
        entry.transpose = row["transpose"]
        return entry
      }
    }
  }

  /// Sums of the log per song and selection, by song title then selection name: plays,
  /// passes, time heard, top speeds, clean passes, the selection's goal and the days in a
  /// row it was practised (counted over the whole log; the rest since `since`).
  public func practiceTotals(since: Date?, now: Date = Date(), calendar: Calendar = .current)
    throws -> [PracticeTotal]
  {
    var sql = """
      SELECT l.song_id, s.title, l.selection_name, COUNT(*) AS plays, SUM(l.passes) AS passes,
        SUM(l.duration) AS seconds, MAX(l.speed_max) AS fastest, MAX(l.started_at) AS last,
        GROUP_CONCAT(DISTINCT l.transpose) AS transposes
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
    var totals = try read { db in
      let twins = try Library.twinKinds(db)
      return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
        var total = PracticeTotal(
          songID: row["song_id"], songTitle: row["title"], selectionName: row["selection_name"],
          plays: row["plays"], passes: row["passes"], seconds: row["seconds"],
          fastest: Speed(clamping: row["fastest"]), lastPlayed: Library.date(row["last"]))
        total.transposes = ((row["transposes"] as String?) ?? "").split(separator: ",")
          .compactMap { Double($0) }.sorted()
        total.songKind = twins[total.songID]
        return total
      }
    }
    let marked = try markedPasses(since: since)
    let days = try practiceDays()
    let goals = try selectionGoals()
    for index in totals.indices {
      let key = PracticeKey(songID: totals[index].songID, selection: totals[index].selectionName)
      for (speed, mark) in marked[key] ?? [] {
        switch mark {
        case .clean:
          totals[index].cleanPasses += 1
          if speed.rate > (totals[index].cleanSpeed?.rate ?? 0) { totals[index].cleanSpeed = speed }
        case .flubbed:
          totals[index].flubbedPasses += 1
        }
      }
      totals[index].streakDays = Library.streak(days[key] ?? [], now: now, calendar: calendar)
      if let goal = goals[key] {
        totals[index].goal = goal.goal
        totals[index].goalSpeed = goal.speed
      }
    }
    return totals
  }

  /// What to practise next (`practice today`): each selection with a goal whose clean top
  /// speed (over the whole log) has not reached it, least recently practised first (never
  /// practised before all), then by song title and name.
  public func practiceAgenda() throws -> [AgendaItem] {
    let marked = try markedPasses(since: nil)
    let goals = try selectionGoals()
    let last: [PracticeKey: Date] = try read { db in
      var result: [PracticeKey: Date] = [:]
      for row in try Row.fetchAll(
        db,
        sql: """
          SELECT song_id, selection_name, MAX(started_at) AS last FROM practice_log
          WHERE selection_name IS NOT NULL GROUP BY song_id, selection_name COLLATE NOCASE
          """)
      {
        result[PracticeKey(songID: row["song_id"], selection: row["selection_name"])] =
          Library.date(row["last"])
      }
      return result
    }
    var items: [AgendaItem] = []
    for (key, goal) in goals {
      let passes = marked[key] ?? []
      let cleanRates = passes.filter { $0.mark == .clean }.map(\.speed.rate)
      let clean = cleanRates.max()
      if let clean, let speed = goal.speed, clean >= speed - 1e-9 { continue }
      guard let song = try song(id: key.songID) else { continue }
      items.append(
        AgendaItem(
          song: song, selection: goal.selection, goal: goal.goal, goalSpeed: goal.speed,
          cleanSpeed: clean.map(Speed.init(clamping:)), lastPractised: last[key],
          cleanPasses: cleanRates.count,
          cleanPassesAtBest: clean.map { best in cleanRates.filter { $0 >= best - 1e-9 }.count }
            ?? 0,
          flubbedPasses: passes.count - cleanRates.count))
    }
    return items.sorted { a, b in
      switch (a.lastPractised, b.lastPractised) {
      case (nil, .some): return true
      case (.some, nil): return false
      case (.some(let x), .some(let y)) where x != y: return x < y
      default:
        let titles = a.song.title.localizedCaseInsensitiveCompare(b.song.title)
        if titles != .orderedSame { return titles == .orderedAscending }
        return a.selection.name.lowercased() < b.selection.name.lowercased()
      }
    }
  }

  /// The speed that reaches `goal` for `selection`: a speed goal's own, a tempo goal's
  /// divided by the passage's median tempo from the song's beat map (nil without one).
  public func goalSpeed(_ goal: PracticeGoal, of selection: Selection) throws -> Double? {
    if case .speed(let speed) = goal { return speed.rate }
    guard let song = try song(id: selection.songID), let map = try beatMap(for: song),
      let frames = try? selection.span.frames(beatMap: map)
    else { return nil }
    return goal.speed(passageBPM: map.medianBPM(in: frames))
  }

  /// Checks that `goal` can be `selection`'s (of `song`): a tempo goal needs the song's beat
  /// map (`NoBeatMap`), enough beats in the selection to tell its tempo, and a speed within
  /// `Speed.allowed` to reach it (`GoalProblem`).
  public func checkGoal(_ goal: PracticeGoal, of selection: Selection, song: Song) throws {
    guard case .tempo = goal else { return }
    guard try beatMap(for: song) != nil else { throw NoBeatMap(song: song) }
    guard let speed = try goalSpeed(goal, of: selection) else { throw GoalProblem.tempoUnknown }
    guard Speed.allowed.contains(speed) else { throw GoalProblem.speedOutOfRange(speed) }
  }

  /// `100%`, or `120bpm (96%)` with the speed that reaches it for `selection`.
  public func goalText(_ goal: PracticeGoal, of selection: Selection) throws -> String {
    goal.text(reachedAt: try goalSpeed(goal, of: selection))
  }

  /// Marked passes (speed, mark) per song and selection, of plays started since `since`.
  private func markedPasses(since: Date?) throws -> [PracticeKey: [(speed: Speed, mark: PassMark)]]
  {
    var sql = """
      SELECT l.song_id, l.selection_name, p.speed, p.mark FROM practice_pass p
      JOIN practice_log l ON l.id = p.log_id WHERE p.mark IS NOT NULL
      """
    var arguments: StatementArguments = []
    if let since {
      sql += " AND l.started_at >= ?"
      arguments += [Library.timestamp(since)]
    }
    return try read { db in
      var result: [PracticeKey: [(speed: Speed, mark: PassMark)]] = [:]
      for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
        guard let mark = PassMark(rawValue: row["mark"]) else { continue }
        result[PracticeKey(songID: row["song_id"], selection: row["selection_name"]), default: []]
          .append((Speed(clamping: row["speed"]), mark))
      }
      return result
    }
  }

  /// When each song and selection was practised (plays with time heard), whole log.
  private func practiceDays() throws -> [PracticeKey: [Date]] {
    try read { db in
      var result: [PracticeKey: [Date]] = [:]
      for row in try Row.fetchAll(
        db, sql: "SELECT song_id, selection_name, started_at FROM practice_log WHERE duration > 0")
      {
        result[PracticeKey(songID: row["song_id"], selection: row["selection_name"]), default: []]
          .append(Library.date(row["started_at"]))
      }
      return result
    }
  }

  /// Every selection with a goal, with the speed that reaches it.
  private func selectionGoals() throws -> [PracticeKey: SelectionGoal] {
    let practices = try practiceOfSelections()
    var result: [PracticeKey: SelectionGoal] = [:]
    for selection in try selections(of: nil) {
      guard let id = selection.id, let goal = practices[id]?.goal else { continue }
      result[PracticeKey(songID: selection.songID, selection: selection.name)] =
        (selection, goal, try goalSpeed(goal, of: selection))
    }
    return result
  }

  /// Days in a row with a play, back from today (or yesterday).
  static func streak(_ dates: [Date], now: Date, calendar: Calendar) -> Int {
    let days = Set(dates.map { calendar.startOfDay(for: $0) })
    var day = calendar.startOfDay(for: now)
    if !days.contains(day) {
      guard let yesterday = calendar.date(byAdding: .day, value: -1, to: day),
        days.contains(yesterday)
      else { return 0 }
      day = yesterday
    }
    var count = 0
    while days.contains(day) {
      count += 1
      guard let previous = calendar.date(byAdding: .day, value: -1, to: day) else { break }
      day = previous
    }
    return count
  }
}

/// A selection with a goal, and the speed that reaches it (nil: a tempo goal without a
/// beat map).
typealias SelectionGoal = (selection: Selection, goal: PracticeGoal, speed: Double?)

/// A song and a selection name (any case; nil for plays of no selection), as the log
/// groups them.
struct PracticeKey: Hashable {
  let songID: Int64
  let selection: String?

  init(songID: Int64, selection: String?) {
    self.songID = songID
    self.selection = selection?.lowercased()
  }
}

/// A selection whose goal is not reached yet (`practice today`).
public struct AgendaItem: Sendable {
  public var song: Song
  public var selection: Selection
  public var goal: PracticeGoal
  /// nil: a tempo goal and no beat map to read the passage's tempo from.
  public var goalSpeed: Double?
  public var cleanSpeed: Speed?
  /// nil: never practised.
  public var lastPractised: Date?
  /// Passes marked clean (at any speed), those at `cleanSpeed`, and passes marked flubbed.
  public var cleanPasses = 0
  public var cleanPassesAtBest = 0
  public var flubbedPasses = 0

  /// Why the drill is on the list and how far it is from its goal, one line:
  /// `solo (bars 9-16): best clean 85% (2 passes) of the 100% goal, 1 flubbed; last played 4
  /// days ago`. Days are local calendar days before `now`.
  public func reason(now: Date, calendar: Calendar = .current) -> String {
    let span: String
    switch selection.span {
    case .bars(let range): span = range.label
    case .frames(let range): span = formatTimeRange(range, sampleRate: song.sampleRate)
    }
    let goalText = goal.text(reachedAt: goalSpeed)
    var distance: String
    if let cleanSpeed {
      distance =
        "best clean \(cleanSpeed) (\(cleanPassesAtBest == 1 ? "1 pass" : "\(cleanPassesAtBest) passes")) "
        + "of the \(goalText) goal"
    } else if goalSpeed == nil {
      distance = "goal \(goalText), which needs a beat map to be reached"
    } else {
      distance = "no clean pass yet toward the \(goalText) goal"
    }
    if flubbedPasses > 0 { distance += ", \(flubbedPasses) flubbed" }
    let played: String
    if let lastPractised {
      let days =
        calendar.dateComponents(
          [.day], from: calendar.startOfDay(for: lastPractised), to: calendar.startOfDay(for: now)
        ).day ?? 0
      switch days {
      case ..<1: played = "last played today"
      case 1: played = "last played yesterday"
      default: played = "last played \(days) days ago"
      }
    } else {
      played = "never played"
    }
    return "\(selection.name) (\(span)): \(distance); \(played)"
  }
}

/// Why a tempo goal cannot be a selection's (`Library.checkGoal`); the face words it.
public enum GoalProblem: Error, Equatable {
  /// The selection has too few beats in the beat map to tell its tempo.
  case tempoUnknown
  /// Reaching the goal takes this speed, outside `Speed.allowed`.
  case speedOutOfRange(Double)
}

extension Library {
  /// `practiceTotals` of one song (every song's when nil).
  public func practiceTotals(of song: Song?, since: Date?) throws -> [PracticeTotal] {
    try practiceTotals(since: since).filter { song == nil || $0.songID == song?.id }
  }
}
