import Foundation

// The cells of the tables `log`, `log --passes` and `stats` print, in their columns' order
// (`Table` in the CLI names the columns). `clock` formats time heard (the face's m:ss).

/// A row's song: its title, and the file's kind when another song has the title
/// (`tune (m4a)`).
func shownTitle(_ title: String, kind: String?) -> String {
  title + (kind.map { " (\($0))" } ?? "")
}

extension PracticeEntry {
  var shownTitle: String { PracticeCore.shownTitle(songTitle, kind: songKind) }

  /// `log`: started, song, what, passes, speeds (and the transpose), time heard, ending.
  public func logCells(clock: (Double) -> String) -> [String] {
    [
      formatLocalTime(startedAt), shownTitle, what, "\(passes) pass\(passes == 1 ? "" : "es")",
      speeds, clock(duration), outcome.rawValue,
    ]
  }

  /// `log --passes`: started, song, what, pass, its speed (and the play's transpose), mark.
  public var passCells: [[String]] {
    passRecords.map { record in
      [
        formatLocalTime(startedAt), shownTitle, what, "\(record.pass)",
        "\(record.speed)" + transposeSuffix, record.mark?.rawValue ?? "-",
      ]
    }
  }

  /// What a play logged, in one line for the end of a play at the keys (the player screen
  /// has closed by then): `bars 5-6 'solo': 3 passes (1 clean, 1 flubbed) at 75%, 0:12 heard`.
  public func summary(clock: (Double) -> String) -> String {
    let marks = PassMark.allCases.compactMap { mark -> String? in
      let count = passRecords.filter { $0.mark == mark }.count
      return count == 0 ? nil : "\(count) \(mark.rawValue)"
    }
    return "\(what): \(passes) pass\(passes == 1 ? "" : "es")"
      + (marks.isEmpty ? "" : " (\(marks.joined(separator: ", ")))")
      + " at \(speeds), \(clock(duration)) heard"
  }

  /// "bars 9-16 'solo'", or the times: what a play played.
  public var what: String {
    let what = [bars.map { BarRange.label($0) }, selectionName.map { "'\($0)'" }]
      .compactMap { $0 }.joined(separator: " ")
    return what.isEmpty ? formatTimeRange(range, sampleRate: sampleRate) : what
  }

  /// `80%`, `80%-90%`, `85% +2 st`: the speeds a play went through, and its transpose.
  public var speeds: String {
    (slowest == fastest ? "\(slowest)" : "\(slowest)-\(fastest)") + transposeSuffix
  }

  /// ` -2 st` after the speed of a transposed play; nothing when it was not (or not known).
  public var transposeSuffix: String {
    guard let transpose, transpose != 0 else { return "" }
    return String(format: " %+g st", transpose)
  }
}

extension PracticeTotal {
  var shownTitle: String { PracticeCore.shownTitle(songTitle, kind: songKind) }

  /// `stats`: song, selection, plays, passes, time heard, fastest, last played, clean top
  /// speed, clean passes of the marked, goal, distance to it, days in a row; `-` where
  /// there is nothing to show.
  public func statsCells(clock: (Double) -> String) -> [String] {
    [
      shownTitle, selectionName ?? "-", "\(plays)", "\(passes)", clock(seconds), "\(fastest)",
      formatLocalTime(lastPlayed), cleanSpeed.map { "\($0)" } ?? "-",
      cleanPasses + flubbedPasses == 0
        ? "-" : "\(cleanPasses)/\(cleanPasses + flubbedPasses)",
      goalText,
      distance.map { $0 == 0 ? "reached" : "\(PracticeSettings.formatStep($0).dropLast()) points" }
        ?? "-",
      "\(streakDays)",
    ]
  }

  /// `100%`, or `120bpm (96%)` with the speed that reaches a tempo goal; `-` without a goal.
  public var goalText: String {
    goal?.text(reachedAt: goalSpeed) ?? "-"
  }
}

/// `2026-11-28 15:30`, local time: when a play started, as lists show it.
public func formatLocalTime(_ date: Date) -> String {
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.dateFormat = "yyyy-MM-dd HH:mm"
  return formatter.string(from: date)
}

/// A stored UTC stamp (`2026-11-28T14:30:00Z`) as lists show a time: local, to the minute;
/// the stamp as it is if it cannot be read.
public func formatLocalTime(stamp: String) -> String {
  ISO8601DateFormatter().date(from: stamp).map(formatLocalTime) ?? stamp
}
