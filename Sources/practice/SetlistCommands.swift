import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

struct SetlistCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "setlist",
    abstract: "Setlists and routines: ordered songs and drills for a gig, a rehearsal or tonight.",
    discussion: """
      An entry is a song, or one of its selections, with what this setlist changes for it \
      (key, speed, repeats, a note); the song keeps its own. Entries are numbered from 1 \
      as `setlist show` prints them.
      """,
    subcommands: [
      SetlistNew.self, SetlistAdd.self, SetlistMove.self, SetlistRemove.self, SetlistList.self,
      SetlistShow.self, SetlistPlay.self, SetlistRename.self, SetlistDelete.self,
      SetlistPrint.self,
    ])
}

/// A setlist's name as typed: one line of plain text.
struct SetlistName: ParsableArguments {
  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("Setlist name.", valueName: "setlist")) var name: String

  func validate() throws { try refuseTypedText("the setlist name", [name]) }
}

struct SetlistNew: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "new", abstract: "Make an empty setlist.")
  @OptionGroup var setlist: SetlistName

  func run() throws {
    let made = try setlist.library.open().createSetlist(named: setlist.name)
    Terminal.say("made setlist '\(made.name)'; add songs with `practice setlist add`")
  }
}

struct SetlistAdd: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract: "Add a song (or one of its selections) to a setlist.",
    discussion: """
      --key plays the entry in another key: it becomes a transposition from the song's key \
      (set with `practice set SONG --key`), the nearest way (-5 to +6 semitones); the modes \
      must match. The overrides apply to this setlist only. An entry is a whole song or a \
      selection: to put bars 9-16 in a setlist, save them first (`practice select add SONG \
      NAME --bars 9-16`) and add that with --select NAME.
      """)
  @OptionGroup var setlist: SetlistName
  @Argument(help: ArgumentHelp("File path, id or title.", valueName: "song")) var song: String
  @Option(
    name: .customLong("select"),
    help: ArgumentHelp("One of the song's selections instead of the whole song.", valueName: "name"))
  var selection: String?
  @Option(
    help: ArgumentHelp("Play it in this key: Bm, F#.", valueName: "key"), transform: Parse.key)
  var key: MusicalKey?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Pitch shift in whole semitones, -12 to 12.", valueName: "semitones"),
    transform: Parse.count(in: -12...12, "semitones"))
  var transpose: Int?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Speed: 0.75 or 75%, from 25% to 200%.", valueName: "speed"),
    transform: Speed.argument)
  var speed: Speed?
  @Option(
    name: .customLong("repeat"), parsing: .unconditional,
    help: ArgumentHelp("Play it N times (1-999).", valueName: "N"),
    transform: Parse.count(in: SetlistEntry.repeatRange, "passes"))
  var repeats: Int?
  @Option(help: ArgumentHelp("A note for this entry.", valueName: "text")) var note: String?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Insert at this position (default: at the end).", valueName: "position"),
    transform: Parse.position)
  var at: Int?
  /// Taken only to say how to put bars in a setlist: an entry holds no range.
  @Option(help: .hidden) var bars: String?

  func validate() throws {
    if let bars {
      throw ValidationError(
        "--bars \(bars): a setlist entry is a whole song or a selection; save the bars with "
          + "`practice select add \(song) NAME --bars \(bars)` and add it with --select NAME")
    }
    if key != nil && transpose != nil {
      throw ValidationError("--key and --transpose cannot be combined; use one")
    }
    try refuseTypedText("the note", note.map { [$0] } ?? [])
  }

  func run() throws {
    let library = try setlist.library.open()
    _ = try library.setlist(named: setlist.name)
    let song = try library.resolve(self.song)
    guard let songID = song.id else { return }
    let entry = SetlistEntry(
      songID: songID, selection: selection, key: key, transpose: transpose, speed: speed?.rate,
      repeats: repeats, note: note)
    let added: (entry: SetlistEntry, position: Int, setlist: String)
    do {
      added = try library.addEntry(entry, of: song, to: setlist.name, at: at)
    } catch let error as KeyChangeError {
      // Only a --key is made a transposition.
      guard let key else { throw error }
      throw PracticeError(.usage, worded(error, key: key, song: song))
    }
    Terminal.say(
      "setlist '\(added.setlist)': \(added.position). " + added.entry.summary(title: song.title))
  }
}

