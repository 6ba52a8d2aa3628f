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
      Terminal.output(try SongJSON.encode(songs.map(SongJSON.init)) + "\n")
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
    let song = SongJSON(try library.open().resolve(song))
    if json {
      Terminal.output(try SongJSON.encode(song) + "\n")
      return
    }
    let fields: [(String, String)] = [
      ("id", "\(song.id)"), ("title", song.title), ("artist", song.artist ?? ""),
      ("album", song.album ?? ""), ("path", song.path),
      ("duration", formatTime(song.duration)), ("frames", "\(song.frames)"),
      ("sample_rate", "\(song.sample_rate)"), ("channels", "\(song.channels)"),
      ("format", song.format), ("content_hash", song.content_hash),
      ("added_at", song.added_at), ("updated_at", song.updated_at),
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

/// The stable JSON shape of a song in `list --json` and `show --json`.
struct SongJSON: Encodable {
  let id: Int64
  let title: String
  let artist: String?
  let album: String?
  let path: String
  let duration: Double
  let frames: Int64
  let sample_rate: Int
  let channels: Int
  let format: String
  let content_hash: String
  let added_at: String
  let updated_at: String

  init(_ song: Song) {
    id = song.id ?? 0
    title = song.title
    artist = song.artist
    album = song.album
    path = song.path
    duration = song.duration
    frames = song.frames
    sample_rate = song.sampleRate
    channels = song.channels
    format = song.format
    content_hash = song.contentHash
    added_at = song.addedAt
    updated_at = song.updatedAt
  }

  /// Every key always present; absent tags are `null`, never missing.
  func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(id, forKey: .id)
    try c.encode(title, forKey: .title)
    try c.encode(artist, forKey: .artist)
    try c.encode(album, forKey: .album)
    try c.encode(path, forKey: .path)
    try c.encode(duration, forKey: .duration)
    try c.encode(frames, forKey: .frames)
    try c.encode(sample_rate, forKey: .sample_rate)
    try c.encode(channels, forKey: .channels)
    try c.encode(format, forKey: .format)
    try c.encode(content_hash, forKey: .content_hash)
    try c.encode(added_at, forKey: .added_at)
    try c.encode(updated_at, forKey: .updated_at)
  }

  enum CodingKeys: String, CodingKey {
    case id, title, artist, album, path, duration, frames, sample_rate, channels, format
    case content_hash, added_at, updated_at
  }

  static func encode<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }
}
