import Foundation

/// Lists for people and for scripts from the same rows: at a terminal, aligned columns under
/// a header line, the widest text columns cut to the terminal's width; piped, the
/// tab-separated records of `Terminal.records`, one a line, unchanged. The CLI prints it;
/// the layout is here, measured as the door shows each cell (`escape`).
public struct TextTable: Sendable {
  public struct Column: Sendable {
    public enum Alignment: Sendable { case left, right }
    /// Where a cell too wide for its column is cut: titles keep their start, paths their
    /// end (the file name); `.never` for short values such as ids, times and counts.
    public enum Cut: Sendable { case never, end, start }

    public var header: String
    public var alignment: Alignment = .left
    public var cut: Cut = .never
    /// When the table is too wide even with its columns cut: columns with a drop rank are
    /// left out, the highest rank first; 0 is never left out.
    public var drop = 0

    public init(_ header: String, _ alignment: Alignment = .left, cut: Cut = .never, drop: Int = 0)
    {
      self.header = header
      self.alignment = alignment
      self.cut = cut
      self.drop = drop
    }
  }

  public var columns: [Column]
  public var rows: [[String]]

  public init(columns: [Column], rows: [[String]]) {
    self.columns = columns
    self.rows = rows
  }

  /// A column that is cut is never made narrower than this (or than its header).
  public static let narrowest = 8
  public static let gap = "  "

  /// The table's lines for a terminal `width` columns wide: the header, then one line per
  /// row, with no trailing spaces, never wider than `width` (a line that wraps breaks the
  /// columns): columns empty in every row are left out first, then the widest cuttable
  /// columns are cut, then columns are left out by their drop rank, and a line still too
  /// wide is cut at the edge. Cells stay raw (the door escapes each line); they are measured
  /// and cut as the door will show them. Rows shorter than the header leave their last
  /// cells empty.
  public func layout(width: Int, escape: (String) -> String) -> [String] {
    var table = self
    // A column with nothing in it is only its header: before a title is cut, it goes.
    if table.fitted(width: .max, escape: escape).contains(where: {
      DisplayWidth.shown($0, escape: escape) > width
    }) {
      for column in table.columns.indices.reversed()
      where table.rows.allSatisfy({ column >= $0.count || $0[column].isEmpty }) {
        table.remove(column)
      }
    }
    var lines = table.fitted(width: width, escape: escape)
    while lines.contains(where: { DisplayWidth.shown($0, escape: escape) > width }),
      let rank = table.columns.map(\.drop).max(), rank > 0,
      let column = table.columns.lastIndex(where: { $0.drop == rank })
    {
      table.remove(column)
      lines = table.fitted(width: width, escape: escape)
    }
    return lines.map { DisplayWidth.fit($0, width: width, cut: .end, escape: escape) }
  }

  /// Leaves out a column, its header and its cells.
  private mutating func remove(_ column: Int) {
    columns.remove(at: column)
    rows = rows.map { row in
      var row = row
      if column < row.count { row.remove(at: column) }
      return row
    }
  }

  /// The lines with the cuttable columns narrowed towards `width`.
  private func fitted(width: Int, escape: (String) -> String) -> [String] {
    let count = max(columns.count, rows.map(\.count).max() ?? 0)
    let headers = (0..<count).map { $0 < columns.count ? columns[$0].header : "" }
    let cells = rows.map { row in (0..<count).map { $0 < row.count ? row[$0] : "" } }
    var widths = (0..<count).map { column in
      cells.reduce(DisplayWidth.shown(headers[column], escape: escape)) {
        max($0, DisplayWidth.shown($1[column], escape: escape))
      }
    }
    // Too wide: narrow the widest column that may be cut, one terminal column at a time.
    let total = { widths.reduce(0, +) + TextTable.gap.count * max(0, count - 1) }
    while total() > width {
      let candidates = (0..<count).filter { column in
        column < columns.count && columns[column].cut != .never
          && widths[column]
            > max(TextTable.narrowest, DisplayWidth.shown(headers[column], escape: escape))
      }
      guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
      widths[widest] -= 1
    }
    return ([headers] + cells).map { line in
      var text = ""
      for column in 0..<count {
        let cut = column < columns.count ? columns[column].cut : .never
        let cell = DisplayWidth.fit(line[column], width: widths[column], cut: cut, escape: escape)
        let padding = String(
          repeating: " ", count: max(0, widths[column] - DisplayWidth.shown(cell, escape: escape)))
        let right = column < columns.count && columns[column].alignment == .right
        if column > 0 { text += TextTable.gap }
        text += right ? padding + cell : cell + padding
      }
      while text.hasSuffix(" ") { text.removeLast() }
      return text
    }
  }
}

