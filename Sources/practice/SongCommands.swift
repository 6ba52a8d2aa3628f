import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

struct Add: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract: "Add songs to the library, or refresh them; prints ID<TAB>TITLE for each.",
    discussion: """
      A folder adds the audio and video files in it and in its folders, in name order \
      (hidden files and files that are not audio are skipped). A file that cannot be read \
      gets one line on stderr and the others are still added; the exit status is then that \
      file's (65: not readable audio, 66: missing). A file already in the library whose size \
      and modification time have not changed is not read again, so adding a folder again is \
      quick and changes nothing; stderr says how many were already there. With more than 5 \
      files, a progress bar on stderr when stderr is a terminal.
      """)

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("Audio files or folders.", valueName: "path")) var files: [String]

  /// More files than this get a progress bar (at a terminal).
  static let barFrom = 5

  func run() throws {
    let targets = SongScanner.targets(files)
    let library = try library.open()
    let bar = targets.count > Add.barFrom ? ProgressBar() : nil
    // A file decoded through to count its length (its header's did not hold) gets a bar of
    // its own when there is no bar for the files.
    var measureBar: ProgressBar?
    var refused: [any PracticeFailure] = []
    let added = try library.add(
      targets,
      progress: { index, target in
        measureBar?.clear()
        measureBar = nil
        bar?.show(done: index, of: targets.count, (target.path as NSString).lastPathComponent)
      },
      measuring: { index, target, fraction in
        let label = "measuring " + (target.path as NSString).lastPathComponent
        if let bar {
          bar.show((Double(index) + fraction) / Double(targets.count), label)
        } else {
          if measureBar == nil { measureBar = ProgressBar() }
          measureBar?.show(fraction, label)
        }
      },
      refuse: { _, failure in
        // One file alone fails with its own one line.
        if targets.count == 1 { throw failure }
        bar?.clear()
        measureBar?.clear()
        Terminal.error(worded(failure))
        refused.append(failure)
      })
    bar?.clear()
    measureBar?.clear()
    let songs = added.songs
    Terminal.records(songs.map { ["\($0.id ?? 0)", $0.title] })
    let there = added.alreadyCount == 0 ? "" : ", \(added.alreadyCount) already in the library"
    if let first = refused.first {
      let noun = refused.count == 1 ? "file" : "files"
      throw PracticeError(
        first.category,
        "added \(added.addedCount)\(there), refused \(refused.count) \(noun) (see above)")
    }
    for (song, twins) in try library.titleTwins(of: songs, added: added) {
      let others = twins.map { "song \($0.id ?? 0) (\($0.fileKind))" }.joined(separator: ", ")
      Terminal.say(
        "song \(song.id ?? 0) (\(song.fileKind)) has the same title as \(others), '\(song.title)'; "
          + "a title then names both: tell them apart with `practice set \(song.id ?? 0) --title NEW`")
    }
    if songs.count == 1, let song = songs.first, added.wasThere(song) {
      Terminal.say(
        "song \(song.id ?? 0) '\(song.title)' is already in the library; nothing changed")
    } else if added.alreadyCount > 0 {
      Terminal.say("added \(added.addedCount)\(there) (unchanged)")
    }
    if songs.isEmpty {
      throw PracticeError(
        .missingInput,
        "no audio files in \(files.joined(separator: ", ")); give audio files or folders holding some"
      )
    }
  }
}

struct List: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract:
      "List the library: ID, title, artist, duration, path, key, bpm, tags (a table; tab-separated when piped).",
    discussion: """
      The key and bpm columns are the ones set with `practice set`, else the key the chords \
      were found in and the beat map's median tempo (`show` says which); empty when neither \
      is known. Tags are separated by commas.
      """)

  @OptionGroup var library: LibraryOptions
  @Option(help: ArgumentHelp("Only songs with this tag (any case).", valueName: "tag")) var tag:
    String?
  @Flag(help: "Print a JSON array of songs instead.") var json = false

  func run() throws {
    let library = try library.open()
    let listed = try library.songList(tagged: tag)
    if listed.isEmpty {
      Terminal.say(
        tag.map { "no song is tagged '\($0)'" } ?? "the library has no songs yet; `practice add FILE`")
    }
    if json {
      Terminal.json(listed.map { SongRecord($0.song, details: $0.details, known: $0.known) })
    } else {
      Table.songs(listed.map { $0.song.listCells(details: $0.details, known: $0.known) }).print()
    }
  }
}

struct Show: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract: "Show one song: one `key value` line per field.")

  @OptionGroup var target: SongInLibrary
  @Flag(help: "Print a JSON object instead.") var json = false

  func run() throws {
    let (library, song) = try target.resolve()
    let details = try library.details(of: song)
    warnIfMeasuredLate(song)
    if json {
      Terminal.json(
        SongRecord(song, details: details, known: try library.keyAndTempo(of: song)))
      return
    }
    Terminal.fields(try library.summary(of: song))
  }
}

struct Remove: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rm",
    abstract: "Remove a song and everything stored for it. The audio file is not touched.")

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("Library id or title.", valueName: "song")) var song: String

  func run() throws {
    let library = try library.open()
    let song = try library.resolve(song)
    let removed = try library.remove(song)
    var with: [String] = []
    if removed.beatMap { with.append("its beat map") }
    if removed.selections > 0 { with.append(counted(removed.selections, "selection")) }
    if removed.plays > 0 { with.append(counted(removed.plays, "logged play")) }
    for (name, entries) in removed.setlistEntries {
      with.append("\(entries == 1 ? "its entry" : "its \(entries) entries") in setlist '\(name)'")
    }
    Terminal.say(
      "removed song \(song.id ?? 0) '\(song.title)'"
        + (with.isEmpty ? "" : " with " + with.joined(separator: ", "))
        + " (the audio file is untouched)")
  }
}

/// A song measured before practice read the audio on its Ogg file's headers' page: one
/// line saying its stored times sit early and how to set them right (`show`, `beats show`).
func warnIfMeasuredLate(_ song: Song) {
  guard let missed = SoundFile.framesMissedAtStart(path: song.path, storedFrames: song.frames)
  else { return }
  let seconds = String(format: "%.2f", Double(missed) / Double(song.sampleRate))
  let id = song.id.map(String.init) ?? "SONG"
  Terminal.warning(
    "'\(song.title)' was measured by a practice that skipped the first \(seconds) s of this Ogg "
      + "file (audio on its headers' page): its beat map, chords and selections in times sit "
      + "\(seconds) s early; `practice add` it again after `touch`, then `practice beats shift "
      + "\(id) --by \(seconds)` and `practice chords detect \(id) --replace`")
}
