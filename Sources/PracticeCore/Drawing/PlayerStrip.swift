import Foundation

/// What the player screen shows of a song: how much (the zoom, from one bar to the whole
/// song) and which part (the window, paged so the cursor stays in view). Plain values.
public struct PlayerZoom: Sendable, Equatable {
  /// How much of the song one screen shows.
  public enum Span: Sendable, Equatable, CustomStringConvertible {
    case bars(Int)
    case seconds(Int)
    case whole

    public var description: String {
      switch self {
      case .bars(1): return "1 bar"
      case .bars(let n): return "\(n) bars"
      case .seconds(let n): return "\(n) s"
      case .whole: return "whole song"
      }
    }
  }

  /// The zoom levels, narrowest first: 1, 2, 4, … bars with a beat map (2, 5, 10, 20, …
  /// seconds without), then the whole song.
  public let spans: [Span]
  /// The level in use.
  public private(set) var level: Int
  let beatMap: BeatMap?
  let totalFrames: Int64
  let sampleRate: Int

  /// The levels for a song, starting at the narrowest that holds `loop` whole.
  public init(beatMap: BeatMap?, totalFrames: Int64, sampleRate: Int, loop: Range<Int64>) {
    self.beatMap = beatMap
    self.totalFrames = max(1, totalFrames)
    self.sampleRate = max(1, sampleRate)
    var spans: [Span] = []
    if let map = beatMap {
      var n = 1
      while n < map.bars.count {
        spans.append(.bars(n))
        n *= 2
      }
    } else {
      let seconds = Double(totalFrames) / Double(max(1, sampleRate))
      var steps = [2, 5, 10]
      var step = 20
      while Double(step) < seconds {
        steps.append(step)
        step *= 2
      }
      spans = steps.filter { Double($0) < seconds }.map { .seconds($0) }
    }
    spans.append(.whole)
    self.spans = spans
    level = spans.count - 1
    for index in spans.indices {
      level = index
      if window(at: index, cursor: loop.lowerBound, loop: loop).upperBound >= loop.upperBound {
        break
      }
    }
  }

  public var span: Span { spans[level] }

  /// One level narrower (`z`); false at one bar.
  public mutating func zoomIn() -> Bool {
    guard level > 0 else { return false }
    level -= 1
    return true
  }

  /// One level wider (`Z`); false at the whole song.
  public mutating func zoomOut() -> Bool {
    guard level + 1 < spans.count else { return false }
    level += 1
    return true
  }

  /// The frames in view with the cursor at `cursor`: from the loop's start when that
  /// window holds the cursor (so a loop that fits stays whole in view), else the page
  /// holding the cursor (from the bar it is in; without a beat map, whole spans from 0).
  public func window(cursor: Int64, loop: Range<Int64>) -> Range<Int64> {
    window(at: level, cursor: cursor, loop: loop)
  }

  /// The window to show next: `shown` (the one on screen, nil after a change of zoom or
  /// size) while it holds `focus` (`StripLoop.focus`), else `window(cursor: focus, …)`.
  public func window(keeping shown: Range<Int64>?, focus: Int64, loop: Range<Int64>)
    -> Range<Int64>
  {
    if let shown, shown.contains(focus) { return shown }
    return window(cursor: focus, loop: loop)
  }

  func window(at level: Int, cursor: Int64, loop: Range<Int64>) -> Range<Int64> {
    let cursor = min(max(0, cursor), totalFrames - 1)
    switch spans[level] {
    case .whole:
      return 0..<totalFrames
    case .bars(let count):
      guard let map = beatMap else { return 0..<totalFrames }
      let fromLoop = barWindow(map, from: bar(map, at: loop.lowerBound), count: count)
      if fromLoop.contains(cursor) { return fromLoop }
      return barWindow(map, from: bar(map, at: cursor), count: count)
    case .seconds(let seconds):
      let length = Int64(seconds) * Int64(sampleRate)
      let fromLoop = loop.lowerBound..<min(totalFrames, loop.lowerBound + length)
      if fromLoop.contains(cursor) { return fromLoop }
      let start = cursor / length * length
      return start..<min(totalFrames, start + length)
    }
  }