struct SetlistMove: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "move", abstract: "Move an entry to another position.")
  @OptionGroup var setlist: SetlistName
  @Argument(help: ArgumentHelp("Its position now.", valueName: "from")) var from: Int
  @Argument(help: ArgumentHelp("Its new position.", valueName: "to")) var to: Int

  func run() throws {
    let library = try setlist.library.open()
    try library.moveEntry(of: setlist.name, from: from, to: to)
    Terminal.say("setlist '\(try library.setlist(named: setlist.name).name)': moved \(from) to \(to)")
  }
}

struct SetlistRemove: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rm", abstract: "Remove the entry at a position (the song stays in the library).")
  @OptionGroup var setlist: SetlistName
  @Argument(help: ArgumentHelp("Its position.", valueName: "position")) var position: Int

  func run() throws {
    let library = try setlist.library.open()
    let removed = try library.removeEntry(of: setlist.name, at: position)
    let title = try library.song(id: removed.songID)?.title ?? "song \(removed.songID)"
    Terminal.say("setlist '\(setlist.name)': removed \(position). '\(title)'")
  }
}

struct SetlistList: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract: "List setlists: name, entries, last changed (tab-separated when piped).")
  @OptionGroup var library: LibraryOptions
  @Flag(help: "Print a JSON array instead.") var json = false

  func run() throws {
    let setlists = try library.open().setlists()
    if json {
      Terminal.json(setlists)
      return
    }
    if setlists.isEmpty { Terminal.say("no setlists yet; `practice setlist new NAME`") }
    Table.setlists(setlists.map(\.listCells)).print()
  }
}

struct SetlistShow: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract:
      "Show a setlist: position, song id, title, selection, key, transpose, speed, repeats, note (tab-separated when piped).",
    discussion: """
      The key is the one played: the entry's (--key), else the song's (`set --key`, else the \
      one `chords detect` found) moved by the entry's transpose; the tempo column is not \
      printed here (see `practice show`).
      """)
  @OptionGroup var setlist: SetlistName
  @Flag(help: "Print a JSON object instead.") var json = false

  func run() throws {
    let layout = try setlist.library.open().setlistLayout(named: setlist.name)
    if json {
      Terminal.json(layout)
    } else {
      Table.setlistEntries(layout.rows.map(\.fields)).print()
    }
  }
}

struct SetlistRename: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rename", abstract: "Rename a setlist.")
  @OptionGroup var setlist: SetlistName
  @Argument(help: ArgumentHelp("New name.", valueName: "new-name")) var newName: String

  func validate() throws { try refuseTypedText("the new name", [newName]) }

  func run() throws {
    try setlist.library.open().renameSetlist(setlist.name, to: newName)
    Terminal.say("renamed setlist '\(setlist.name)' to '\(newName)'")
  }
}

struct SetlistDelete: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete", abstract: "Delete a setlist (its songs stay in the library).")
  @OptionGroup var setlist: SetlistName

  func run() throws {
    let library = try setlist.library.open()
    let found = try library.setlist(named: setlist.name)
    try library.deleteSetlist(found.name)
    Terminal.say("deleted setlist '\(found.name)' (\(entryCount(found.entries.count)))")
  }
}

struct SetlistPrint: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "print",
    abstract: "Write a setlist to read from a music stand: .pdf, .txt or .md.",
    discussion: """
      One song a line: position, title, key, tempo and notes. The key is the one played \
      (the entry's, else the song's moved by the entry's transpose; with no key known, the \
      transposition itself: -2 st); the tempo is the song's (set with `practice set --bpm`, else its beat \
      map's) times the entry's speed; the notes are the entry's and the song's. A PDF is \
      drawn with cairo in large type on A4 or Letter paper (--paper), as many pages as it \
      takes.
      """)
  @OptionGroup var setlist: SetlistName
  @Option(
    name: .shortAndLong, help: ArgumentHelp("The file to write: .pdf, .txt or .md.", valueName: "file"))
  var output: String
  @Option(help: ArgumentHelp("Paper for a PDF: a4 or letter.", valueName: "paper"))
  var paper: SetlistSheet.Paper = .a4

  func validate() throws {
    guard SetlistFileKind(path: output) != nil else {
      throw ValidationError("-o '\(output)': write a .pdf, .txt or .md file")
    }
  }

  func run() throws {
    let layout = try setlist.library.open().setlistLayout(named: setlist.name)
    let kind = SetlistFileKind(path: output) ?? .txt
    let count = try layout.write(to: output, as: kind, paper: paper) { Terminal.escaped($0) }
    Terminal.say(
      "wrote setlist '\(layout.name)' (\(entryCount(count))) to \(output)")
  }
}

extension SetlistSheet.Paper: ExpressibleByArgument {}