extension DisplayWidth {
  /// Columns `text` takes once the door has escaped it (`escape`).
  public static func shown(_ text: String, escape: (String) -> String) -> Int {
    // Printable ASCII without a backslash is shown as it is, a column a byte.
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }) { return text.utf8.count }
    return of(escape(text))
  }

  /// `text` if it takes at most `width` columns once shown, else cut to fit with `…` where
  /// it was cut, at whole characters, so a wide character or an escape is never split.
  public static func fit(
    _ text: String, width: Int, cut: TextTable.Column.Cut, escape: (String) -> String
  ) -> String {
    guard cut != .never, width > 0, shown(text, escape: escape) > width else { return text }
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }) {
      // Printable ASCII: a character a column.
      return cut == .end ? text.prefix(width - 1) + "…" : "…" + text.suffix(width - 1)
    }
    var kept: [Character] = []
    var used = 1  // the ellipsis
    let characters = cut == .end ? Array(text) : Array(text.reversed())
    for character in characters {
      let size = shown(String(character), escape: escape)
      guard used + size <= width else { break }
      kept.append(character)
      used += size
    }
    return cut == .end ? String(kept) + "…" : "…" + String(kept.reversed())
  }
}

/// The columns of each list the CLI prints (their tab-separated order).
extension TextTable {
  /// `list`: id, title, artist, duration, path, key, bpm, tags (narrow: the path goes first,
  /// then the tags).
  public static func songs(_ rows: [[String]]) -> TextTable {
    TextTable(
      columns: [
        Column("SONG ID", .right), Column("TITLE", cut: .end), Column("ARTIST", cut: .end),
        Column("LENGTH", .right), Column("PATH", cut: .start, drop: 1), Column("KEY"),
        Column("BPM", .right), Column("TAGS", cut: .end, drop: 2),
      ], rows: rows)
  }

  /// `log`: started, song, what, passes, speeds, time heard, ending. Narrow, the ending, the
  /// time heard and the passes go before the speed is cut at the edge (`100…`).
  public static func plays(_ rows: [[String]]) -> TextTable {
    TextTable(
      columns: [
        Column("STARTED"), Column("SONG", cut: .end), Column("WHAT", cut: .end),
        Column("PASSES", .right, drop: 3), Column("SPEED"), Column("HEARD", .right, drop: 2),
        Column("ENDED", drop: 1),
      ], rows: rows)
  }

  /// `log --passes`: started, song, what, pass, speed, mark.
  public static func passes(_ rows: [[String]]) -> TextTable {
    TextTable(
      columns: [
        Column("STARTED"), Column("SONG", cut: .end), Column("WHAT", cut: .end),
        Column("PASS", .right), Column("SPEED"), Column("MARK"),
      ], rows: rows)
  }

  /// `stats`: song, selection, plays, passes, time heard, fastest, last played, clean top
  /// speed, clean passes of the marked, goal, distance to it, days in a row.
  public static func totals(_ rows: [[String]]) -> TextTable {
    TextTable(
      columns: [
        Column("SONG", cut: .end), Column("SELECTION", cut: .end),
        Column("PLAYS", .right, drop: 4), Column("PASSES", .right, drop: 3),
        Column("HEARD", .right), Column("FASTEST", .right, drop: 2),
        Column("LAST PLAYED", drop: 6), Column("CLEAN", .right),
        Column("MARKED", .right, drop: 5), Column("GOAL"), Column("TO GOAL"),
        Column("DAYS", .right, drop: 1),
      ], rows: rows)
  }

  /// `select list`: song id, name, span, note, song title (last, so that scripts reading
  /// the first four columns, as they did before it was shown, keep working).
  public static func selections(_ rows: [[String]]) -> TextTable {
    TextTable(
      columns: [
        Column("SONG ID", .right), Column("NAME", cut: .end), Column("SPAN", cut: .end),
        Column("NOTE", cut: .end), Column("TITLE", cut: .end),
      ], rows: rows)
  }

  /// `beats show`: bar, start, beats, BPM, and for detected maps the lowest confidence.
  public static func bars(_ rows: [[String]], confidence: Bool, chords: Bool = false) -> TextTable {
    TextTable(
      columns: [
        Column("BAR", .right), Column("START", .right), Column("BEATS", .right),
        Column("BPM", .right),
      ] + (confidence ? [Column("CONFIDENCE", .right)] : []) + (chords ? [Column("CHORDS")] : []),
      rows: rows)
  }

  /// `setlist list`: name, entries, last changed.
  public static func setlists(_ rows: [[String]]) -> TextTable {
    TextTable(
      columns: [Column("NAME", cut: .end), Column("ENTRIES", .right), Column("CHANGED")],
      rows: rows)
  }

  /// `setlist show`: position, song id, title, selection, key, transpose, speed, repeats,
  /// note.
  public static func setlistEntries(_ rows: [[String]]) -> TextTable {
    TextTable(
      columns: [
        Column("#", .right), Column("SONG ID", .right), Column("TITLE", cut: .end),
        Column("SELECTION", cut: .end), Column("KEY"), Column("TRANSPOSE", .right, drop: 1),
        Column("SPEED", .right), Column("REPEAT", .right), Column("NOTE", cut: .end),
      ], rows: rows)
  }
}
