import CPlatform
import Foundation
import PracticeCore

/// `play`'s player screen, on stderr's terminal when it has at least 12 rows: the waveform
/// strip around the audible position (`PlayerStrip`: the chord lane, the bar ruler, the
/// envelope, the loop and the selections, drawn by the same code as `view`), a cursor at
/// the audible position and the status line on the last row, in the terminal's alternate
/// screen.
///
/// Drawn by the session's main thread, never by the render thread; at most 30 frames a
/// second, each in one write(2). Most frames move only the cursor (its column and its mark)
/// or rewrite the status line; the whole picture is drawn again only when what it shows
/// changed: the window (paging, zoom), the loop or what is edited, the selections, the
/// terminal's size, the help.
public final class PlayerScreen {
  /// Fewer rows and `play` shows the status line alone.
  static let minimumRows = PlayerStrip.minimumRows + 1
  /// The shortest time between two frames: 30 a second.
  static let frameNanoseconds: UInt64 = 33_333_333

  private var content: OverviewContent
  /// The song's chords and its set key (nil: the detected one), for the chord lane.
  private let chords: (track: ChordTrack, key: MusicalKey?)?
  private var zoom: PlayerZoom
  private let colour: Bool
  private var entered = false

  /// What the last full frame showed; another value means a full redraw.
  private struct Shown: Equatable {
    var window: Range<Int64>
    var zoomLevel: Int
    var loop: StripLoop
    var note: String
    var rows: Int
    var columns: Int
    var selections: Int
    var transpose: Int
    var help: [String]?
  }
  private var shown: Shown?
  /// The picture drawn last, to move the cursor over it.
  private var picture: PlayerPicture?
  private var cursorColumn: Int?
  private var statusShown: String?
  private var lastFrame: UInt64 = 0
  private var selectionsVersion = 0
  private var help: (lines: [String], until: UInt64)?

  /// The player screen for `song`, when stderr is a terminal tall enough for it; the song's
  /// waveform summary is computed first if the library has none yet.
  public static func of(_ song: Song, library: Library, beatMap: BeatMap?, loop: Range<Int64>)
    throws -> PlayerScreen?
  {
    guard Int(practice_terminal_rows(STDERR_FILENO)) >= PlayerScreen.minimumRows else { return nil }
    if try library.storedWaveformSummary(for: song) == nil {
      Terminal.say("reading '\(song.title)' once for its waveform (kept in the library)")
    }
    let (content, chords) = try library.playerContent(of: song, beatMap: beatMap)
    return PlayerScreen(
      content: content.escaped { Terminal.escaped($0) }, loop: loop, chords: chords)
  }

  /// A screen for a song, or nil when stderr is not a terminal of at least `minimumRows`.
  init?(
    content: OverviewContent, loop: Range<Int64>, chords: (track: ChordTrack, key: MusicalKey?)?
  ) {
    guard isatty(STDERR_FILENO) == 1,
      Int(practice_terminal_rows(STDERR_FILENO)) >= PlayerScreen.minimumRows
    else { return nil }
    self.content = content
    self.chords = chords
    zoom = PlayerZoom(
      beatMap: content.beatMap, totalFrames: content.summary.frames,
      sampleRate: content.summary.sampleRate, loop: loop)
    colour = OverviewText.colourAllowed
  }

  /// The selections of `song` as the screen draws them (placed as `view` places them,
  /// `OverviewSpans`), names escaped (so the columns they take are the columns printed); a
  /// selection that cannot be placed is left out.
  static func spans(of song: Song, library: Library, beatMap: BeatMap?) -> [OverviewContent.Span] {
    library.playerSpans(of: song, beatMap: beatMap).map {
      .init(name: Terminal.escaped($0.name), frames: $0.frames, colour: $0.colour)
    }
  }

  /// Switches to the alternate screen.
  func enter() {
    guard !entered else { return }
    entered = true
    practice_terminal_screen(STDERR_FILENO, 1)
  }

  /// Back to the primary screen, as it was before `enter`.
  func leave() {
    guard entered else { return }
    entered = false
    practice_terminal_screen(STDERR_FILENO, 0)
  }

  /// `z`: half as much of the song, down to one bar; false when there already.
  func zoomIn() -> Bool { zoom.zoomIn() }
  /// `Z`: twice as much, up to the whole song; false when there already.
  func zoomOut() -> Bool { zoom.zoomOut() }

  /// How much one screen shows now, for a notice.
  var zoomSpan: String { "\(zoom.span)" }

  /// After a fix to the beat map from the keys: the ruler, the zoom levels (from the
  /// narrowest that holds `loop`) and the selections from the new map.
  func setBeatMap(_ map: BeatMap?, loop: Range<Int64>, selections: [OverviewContent.Span]) {
    content.beatMap = map
    zoom = PlayerZoom(
      beatMap: map, totalFrames: content.summary.frames, sampleRate: content.summary.sampleRate,
      loop: loop)
    setSelections(selections)
  }

  func setSelections(_ spans: [OverviewContent.Span]) {
    content.selections = spans
    selectionsVersion += 1
  }

  /// Shows `lines` over the strip for a few seconds (or until `hideHelp`).
  func showHelp(_ lines: [String]) {
    help = (lines, monotonicNanoseconds() + 8_000_000_000)
  }

