import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

struct Select: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "select",
    abstract:
      "Named selections of a song (\"verse\", \"solo\"): add, list, show, edit, set, move, halve, double, rm.",
    subcommands: [
      SelectAdd.self, SelectList.self, SelectShow.self, SelectEdit.self, SelectSet.self,
      SelectRemove.self,
      SelectMove.self, SelectHalve.self, SelectDouble.self,
    ])
}

/// `--bars` or `--from/--to`: what a selection covers.
struct SpanOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Bars: 9-16, 9, or 9.3-12.2; the selection follows the beat map.", valueName: "bars"),
    transform: Parse.bars)
  var bars: BarRange?
  // Unconditional, so that a negative time is read (and refused as before the start) rather
  // than taken for a flag.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Start time: 83.5, 1:23.5 or 1:02:03.5.", valueName: "time"),
    transform: Parse.time)
  var from: TypedTime?
  @Option(
    parsing: .unconditional, help: ArgumentHelp("End time (exclusive).", valueName: "time"),
    transform: Parse.time)
  var to: TypedTime?
  @Flag(
    name: .customLong("no-detect"),
    help: "With --bars on a song without a beat map: refuse (exit 66) instead of detecting one.")
  var noDetect = false

  var isEmpty: Bool { bars == nil && from == nil && to == nil }

  func validate() throws {
    try Parse.oneRange(bars: bars != nil, times: from != nil || to != nil)
  }

  /// The span, checked against the song's audio and beat map.
  func span(for song: Song, library: Library) throws -> SelectionSpan {
    try SelectionSpan.checked(bars: bars, from: from?.seconds, to: to?.seconds, of: song) {
      try detectingBeatMap(of: song, in: library, detect: !noDetect)
    }
  }
}

/// Exit 66 with the commands that make a beat map.
func noBeatMap(_ song: Song) -> PracticeError {
  PracticeError(
    .missingInput,
    "'\(song.title)' has no beat map, so there are no bars to count; make one with "
      + "`practice beats detect \(song.id ?? 0)`, `practice beats grid \(song.id ?? 0) --bpm N` or "
      + "`practice beats import \(song.id ?? 0) FILE`")
}

/// "bars 9-16 (0:16.5–0:32.5)" or "0:10.0–0:20.0"; with a warning when it no longer fits.
func describe(_ selection: Selection, song: Song, map: BeatMap?) -> (text: String, fits: Bool) {
  let record = SelectionRecord(selection, song: song, beatMap: map)
  return (record.spanText, record.fits)
}

/// `'Song': selection 'solo' is bars 9-16 (0:16.5–0:32.5)`.
func sayWhere(_ selection: Selection, of song: Song, map: BeatMap?) {
  let span = describe(selection, song: song, map: map).text
  Terminal.say("'\(song.title)': selection '\(selection.name)' is \(span)")
}

/// Warns on stderr of each selection `map` leaves without its passage (`SelectionUpset`):
/// one that no longer fits it, one that now plays other music, with how to keep it.
func warn(of upset: [SelectionUpset], song: Song, map: BeatMap?) {
  let rate = song.sampleRate
  for item in upset {
    let (selection, range) = (item.selection, item.range)
    guard case .moved(let old, let new) = item.why else {
      Terminal.warning(noLongerFits(selection, range, song: song, map: map))
      continue
    }
    Terminal.warning(
      "selection '\(selection.name)' of '\(song.title)' (\(range.label)) now plays "
        + "\(formatTimeRange(new, sampleRate: rate)), not \(formatTimeRange(old, sampleRate: rate)); "
        + "to keep that passage, `practice select edit \(song.id ?? 0) '\(selection.name)' --from "
        + "\(formatSeconds(Double(old.lowerBound) / Double(rate))) --to \(formatSeconds(Double(old.upperBound) / Double(rate)))`"
    )
  }
}

