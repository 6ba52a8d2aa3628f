import ArgumentParser
import Foundation
import PracticeCore

struct Add: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Add songs to the library, or refresh them; prints ID<TAB>TITLE for each.",
    discussion: "All files are read first; if one cannot be added, none is.")

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("Audio files.", valueName: "file")) var files: [String]

  func run() throws {
    let scanned = try files.map { try SongScanner.scan($0) }
    let songs = try library.open().add(scanned)
    Terminal.output(songs.map { "\($0.id ?? 0)\t\($0.title)\n" }.joined())
  }
}

struct List: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the library: ID, title, artist, duration, path (tab-separated).")

  @OptionGroup var library: LibraryOptions
  @Flag(help: "Print a JSON array of songs instead.") var json = false

  func run() throws {
    let songs = try library.open().songs()
    if json {
      Terminal.output(SongJSON.array(songs) + "\n")
    } else {
      Terminal.output(
        songs.map {
          "\($0.id ?? 0)\t\($0.title)\t\($0.artist ?? "")\t\(formatTime($0.duration))\t\($0.path)\n"
        }.joined())
    }
  }
}

struct Show: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show one song: one `key value` line per field.")

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title.", valueName: "song")) var song: String
  @Flag(help: "Print a JSON object instead.") var json = false

  func run() throws {
    let song = try library.open().resolve(song)
    if json {
      Terminal.output(SongJSON.object(song) + "\n")
      return
    }
    let fields: [(String, String)] = [
      ("id", "\(song.id ?? 0)"), ("title", song.title), ("artist", song.artist ?? ""),
      ("album", song.album ?? ""), ("path", song.path),
      ("duration", formatTime(song.duration)), ("frames", "\(song.frames)"),
      ("sample_rate", "\(song.sampleRate)"), ("channels", "\(song.channels)"),
      ("format", song.format), ("content_hash", song.contentHash),
      ("added_at", song.addedAt), ("updated_at", song.updatedAt),
    ]
    Terminal.output(fields.map { "\($0.0) \($0.1)\n" }.joined())
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
/// present (absent tags are `null`), keys in sorted order. Written by hand, because
/// JSONEncoder took most of the time of listing a large library.
enum SongJSON {
  static func object(_ song: Song) -> String {
    var text = "{"
    text.reserveCapacity(512)
    func field(_ key: String, _ value: String, last: Bool = false) {
      text += "\"\(key)\":\(value)" + (last ? "" : ",")
    }
    field("added_at", JSONText.string(song.addedAt))
    field("album", song.album.map(JSONText.string) ?? "null")
    field("artist", song.artist.map(JSONText.string) ?? "null")
    field("channels", "\(song.channels)")
    field("content_hash", JSONText.string(song.contentHash))
    field("duration", JSONText.number(song.duration))
    field("format", JSONText.string(song.format))
    field("frames", "\(song.frames)")
    field("id", "\(song.id ?? 0)")
    field("path", JSONText.string(song.path))
    field("sample_rate", "\(song.sampleRate)")
    field("title", JSONText.string(song.title))
    field("updated_at", JSONText.string(song.updatedAt), last: true)
    return text + "}"
  }

  static func array(_ songs: [Song]) -> String {
    "[" + songs.map(object).joined(separator: ",") + "]"
  }
}

/// JSON literals (RFC 8259).
enum JSONText {
  static func string(_ value: String) -> String {
    var out = "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  /// A finite number as JSON; whole numbers without a fraction.
  static func number(_ value: Double) -> String {
    guard value.isFinite else { return "null" }
    if value == value.rounded(), abs(value) < 1e15 { return "\(Int64(value))" }
    return "\(value)"
  }
}
