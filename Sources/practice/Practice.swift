import ArgumentParser
import Foundation
import PracticeCore

@main
struct Practice: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "practice",
    abstract: "A music practice player: loop, slow down and drill parts of a recording.",
    discussion: """
      SONG is an audio file path (added to the library on first use), a library id, or \
      a title matching exactly one song (case-insensitive).
      """,
    version: "0.1.0",
    subcommands: [Add.self, List.self, Show.self, Remove.self, Play.self, Render.self, Beats.self, Select.self, LogCommand.self, Stats.self, Tune.self, Tone.self, Tuning.self])

  /// Parses, runs, and turns every failure into one stderr line and its exit code.
  static func main() {
    do {
      var command = try parseAsRoot(
        PlaybackOptions.expandingOptionalValues(Array(CommandLine.arguments.dropFirst())))
      try command.run()
    } catch let failure as any PracticeFailure {
      Terminal.error(failure.description)
      Foundation.exit(ExitStatus.code(for: failure.category))
    } catch {
      exit(withError: error)
    }
  }
}

/// The exit codes of ../shared/DESIGN.md ("Errors").
enum ExitStatus {
  static let interrupted: Int32 = 130

  static func code(for category: FailureCategory) -> Int32 {
    switch category {
    case .usage: return 64
    case .badData: return 65
    case .missingInput: return 66
    case .deviceUnavailable: return 69
    case .cannotCreate: return 73
    case .io: return 74
    case .busy: return 75
    case .other: return 1
    }
  }
}

/// Stderr is talk: errors, warnings and short reports. Stdout is left for data.
enum Terminal {
  static func error(_ message: String) { say("practice: \(message)") }
  static func warning(_ message: String) { say("practice: warning: \(message)") }

  static func say(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }

  /// Writes `text` to stdout in one go.
  static func output(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
  }
}
