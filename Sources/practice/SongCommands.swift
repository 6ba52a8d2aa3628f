import ArgumentParser
import Foundation
import PracticeCore

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
      quick and changes nothing. With more than 5 files, a progress bar on stderr when stderr \
      is a terminal.
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
    let songs = try library.add(
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
    Terminal.records(songs.map { ["\($0.id ?? 0)", $0.title] })
    if let first = refused.first {
      let noun = refused.count == 1 ? "file" : "files"
      throw PracticeError(
        first.category, "added \(songs.count), refused \(refused.count) \(noun) (see above)")
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
      The bpm column is the tempo set with `practice set`; empty when none was set. Tags are \
      separated by commas.
      """)

  @OptionGroup var library: LibraryOptions
  @Option(help: ArgumentHelp("Only songs with this tag (any case).", valueName: "tag")) var tag:
    String?
  @Flag(help: "Print a JSON array of songs instead.") var json = false

  func run() throws {
    let library = try library.open()
    var songs = try library.songs()
    if let tag {
      let tagged = try library.songIDs(tagged: tag)
      songs = songs.filter { tagged.contains($0.id ?? 0) }
    }
    let details = try library.allDetails()
    if songs.isEmpty {
      Terminal.say(
        tag.map { "no song is tagged '\($0)'" } ?? "the library has no songs yet; `practice add FILE`")
    }
    if json {
      Terminal.data(SongJSON.array(songs, details: details) + "\n")
    } else {
      Table.songs(
        songs.map {
          let own = details[$0.id ?? 0] ?? SongDetails()
          return [
            "\($0.id ?? 0)", $0.title, $0.artist ?? "", formatTime($0.duration), $0.path,
            own.key?.description ?? "", own.bpm.map(formatNumber) ?? "",
            own.tags.joined(separator: ","),
          ]
        }
      ).print()
    }
  }
}

struct Show: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract: "Show one song: one `key value` line per field.")

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title.", valueName: "song")) var song: String
  @Flag(help: "Print a JSON object instead.") var json = false

  func run() throws {
    let library = try library.open()
    let song = try library.resolve(song)
    let details = try library.details(of: song)
    if json {
      Terminal.data(SongJSON.object(song, details: details) + "\n")
      return
    }
    let fields: [(String, String)] = [
      ("id", "\(song.id ?? 0)"), ("title", song.title), ("artist", song.artist ?? ""),
      ("album", song.album ?? ""), ("path", song.path),
      ("duration", formatTime(song.duration)), ("frames", "\(song.frames)"),
      ("sample_rate", "\(song.sampleRate)"), ("channels", "\(song.channels)"),
      ("format", song.format), ("content_hash", song.contentHash),
      ("added_at", song.addedAt), ("updated_at", song.updatedAt),
      (
        "resume",
        try library.resumePoint(of: song).map { describe($0, song: song, library: library) } ?? ""
      ),
    ]
    Terminal.lines(
      fields.map { "\($0.0) \($0.1)" } + (try detailLines(details, song: song, library: library)))
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
    try library.remove(song)
    Terminal.say("removed song \(song.id ?? 0) '\(song.title)' (the audio file is untouched)")
  }
}

/// The stable JSON shape of a song in `list --json` and `show --json`: every key always
/// present (absent tags are `null`), keys in sorted order. Written by hand into one byte
/// buffer: JSONEncoder took most of the time of listing a large library.
enum SongJSON {
  static func append(_ song: Song, details: SongDetails, to out: inout JSONWriter) {
    out.raw("{\"added_at\":")
    out.string(song.addedAt)
    out.raw(",\"album\":")
    out.optionalString(song.album)
    out.raw(",\"artist\":")
    out.optionalString(song.artist)
    out.raw(",\"bpm\":")
    if let bpm = details.bpm { out.number(bpm) } else { out.raw("null") }
    out.raw(",\"channels\":\(song.channels),\"content_hash\":")
    out.string(song.contentHash)
    out.raw(",\"duration\":")
    out.number(song.duration)
    out.raw(",\"format\":")
    out.string(song.format)
    out.raw(",\"frames\":\(song.frames),\"id\":\(song.id ?? 0),\"key\":")
    out.optionalString(details.key?.description)
    out.raw(",\"note\":")
    out.optionalString(details.note)
    out.raw(",\"path\":")
    out.string(song.path)
    out.raw(",\"sample_rate\":\(song.sampleRate),\"tags\":[")
    for (i, tag) in details.tags.enumerated() {
      if i > 0 { out.raw(",") }
      out.string(tag)
    }
    out.raw("],\"title\":")
    out.string(song.title)
    out.raw(",\"updated_at\":")
    out.string(song.updatedAt)
    out.raw("}")
  }

  static func object(_ song: Song, details: SongDetails) -> String {
    var out = JSONWriter(escapesTerminalControls: true)
    append(song, details: details, to: &out)
    return out.text
  }

  static func array(_ songs: [Song], details: [Int64: SongDetails]) -> String {
    var out = JSONWriter(escapesTerminalControls: true)
    out.bytes.reserveCapacity(songs.count * 400)
    out.raw("[")
    for (i, song) in songs.enumerated() {
      if i > 0 { out.raw(",") }
      append(song, details: details[song.id ?? 0] ?? SongDetails(), to: &out)
    }
    out.raw("]")
    return out.text
  }
}

/// Where `play --resume` continues: `0:41.2 (bar 12.3) in bars 9-16, 3 passes left, speed 75%,
/// transpose -2, volume 80%`; a play that ran to its end: `start of bars 9-16 (finished), …`.
func describe(_ point: ResumePoint, song: Song, library: Library) -> String {
  let rate = Double(song.sampleRate)
  let frame = point.startFrame(in: point.range)
  var place = formatTime(Double(frame) / rate)
  if let map = try? library.beatMap(for: song), let index = map.beatIndex(at: frame) {
    place += " (bar \(map.beats[index].bar).\(map.beats[index].beat))"
  }
  let loop = point.label ?? formatTimeRange(point.range, sampleRate: song.sampleRate)
  let left = point.finished ? "" : " left"
  let passes =
    point.passesLeft.map { $0 == 1 ? "1 pass\(left)" : "\($0) passes\(left)" } ?? "looped"
  return "\(place) in \(loop)\(point.finished ? " (finished: from its start)" : ""), \(passes), "
    + "speed \(point.speed), transpose \(PracticeSettings.formatSemitones(point.transpose)), "
    + "volume \(point.volume)"
}