  /// The bar sounding at `frame`; the first bar before the first beat.
  private func bar(_ map: BeatMap, at frame: Int64) -> Int {
    map.beatIndex(at: frame).map { map.beats[$0].bar } ?? map.firstBar
  }

  /// Bars `first` ..< `first + count`; the first bar's window starts at the top of the song
  /// and the last bar's ends at its end, so no frame is outside every window.
  private func barWindow(_ map: BeatMap, from first: Int, count: Int) -> Range<Int64> {
    let start = first <= map.firstBar ? 0 : (map.frame(bar: first) ?? 0)
    let next = first + count
    let end =
      next > map.lastBar ? totalFrames : (map.frames(ofBar: next)?.lowerBound ?? totalFrames)
    return start..<max(start + 1, end)
  }
}

/// The loop as the player screen draws it: its frames, its name, and which end is being
/// edited (nil when none).
public struct StripLoop: Sendable, Equatable {
  public var frames: Range<Int64>
  public var label: String
  public var editing: LoopEdge?

  public init(frames: Range<Int64>, label: String, editing: LoopEdge?) {
    self.frames = frames
    self.label = label
    self.editing = editing
  }

  /// The frame the window must hold: the end being edited (so a step that takes it past
  /// the window's edge is seen), else the cursor (`cursor`; the loop's start before the
  /// first frame is heard).
  public func focus(cursor: Int64?) -> Int64 {
    switch editing {
    case .start: return frames.lowerBound
    case .end: return max(frames.lowerBound, frames.upperBound - 1)
    case nil: return cursor ?? frames.lowerBound
    }
  }
}

/// The player screen's picture above its status line, `rows` rows of `width` columns: a
/// heading, the chord lane (when the song has chords), the bar ruler and the envelope as
/// `view` draws them (the same `TextOverview` parts), a row for the cursor's mark, the
/// loop's row, the selections' rows and the times at both ends of the window. The cursor
/// itself is not in `lines`: the screen draws it over them at `column(of:)`, so a moving
/// cursor redraws one column, not the picture.
public struct PlayerStrip: Sendable {
  public let width: Int
  public let window: Range<Int64>
  /// The rows, top first (`rows` of them; empty ones are blank).
  public let lines: [[TextRun]]
  /// Which rows are the envelope, and which one carries the cursor's mark `▲`.
  public let envelopeRows: Range<Int>
  public let markerRow: Int
  /// The columns the loop covers in this window (nil when it is out of view).
  public let loopColumns: Range<Int>?

  /// Fewer rows than this and the screen is not used.
  public static let minimumRows = 11
  public static let cursorMark: Character = "▲"

