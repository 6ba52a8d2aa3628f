import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

/// Refuses typed text (a tag, a note, a name) that is not one line of plain text (exit
/// 64), and blank text unless `blankAllowed` (a selection's name and note, as before).
func refuseTypedText(_ what: String, _ texts: [String], blankAllowed: Bool = false) throws {
  for text in texts {
    if !blankAllowed && text.trimmingCharacters(in: .whitespaces).isEmpty {
      throw ValidationError("\(what) is empty")
    }
    if let problem = Selection.typedTextProblem(text) {
      throw ValidationError("\(what) '\(text)' \(problem)")
    }
  }
}

/// `--key TARGET` as a transposition (`Library.transposition`: from `song`'s own key, `practice
/// set SONG --key`, else the key `chords detect` found, the nearest way), its refusals worded
/// with the option (`worded(_:key:song:)`).
func transposition(of song: Song, to target: MusicalKey, in library: Library) throws -> Int {
  do {
    return try library.transposition(of: song, to: target)
  } catch let error as KeyChangeError {
    throw PracticeError(.usage, worded(error, key: target, song: song))
  }
}

struct SetDetails: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "set",
    abstract: "Set what a band keeps with a song: title, artist, key, tempo, a note, tags.",
    discussion: """
      Prints the song's details as `key value` lines afterwards. Without --bpm, the tempo \
      shown by `show` and `list` is the beat map's median tempo. Tags are matched \
      ignoring case; `list --tag gig` lists the songs tagged gig.
      """)

  @OptionGroup var target: SongInLibrary
  @Option(help: ArgumentHelp("The song's title (kept when its tags are read again).", valueName: "title"))
  var title: String?
  @Option(help: ArgumentHelp("The song's artist (empty: none).", valueName: "artist"))
  var artist: String?
  @Option(
    help: ArgumentHelp("The song's key: Am, F#, Bb, C#m.", valueName: "key"),
    transform: Parse.key)
  var key: MusicalKey?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("The song's tempo in beats per minute (10-400).", valueName: "bpm"),
    transform: Parse.tempo(in: SongDetails.bpmRange))
  var bpm: Double?
  @Option(help: ArgumentHelp("A note: \"capo 2, drop D\".", valueName: "text")) var note: String?
  @Option(help: ArgumentHelp("Add a tag (repeat for several).", valueName: "tag")) var tag: [String] =
    []
  @Option(help: ArgumentHelp("Remove a tag (repeat for several).", valueName: "tag")) var untag:
    [String] = []
  @Flag(name: .customLong("clear-key"), help: "Forget the key.") var clearKey = false
  @Flag(name: .customLong("clear-bpm"), help: "Forget the tempo (the beat map's is shown again).")
  var clearBPM = false
  @Flag(name: .customLong("clear-note"), help: "Forget the note.") var clearNote = false
  @Flag(name: .customLong("clear-tags"), help: "Remove every tag.") var clearTags = false

  func validate() throws {
    try refuseTypedText("the title", title.map { [$0] } ?? [])
    try refuseTypedText("the artist", artist.map { [$0] } ?? [], blankAllowed: true)
    try refuseTypedText("the note", note.map { [$0] } ?? [])
    try refuseTypedText("the tag", tag + untag)
    for (given, clear, name) in [
      (key != nil, clearKey, "key"), (bpm != nil, clearBPM, "bpm"), (note != nil, clearNote, "note"),
      (!tag.isEmpty, clearTags, "tags"),
    ] where given && clear {
      throw ValidationError("--\(name == "tags" ? "tag" : name) and --clear-\(name) cannot be combined; use one")
    }
  }

  func run() throws {
    let (library, found) = try target.resolve()
    var song = found
    if title != nil || artist != nil {
      let before = song.title
      song = try library.rename(song, title: title, artist: artist)
      Terminal.say(
        "'\(before)' is now '\(song.title)'" + (song.artist.map { " by '\($0)'" } ?? ""))
    }
    var change = SongDetailsChange()
    if let key { change.key = .some(key) } else if clearKey { change.key = .some(nil) }
    if let bpm { change.bpm = .some(bpm) } else if clearBPM { change.bpm = .some(nil) }
    if let note { change.note = .some(note) } else if clearNote { change.note = .some(nil) }
    change.addTags = tag
    change.removeTags = untag
    change.clearTags = clearTags
    let details = try library.changeDetails(of: song, change)
    Terminal.fields(try library.detailFields(of: song, details: details))
  }
}
