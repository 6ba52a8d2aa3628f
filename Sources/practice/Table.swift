import Foundation

/// Lists for people and for scripts from the same rows: at a terminal, aligned columns under
/// a header line, the widest text columns cut to the terminal's width; piped, the
/// tab-separated records of `Terminal.records`, one a line, unchanged.
struct Table {
  struct Column {
    enum Alignment { case left, right }
    /// Where a cell too wide for its column is cut: titles keep their start, paths their
    /// end (the file name); `.never` for short values such as ids, times and counts.
    enum Cut { case never, end, start }

    var header: String
    var alignment: Alignment = .left
    var cut: Cut = .never
    /// When the table is too wide even with its columns cut: columns with a drop rank are
    /// left out, the highest rank first; 0 is never left out.
    var drop = 0

    init(_ header: String, _ alignment: Alignment = .left, cut: Cut = .never, drop: Int = 0) {
      self.header = header
      self.alignment = alignment
      self.cut = cut
      self.drop = drop
    }
  }

  var columns: [Column]
  var rows: [[String]]

  /// A column that is cut is never made narrower than this (or than its header).
  static let narrowest = 8
  static let gap = "  "

  /// Prints the rows: as a table when stdout is a terminal, else as tab-separated records.
  func print() {
    if isatty(STDOUT_FILENO) == 1 {
      Terminal.lines(layout(width: Table.terminalWidth()))
    } else {
      Terminal.records(rows)
    }
  }

  /// The table's lines for a terminal `width` columns wide: the header, then one line per
  /// row, with no trailing spaces, never wider than `width` (a line that wraps breaks the
  /// columns): the widest cuttable columns are cut first, then columns are left out by
  /// their drop rank, and a line still too wide is cut at the edge. Cells stay raw (the
  /// door escapes each line); they are measured and cut as the door will show them. Rows
  /// shorter than the header leave their last cells empty.
  func layout(width: Int) -> [String] {
    var table = self
    var lines = table.fitted(width: width)
    while lines.contains(where: { DisplayWidth.shown($0) > width }),
      let rank = table.columns.map(\.drop).max(), rank > 0,
      let column = table.columns.lastIndex(where: { $0.drop == rank })
    {
      table.columns.remove(at: column)
      table.rows = table.rows.map { row in
        var row = row
        if column < row.count { row.remove(at: column) }
        return row
      }
      lines = table.fitted(width: width)
    }
    return lines.map { DisplayWidth.fit($0, width: width, cut: .end) }
  }

  /// The lines with the cuttable columns narrowed towards `width`.
  private func fitted(width: Int) -> [String] {
    let count = max(columns.count, rows.map(\.count).max() ?? 0)
    let headers = (0..<count).map { $0 < columns.count ? columns[$0].header : "" }
    let cells = rows.map { row in (0..<count).map { $0 < row.count ? row[$0] : "" } }
    var widths = (0..<count).map { column in
      cells.reduce(DisplayWidth.shown(headers[column])) { max($0, DisplayWidth.shown($1[column])) }
    }
    // Too wide: narrow the widest column that may be cut, one terminal column at a time.
    let total = { widths.reduce(0, +) + Table.gap.count * max(0, count - 1) }
    while total() > width {
      let candidates = (0..<count).filter { column in
        column < columns.count && columns[column].cut != .never
          && widths[column] > max(Table.narrowest, DisplayWidth.shown(headers[column]))
      }
      guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
      widths[widest] -= 1
    }
    return ([headers] + cells).map { line in
      var text = ""
      for column in 0..<count {
        let cut = column < columns.count ? columns[column].cut : .never
        let cell = DisplayWidth.fit(line[column], width: widths[column], cut: cut)
        let padding = String(
          repeating: " ", count: max(0, widths[column] - DisplayWidth.shown(cell)))
        let right = column < columns.count && columns[column].alignment == .right
        if column > 0 { text += Table.gap }
        text += right ? padding + cell : cell + padding
      }
      while text.hasSuffix(" ") { text.removeLast() }
      return text
    }
  }

  /// The terminal's width in columns (stdout's, else `$COLUMNS`, else 80).
  static func terminalWidth() -> Int {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      return Int(size.ws_col)
    }
    if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap({ Int($0) }),
      (1...10_000).contains(columns)
    {
      return columns
    }
    return 80
  }
}

/// How many terminal columns text takes: East Asian wide and fullwidth characters and
/// emoji take two, combining marks, joiners and variation selectors none, the rest one.
enum DisplayWidth {
  static func of(_ text: String) -> Int {
    text.unicodeScalars.reduce(0) { $0 + of($1) }
  }

