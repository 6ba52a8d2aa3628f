import Foundation

/// What a run of text in a terminal picture is, for colouring it; plain output ignores it.
public enum TextStyle: Sendable, Equatable, Hashable {
  case plain
  case title
  case barNumber
  case tick
  case doubtful
  case rms
  case peak
  case time
  /// A chord of the chord lane.
  case chord
  /// A selection, by its palette colour.
  case selection(Int)
  /// The player screen: the loop playing, the end of it being edited, the cursor.
  case loop
  case editing
  case cursor
}

/// A run of characters in one style.
public struct TextRun: Sendable, Equatable {
  public var text: String
  public var style: TextStyle

  public init(_ text: String, _ style: TextStyle) {
    self.text = text
    self.style = style
  }
}

/// The overview drawn in terminal cells: a title line, a ruler (labels, then tick marks),
/// the envelope in `height` rows of block characters, a row per level of selections, and
/// the times at both ends. One character per cell; the caller gives names already made
/// safe to print (control characters escaped), so that their width is what is printed.
///
/// The envelope rises from the bottom row: the RMS in solid blocks to the eighth of a row
/// (`▁`…`█`), the peak above it in light shade (`░`) where it covers at least half a row.
/// A row holding the top of the RMS shows the peak instead when the RMS fills less than
/// half of it and the peak at least half, so the outline of a loud passage stays visible.
public struct TextOverview: Sendable {
  public static let eighths: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
  public static let peakShade: Character = "░"

  public let lines: [[TextRun]]

  /// The overview of `content`, `width` columns wide (at least 20), `height` envelope rows.
  public init(_ content: OverviewContent, width: Int, height: Int) {
    let width = max(20, width)
    let height = max(1, height)
    let layout = OverviewLayout(content, width: width) { Double($0.count + 1) }
    var lines: [[TextRun]] = []

    var heading = content.title
    if let artist = content.artist, !artist.isEmpty { heading += " — " + artist }
    lines.append([TextRun(String(heading.prefix(width)), .title)])

    if !layout.chords.isEmpty { lines.append(TextOverview.chordLane(layout, width: width)) }
    lines += TextOverview.ruler(layout, width: width)
    lines += TextOverview.envelope(layout, width: width, height: height)
    for row in 0..<layout.spanRows {
      lines.append(TextOverview.spanLine(layout.spans.filter { $0.row == row }, width: width))
    }

    lines.append(TextOverview.times(layout, width: width))
    self.lines = lines
  }

  // The parts of the overview, each laid out from the same `OverviewLayout`: `view` stacks
  // them all, the player screen stacks them with its own rows between.

  /// The ruler: labels starting at their bar line, then a tick at every bar line (when bar
  /// lines are at least two columns apart; else at the labelled ones), `?` at doubtful bars,
  /// and a dot at each other beat when beats are at least `beatSpacing` columns apart.
  /// Columns between beats below which the ruler shows no beat dots.
  static let beatSpacing = 3.0

  public static func ruler(_ layout: OverviewLayout, width: Int) -> [[TextRun]] {
    var labels = Cells(width: width)
    var marks = Cells(width: width)
    var nextFree = 0
    for tick in layout.ticks {
      let column = min(width - 1, Int(tick.x))
      if let label = tick.label, column >= nextFree, column + label.count <= width {
        labels.put(label, at: column, style: .barNumber)
        nextFree = column + label.count + 1
      }
    }
    let sparse =
      layout.ticks.count < 2
      || zip(layout.ticks, layout.ticks.dropFirst())
        .allSatisfy { $1.x - $0.x >= 2 }
    for tick in layout.ticks where tick.label != nil || sparse || tick.doubtful {
      let column = min(width - 1, Int(tick.x))
      if tick.doubtful {
        marks.put("?", at: column, style: .doubtful)
      } else if marks.character(at: column) != "?" {
        marks.put(tick.label != nil ? "│" : "╵", at: column, style: .tick)
      }
    }
    let beatsApart =
      zip(layout.beats, layout.beats.dropFirst()).map { $1 - $0 }.min() ?? 0
    if layout.beats.count >= 2, beatsApart >= beatSpacing {
      for x in layout.beats {
        let column = min(width - 1, Int(x))
        if marks.character(at: column) == " " { marks.put("·", at: column, style: .tick) }
      }
    }
    return [labels.runs, marks.runs]
  }

  /// The chord lane above the ruler: each chord's symbol from its first column, shortened
  /// where the next change comes before it ends (a space between them), every change marked
  /// (`ChordLabels`).
  public static func chordLane(_ layout: OverviewLayout, width: Int) -> [TextRun] {
    var cells = Cells(width: width)
    let columns = layout.chords.map { (x: Double(min(width - 1, Int($0.x))), symbol: $0.symbol) }
    for label in ChordLabels.fit(columns, right: Double(width), gap: 1, width: { Double($0.count) })
    {
      cells.put(label.text, at: Int(label.x), style: .chord)
    }
    return cells.runs
  }

