import Foundation

// The cells of the lists `list`, `setlist list` and `repo list` print, in their columns'
// order (`TextTable.songs`, `.setlists`, `.repositories`).

extension Song {
  /// `list`: id, title, artist, duration, path, key and bpm (`KeyAndTempo`: set, else
  /// found; empty without), tags separated by commas.
  public func listCells(details: SongDetails, known: KeyAndTempo) -> [String] {
    [
      "\(id ?? 0)", title, artist ?? "", formatTime(duration), path, known.keyText,
      known.bpmText, details.tags.joined(separator: ","),
    ]
  }
}

extension Setlist {
  /// `setlist list`: name, entries, last changed (local time to the minute, as `log` says
  /// a time; the stored UTC stamp if it cannot be read).
  public var listCells: [String] {
    [name, "\(entries.count)", formatLocalTime(stamp: updatedAt)]
  }
}

extension Repository {
  /// `repo list`: name, URL, last fetched (`never` before the first pull), songs applied.
  public var listCells: [String] { [name, url, fetchedAt ?? "never", "\(songsApplied)"] }
}

extension TextTable {
  /// `repo list`: name, URL, last fetched, songs applied.
  public static func repositories(_ rows: [[String]]) -> TextTable {
    TextTable(
      columns: [
        Column("NAME", cut: .end), Column("URL", cut: .end), Column("FETCHED"),
        Column("SONGS", .right),
      ], rows: rows)
  }
}

extension Library {
  /// The library's songs; only those tagged `tag` (tags match in any case) when given.
  public func songs(tagged tag: String?) throws -> [Song] {
    let songs = try songs()
    guard let tag else { return songs }
    let tagged = try songIDs(tagged: tag)
    return songs.filter { tagged.contains($0.id ?? 0) }
  }

  /// `list`'s songs (`songs(tagged:)`), each with its details and its key and tempo (set,
  /// else found), read in three queries however many songs there are.
  public func songList(tagged tag: String?) throws
    -> [(song: Song, details: SongDetails, known: KeyAndTempo)]
  {
    let songs = try songs(tagged: tag)
    let details = try allDetails()
    let known = try keysAndTempi(of: songs.compactMap(\.id))
    return songs.map {
      ($0, details[$0.id ?? 0] ?? SongDetails(), known[$0.id ?? 0] ?? KeyAndTempo())
    }
  }
}
