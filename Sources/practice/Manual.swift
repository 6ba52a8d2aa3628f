import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

/// The parts of practice(1) that the argument parser's `generate-manual` cannot make from
/// the command definitions: the player's keys, the exit status, the environment, the
/// files and the examples. `practice --manual-sections` prints them as mdoc, and
/// `scripts/make-man.sh` puts them into the page `generate-manual` made.
enum Manual {
  /// The keys `play` reads at a terminal: the player's own table.
  static var keys: [(key: String, action: String)] { PlayerKeys.manual }

  /// The exit codes (DESIGN.md's table), each from the category that picks it.
  static let exitStatus: [(code: Int32, meaning: String)] = [
    (0, "Done."),
    (ExitStatus.code(for: .other), "Other failure."),
    (
      ExitStatus.code(for: .usage),
      "Bad usage: unknown command or option, a malformed or impossible range, a number out of "
        + "its range, an ambiguous title, a name or note with a control character."
    ),
    (
      ExitStatus.code(for: .badData),
      "Bad data: unreadable or corrupt audio, audio that ends before the length its file "
        + "declares (play and render finish what decodes first, and say where it ended), a "
        + "malformed beat file, a database that is not a practice library or is from a newer "
        + "practice."
    ),
    (
      ExitStatus.code(for: .missingInput),
      "Missing input: no such file, song, id or selection; no beat map for --bars."
    ),
    (
      ExitStatus.code(for: .deviceUnavailable),
      "The audio device is unavailable or was lost; for pull, the repository cannot be reached "
        + "(offline)."
    ),
    (ExitStatus.code(for: .cannotCreate), "Cannot create the output file or the library."),
    (ExitStatus.code(for: .io), "I/O error while reading or writing."),
    (
      ExitStatus.code(for: .busy),
      "The library was busy beyond the 5 s timeout (another practice is writing); retry later."
    ),
    (128 + SIGINT, "Interrupted (Ctrl-C or SIGINT), after a clean stop."),
    (ExitStatus.terminated, "Terminated (SIGTERM), after the same clean stop."),
  ]

  /// Every variable the program reads.
  static let environment: [(name: String, meaning: String)] = [
    ("PRACTICE_DB", "The library, when --db is not given."),
    (
      "XDG_DATA_HOME",
      "Where the library is kept without --db or PRACTICE_DB (default ~/.local/share)."
    ),
    ("HOME", "The home directory, for the default library."),
    ("PRACTICE_DEVICE", "The ALSA playback device when --device is not given (default: default)."),
    ("PRACTICE_CAPTURE", "The ALSA capture device of tune (default: default)."),
    (
      "PRACTICE_TRACE",
      "When set, play, render and beats tap print timing trace lines on stderr, for the benchmarks."
    ),
    (
      "PRACTICE_BEAT_MODEL",
      "How beats detect finds the beats, for comparison: downbeats (the default: the tracker's "
        + "beats, the bars chosen hearing the beat network's downbeats too: --method onsets), tracker (without "
        + "the network), hybrid (the tracker hearing the network's beats too), net (--method network: the bar "
        + "pointer over the network), bar or free (the bar pointer over learned patterns)."
    ),
    (
      "PRACTICE_BEAT_OBSERVATIONS",
      "A file the bar-pointer model writes what it hears to, for training its patterns."
    ),
    (
      "PRACTICE_BEAT_FEATURES",
      "A file beats detect writes the beat network's input bands to, for training it."
    ),
    (
      "PRACTICE_BEAT_DOUBT",
      "A file beats detect appends one JSON line a map to: the measures its unclear-beat "
        + "warning is decided on, for fitting that warning (bench/beats/warning_fit.py)."
    ),
    (
      "PRACTICE_LEVEL_CHOICE",
      "How beats detect questions a song's metrical level (off to keep the reading's own; "
        + "for measuring: hearing=network|onsets|both, up=R, down=R, three=R (three times "
        + "the tempo), threeTwo=R (3/2 the tempo), force=up|three|threeTwo|down, "
        + "prior=W (a tempo prior W octaves wide, centred at 120 BPM), measure=1, "
        + "which start from off). Without it, twice the tempo is taken where the beat network "
        + "hears the extra beats at least half as much as the others."
    ),
    (
      "PRACTICE_DOWNBEAT_CUES",
      "How beats detect weighs what marks a downbeat, for measuring: harmony=W, bass=W, "
        + "accent=W, network=W, and decides=X (where the chords mark no beat of the bar by X, "
        + "the beat network alone places the bars; off by default)."
    ),
    (
      "PRACTICE_CHORD_SETTINGS",
      "Knobs of chords detect, for tuning it (bench/chords.py): name=value pairs separated by "
        + "commas, such as changeCost=0.4,bassWeight=0.35; unknown names are ignored."
    ),
    ("COLUMNS", "The width of tables when the terminal's own width cannot be read."),
    (
      "NO_COLOR",
      "When set (to anything), `view` draws without colour at a terminal too; nothing else "
        + "is coloured (tables, status lines and errors are plain text)."
    ),
  ]