/// Warns on stderr when a selection no longer fits the song's beat map.
func warnIfStale(_ selection: Selection, song: Song, map: BeatMap?) {
  let upset = SelectionUpset.under(map, before: nil, selections: [selection], song: song)
  warn(of: upset, song: song, map: map)
}

/// "selection 'solo' of 'song' (bars 7.3-8.2) no longer fits the beat map (bars 1-6); fix it
/// with `practice select edit …`"; with no map at all, how to make one (new bars could not be
/// given without one).
func noLongerFits(_ selection: Selection, _ range: BarRange, song: Song, map: BeatMap?) -> String {
  let id = song.id ?? 0
  guard let map else {
    return "selection '\(selection.name)' of '\(song.title)' (\(range.label)) has no bars to "
      + "play: the song has no beat map now; make one with `practice beats detect \(id)` "
      + "(the selection finds its bars again), or give it times with "
      + "`practice select edit \(id) '\(selection.name)' --from … --to …`"
  }
  return "selection '\(selection.name)' of '\(song.title)' (\(range.label)) no longer fits the "
    + "beat map (\(map.barsDescription)); fix it with "
    + "`practice select edit \(id) '\(selection.name)' --bars …`"
}

/// `--db SONG`: the library and a song in it, shared by the commands that act on a song.
struct SongInLibrary: ParsableArguments {
  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title.", valueName: "song")) var song: String

  /// Opens the library and finds the song (exit 66, with the nearest title when mistyped).
  func resolve() throws -> (library: Library, song: Song) {
    let library = try library.open()
    return (library, try library.resolve(song))
  }

  /// The library, the song and its beat map, or exit 66 saying how to make one.
  func resolveWithMap() throws -> (library: Library, song: Song, map: BeatMap) {
    let (library, song) = try resolve()
    guard let map = try library.beatMap(for: song) else { throw noBeatMap(song) }
    return (library, song, map)
  }
}

/// `--db SONG…`: the library and songs in it (`beats detect`, `chords detect`).
struct SongsInLibrary: ParsableArguments {
  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File paths, ids or titles.", valueName: "song")) var songs:
    [String] = []

  func validate() throws {
    if songs.isEmpty { throw ValidationError("name at least one song") }
  }

  /// Opens the library and finds every song (exit 66 at the first not found).
  func resolve() throws -> (library: Library, songs: [Song]) {
    let library = try library.open()
    return (library, try songs.map { try library.resolve($0) })
  }
}

/// `--db SONG NAME`: an existing selection, shared by the commands that act on one.
struct SelectionTarget: ParsableArguments {
  @OptionGroup var target: SongInLibrary
  @Argument(help: ArgumentHelp("Selection name.", valueName: "name")) var name: String

  /// Opens the library and finds the song and its selection (exit 66 naming the ones there are).
  func resolve() throws -> (library: Library, song: Song, selection: Selection) {
    let (library, song) = try target.resolve()
    return (library, song, try library.selection(named: name, of: song))
  }
}

struct SelectAdd: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add", abstract: "Add a named selection.")
  @OptionGroup var target: SongInLibrary
  @Argument(help: ArgumentHelp("Selection name.", valueName: "name")) var name: String
  @OptionGroup var span: SpanOptions
  @Option(help: ArgumentHelp("A note to keep with it.", valueName: "text")) var note: String?
  @Flag(help: "Overwrite a selection of the same name.") var replace = false

  func validate() throws {
    if span.isEmpty { throw ValidationError("say what to select: --bars A-B, or --from T --to T") }
    try refuseTypedText("the name", [name])
    try refuseTypedText("the note", note.map { [$0] } ?? [], blankAllowed: true)
  }

  func run() throws {
    let (library, song) = try target.resolve()
    let selection = try library.addSelection(
      to: song, name: name, span: span.span(for: song, library: library), note: note,
      replace: replace)
    sayWhere(selection, of: song, map: try library.beatMap(for: song))
  }
}

