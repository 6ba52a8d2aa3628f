import Foundation
import GRDB

/// A setlist laid out once: each entry with what is shown of it (title, key played, tempo
/// played, notes). `setlist show` prints its rows as a table or JSON; `setlist print` renders
/// its lines as text, Markdown or a PDF (`SetlistSheet`), three thin renderers over one layout.
public struct SetlistLayout: Sendable, JSONOutput {
  /// One entry as shown.
  public struct Row: Sendable, Equatable {
    /// From 1, as `setlist show` numbers entries.
    public var position: Int
    public var entry: SetlistEntry
    /// The song's title and artist; nil when the song is gone from the library.
    public var title: String?
    public var artist: String?
    /// The key played: the entry's (`--key`), else the song's (set, else detected) moved by
    /// the entry's transpose.
    public var key: MusicalKey?
    /// Beats per minute played: the song's tempo (set, else its beat map's) times the
    /// entry's speed; nil when neither is known.
    public var tempo: Double?
    /// The song's own note (`practice set --note`).
    public var songNote: String?

    public init(
      position: Int, entry: SetlistEntry, title: String?, artist: String?, key: MusicalKey?,
      tempo: Double?, songNote: String?
    ) {
      self.position = position
      self.entry = entry
      self.title = title
      self.artist = artist
      self.key = key
      self.tempo = tempo
      self.songNote = songNote
    }

    /// `setlist show`'s columns: position, song id, title, selection, key, transpose, speed,
    /// repeats, note.
    public var fields: [String] {
      [
        "\(position)", "\(entry.songID)", title ?? "", entry.selection ?? "",
        key?.description ?? "", entry.transpose.map(Self.signed) ?? "",
        entry.speed.map { Speed(clamping: $0).description } ?? "",
        entry.repeats.map { "\($0)" } ?? "", entry.note ?? "",
      ]
    }

    /// The line on paper; nil when the song is gone. Without a key to move, a transposed
    /// entry shows its semitones (`-2 st`) where the key would be: left out, the sheet read
    /// as "play it as recorded".
    public func line(escape: (String) -> String) -> Line? {
      guard let title else { return nil }
      let notes = [entry.note, songNote].compactMap { $0 }.filter { !$0.isEmpty }
      let moved = entry.transpose.flatMap { $0 == 0 ? nil : Self.signed($0) + " st" }
      return Line(
        position: "\(position).",
        title: escape(title + (entry.selection.map { " (\($0))" } ?? "")),
        key: key?.description ?? moved ?? "", tempo: tempo.map { "\(Int($0.rounded())) BPM" } ?? "",
        notes: escape(notes.joined(separator: "; ")))
    }

    /// `+2`, `-3`, `0`.
    public static func signed(_ value: Int) -> String { value > 0 ? "+\(value)" : "\(value)" }
  }

  /// A row as it is printed for the music stand.
  public struct Line: Sendable, Equatable {
    public var position, title, key, tempo, notes: String

    public init(position: String, title: String, key: String, tempo: String, notes: String) {
      self.position = position
      self.title = title
      self.key = key
      self.tempo = tempo
      self.notes = notes
    }
  }

  public var name: String
  public var rows: [Row]

  public init(name: String, rows: [Row]) {
    self.name = name
    self.rows = rows
  }

  /// The lines on paper: every entry whose song is still there, its texts passed through
  /// `escape` (which shows control characters).
  public func lines(escape: (String) -> String) -> [Line] {
    rows.compactMap { $0.line(escape: escape) }
  }