  static let files: [(path: String, meaning: String)] = [
    (
      "${XDG_DATA_HOME:-~/.local/share}/practice/library.sqlite",
      "The library: songs (paths and fingerprints, never audio), beat maps, selections and the "
        + "practice log. With its -wal and -shm files while in use."
    ),
    (
      ".NAME.PID-RANDOM.partial",
      "Every file practice writes (render, export, view -o, stats -o, setlist print -o NAME) is "
        + "written beside it under this hidden name, created exclusively and never through a "
        + "link, flushed to the disk and renamed into place when done; a failure removes it. A "
        + "link at NAME is replaced, never followed; a directory, a device, the library in use "
        + "and any SQLite database are never written over (exit 73)."
    ),
  ]

  /// A first hour with a recording, each step with the commands it takes.
  static let examples: [(step: String, commands: [String])] = [
    (
      "Add a recording, find its beats and bars, and check them:",
      [
        "practice add song.m4a", "practice beats detect song.m4a", "practice beats show song.m4a",
      ]
    ),
    (
      "If the bars came out at half the tempo, double the beats; if bar 1 starts on the "
        + "wrong beat (here on its third), make that beat the downbeat; undo takes the last "
        + "fix back:",
      [
        "practice beats double song.m4a", "practice beats downbeat song.m4a --bar 1.3",
        "practice beats undo song.m4a",
      ]
    ),
    (
      "Loop bars 9 to 16 at 75 % speed, after a one-bar count-in, with a click on the beat "
        + "(q stops):",
      ["practice play song.m4a --bars 9-16 --loop --speed 75% --count-in 1 --click"]
    ),
    (
      "Keep the solo as a selection that starts at 70 % and comes up 5 points every two "
        + "passes, with a goal, and drill it:",
      [
        "practice select add song.m4a solo --bars 17-24",
        "practice select set song.m4a solo --speed 70% --ramp-to 100% --step 5% --every 2 "
          + "--goal 100%",
        "practice play song.m4a --select solo --repeat 14",
      ]
    ),
    (
      "See what was played this week, the totals, and what to practise next:",
      ["practice log --since 7d", "practice stats", "practice today"]
    ),
    (
      "Take the drill away as a file, four passes at 80 %:",
      ["practice render song.m4a --bars 9-16 --speed 80% --repeat 4 -o drill.flac"]
    ),
  ]

  /// KEYS, ENVIRONMENT, FILES, EXIT STATUS and EXAMPLES as mdoc(7).
  static func mdoc() -> String {
    func list(_ title: String, _ intro: String?, _ items: [(String, String)], macro: String? = nil)
      -> [String]
    {
      var lines = [".Sh \(title)"]
      if let intro { lines.append("\\&" + escaped(intro)) }
      lines.append(".Bl -tag -width 6n")
      for (head, body) in items {
        let prefix = macro.map { "\($0) " } ?? ""
        lines.append(".It " + prefix + quoted(head))
        lines.append("\\&" + escaped(body))
      }
      lines.append(".El")
      return lines
    }
    var lines: [String] = []
    lines += list(
      "KEYS", "At a terminal, play reads single keys without stopping the music:",
      keys.map { ($0.key, $0.action) })
    lines += list("ENVIRONMENT", nil, environment.map { ($0.name, $0.meaning) }, macro: "Ev")
    lines += list("FILES", nil, files.map { ($0.path, $0.meaning) }, macro: "Pa")
    lines += list("EXIT STATUS", nil, exitStatus.map { ("\($0.code)", $0.meaning) })
    lines.append(".Sh EXAMPLES")
    for (index, example) in examples.enumerated() {
      if index > 0 { lines.append(".Pp") }
      lines.append("\\&" + escaped(example.step))
      lines.append(".Bd -literal -offset indent")
      lines += example.commands.map { "\\&" + escaped($0) }
      lines.append(".Ed")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Text for a roff line: a backslash as `\e`.
  private static func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\e")
  }

  /// One macro argument, quoted so that its words are not read as macros or delimiters.
  private static func quoted(_ text: String) -> String {
    "\"\\&" + escaped(text).replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}
