import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

/// `practice setlist play`: the entries in order (`SetlistRunner`), each through `playSong`
/// (the engine, log, resume points, keys and status line of `play`) with the request the
/// entry makes.
struct SetlistPlay: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "play",
    abstract: "Play a setlist's entries in order, each with its selection, key, speed and repeats.",
    discussion: """
      Every entry is played as `practice play` would play it (and logged as a play): its \
      selection, transpose, speed and repeats as the setlist says, the selection's own \
      settings (`select set`) for the rest. At a terminal, n plays the next entry and p the \
      previous one (in a pause: the one just played, again); q or Esc stops the setlist; \
      the other keys are those of `play`. With no keys read (stdin not a terminal, or \
      --no-keys), an entry whose selection loops plays as it would without the loop (once, \
      or its drill up to the target), saying so in one line. Ctrl-C stops the setlist \
      (exit 130; the entry playing is logged as interrupted). An entry that cannot be \
      played (its file is missing, it needs a beat map the song lacks, its selection is \
      gone) costs one warning line and is skipped; the others play, and the setlist ends \
      with the exit status of the first that failed (66 missing input, 65 bad data, 64 unusable entry). An entry \
      whose audio ends early (a file cut short) plays to where it ends, with one warning \
      line, and counts as failed with 65, as `play` does.
      """)

  @OptionGroup var setlist: SetlistName
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Start at this entry (1 is the first).", valueName: "position"),
    transform: Parse.position)
  var from: Int = 1
  @Option(
    name: .customLong("count-in"), parsing: .unconditional,
    help: ArgumentHelp(
      "Bars of click before each entry (needs the song's beat map).", valueName: "bars"),
    transform: wholeNumber(PracticeSettings.countInRange, "use 0 to 16 bars"))
  var countIn: Int?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Silence between entries: 5s, 1.5s, 0s (up to 600s).", valueName: "time"),
    transform: parsed(by: SetlistPlay.parsePause, "not a time; write 5s or 1.5s (up to 600s)"))
  var pause: Double?
  @Flag(help: "Between entries, wait for a key (Enter when stdin is not a terminal).")
  var wait = false
  @OptionGroup var output: PlayOutputOptions

  /// `5s`, `5`, `1.5s`: seconds, 0 to 600.
  static func parsePause(_ text: String) -> Double? {
    let number = text.hasSuffix("s") ? String(text.dropLast()) : text
    guard let seconds = parseTime(number), seconds.isFinite, (0...600).contains(seconds) else {
      return nil
    }
    return seconds
  }

  func validate() throws {
    if wait && pause != nil {
      throw ValidationError("--pause and --wait cannot be combined; use one")
    }
  }

  func run() throws {
    let library = try setlist.library.open()
    let found = try library.setlist(named: setlist.name)
    var runner: SetlistRunner
    do {
      runner = try SetlistRunner(found, from: from, countIn: countIn)
    } catch .empty {
      throw PracticeError(
        .missingInput, "setlist '\(found.name)' is empty; add songs with `practice setlist add`")
    } catch .noSuchPosition(let position, let count) {
      throw PracticeError(
        .usage, "--from \(position): setlist '\(found.name)' has \(entryCount(count))")
    }
    let keys = !output.noKeys && isatty(STDIN_FILENO) == 1
    let pauseSeconds = pause ?? 0
    let count = runner.entries.count
    while let entry = runner.current {
      var move: SetlistRunner.Move?
      var heading = "\(runner.position)/\(count)"
      do {
        guard let song = try library.song(id: entry.songID) else {
          throw PracticeError(.missingInput, "song \(entry.songID) is no longer in the library")
        }
        heading += " '\(song.title)'" + (entry.selection.map { " — \($0)" } ?? "")
        Terminal.say(heading)
        Session.endedEarly.store(false, ordering: .relaxed)
        // Never a beat map detected in the middle of a setlist.
        let ending = try playSong(
          song, library: library, request: runner.request(for: entry, keys: keys), detect: false,
          output: output, heading: heading,
          extraKey: keys
            ? { key in
              switch key {
              case .char("n"): move = .next
              case .char("p"): move = .previous
              case .char("q"), .escape: move = .quit
              default: return false
              }
              return true
            } : nil)
        // Played to where its audio ends, with the warning: an entry that failed (65).
        let cut = Session.endedEarly.load(ordering: .relaxed)
        let pauseDue = runner.played(
          ending, move: move,
          cutShort: cut ? PracticeError(.badData, "its audio ends early") : nil)
        // Between two entries that ran their course: the pause, or a key.
        guard pauseDue, wait || pauseSeconds > 0 else { continue }
        runner.afterPause(
          try between(
            seconds: wait ? nil : pauseSeconds, keys: keys, next: "\(runner.position)/\(count)"))
      } catch let failure as any PracticeFailure
        where [.missingInput, .badData, .usage].contains(failure.category)
      {
        Terminal.warning("\(heading): \(worded(failure)); skipped")
        runner.failed(failure, move: move)  // no pause after an entry not played
      }
    }
    let (skipped, cut) = (runner.skipped, runner.cutShort)
    let cutWords = "\(cut.count) ended early (\(cut.map(String.init).joined(separator: ", ")))"
    if let first = runner.failures.first, !skipped.isEmpty {
      let positions = skipped.map(String.init).joined(separator: ", ")
      throw PracticeError(
        first.failure.category,
        "setlist '\(found.name)': \(skipped.count) of the entries could not be played "
          + "(\(positions))\(cut.isEmpty ? "" : ", \(cutWords)"); the warnings above say why")
    }
    Terminal.say("setlist '\(found.name)': played \(entryCount(runner.played))")
    // Every entry played, some only to where their audio ends: the warnings said so, and
    // the exit status is that of `play` (65).
    if let first = runner.failures.first(where: \.played) {
      throw ExitCode(ExitStatus.code(for: first.failure.category))
    }
  }

  /// The pause between entries (`SetlistPause`); Ctrl-C stops the setlist (exit 130).
  private func between(seconds: Double?, keys: Bool, next: String) throws -> SetlistRunner.Move? {
    let (move, interrupted) = try SetlistPause.wait(seconds: seconds, keys: keys, next: next)
    if interrupted { throw ExitCode(ExitStatus.interrupted) }
    return move
  }
}

/// `1 entry`, `3 entries`.