  /// `setlist show --json`.
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("entries") {
        $0.array(rows) { w, row in
          w.object { e in
            e.field("artist", row.artist)
            e.field("key", row.key?.description)
            e.field("note", row.entry.note)
            e.field("position", row.position)
            e.field("repeat", row.entry.repeats)
            e.field("selection", row.entry.selection)
            e.field("song_id", row.entry.songID)
            e.field("speed", row.entry.speed)
            e.field("title", row.title)
            e.field("transpose", row.entry.transpose)
          }
        }
      }
      o.field("name", name)
    }
  }

  /// The name in capitals, then one line an entry: columns padded to their widest cell in
  /// terminal columns (a CJK title's characters take two, as a monospaced font draws them).
  public func text(escape: (String) -> String) -> String {
    let lines = lines(escape: escape)
    func width(_ cell: (Line) -> String) -> Int {
      lines.map { DisplayWidth.of(cell($0)) }.max() ?? 0
    }
    let widths = [width(\.position), width(\.title), width(\.key), width(\.tempo)]
    func pad(_ text: String, _ width: Int) -> String {
      text + String(repeating: " ", count: max(0, width - DisplayWidth.of(text)))
    }
    var out = escape(name.uppercased()) + "\n\n"
    for line in lines {
      let cells = [
        pad(line.position, widths[0]), pad(line.title, widths[1]), pad(line.key, widths[2]),
        pad(line.tempo, widths[3]), line.notes,
      ]
      out += cells.joined(separator: "   ").trimmingCharacters(in: .whitespaces) + "\n"
    }
    return out
  }

  /// A heading and a table: #, title, key, tempo, notes. Markdown's own characters in a
  /// title or note (`*`, `_`, a backtick, brackets, `<`, `|`, a backslash) are escaped, so
  /// `Take *5*` shows as typed, not in italics.
  public func markdown(escape: (String) -> String) -> String {
    func cell(_ text: String) -> String {
      var out = ""
      for character in text {
        if "\\`*_[]<>|".contains(character) { out.append("\\") }
        out.append(character)
      }
      return out
    }
    var out =
      "# \(cell(escape(name)))\n\n| # | Title | Key | Tempo | Notes |\n|---|---|---|---|---|\n"
    for line in lines(escape: escape) {
      out +=
        "| "
        + [String(line.position.dropLast()), line.title, line.key, line.tempo, line.notes]
        .map(cell).joined(separator: " | ") + " |\n"
    }
    return out
  }
}

extension Library {
  /// The setlist `name` (any case) laid out: each entry with its song's title, artist, key
  /// played, tempo played and note. The song fields come in one query (a query per entry
  /// took 93 ms for 200 entries), their key and tempo in one more (`keysAndTempi`).
  public func setlistLayout(named name: String) throws -> SetlistLayout {
    let (found, rows) = try read { db -> (String, [SetlistLayout.Row]) in
      guard
        let row = try Row.fetchOne(
          db, sql: "SELECT id, name FROM setlist WHERE name = ?", arguments: [name])
      else {
        return (try Library.setlist(named: name, db).name, [])  // throws, naming the ones there are
      }
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT e.song_id, e.selection_name, e.key, e.transpose, e.speed, e.repeats, e.note,
            s.title, s.artist, d.note
          FROM setlist_entry e LEFT JOIN song s ON s.id = e.song_id
            LEFT JOIN song_detail d ON d.song_id = e.song_id
          WHERE e.setlist_id = ? ORDER BY e.position
          """, arguments: [row["id"] as Int64]
      ).enumerated().map { index, row in
        SetlistLayout.Row(
          position: index + 1,
          entry: SetlistEntry(
            songID: row[0], selection: row[1],
            key: (row[2] as String?).flatMap(MusicalKey.init(parsing:)), transpose: row[3],
            speed: row[4], repeats: row[5], note: row[6]),
          title: row[7], artist: row[8], key: nil, tempo: nil, songNote: row[9])
      }
      return (row["name"], rows)
    }
    let known = try keysAndTempi(of: rows.map(\.entry.songID))
    let laidOut = rows.map { row in
      var row = row
      let song = known[row.entry.songID]
      row.key = row.entry.keyPlayed(songKey: song?.key)
      row.tempo = song?.bpm.map { $0 * (row.entry.speed ?? 1) }
      return row
    }
    return SetlistLayout(name: found, rows: laidOut)
  }
}

extension SetlistEntry {
  /// `'Title' (selection 'solo', in Bm: +2 semitones, 80%, 2 times)`: the entry on one
  /// line, what it changes for the song in parentheses (nothing: the title alone).
  public func summary(title: String) -> String {
    var parts: [String] = []
    if let selection { parts.append("selection '\(selection)'") }
    if let key, let transpose {
      parts.append("in \(key): \(SetlistLayout.Row.signed(transpose)) semitones")
    } else if let transpose {
      parts.append("\(SetlistLayout.Row.signed(transpose)) semitones")
    }
    if let speed { parts.append(Speed(clamping: speed).description) }
    if let repeats { parts.append(repeats == 1 ? "once" : "\(repeats) times") }
    return "'\(title)'" + (parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")")
  }
}