  static func of(_ scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value >= 0x20 && value < 0x7F { return 1 }  // printable ASCII, most of any list
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if value == 0x200D || (0xFE00...0xFE0F).contains(value) || (0x1160...0x11FF).contains(value) {
      return 0
    }
    if scalar.properties.isEmojiPresentation { return 2 }
    return wide.contains { $0.contains(value) } ? 2 : 1
  }

  /// East Asian wide and fullwidth blocks (Hangul, CJK, kana, fullwidth forms) and the
  /// pictographs terminals draw two columns wide.
  private static let wide: [ClosedRange<UInt32>] = [
    0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
    0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
    0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
    0x20000...0x2FFFD, 0x30000...0x3FFFD,
  ]

  /// Columns `text` takes once the door has escaped it.
  static func shown(_ text: String) -> Int {
    // Printable ASCII without a backslash is shown as it is, a column a byte.
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }) { return text.utf8.count }
    return of(Terminal.escaped(text))
  }

  /// `text` if it takes at most `width` columns once shown, else cut to fit with `…` where
  /// it was cut, at whole characters, so a wide character or an escape is never split.
  static func fit(_ text: String, width: Int, cut: Table.Column.Cut) -> String {
    guard cut != .never, width > 0, shown(text) > width else { return text }
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }) {
      // Printable ASCII: a character a column.
      return cut == .end ? text.prefix(width - 1) + "…" : "…" + text.suffix(width - 1)
    }
    var kept: [Character] = []
    var used = 1  // the ellipsis
    let characters = cut == .end ? Array(text) : Array(text.reversed())
    for character in characters {
      let size = shown(String(character))
      guard used + size <= width else { break }
      kept.append(character)
      used += size
    }
    return cut == .end ? String(kept) + "…" : "…" + String(kept.reversed())
  }
}

/// The columns of each list the CLI prints (their tab-separated order).
extension Table {
  /// `list`: id, title, artist, duration, path, key, bpm, tags.
  static func songs(_ rows: [[String]]) -> Table {
    Table(
      columns: [
        Column("ID", .right), Column("TITLE", cut: .end), Column("ARTIST", cut: .end),
        Column("LENGTH", .right), Column("PATH", cut: .start, drop: 1), Column("KEY"),
        Column("BPM", .right), Column("TAGS", cut: .end),
      ], rows: rows)
  }

  /// `log`: started, song, what, passes, speeds, time heard, ending.
  static func plays(_ rows: [[String]]) -> Table {
    Table(
      columns: [
        Column("STARTED"), Column("SONG", cut: .end), Column("WHAT", cut: .end),
        Column("PASSES", .right), Column("SPEED"), Column("HEARD", .right),
        Column("ENDED", drop: 1),
      ], rows: rows)
  }

  /// `log --passes`: started, song, what, pass, speed, mark.
  static func passes(_ rows: [[String]]) -> Table {
    Table(
      columns: [
        Column("STARTED"), Column("SONG", cut: .end), Column("WHAT", cut: .end),
        Column("PASS", .right), Column("SPEED"), Column("MARK"),
      ], rows: rows)
  }

  /// `stats`: song, selection, plays, passes, time heard, fastest, last played, clean top
  /// speed, clean passes of the marked, goal, distance to it, days in a row.
  static func totals(_ rows: [[String]]) -> Table {
    Table(
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
  static func selections(_ rows: [[String]]) -> Table {
    Table(
      columns: [
        Column("SONG", .right), Column("NAME", cut: .end), Column("SPAN", cut: .end),
        Column("NOTE", cut: .end), Column("TITLE", cut: .end),
      ], rows: rows)
  }

  /// `beats show`: bar, start, beats, BPM, and for detected maps the lowest confidence.
  static func bars(_ rows: [[String]], confidence: Bool, chords: Bool = false) -> Table {
    Table(
      columns: [
        Column("BAR", .right), Column("START", .right), Column("BEATS", .right),
        Column("BPM", .right),
      ] + (confidence ? [Column("CONFIDENCE", .right)] : []) + (chords ? [Column("CHORDS")] : []),
      rows: rows)
  }

  /// `setlist list`: name, entries, last changed.
  static func setlists(_ rows: [[String]]) -> Table {
    Table(
      columns: [Column("NAME", cut: .end), Column("ENTRIES", .right), Column("CHANGED")],
      rows: rows)
  }

  /// `setlist show`: position, song id, title, selection, key, transpose, speed, repeats,
  /// note.
  static func setlistEntries(_ rows: [[String]]) -> Table {
    Table(
      columns: [
        Column("#", .right), Column("SONG", .right), Column("TITLE", cut: .end),
        Column("SELECTION", cut: .end), Column("KEY"), Column("TRANSPOSE", .right, drop: 1),
        Column("SPEED", .right), Column("REPEAT", .right), Column("NOTE", cut: .end),
      ], rows: rows)
  }
}