  func hideHelp() { help = nil }

  /// Draws a frame if one is due: the cursor at `cursor` (the audible frame; nil before the
  /// first is heard), `loop`, the chords as they sound `transpose` semitones from the
  /// recording, and `status` on the last row.
  func draw(
    cursor: Int64?, loop: StripLoop, transpose: Int, status: String,
    now: UInt64 = monotonicNanoseconds()
  ) {
    guard entered, now &- lastFrame >= PlayerScreen.frameNanoseconds else { return }
    lastFrame = now
    let rows = Int(practice_terminal_rows(STDERR_FILENO))
    let columns = max(20, Int(practice_terminal_columns(STDERR_FILENO)))
    var frame = ""
    if rows < PlayerScreen.minimumRows {
      // Too small for the picture now (a resize): the status line alone, at the bottom.
      if shown != nil || statusShown == nil {
        frame += "\u{1B}[0m\u{1B}[2J"
        shown = nil
        statusShown = nil
      }
    } else {
      if let h = help, h.until <= now { help = nil }
      let same = shown?.zoomLevel == zoom.level && shown?.rows == rows && shown?.columns == columns
      let window = zoom.window(
        keeping: same ? shown?.window : nil, focus: loop.focus(cursor: cursor), loop: loop.frames)
      let note =
        loop.editing.map {
          "editing the loop's \($0 == .start ? "start" : "end") · ←/→ beat · shift bar · tab other end · e done"
        } ?? "zoom \(zoom.span) · z/Z"
      let wanted = Shown(
        window: window, zoomLevel: zoom.level, loop: loop, note: note, rows: rows, columns: columns,
        selections: selectionsVersion, transpose: chords == nil ? 0 : transpose,
        help: help?.lines)
      if wanted != shown {
        frame += fullFrame(wanted, cursor: cursor)
        shown = wanted
        statusShown = nil
      } else if let picture {
        let column = cursor.flatMap { picture.strip.column(of: $0) }
        if column != cursorColumn {
          if let old = cursorColumn { frame += cursorCells(at: old, on: false) }
          if let column { frame += cursorCells(at: column, on: true) }
          cursorColumn = column
        }
      }
    }
    let line = Terminal.shown(status, width: columns)
    if line != statusShown {
      frame += "\u{1B}[\(max(1, rows));1H\u{1B}[0m" + line + "\u{1B}[K"
      statusShown = line
    }
    if !frame.isEmpty { Terminal.screen(frame) }
  }

  /// The whole picture, the cursor over it.
  private func fullFrame(_ wanted: Shown, cursor: Int64?) -> String {
    let picture = PlayerPicture(
      content, window: wanted.window, chords: chords, transpose: wanted.transpose,
      loop: wanted.loop, width: wanted.columns, rows: wanted.rows - 1, note: wanted.note,
      overlayLines: wanted.help?.count, cursor: cursor)
    self.picture = picture
    let width = picture.strip.width
    var frame = "\u{1B}[0m"
    for (row, line) in picture.rows.enumerated() {
      frame += "\u{1B}[\(row + 1);1H"
      // Columns written; a row written to its last column is not erased after (a terminal
      // with its wrap pending would erase that last character).
      var written = width
      switch line {
      case .overlay(let index):
        let text = Terminal.shown(wanted.help?[index] ?? "", width: width + 1)
        frame += text
        written = text.count
      case .envelope(let cells):
        frame += render(cells.map(styled))
      case .runs(let runs):
        frame += render(runs.map { ($0.text, sgr($0.style)) })
        written = runs.reduce(0) { $0 + $1.text.count }
      }
      frame += "\u{1B}[0m" + (written < width ? "\u{1B}[K" : "")
    }
    cursorColumn = picture.cursorColumn
    if let column = cursorColumn { frame += cursorCells(at: column, on: true) }
    return frame
  }

  /// The cursor's column drawn (`on`) or put back (`PlayerPicture.cursorCells`).
  private func cursorCells(at column: Int, on: Bool) -> String {
    guard let picture else { return "" }
    var frame = ""
    for (row, cell) in picture.cursorCells(at: column, on: on) {
      frame += "\u{1B}[\(row + 1);\(column + 1)H" + render([styled(cell)])
    }
    return frame
  }

  /// A cell with its SGR: the envelope brighter inside the loop, the cursor's cells reversed.
  private func styled(_ cell: PlayerPicture.Cell) -> (String, String?) {
    guard colour, cell.character != " " else { return (String(cell.character), nil) }
    if cell.reversed { return (String(cell.character), "7") }
    switch cell.style {
    case .rms: return (String(cell.character), cell.inLoop ? "96" : "36")
    case .peak: return (String(cell.character), cell.inLoop ? "36" : "2;36")
    default: return (String(cell.character), sgr(cell.style))
    }
  }

  private func sgr(_ style: TextStyle) -> String? { colour ? OverviewText.sgr(style) : nil }

  /// Runs of text, each in its SGR (or none).
  private func render(_ runs: [(String, String?)]) -> String {
    var text = ""
    var current: String?
    for (piece, code) in runs {
      if code != current {
        text += "\u{1B}[0m"
        if let code { text += "\u{1B}[\(code)m" }
        current = code
      }
      text += piece
    }
    if current != nil { text += "\u{1B}[0m" }
    return text
  }
}