struct SelectList: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract:
      "List selections in song order: song id, name, span, note, song title (tab-separated when piped)."
  )
  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("Only this song (path, id or title).", valueName: "song")) var song:
    String?
  @Flag(help: "Print a JSON array instead.") var json = false

  func run() throws {
    let library = try library.open()
    let only = try song.map { try library.resolve($0) }
    let placed = try library.placedSelections(of: only)
    if placed.isEmpty {
      Terminal.say(
        (only.map { "'\($0.title)' has no selections" } ?? "no selections yet")
          + "; `practice select add SONG NAME --bars 9-16`")
    }
    for (record, map) in placed { warnIfStale(record.selection, song: record.song, map: map) }
    let records = placed.map(\.record)
    if json { Terminal.json(records) } else { Table.selections(records).print() }
  }
}

struct SelectShow: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show", abstract: "Show one selection.")
  @OptionGroup var target: SelectionTarget

  func run() throws {
    let (library, song, selection) = try target.resolve()
    let map = try library.beatMap(for: song)
    warnIfStale(selection, song: song, map: map)
    let practice = try library.practice(of: selection)
    Terminal.fields([
      ("song", "\(song.id ?? 0)"), ("name", selection.name),
      ("span", describe(selection, song: song, map: map).text), ("note", selection.note ?? ""),
      ("created_at", formatLocalTime(stamp: selection.createdAt)),
      ("updated_at", formatLocalTime(stamp: selection.updatedAt)),
      ("settings", options(of: practice.settings).joined(separator: " ")),
      ("goal", try practice.goal.map { try library.goalText($0, of: selection) } ?? ""),
    ])
  }
}

struct SelectEdit: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "edit", abstract: "Change a selection's span, name or note.")
  @OptionGroup var target: SelectionTarget
  @OptionGroup var span: SpanOptions
  @Option(help: ArgumentHelp("New name.", valueName: "name")) var rename: String?
  @Option(help: ArgumentHelp("New note (empty to clear).", valueName: "text")) var note: String?

  func validate() throws {
    try refuseTypedText("the name", rename.map { [$0] } ?? [], blankAllowed: true)
    try refuseTypedText("the note", note.map { [$0] } ?? [], blankAllowed: true)
  }

  func run() throws {
    var (library, song, selection) = try target.resolve()
    if !span.isEmpty { selection.span = try span.span(for: song, library: library) }
    if let rename {
      guard !rename.trimmingCharacters(in: .whitespaces).isEmpty else {
        throw PracticeError(.usage, "--rename needs a name")
      }
      selection.name = rename
    }
    if let note { selection.note = note.isEmpty ? nil : note }
    try library.updateSelection(selection)
    sayWhere(selection, of: song, map: try library.beatMap(for: song))
  }
}

struct SelectSet: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "set",
    abstract: "Set how a selection is practised: its play settings and its goal.",
    discussion: """
      `play SONG --select NAME` plays with these settings; options typed on its command line \
      override them for that play. Settings given here are added to (or replace) those the \
      selection has; --clear removes them all, and the goal, first. --goal is a speed \
      (100%) or, with a beat map, a tempo (120bpm): the selection is learned when a pass \
      marked clean (key g while playing) reaches it (`practice stats`, `practice today`).
      """)
  @OptionGroup var target: SelectionTarget
  @OptionGroup var settings: SettingsOptions
  @Option(
    help: ArgumentHelp(
      "When the selection counts as learned: a clean pass at this speed (100%) or tempo (120bpm).",
      valueName: "speed|bpm"),
    transform: Parse.goal)
  var goal: PracticeGoal?
  @Flag(help: "Remove the selection's settings and goal (before setting any given here).")
  var clear = false

  func validate() throws {
    if !clear && goal == nil && settings.given.isEmpty {
      throw ValidationError(
        "say what to set: --repeat or --loop, --speed, --ramp-to/--step/--every, --count-in, --click, --gap, --transpose, --volume or --goal (or --clear)"
      )
    }
  }

  func run() throws {
    let (library, song, selection) = try target.resolve()
    let practice: SelectionPractice
    do {
      practice = try library.setPractice(
        of: selection, song: song, adding: settings.given, goal: goal, clearing: clear)
    } catch is NoBeatMap {
      throw noBeatMap(song)
    } catch GoalProblem.tempoUnknown {
      throw PracticeError(
        .usage,
        "--goal \(goal.map { "\($0)" } ?? ""): selection '\(selection.name)' has too few beats in the beat map to tell its tempo; give a speed (100%)"
      )
    } catch GoalProblem.speedOutOfRange(let speed) {
      throw PracticeError(
        .usage,
        "--goal \(goal.map { "\($0)" } ?? "") is \(Int((speed * 100).rounded()))% of the selection's tempo; a goal must be 25% to 200%"
      )
    }
    let options = options(of: practice.settings).joined(separator: " ")
    Terminal.say(
      "'\(song.title)': selection '\(selection.name)' plays with "
        + (options.isEmpty ? "no settings of its own" : options)
        + (try practice.goal.map { "; goal \(try library.goalText($0, of: selection))" }
          ?? ""))
  }
}

