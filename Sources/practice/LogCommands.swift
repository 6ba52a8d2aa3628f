import ArgumentParser
import Foundation
import PracticeCore

/// `--since 7d`: a span back from now (`30m`, `12h`, `7d`, `2w`, up to 100 years) or a date
/// (`2026-11-01`, years 1900 to 9999).
struct Since: ExpressibleByArgument {
  let date: Date

  init?(argument: String) {
    if let seconds = parseLookBack(argument) {
      date = Date(timeIntervalSinceNow: -seconds)
      return
    }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd"
    guard argument.count == 10, let day = formatter.date(from: argument),
      let year = Int(argument.prefix(4)), (1900...9999).contains(year)
    else { return nil }
    date = day
  }

  /// Reads `--since`; the parser's message gets what is allowed appended.
  static func argument(_ text: String) throws -> Since {
    guard let since = Since(argument: text) else {
      throw ValidationError(
        "must be a span back from now, up to 100 years (30m, 12h, 7d, 2w; at most 36500d), "
          + "or a date (2026-11-01)")
    }
    return since
  }

  static var defaultCompletionKind: CompletionKind { .default }
}

struct LogCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "log",
    abstract:
      "List the plays of one song or of all, oldest first (a table; tab-separated when piped).",
    discussion: """
      Columns: started (local time), song, what was played, passes completed, speed \
      (slowest-fastest), time heard, how it ended (completed, stopped, interrupted, failed).
      """)

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title (default: every song).", valueName: "song"))
  var song: String?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Only plays started since then: 30m, 12h, 7d, 2w or 2026-11-01.", valueName: "when"),
    transform: Since.argument)
  var since: Since?
  @Flag(help: "Print a JSON array of plays instead.") var json = false

  func run() throws {
    let library = try library.open()
    let song = try self.song.map { try library.resolve($0) }
    let entries = try library.practiceLog(of: song, since: since?.date)
    if json {
      var out = JSONBuffer()
      out.raw("[")
      for (i, entry) in entries.enumerated() {
        if i > 0 { out.raw(",") }
        out.raw("{\"id\":\(entry.id ?? 0),\"song_id\":\(entry.songID),\"song\":")
        out.string(entry.songTitle)
        out.raw(",\"selection\":")
        out.optionalString(entry.selectionName)
        out.raw(",\"bars\":")
        out.optionalString(entry.bars)
        out.raw(
          ",\"start_frame\":\(entry.range.lowerBound),\"end_frame\":\(entry.range.upperBound),\"speed_min\":"
        )
        out.number(entry.slowest.rate)
        out.raw(",\"speed_max\":")
        out.number(entry.fastest.rate)
        out.raw(",\"passes\":\(entry.passes),\"started_at\":")
        out.string(iso(entry.startedAt))
        out.raw(",\"ended_at\":")
        out.string(iso(entry.endedAt))
        out.raw(",\"duration\":")
        out.number((entry.duration * 1000).rounded() / 1000)
        out.raw(",\"outcome\":")
        out.string(entry.outcome.rawValue)
        out.raw("}")
      }
      out.raw("]\n")
      Terminal.data(out.text)
      return
    }
    Table.plays(
      entries.map { entry in
        let what = [entry.bars.map { "bars \($0)" }, entry.selectionName.map { "'\($0)'" }]
          .compactMap { $0 }.joined(separator: " ")
        let speeds =
          entry.slowest == entry.fastest ? "\(entry.slowest)" : "\(entry.slowest)-\(entry.fastest)"
        return [
          localTime(entry.startedAt), entry.songTitle,
          what.isEmpty ? formatTimeRange(entry.range, sampleRate: entry.sampleRate) : what,
          "\(entry.passes) pass\(entry.passes == 1 ? "" : "es")", speeds,
          formatClock(entry.duration),
          entry.outcome.rawValue,
        ]
      }
    ).print()
  }
}

struct Stats: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stats",
    abstract:
      "Sum the log per song and selection (a table; tab-separated when piped), or chart a song's progress.",
    discussion: """
      Columns: song, selection (- for plays that were not of one), plays, passes completed, \
      time heard, highest speed reached, last played (local time). With SONG, only that \
      song's rows.

      With SONG and -o FILE.png (or .svg, .pdf): a chart of the highest speed of each day \
      each selection was played (and the plays that were not of a selection), one line \
      per selection in its colour, as `view -o` draws it.
      """)

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title (default: every song).", valueName: "song"))
  var song: String?
  @Option(
    name: [.customShort("o"), .customLong("output")],
    help: ArgumentHelp(
      "Draw the song's speed by day instead: FILE.png, FILE.svg or FILE.pdf (needs SONG).",
      valueName: "file"))
  var output: String?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Only plays started since then: 30m, 12h, 7d, 2w or 2026-11-01.", valueName: "when"),
    transform: Since.argument)
  var since: Since?
  @Flag(help: "Print a JSON array instead.") var json = false

  func validate() throws {
    if let output {
      guard song != nil else {
        throw ValidationError("-o draws one song's progress; name the song: practice stats SONG -o \(output)")
      }
      guard PictureFormat(path: output) != nil else {
        throw ValidationError("-o '\(output)': the picture's name must end in .png, .svg or .pdf")
      }
      if json { throw ValidationError("--json and -o cannot be combined; use one") }
    }
  }

  func run() throws {
    let library = try library.open()
    let song = try self.song.map { try library.resolve($0) }
    if let song, let output, let format = PictureFormat(path: output) {
      try View.checkFolder(of: output)
      let entries = try library.practiceLog(of: song, since: since?.date)
      guard !entries.isEmpty else {
        throw PracticeError(
          .missingInput,
          "'\(song.title)' has no plays in the practice log\(since == nil ? "" : " since then"); "
            + "play it first (`practice play \(song.id ?? 0)`)")
      }
      let content = ProgressChartContent(
        title: song.title, artist: song.artist, entries: entries,
        selectionNames: try library.selections(of: song).map(\.name))
      try ProgressChart.write(content, to: output, format: format)
      Terminal.say("wrote \(output)")
      return
    }
    let totals = try library.practiceTotals(since: since?.date)
      .filter { song == nil || $0.songID == song?.id }
    if json {
      var out = JSONBuffer()
      out.raw("[")
      for (i, total) in totals.enumerated() {
        if i > 0 { out.raw(",") }
        out.raw("{\"song_id\":\(total.songID),\"song\":")
        out.string(total.songTitle)
        out.raw(",\"selection\":")
        out.optionalString(total.selectionName)
        out.raw(",\"plays\":\(total.plays),\"passes\":\(total.passes),\"seconds\":")
        out.number((total.seconds * 1000).rounded() / 1000)
        out.raw(",\"fastest\":")
        out.number(total.fastest.rate)
        out.raw(",\"last_played\":")
        out.string(iso(total.lastPlayed))
        out.raw("}")
      }
      out.raw("]\n")
      Terminal.data(out.text)
      return
    }
    Table.totals(
      totals.map { total in
        [
          total.songTitle, total.selectionName ?? "-", "\(total.plays)", "\(total.passes)",
          formatClock(total.seconds), "\(total.fastest)", localTime(total.lastPlayed),
        ]
      }
    ).print()
  }
}

private func iso(_ date: Date) -> String {
  let formatter = ISO8601DateFormatter()
  formatter.formatOptions = [.withInternetDateTime]
  return formatter.string(from: date)
}

private func localTime(_ date: Date) -> String {
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.dateFormat = "yyyy-MM-dd HH:mm"
  return formatter.string(from: date)
}
