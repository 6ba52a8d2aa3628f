import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

/// `--bars A-B` or `--from T --to T`: the part of the map a fix applies to (the whole map
/// when none is given).
struct FixSpanOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Bars to fix: 9-16, 9.3-12.2 (bar.beat) or 9- (to the end).", valueName: "range"),
    transform: Parse.openBars)
  var bars: BarRangeText?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Fix the beats from this time: 83.5, 1:23.5 or 1:02:03.5.", valueName: "time"),
    transform: Parse.time)
  var from: TypedTime?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("… up to this time (the beats before it).", valueName: "time"),
    transform: Parse.time)
  var to: TypedTime?

  func validate() throws {
    if bars != nil && (from != nil || to != nil) {
      throw ValidationError("give --bars, or --from and --to, not both")
    }
    if let from, let to, to.seconds <= from.seconds {
      throw ValidationError(
        "--to \(formatSeconds(to.seconds)) is not after --from \(formatSeconds(from.seconds))")
    }
  }

  /// The span on `map`, and the options that gave it (for the change's summary).
  func resolve(_ map: BeatMap) throws -> (span: BeatMapSpan, option: String) {
    let span = try BeatMapSpan(bars: bars, from: from?.seconds, to: to?.seconds, on: map)
    let times = (from.map { " --from \($0)" } ?? "") + (to.map { " --to \($0)" } ?? "")
    return (span, bars.map { " --bars \($0)" } ?? times)
  }
}

struct BeatsDouble: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "double",
    abstract: "Twice the beats: a beat half-way between each two, in bars of the same meter.",
    discussion: """
      For a map detected at half the tempo. The bars of the span become twice as many \
      (bars 9-16 in 4/4 become bars 9-24) and the bars after it follow on; selections keep \
      their music and are renamed (one line each on stderr). `beats undo` takes it back.
      """)

  @OptionGroup var target: SongInLibrary
  @OptionGroup var span: FixSpanOptions

  func run() throws {
    try runSpanFix(target, span: span, verb: "double") {
      .double(from: $0, to: $1)
    }
  }
}

struct BeatsHalve: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "halve",
    abstract:
      "Half the beats: every other one left out, the downbeats kept, bars of the same meter.",
    discussion: """
      For a map detected at twice the tempo. Counting from the bar the span starts in, every \
      other beat goes, so its downbeat stays; two bars become one (bars 9-16 in 4/4 become \
      bars 9-12) and the bars after follow on; selections keep their music and are renamed. \
      `beats undo` takes it back.
      """)

  @OptionGroup var target: SongInLibrary
  @OptionGroup var span: FixSpanOptions

  func run() throws {
    try runSpanFix(target, span: span, verb: "halve") {
      .halve(from: $0, to: $1)
    }
  }
}

/// `beats double` and `beats halve`: resolves the span on the song's map, applies the fix and
/// says what it did.
private func runSpanFix(
  _ target: SongInLibrary, span: FixSpanOptions, verb: String,
  fix: (Int64?, Int64?) -> BeatMapFix
) throws {
  let (library, song, map) = try target.resolveWithMap()
  let (span, option) = try span.resolve(map)
  let result = try library.fixBeatMap(
    of: song, fix(span.from, span.to), summary: "beats \(verb)\(option)")
  guard let after = result.after else { return }
  let past = verb == "double" ? "doubled" : "halved"
  Terminal.say(
    "'\(song.title)': \(past) the beats of \(span.label), \(result.before.beats.count) → \(after.beats.count) "
      + "beats; \(after.barsDescription) now (was \(result.before.barsDescription))")
  sayFollowed(result.followed, upset: result.selectionsUpset, song: song, map: after)
}

