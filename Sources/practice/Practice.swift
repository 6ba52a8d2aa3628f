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
    subcommands: [
      Add.self, List.self, Show.self, Remove.self, Play.self, Render.self, Beats.self, Select.self,
      LogCommand.self, Stats.self, Tune.self, Tone.self, Tuning.self,
    ])

  /// Parses, runs, and turns every failure into one stderr line and its exit code.
  static func main() {
    do {
      let arguments = Array(CommandLine.arguments.dropFirst())
      try refuseDashNames(arguments)
      var command = try parseAsRoot(PlaybackOptions.expandingOptionalValues(arguments))
      try command.run()
    } catch let failure as any PracticeFailure {
      LibraryOptions.undoFirstUse()
      Terminal.error(failure.description)
      Foundation.exit(ExitStatus.code(for: failure.category))
    } catch let code as ExitCode {
      // A command that chose its exit status (130 after a clean stop) has said its piece.
      Foundation.exit(code.rawValue)
    } catch {
      LibraryOptions.undoFirstUse()
      let code = exitCode(for: error)
      // Help and version go out as the argument parser prints them; every other parser
      // error is one line, like the rest.
      guard code != .success else { exit(withError: error) }
      let message = message(for: error).split(whereSeparator: \.isNewline)
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        .joined(separator: "; ")
      Terminal.error(message.isEmpty ? "invalid arguments; see `practice help`" : message)
      Foundation.exit(code.rawValue)
    }
  }

  /// A single-dash word that is not a number (`-dash.wav`) would be read as a cluster of
  /// short flags (and `-h` in it shows the help); it is refused before parsing, with the
  /// way to name such a file. Everything after `--` is a name.
  static func refuseDashNames(_ arguments: [String]) throws {
    for argument in arguments {
      if argument == "--" { return }
      guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2,
        !argument.contains(where: \.isWhitespace)
      else {
        continue
      }
      let second = argument[argument.index(after: argument.startIndex)]
      if second.isNumber || second == "." { continue }  // -6dB, -1, -.5: values
      throw PracticeError(
        .usage,
        "'\(argument)' is not an option; to name a file that starts with '-', write "
          + "./\(argument) or put it after -- (practice add -- \(argument))")
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