  /// The envelope in `height` rows, top row first.
  public static func envelope(_ layout: OverviewLayout, width: Int, height: Int) -> [[TextRun]] {
    var lines: [[TextRun]] = []
    let levels = 8 * height
    for row in stride(from: height - 1, through: 0, by: -1) {
      var cells = Cells(width: width)
      for (column, value) in layout.columns.enumerated() {
        let peak = Int((Double(value.peak) * Double(levels)).rounded())
        let rms = min(peak, Int((Double(value.rms) * Double(levels)).rounded()))
        let bottom = 8 * row
        if rms >= bottom + 8 {
          cells.put("█", at: column, style: .rms)
        } else if rms > bottom && (rms - bottom >= 4 || peak < bottom + 4) {
          cells.put(TextOverview.eighths[rms - bottom], at: column, style: .rms)
        } else if peak >= bottom + 4 {
          cells.put(TextOverview.peakShade, at: column, style: .peak)
        }
      }
      lines.append(cells.runs)
    }
    return lines
  }

  /// One row of spans: `├name───┤` from their first column to their last; `◂`/`▸` where
  /// they go on beyond the view. Each span in `style(span)`, its selection's colour unless
  /// told otherwise.
  public static func spanLine(
    _ spans: [OverviewLayout.Span], width: Int,
    style: (OverviewLayout.Span) -> TextStyle = { .selection($0.colour) }
  ) -> [TextRun] {
    spanCells(spans, width: width, style: style).runs
  }

  static func spanCells(
    _ spans: [OverviewLayout.Span], width: Int, style: (OverviewLayout.Span) -> TextStyle
  ) -> Cells {
    var cells = Cells(width: width)
    for span in spans {
      let first = min(width - 1, Int(span.start))
      // Columns floor(start) ..< floor(end): spans that meet tile without overlapping.
      let last = max(first, min(width - 1, Int(span.end.rounded(.down)) - 1))
      let style = style(span)
      if first == last {
        cells.put("│", at: first, style: style)
        continue
      }
      for column in first...last { cells.put("─", at: column, style: style) }
      cells.put(span.clippedStart ? "◂" : "├", at: first, style: style)
      cells.put(span.clippedEnd ? "▸" : "┤", at: last, style: style)
      let room = last - first - 1
      if room > 0 {
        let name =
          span.name.count <= room
          ? span.name
          : (room >= 2
            ? String(span.name.prefix(room - 1)) + "…" : String(span.name.prefix(room)))
        cells.put(name, at: first + 1, style: style)
      }
    }
    return cells
  }

  /// The times at both ends of the view.
  public static func times(_ layout: OverviewLayout, width: Int) -> [TextRun] {
    var times = Cells(width: width)
    let start = formatTime(layout.startSeconds)
    let end = formatTime(layout.endSeconds)
    times.put(start, at: 0, style: .time)
    if start.count + 1 + end.count <= width { times.put(end, at: width - end.count, style: .time) }
    return times.runs
  }

  /// The lines as plain text, trailing spaces removed.
  public var plainText: [String] {
    lines.map { line in
      var text = line.map(\.text).joined()
      while text.last == " " { text.removeLast() }
      return text
    }
  }
}

/// One line of cells, each one character in a style.
struct Cells {
  private var characters: [Character]
  private var styles: [TextStyle]

  init(width: Int) {
    characters = Array(repeating: " ", count: width)
    styles = Array(repeating: .plain, count: width)
  }

  func character(at column: Int) -> Character { characters[column] }

  mutating func put(_ character: Character, at column: Int, style: TextStyle) {
    guard characters.indices.contains(column) else { return }
    characters[column] = character
    styles[column] = style
  }

  mutating func put(_ text: String, at column: Int, style: TextStyle) {
    for (offset, character) in text.enumerated() {
      put(character, at: column + offset, style: style)
    }
  }

  /// Runs of one style; spaces are plain, and trailing spaces are dropped.
  var runs: [TextRun] {
    var end = characters.count
    while end > 0 && characters[end - 1] == " " { end -= 1 }
    var runs: [TextRun] = []
    for column in 0..<end {
      let style = characters[column] == " " ? TextStyle.plain : styles[column]
      if let last = runs.last, last.style == style {
        runs[runs.count - 1].text.append(characters[column])
      } else {
        runs.append(TextRun(String(characters[column]), style))
      }
    }
    return runs
  }
}