  /// `content` (whose `window` is the part in view) laid out in `rows` rows; `heading`'s
  /// right-hand part says the zoom or what is edited.
  public init(_ content: OverviewContent, loop: StripLoop, width: Int, rows: Int, note: String) {
    let width = max(20, width)
    let rows = max(PlayerStrip.minimumRows, rows)
    self.width = width
    let window = content.window
    self.window = window
    let layout = OverviewLayout(content, width: width) { Double($0.count + 1) }
    // Title, chord lane (when the song has chords), ruler (2), marker, loop, times: 6 or 7
    // rows; the selections take up to a third of what is left, the envelope the rest (at
    // most 16).
    let hasChords = !content.chords.isEmpty
    let free = rows - 6 - (hasChords ? 1 : 0)
    let spanRows = min(layout.spanRows, max(0, free - 3), free / 3)
    let height = min(16, free - spanRows)
    var picture: [[TextRun]] = []

    var heading = content.title
    if let artist = content.artist, !artist.isEmpty { heading += " — " + artist }
    let room = width - note.count - 2
    var top = Cells(width: width)
    if room > 3 {
      top.put(
        heading.count > room ? String(heading.prefix(room - 1)) + "…" : heading, at: 0,
        style: .title)
    }
    top.put(note, at: max(0, width - note.count), style: .plain)
    picture.append(top.runs)
    if hasChords {
      picture.append(PlayerStrip.chordLane(content.chords, window: window, width: width))
    }
    picture += TextOverview.ruler(layout, width: width)
    let envelopeStart = picture.count
    picture += TextOverview.envelope(layout, width: width, height: height)
    markerRow = picture.count
    envelopeRows = envelopeStart..<markerRow
    picture.append([])

    // The loop, clipped to the window, with the end being edited marked.
    func x(_ frame: Int64) -> Double {
      Double(frame - window.lowerBound) * Double(width) / Double(max(1, window.count))
    }
    var columns: Range<Int>?
    if loop.frames.overlaps(window) {
      let lower = max(loop.frames.lowerBound, window.lowerBound)
      let upper = min(loop.frames.upperBound, window.upperBound)
      let span = OverviewLayout.Span(
        name: loop.label, colour: 0, start: x(lower), end: x(upper),
        clippedStart: loop.frames.lowerBound < window.lowerBound,
        clippedEnd: loop.frames.upperBound > window.upperBound, row: 0)
      var cells = TextOverview.spanCells([span], width: width) { _ in .loop }
      let first = min(width - 1, Int(span.start))
      let last = max(first, min(width - 1, Int(span.end.rounded(.down)) - 1))
      if loop.editing == .start && !span.clippedStart {
        cells.put("[", at: first, style: .editing)
      } else if loop.editing == .end && !span.clippedEnd {
        cells.put("]", at: last, style: .editing)
      }
      columns = first..<(last + 1)
      picture.append(cells.runs)
    } else {
      picture.append([])
    }
    loopColumns = columns
    for row in 0..<spanRows {
      picture.append(TextOverview.spanLine(layout.spans.filter { $0.row == row }, width: width))
    }
    while picture.count < rows - 1 { picture.append([]) }
    picture.append(TextOverview.times(layout, width: width))
    self.lines = picture
  }

  /// The chord lane of `window` across `width` columns: each chord in view from the column
  /// its start falls in (column 0 for one begun before the window), given the columns up to
  /// the one before its end (the next change) or to the right edge; a symbol longer than
  /// that is cut to its root and `…` (`Cmaj7` as `C…`, never `Cm…`), then to its root,
  /// then to `·`: every change is marked (`ChordLabels`).
  public static func chordLane(
    _ chords: [(frames: Range<Int64>, symbol: String)], window: Range<Int64>, width: Int
  ) -> [TextRun] {
    var cells = Cells(width: width)
    func column(_ frame: Int64) -> Int {
      Int(Double(frame - window.lowerBound) * Double(width) / Double(max(1, window.count)))
    }
    var nextFree = 0
    for chord in chords where chord.frames.overlaps(window) {
      let first = max(nextFree, column(max(chord.frames.lowerBound, window.lowerBound)))
      let room =
        chord.frames.upperBound >= window.upperBound
        ? width - first : column(chord.frames.upperBound) - 1 - first
      guard first < width else { continue }
      let symbol =
        ChordLabels.shortenings(of: chord.symbol).first { $0.count <= room } ?? ChordLabels.mark
      cells.put(symbol, at: first, style: .chord)
      nextFree = first + symbol.count + 1
    }
    return cells.runs
  }

  /// The column of `frame`, nil outside the window.
  public func column(of frame: Int64) -> Int? {
    guard window.contains(frame) else { return nil }
    let column = Int(
      Double(frame - window.lowerBound) * Double(width) / Double(max(1, window.count)))
    return min(width - 1, max(0, column))
  }
}
