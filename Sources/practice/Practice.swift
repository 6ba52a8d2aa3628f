import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

@main
struct Practice: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "practice",
    abstract: "A music practice player: loop, slow down and drill parts of a recording.",
    discussion: """
      SONG is an audio file path (added to the library on first use), a library id, or \
      a title: the song whose whole title it is, else the one song whose title holds it \
      (case-insensitive; several such songs exit 64 listing them). At a terminal, lists \
      are aligned tables with a header line; piped, they are tab-separated records, one a \
      line. The option --db FILE may also come before the command.
      """,
    version: "0.1.0",
    subcommands: [
      Add.self, List.self, Show.self, Remove.self, Play.self, Render.self, Beats.self, Chords.self,
      Select.self,
      View.self, ResumeCommand.self, LogCommand.self, Stats.self, Today.self, Tune.self,
      Tone.self, Tuning.self, SetDetails.self, SetlistCommand.self, Export.self, Import.self,
      RepoCommand.self, Pull.self,
    ])

  @Flag(name: .customLong("manual-sections"), help: .hidden)
  var manualSections = false

  /// `practice` alone shows the help; `--manual-sections` prints what `make man` adds to
  /// the generated page (Manual.swift).
  mutating func run() throws {
    guard manualSections else { throw CleanExit.helpRequest(self) }
    Terminal.data(Manual.mdoc())
  }

  /// Parses, runs, and turns every failure into one stderr line and its exit code.
  static func main() {
    SignalGate.install()
    do {
      // Read as bytes: a file name that is not UTF-8 is kept (PathBytes), not replaced.
      let arguments = movingGlobalOptions(Array(PathBytes.arguments().dropFirst()))
      try refuseUnknownCommands(arguments)
      try refuseDashNames(arguments)
      var command = try parseAsRoot(PlaybackOptions.expandingOptionalValues(arguments))
      try command.run()
      LibraryOptions.opened.closeAll()
    } catch let failure as any PracticeFailure {
      LibraryOptions.opened.undoFirstUse()
      LibraryOptions.opened.closeAll()
      Terminal.error(worded(failure))
      Foundation.exit(ExitStatus.code(for: failure.category))
    } catch let code as ExitCode {
      // A command that chose its exit status (130 after a clean stop) has said its piece,
      // and taken back what its failed parts added; a library it made and left empty goes.
      if code.rawValue != 0 { LibraryOptions.opened.removeEmptyCreated() }
      LibraryOptions.opened.closeAll()
      Foundation.exit(code.rawValue)
    } catch {
      LibraryOptions.opened.undoFirstUse()
      LibraryOptions.opened.closeAll()
      let code = exitCode(for: error)
      // The parser checks a command's own rules before it looks for options it does not
      // know, so `tone A4 --secs 1` would be told that '1' is not a note.
      if code != .success, let unknown = unknownOption(in: movingGlobalOptions(Array(PathBytes.arguments().dropFirst()))) {
        Terminal.error(unknown)
        Foundation.exit(ExitCode.validationFailure.rawValue)
      }
      // Help and version go out as the argument parser prints them; every other parser
      // error is one line, like the rest.
      guard code != .success else { exit(withError: error) }
      let message = message(for: error).split(whereSeparator: \.isNewline)
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        .joined(separator: "; ")
      let arguments = movingGlobalOptions(Array(PathBytes.arguments().dropFirst()))
      Terminal.error(
        message.isEmpty
          ? "invalid arguments; see `practice help`"
          : reworded(message) + (quotingHint(message, arguments: arguments) ?? ""))
      Foundation.exit(code.rawValue)
    }
  }

  /// For the parser's "Unexpected argument 'blues'" after `practice play city blues`: the
  /// words run together as they were meant, `; a title or name with spaces goes in quotes:
  /// 'city blues'`. Nil when the word before the first unexpected one is an option, its
  /// value, or a command's name (then there is nothing to join).
  static func quotingHint(_ message: String, arguments: [String]) -> String? {
    guard message.hasPrefix("Unexpected argument '") || message.contains(" unexpected arguments: '")
    else { return nil }
    let quoted = message.split(separator: "'", omittingEmptySubsequences: false)
    let unexpected = stride(from: 1, to: quoted.count - 1, by: 2).map { String(quoted[$0]) }
    guard let first = unexpected.first,
      let at = arguments.prefix(while: { $0 != "--" }).firstIndex(of: first), at >= 1
    else { return nil }
    var command: any ParsableCommand.Type = Practice.self
    for word in arguments.prefix(at) {
      guard
        let next = command.configuration.subcommands.first(where: {
          $0.configuration.commandName == word
        })
      else { break }
      command = next
    }
    let before = arguments[at - 1]
    let names = Set(
      [command.configuration.commandName ?? ""]
        + command.configuration.subcommands.compactMap { $0.configuration.commandName })
    guard !before.hasPrefix("-"), !names.contains(before),
      at < 2 || !arguments[at - 2].hasPrefix("-")
    else { return nil }
    let words = [before] + unexpected
    guard words.contains(where: { Int($0) == nil }) else { return nil }  // ids: `play 3 4`
    return "; a title or name with spaces goes in quotes: '\(words.joined(separator: " "))'"
  }

  /// The argument parser's "The value '20%' is invalid for '--speed <speed>': must be …"
  /// as `--speed 20%: must be …`; other messages as they are.
  static func reworded(_ message: String) -> String {
    let head = "The value '"
    guard message.hasPrefix(head),
      let middle = message.range(of: "' is invalid for '", options: .backwards)
    else { return message }
    let value = message[message.index(message.startIndex, offsetBy: head.count)..<middle.lowerBound]
    let rest = message[middle.upperBound...]
    guard let close = rest.firstIndex(of: "'") else { return message }
    let option = rest[..<close].split(separator: " ").first.map(String.init) ?? ""
    let reason = rest[rest.index(after: close)...].drop { $0 == ":" || $0 == " " || $0 == "." }
    let said = reason.replacingOccurrences(of: "Please provide one of ", with: "use one of ")
    return "\(option) \(value): " + (said.isEmpty ? "not a valid value; see --help" : said)
  }

  /// `practice --db FILE VERB …` works like `practice VERB … --db FILE`: `--db` given before
  /// the verb is moved to the end (before a `--`), where the verb's options are read.
  static func movingGlobalOptions(_ arguments: [String]) -> [String] {
    var moved: [String] = []
    var rest = arguments[...]
    while let first = rest.first {
      if first == "--db", rest.count >= 2 {
        moved += rest.prefix(2)
        rest = rest.dropFirst(2)
      } else if first.hasPrefix("--db=") {
        moved.append(first)
        rest = rest.dropFirst()
      } else {
        break
      }
    }
    guard !moved.isEmpty, !rest.isEmpty else { return arguments }
    var result = Array(rest)
    result.insert(contentsOf: moved, at: result.firstIndex(of: "--") ?? result.endIndex)
    return result
  }

  /// A verb (or a `beats`/`select` subcommand) that does not exist is refused with the
  /// nearest one (`lst` → `list`).
  static func refuseUnknownCommands(_ arguments: [String]) throws {
    var command: any ParsableCommand.Type = Practice.self
    var words: [String] = []
    for argument in arguments {
      let subcommands = command.configuration.subcommands
      guard !subcommands.isEmpty, !argument.hasPrefix("-") else { return }
      let names = subcommands.compactMap { $0.configuration.commandName }
      if let next = subcommands.first(where: { $0.configuration.commandName == argument }) {
        command = next
        words.append(argument)
        continue
      }
      if command == Practice.self && argument == "help" { return }
      let scope = (["practice"] + words).joined(separator: " ")
      let suggestion =
        Nearest.name(to: argument, among: names) { _ in max(1, min(2, argument.count / 2)) }
        .map { "did you mean '\($0)'? " } ?? ""
      throw PracticeError(
        .usage,
        "unknown command '\(scope) \(argument)'; \(suggestion)the commands are "
          + names.joined(separator: ", "))
    }
  }

  /// The first `--name` (before a lone `--`) that the command it is given to does not
  /// have, as one line with the nearest name the command has; nil if there is none. Read
  /// from the command's own help (hidden options included), only once parsing has failed.
  static func unknownOption<C: Collection<String>>(in arguments: C) -> String? {
    var command: any ParsableCommand.Type = Practice.self
    var path = ["practice"]
    for argument in arguments {
      guard !argument.hasPrefix("-") else { break }
      guard
        let next = command.configuration.subcommands.first(where: {
          $0.configuration.commandName == argument
        })
      else { break }
      command = next
      path.append(argument)
    }
    let help = Practice.helpMessage(for: command, includeHidden: true, columns: 1000)
    let words = help.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") })
    let known = Set(words.filter { $0.hasPrefix("--") && $0.count > 2 }.map(String.init))
    let scope = path.joined(separator: " ")
    for argument in arguments.prefix(while: { $0 != "--" })
    where argument.hasPrefix("--") && argument.count > 2 {
      let name = String(argument.prefix(while: { $0 != "=" }))
      guard !known.contains(name) else { continue }
      let suggestion =
        Nearest.name(to: name, among: known.sorted()) { _ in max(1, min(3, name.count / 3)) }
        .map { "did you mean '\($0)'? " } ?? ""
      return "'\(name)' is not an option of '\(scope)'; \(suggestion)see `\(scope) --help`"
    }
    return nil
  }

  /// A single-dash word that is not a number (`-dash.wav`) would be read as a cluster of
  /// short flags (and `-h` in it shows the help); it is refused before parsing, with the
  /// way to name such a file. Everything after `--` is a name.
  ///
  /// A number with an `h` in it (`-2h`) that no option takes as its value would show the
  /// help and exit 0, so it is refused too (`-440hz` is a frequency, left to its command).
  static func refuseDashNames(_ arguments: [String]) throws {
    for (index, argument) in arguments.enumerated() {
      if argument == "--" { return }
      guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2,
        !argument.contains(where: \.isWhitespace)
      else {
        continue
      }
      let second = argument[argument.index(after: argument.startIndex)]
      if second.isNumber || second == "." {  // -6dB, -1, -.5: values
        let previous = index > 0 ? arguments[index - 1] : ""
        let anOptionsValue = previous.hasPrefix("--") && !previous.contains("=")
        let lower = argument.lowercased()
        if !anOptionsValue, lower.replacingOccurrences(of: "hz", with: "").contains("h") {
          throw PracticeError(
            .usage,
            "'\(argument)' is neither a number practice reads nor an option (a negative "
              + "number is written like -2, -0.5 or -20ms); see the command's --help")
        }
        continue
      }
      throw PracticeError(
        .usage,
        "'\(argument)' is not an option; to name a file that starts with '-', write "
          + "./\(argument) or put it after -- (practice add -- \(argument))")
    }
  }
}

/// The exit codes of ../shared/DESIGN.md ("Errors").
enum ExitStatus {
  /// After a clean stop, 128 + the signal, as a shell reports a process the signal ended:
  /// 143 for SIGTERM, 130 for SIGINT and for Ctrl-C read as a key.
  static var interrupted: Int32 {
    SignalGate.heard.load(ordering: .relaxed) == SIGTERM ? terminated : 128 + SIGINT
  }
  static let terminated: Int32 = 128 + SIGTERM

  static func code(for category: FailureCategory) -> Int32 {
    switch category {
    case .usage: return 64
    case .badData: return 65
    case .missingInput: return 66
    case .deviceUnavailable, .unavailable: return 69
    case .cannotCreate: return 73
    case .io: return 74
    case .busy: return 75
    case .other: return 1
    }
  }
}