struct BeatsDownbeat: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "downbeat",
    abstract: "Make a beat a downbeat: every bar line moves with it, the pickup too.",
    discussion: """
      --at takes the time of the beat (within a quarter of a beat of it); --bar its bar.beat \
      as the map counts it now. The bars keep their lengths and every bar line moves by the \
      same number of beats, before it too; the beats before the first bar line form the \
      pickup bar 0. Selections keep their music and are renamed. `beats undo` takes it back.
      """)

  @OptionGroup var target: SongInLibrary
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("The beat's time: 83.5, 1:23.5 or 1:02:03.5.", valueName: "time"),
    transform: Parse.time)
  var at: TypedTime?
  @Option(
    help: ArgumentHelp("The beat as the map counts it now: 9.3.", valueName: "bar.beat"),
    transform: Parse.beat)
  var bar: BarPosition?

  func validate() throws {
    guard (at == nil) != (bar == nil) else {
      throw ValidationError("say which beat: --at TIME or --bar BAR.BEAT (one of them)")
    }
  }

  func run() throws {
    let (library, song, map) = try target.resolveWithMap()
    let fix: BeatMapFix
    let option: String
    if let bar {
      guard let found = BeatMapFix.downbeat(at: bar, on: map) else {
        throw PracticeError(
          .usage, "--bar \(bar) is not a beat of this song; it has \(map.barsDescription)")
      }
      (fix, option) = (found, " --bar \(bar)")
    } else {
      fix = .downbeat(atSeconds: at?.seconds ?? 0, sampleRate: song.sampleRate)
      option = " --at \(at?.text ?? "")"
    }
    let result = try library.fixBeatMap(of: song, fix, summary: "beats downbeat\(option)")
    guard let after = result.after else {
      Terminal.say("'\(song.title)': that beat is a downbeat already; the map is unchanged")
      return
    }
    let beat = after.beats[after.nearestBeat(to: fix.downbeatFrame ?? 0)]
    Terminal.say(
      "'\(song.title)': the beat at \(formatTime(Double(beat.frame) / Double(song.sampleRate))) "
        + "starts bar \(beat.bar); \(after.barsDescription) now (was \(result.before.barsDescription))"
    )
    sayFollowed(result.followed, upset: result.selectionsUpset, song: song, map: after)
  }
}

struct BeatsUndo: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "undo",
    abstract: "Bring back the beat map the song had before its last change.",
    discussion: """
      Every change to a map (grid, import, detect, tap, shift, meter, double, halve, downbeat, \
      and `practice import` of a .practice file) keeps the map before it, the last \
      \(Library.beatMapHistoryDepth) per song. Undo says which change it took back; selections \
      renamed by that change get their names back. `beats redo` brings the map undone back, \
      until the next change to the map.
      """)

  @OptionGroup var target: SongInLibrary

  func run() throws {
    let (library, song) = try target.resolve()
    sayStepped(try library.undoBeatMapChange(for: song), "undid", song: song)
  }
}

struct BeatsRedo: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "redo",
    abstract: "Bring back the beat map the last `beats undo` took away.",
    discussion: """
      Redo takes back undos, newest first, as an editor does; selections follow as they did \
      for the change. A new change to the map (a fix, grid, import, detect, tap) drops what \
      was left to redo. With nothing to redo it says so and exits 64, the map as it was.
      """)

  @OptionGroup var target: SongInLibrary

  func run() throws {
    let (library, song) = try target.resolve()
    sayStepped(try library.redoBeatMapChange(for: song), "redid", song: song)
  }
}

/// The one-line report of an undo or redo, then the selections that followed.
private func sayStepped(_ step: BeatMapUndone, _ verb: String, song: Song) {
  let made = "`\(step.change.summary)` (\(formatLocalClock(step.madeAt)))"
  var kept = [
    step.remaining == 0 ? "no earlier map kept" : "\(counted(step.remaining, "earlier map")) kept"
  ]
  if step.redoable > 0 { kept.append("\(step.redoable) to redo") }
  let left = kept.joined(separator: ", ")
  if let map = step.restored {
    Terminal.say(
      "'\(song.title)': \(verb) \(made); \(map.barsDescription) again, \(map.beats.count) beats (\(left))"
    )
  } else {
    Terminal.say("'\(song.title)': \(verb) \(made); the song has no beat map again (\(left))")
  }
  sayFollowed(step.followed, upset: step.selectionsUpset, song: song, map: step.restored)
}

/// One line on stderr per selection (and the resume point) whose bars a change of the map
/// renamed, then a warning for each selection it left without its passage.
func sayFollowed(_ followed: [BarsFollowed], upset: [SelectionUpset], song: Song, map: BeatMap?) {
  for change in followed {
    switch change.owner {
    case .selection(let name):
      Terminal.say("selection '\(name)' is now \(change.new.label) (was \(change.old))")
    case .resumePoint:
      Terminal.say(
        "play --resume continues in the same music, now called \(change.new.label) "
          + "(was \(change.old))")
    }
  }
  warn(of: upset, song: song, map: map)
}
