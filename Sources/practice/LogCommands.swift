import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

/// `--db [SONG] [--since WHEN]`: the plays `log` and `stats` read.
struct LogFilter: ParsableArguments {
  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title (default: every song).", valueName: "song"))
  var song: String?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Only plays started since then: 30m, 12h, 7d, 2w or 2026-11-01.", valueName: "when"),
    transform: Since.argument)
  var since: Since?

  /// Opens the library and finds the song, if one was named.
  func resolve() throws -> (library: Library, song: Song?) {
    let library = try library.open()
    return (library, try song.map { try library.resolve($0) })
  }

  /// What an empty log or summary says on stderr.
  func noPlays(of song: Song?) -> String {
    (song.map { "'\($0.title)' has no plays" } ?? "no plays")
      + " in the practice log" + (since == nil ? " yet" : " since then")
  }
}

struct LogCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "log",
    abstract:
      "List the plays of one song or of all, oldest first (a table; tab-separated when piped).",
    discussion: """
      Columns: started (local time), song, what was played, passes completed, speed \
      (slowest-fastest, then the transpose when there was one: `80% -2 st`), time heard, how it ended (completed, stopped, interrupted, failed). \
      Time heard is what played out at the device, never more than the real time the play \
      took (pauses excluded), and a stopped play not what was still queued. A device with \
      no audible clock (--device null, or one that took the audio more than twice as fast \
      as real time and more than 2 s ahead) is heard by nobody: its plays are logged with their passes \
      and the audio played, but no time heard, and count towards no day in a row.
      With --passes, one line per pass instead: started, song, what was played, pass, \
      its speed (the slowest heard in it, and the play's transpose), its mark (clean, flubbed, or - when not marked).
      """)

  @OptionGroup var filter: LogFilter
  @Flag(help: "Print a JSON array of plays instead.") var json = false
  @Flag(help: "One line per pass (speed and mark: key g clean, x flubbed) instead of per play.")
  var passes = false

  func run() throws {
    let (library, song) = try filter.resolve()
    let entries = try library.practiceLog(of: song, since: filter.since?.date, passes: passes)
    if entries.isEmpty { Terminal.say(filter.noPlays(of: song)) }
    if passes {
      listPasses(entries)
      return
    }
    if json {
      Terminal.json(entries)
      return
    }
    Table.plays(entries.map { $0.logCells(clock: formatClock) }).print()
  }
}

extension LogCommand {
  /// `log --passes`: every pass of the plays, tab-separated or as JSON.
  private func listPasses(_ entries: [PracticeEntry]) {
    if json {
      Terminal.json(PassLine.all(entries))
      return
    }
    Table.passes(entries.flatMap(\.passCells)).print()
  }
}

