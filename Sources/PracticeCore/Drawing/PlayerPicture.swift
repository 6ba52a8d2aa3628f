import Foundation

/// What the player screen shows above its status line at one moment, as values (STYLE 15):
/// the strip (`PlayerStrip`) of the window in view, the `?` overlay's lines over its top
/// rows, the envelope as cells that know whether they lie in the loop, and the cursor's
/// cells over a column. The CLI turns the styles into colours and writes the rows.
public struct PlayerPicture: Sendable {
  /// A character cell of the envelope or of the cursor's column.
  public struct Cell: Sendable, Equatable {
    public var character: Character
    public var style: TextStyle
    /// In the loop's columns (drawn brighter).
    public var inLoop: Bool
    /// Under the cursor: the cell in reverse video.
    public var reversed: Bool

    public init(_ character: Character, _ style: TextStyle, inLoop: Bool, reversed: Bool = false) {
      self.character = character
      self.style = style
      self.inLoop = inLoop
      self.reversed = reversed
    }
  }

  /// A row of the picture as drawn.
  public enum Row: Sendable, Equatable {
    /// The strip's runs (the heading, the ruler, the loop, the selections, the times).
    case runs([TextRun])
    /// An envelope row, a cell for each column.
    case envelope([Cell])
    /// The overlay's line at this index, drawn over the strip.
    case overlay(Int)
  }

  public let strip: PlayerStrip
  public let rows: [Row]
  /// Where the cursor is drawn (on the rows the overlay leaves): nil before the first frame
  /// is heard, or outside the window.
  public let cursorColumn: Int?

  /// The picture of `content` in `window` (the chords as they sound `transpose` semitones
  /// from the recording, spelled for the song's key), `rows` rows of `width` columns with `loop`,
  /// the heading's `note`, `overlayLines` lines of the overlay from the second row down,
  /// and the cursor at the audible frame `cursor`.
  public init(
    _ content: OverviewContent, window: Range<Int64>,
    chords: (track: ChordTrack, key: MusicalKey?)?, transpose: Int, loop: StripLoop,
    width: Int, rows: Int, note: String, overlayLines: Int?, cursor: Int64?
  ) {
    var picture = content
    picture.window = window
    if let chords {
      picture.chords = chords.track.symbols(key: chords.key, transposedBy: transpose)
    }
    let strip = PlayerStrip(picture, loop: loop, width: width, rows: rows, note: note)
    self.strip = strip
    self.rows = strip.lines.enumerated().map { row, line in
      if let overlayLines, row >= 1, row - 1 < overlayLines { return .overlay(row - 1) }
      guard strip.envelopeRows.contains(row) else { return .runs(line) }
      var cells = line.flatMap { run in
        run.text.map { Cell($0, run.style, inLoop: false) }
      }
      while cells.count < strip.width { cells.append(Cell(" ", .plain, inLoop: false)) }
      for column in strip.loopColumns ?? 0..<0 where column < cells.count {
        cells[column].inLoop = true
      }
      return .envelope(cells)
    }
    cursorColumn = cursor.flatMap { strip.column(of: $0) }
  }

  /// The cells the cursor puts over `column` (`on`), or those it leaves there when it goes:
  /// for each envelope row its cell (under the cursor: reversed, a `│` in the cursor's
  /// style where the cell is blank), then the mark row's (`▲`, or a blank). None on a row
  /// the overlay covers.
  public func cursorCells(at column: Int, on: Bool) -> [(row: Int, cell: Cell)] {
    guard column >= 0, column < strip.width else { return [] }
    var cells: [(row: Int, cell: Cell)] = []
    for (row, line) in rows.enumerated() {
      guard case .envelope(let envelope) = line, column < envelope.count else { continue }
      var cell = envelope[column]
      if on {
        if cell.character == " " {
          cell = Cell("│", .cursor, inLoop: cell.inLoop)
        } else {
          cell.reversed = true
        }
      }
      cells.append((row, cell))
    }
    if case .runs = rows[strip.markerRow] {
      let mark = Cell(on ? PlayerStrip.cursorMark : " ", on ? .cursor : .plain, inLoop: false)
      cells.append((strip.markerRow, mark))
    }
    return cells
  }
}
