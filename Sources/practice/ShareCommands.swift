import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

struct Export: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Write songs' beat maps, selections, details and setlists to a .practice file.",
    discussion: """
      The file is JSON (the README documents it) and never holds audio: the receiver \
      imports it into a library holding the same recordings, found again by content \
      hash, then by title, artist and duration. --setlist exports a setlist with its songs; \
      --all the whole library with every setlist (a backup).
      """)

  @OptionGroup var library: LibraryOptions
  @OptionGroup var choice: ShareChoice<Exporting>
  @Option(name: .shortAndLong, help: ArgumentHelp("The file to write.", valueName: "file"))
  var output: String

  func validate() throws {
    try choice.check()
    if output.isEmpty { throw ValidationError("-o: the file name is empty") }
  }

  func run() throws {
    let library = try library.open()
    let (songs, setlists) = try choice.resolve(in: library)
    let file = try library.export(songs: songs, setlists: setlists)
    try OutputFile.write(try file.encoded(), to: output)
    Terminal.say(
      "exported \(counted(file.songs.count, "song")) (\(counted(file.beatCount, "beat")), "
        + "\(counted(file.selectionCount, "selection"))) and \(counted(file.setlists.count, "setlist")) to \(output)"
    )
  }
}

struct Import: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Read a .practice file: beat maps, selections, details and setlists of known songs.",
    discussion: """
      Each song is found in this library by content hash, then by title, artist and \
      duration (within 1 s). If any is missing, nothing is imported and the missing ones \
      are listed (exit 66), unless --partial (a setlist is then stored without the missing \
      songs' entries, and a warning says so). A song's own beat map, a selection of the same \
      name and a setlist of the same name are kept unless --replace; key, tempo and note \
      are filled in where the song has none; tags are added. Importing the same file \
      again changes nothing.
      """)

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("The .practice file.", valueName: "file")) var file: String
  @Flag(help: "Import what is found even when some songs are missing.") var partial = false
  @Flag(help: "Replace beat maps, selections and setlists this library already has.")
  var replace = false

  func run() throws {
    let shared = try PracticeFile.read(file)
    let library = try library.open()
    let report = try library.importFile(shared, path: file, partial: partial, replace: replace)
    for missing in report.missing {
      Terminal.warning(
        "not in the library: '\(missing.title)'" + (missing.artist.map { " by \($0)" } ?? "")
          + " (\(formatTime(missing.duration))); add its file and import again")
    }
    for duplicate in report.duplicates {
      Terminal.warning(
        "'\(duplicate.shared.title)' in '\(file)' is the same recording as '\(duplicate.first.title)' "
          + "before it, both found as song \(duplicate.song.id ?? 0) '\(duplicate.song.title)'; "
          + "only the first was imported (add the other copy and import again for both)")
    }
    for shortened in report.setlistsShortened {
      Terminal.warning(
        "setlist '\(shortened.name)' stored with \(shortened.stored) of its \(shortened.entries) "
          + "entries: the others' songs are not in the library; add them and import again "
          + "with --replace for the whole setlist")
    }
    Terminal.records(report.found.map { ["\($0.song.id ?? 0)", $0.song.title] })
    var parts = ["found \(report.found.count) of \(counted(shared.songs.count, "song"))"]
    parts.append("\(counted(report.mapsStored, "beat map")) stored")
    if report.mapsKept > 0 {
      parts.append("\(report.mapsKept) kept (--replace stores the file's)")
    }
    parts.append("\(counted(report.selectionsStored, "selection")) stored")
    if !report.selectionsKept.isEmpty {
      parts.append(
        "\(report.selectionsKept.count) kept as they were (--replace stores the file's): "
          + report.selectionsKept.prefix(5).joined(separator: ", "))
    }
    if !report.setlistsStored.isEmpty {
      parts.append("setlists stored: " + report.setlistsStored.map { "'\($0)'" }.joined(separator: ", "))
    }
    if !report.setlistsKept.isEmpty {
      parts.append(
        "setlists kept as they were (--replace stores the file's): "
          + report.setlistsKept.map { "'\($0)'" }.joined(separator: ", "))
    }
    Terminal.say(
      "imported \(file): " + parts.joined(separator: "; ")
        + (report.changedNothing ? " (nothing changed)" : ""))
  }
}

/// How a command that shares songs (`export`, `repo publish`) names what it does.
protocol ShareVerb {
  /// `export`, `publish`.
  static var verb: String { get }
  /// `exports`, `publishes`.
  static var verbs: String { get }
}

enum Exporting: ShareVerb {
  static let verb = "export"
  static let verbs = "exports"
}

enum Publishing: ShareVerb {
  static let verb = "publish"
  static let verbs = "publishes"
}

/// Songs, `--setlist` or `--all`: what `export` and `repo publish` carry.
struct ShareChoice<Verb: ShareVerb>: ParsableArguments {
  @Argument(help: ArgumentHelp("Songs to \(Verb.verb) (path, id or title).", valueName: "song"))
  var songs: [String] = []
  @Option(
    help: ArgumentHelp(
      "\(Verb.verb.capitalized) this setlist and its songs (repeatable).", valueName: "setlist"))
  var setlist: [String] = []
  @Flag(help: ArgumentHelp("\(Verb.verb.capitalized) every song and every setlist."))
  var all = false

  /// Called from the command's `validate()`, so that a missing required option is reported
  /// first, as before the group.
  func check() throws {
    if all && !(songs.isEmpty && setlist.isEmpty) {
      throw ValidationError("--all \(Verb.verbs) everything; give it without songs or --setlist")
    }
    if !all && songs.isEmpty && setlist.isEmpty {
      throw ValidationError("say what to \(Verb.verb): songs, --setlist NAME, or --all")
    }
  }

  /// The songs and setlists chosen, found in `library`.
  func resolve(in library: Library) throws -> (songs: [Song], setlists: [Setlist]) {
    try library.sharedChoice(all: all, songs: songs, setlists: setlist)
  }
}