struct SelectRemove: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rm", abstract: "Remove a selection.")
  @OptionGroup var target: SelectionTarget

  func run() throws {
    let (library, song, selection) = try target.resolve()
    try library.removeSelection(selection)
    Terminal.say("'\(song.title)': removed selection '\(selection.name)'")
  }
}

/// Shared body of move, halve and double: load, reshape (`SelectionReshape`), store, report.
func reshapeSelection(_ target: SelectionTarget, _ reshape: SelectionReshape) throws {
  var (library, song, selection) = try target.resolve()
  let map = try library.beatMap(for: song)
  let was = describe(selection, song: song, map: map).text
  do {
    selection.span = try reshape.apply(to: selection.span, beatMap: map, totalFrames: song.frames)
  } catch ReshapeRefusal.noBeatMap {
    throw noBeatMap(song)
  } catch ReshapeRefusal.noLongerFits(let range) {
    throw PracticeError(.usage, noLongerFits(selection, range, song: song, map: map) + " first")
  } catch ReshapeRefusal.notInSong(let error) {
    // The bars were the selection's, not a --bars the player typed.
    throw PracticeError(.usage, "selection '\(selection.name)' cannot be so: \(error.description)")
  }
  try library.updateSelection(selection)
  let done: String
  switch reshape {
  case .move(let bars) where bars == 0: done = "left selection '\(selection.name)' where it was"
  case .move(let bars):
    done = "moved selection '\(selection.name)' \(counted(abs(bars), "bar")) "
      + (bars < 0 ? "earlier" : "later")
  case .halve(let second):
    done = "kept the \(second ? "second" : "first") half of selection '\(selection.name)'"
  case .double: done = "doubled selection '\(selection.name)' from its start"
  }
  let now = describe(selection, song: song, map: map).text
  Terminal.say("'\(song.title)': \(done): \(now) (was \(was))")
}

struct SelectMove: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "move", abstract: "Shift a bar selection by N bars (negative: earlier).")
  @OptionGroup var target: SelectionTarget
  @Option(
    parsing: .unconditional, help: ArgumentHelp("Bars to shift by: 4, -2, +8.", valueName: "±N"),
    transform: Parse.count(in: -100_000...100_000, "bars"))
  var by: Int

  func run() throws {
    try reshapeSelection(target, .move(bars: by))
  }
}

struct SelectHalve: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "halve",
    abstract: "Keep the first half of a selection (or the second, with --second).")
  @OptionGroup var target: SelectionTarget
  @Flag(help: "Keep the second half.") var second = false

  func run() throws {
    try reshapeSelection(target, .halve(second: second))
  }
}

struct SelectDouble: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "double", abstract: "Make a selection twice as long from the same start.")
  @OptionGroup var target: SelectionTarget

  func run() throws {
    try reshapeSelection(target, .double)
  }
}