struct Stats: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stats",
    abstract:
      "Sum the log per song and selection (a table; tab-separated when piped), or chart a song's progress.",
    discussion: """
      Columns: song, selection (- for plays that were not of one), plays, passes completed, \
      time heard, highest speed reached, last played (local time); then the highest speed of \
      a pass marked clean (key g while playing; unmarked passes do not count), clean passes \
      out of those marked, the selection's goal (`select set --goal`), how far the clean top \
      speed is from it (points, or `reached`), and the days in a row it was practised (back \
      from today, or from yesterday while today has none). - where there is nothing to show.
      Time heard counts only what was audible at the device: --device null, which takes \
      audio faster than real time, is credited none; render is not practice and is not \
      logged. With SONG, \
      only that song's rows.

      With SONG and -o FILE.png (or .svg, .pdf): a chart of the clean top speed of each day \
      (the highest speed of a pass marked clean) of each selection (and of the plays that \
      were not of a selection), one line per selection in its colour, as `view -o` draws it.
      """)

  @OptionGroup var filter: LogFilter
  @Option(
    name: [.customShort("o"), .customLong("output")],
    help: ArgumentHelp(
      "Draw the song's clean top speed by day instead: FILE.png, FILE.svg or FILE.pdf (needs SONG).",
      valueName: "file"))
  var output: String?
  @Flag(help: "Print a JSON array instead.") var json = false

  func validate() throws {
    if let output {
      guard filter.song != nil else {
        throw ValidationError("-o draws one song's progress; name the song: practice stats SONG -o \(output)")
      }
      guard PictureFormat(path: output) != nil else {
        throw ValidationError("-o '\(output)': the picture's name must end in .png, .svg or .pdf")
      }
      if json { throw ValidationError("--json and -o cannot be combined; use one") }
    }
  }

  func run() throws {
    let (library, song) = try filter.resolve()
    let since = filter.since
    if let song, let output, let format = PictureFormat(path: output) {
      try OutputFile.checkFolder(of: output)
      let content: ProgressChartContent
      do {
        content = try library.progressChart(of: song, since: since?.date)
      } catch ProgressChartGap.noPlays {
        throw PracticeError(
          .missingInput,
          "'\(song.title)' has no plays in the practice log\(since == nil ? "" : " since then"); "
            + "play it first (`practice play \(song.id ?? 0)`)")
      } catch ProgressChartGap.noCleanPass {
        throw PracticeError(
          .missingInput,
          "'\(song.title)' has no pass marked clean\(since == nil ? "" : " since then"), so there "
            + "is no clean top speed to chart; mark passes while playing (g clean, x flubbed)")
      }
      try ProgressChart.write(content, to: output, format: format)
      Terminal.say("wrote \(output)")
      return
    }
    let totals = try library.practiceTotals(of: song, since: since?.date)
    if totals.isEmpty { Terminal.say(filter.noPlays(of: song)) }
    if json {
      Terminal.json(totals)
      return
    }
    Table.totals(totals.map { $0.statsCells(clock: formatClock) }).print()
    if totals.contains(where: \.passesUnheard) {
      Terminal.say(
"HEARD 0:00: marked passes on --device null count toward goals, time does not")
    }
  }
}

struct Today: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "today",
    abstract: "What to practise next: selections whose goal is not reached, as commands to run.",
    discussion: """
      One `practice play …` line per selection with a goal (`select set SONG NAME --goal 100%`) \
      whose highest clean pass has not reached it, least recently practised first (never \
      practised before all). Before each, a line on stderr says why and how far: \
      `solo (bars 9-16): best clean 85% (2 passes) of the 100% goal, 1 flubbed; last played \
      4 days ago`. Song paths and selection names are quoted for a POSIX shell; a \
      name holding control characters is written in $'…' quotes (bash, zsh, ksh).

      --save NAME also stores them, in that order, as the setlist NAME (a routine; one of \
      that name is replaced), for `practice setlist show` and `setlist print`.
      """)

  @OptionGroup var library: LibraryOptions
  @Option(
    help: ArgumentHelp("Also store the list as this setlist (replacing one of that name).", valueName: "setlist"))
  var save: String?

  func validate() throws {
    if let save { try refuseTypedText("the setlist name", [save]) }
  }

  func run() throws {
    let library = try library.open()
    let items = try library.practiceAgenda()
    if items.isEmpty {
      Terminal.say(
        "nothing to practise: no selection has a goal still to reach; "
          + "`practice select set SONG NAME --goal 100%` gives one")
    }
    if let save {
      try library.storeAgenda(items, as: save)
      Terminal.say(
        "saved \(items.count == 1 ? "1 drill" : "\(items.count) drills") as setlist '\(save)'")
    }
    let db = self.library.path.map { " --db " + ShellWord.quoted($0) } ?? ""
    let now = Date()
    for item in items {
      // Why it is there on stderr (talk), the command on stdout (data, for a shell to run).
      Terminal.say(item.reason(now: now))
      // Written whole: the quoting already shows every control character, and a backslash
      // in a name is the shell's to read, not to be doubled.
      Terminal.data(
        "practice play \(ShellWord.quoted(item.song.path)) --select \(ShellWord.quoted(item.selection.name))\(db)\n"
      )
    }
    // Played, and no pass marked: only a pass marked clean reaches a goal.
    if items.contains(where: { $0.lastPractised != nil && $0.cleanPasses + $0.flubbedPasses == 0 }) {
      Terminal.say(
        "a goal is reached by a pass marked clean: press g while a clean pass plays (x: flubbed)")
    }
  }
}
