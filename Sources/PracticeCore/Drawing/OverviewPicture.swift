import Foundation

/// The overview as a picture (`view -o`): title and artist, the bar ruler with bar lines
/// through the waveform, the envelope (peak light, RMS dark, mirrored about the centre
/// line), doubtful bars shaded on the ruler, each selection as a coloured bar with its name
/// under the waveform and a tint over it, and the times at both ends. Drawn from the same
/// `OverviewLayout` as the terminal's, one layout unit per pixel (PNG) or point (PDF, SVG).
public enum OverviewPicture {
  /// Widths when none is given: 1600 px for a PNG; an A4 page's landscape width for PDF and
  /// SVG (842 pt).
  public static func defaultWidth(_ format: PictureFormat) -> Double { format == .png ? 1600 : 842 }

  /// Where things are on the picture.
  public struct Geometry: Sendable, Equatable {
    public var width: Double
    public var height: Double
    public var fontSize: Double
    public var plotLeft: Double
    /// Layout units across the waveform (whole pixels or points).
    public var plotWidth: Int
    public var rulerTop: Double
    public var waveTop: Double
    public var waveHeight: Double
    public var spansTop: Double
    /// Height of one row of selections; the bar fills its top 80 %.
    public var rowHeight: Double
    public var timesBaseline: Double
  }

  /// The picture's geometry for a width, a waveform height (nil: the default, about an
  /// eighth of the width) and the rows of selections; `chordLane` leaves a row for the
  /// chords between the title and the ruler.
  public static func geometry(
    width: Double, waveHeight: Double?, spanRows: Int, chordLane: Bool = false
  ) -> Geometry {
    let f = min(24, max(8, width / 90))
    // Whole units, so that each column of the envelope fills whole pixels of a PNG.
    let margin = (2 * f).rounded()
    let rulerTop = margin + 2.4 * f + (chordLane ? 1.5 * f : 0)
    let waveTop = rulerTop + 1.6 * f
    let wave = waveHeight ?? max(4 * f, (width / 8).rounded())
    let spansTop = waveTop + wave + 0.6 * f
    let rowHeight = 1.9 * f
    let timesBaseline = spansTop + Double(spanRows) * rowHeight + 1.2 * f
    return Geometry(
      width: width, height: (timesBaseline + margin * 0.8).rounded(.up), fontSize: f,
      plotLeft: margin, plotWidth: max(1, Int(width - 2 * margin)), rulerTop: rulerTop,
      waveTop: waveTop, waveHeight: wave, spansTop: spansTop, rowHeight: rowHeight,
      timesBaseline: timesBaseline)
  }

  /// The layout for a picture of `width`: its ruler labels measured as DejaVu Sans digits.
  public static func layout(_ content: OverviewContent, width: Double) -> OverviewLayout {
    let f = geometry(width: width, waveHeight: nil, spanRows: 0).fontSize
    let units = geometry(width: width, waveHeight: nil, spanRows: 0).plotWidth
    return OverviewLayout(content, width: units) { Double($0.count) * 0.64 * f + 0.8 * f }
  }

  /// Draws `content` into `path` as `format`.
  public static func write(
    _ content: OverviewContent, to path: String, format: PictureFormat, width: Double? = nil,
    waveHeight: Double? = nil
  ) throws {
    let width = width ?? defaultWidth(format)
    let layout = layout(content, width: width)
    let g = geometry(
      width: width, waveHeight: waveHeight, spanRows: layout.spanRows,
      chordLane: !layout.chords.isEmpty)
    let canvas = try Canvas(path: path, format: format, width: g.width, height: g.height)
    let f = g.fontSize
    let left = g.plotLeft
    let plotWidth = Double(g.plotWidth)

    var heading = content.title
    if let artist = content.artist, !artist.isEmpty { heading += " — " + artist }
    canvas.text(
      canvas.fitted(heading, width: g.width - 2 * left, size: 1.4 * f, bold: true), x: left,
      y: left + 1.3 * f, size: 1.4 * f, colour: PictureColours.ink, bold: true)

    // The chord lane above the ruler: each symbol from where its chord starts, shortened
    // where the next change comes before it ends, every change marked (`ChordLabels`).
    let labels = ChordLabels.fit(layout.chords, right: plotWidth + left * 0.8, gap: 0.6 * f) {
      canvas.textWidth($0, size: 0.95 * f, bold: true)
    }
    for label in labels {
      canvas.text(
        label.text, x: left + label.x, y: g.rulerTop - 0.45 * f, size: 0.95 * f,
        colour: PictureColours.ink, bold: true)
    }
    // Doubtful bars: the ruler shaded from the bar line to the next.
    for (i, tick) in layout.ticks.enumerated() where tick.doubtful {
      let end = i + 1 < layout.ticks.count ? layout.ticks[i + 1].x : plotWidth
      canvas.fill(
        PictureColours.doubtful, x: left + tick.x, y: g.rulerTop, width: end - tick.x,
        height: 1.5 * f)
    }
    // Selections tint the waveform behind the envelope.
    for span in layout.spans {
      canvas.fill(
        PictureColours.selection(span.colour), x: left + span.start, y: g.waveTop,
        width: max(1, span.end - span.start), height: g.waveHeight, alpha: 0.12)
    }
    // Bar lines (or time lines) through the ruler and the waveform, labels beside them;
    // unlabelled bar lines only while they are at least 4 units apart.
    let sparse = zip(layout.ticks, layout.ticks.dropFirst()).allSatisfy { $1.x - $0.x >= 4 }
    for tick in layout.ticks where tick.label != nil || sparse {
      let x = left + tick.x
      canvas.line(
        tick.label != nil ? PictureColours.faint : PictureColours.grid,
        from: (x, g.rulerTop + (tick.label != nil ? 0 : 0.8 * f)),
        to: (x, g.waveTop + g.waveHeight),
        width: max(0.5, f / 14))
      // A label that would run off the picture is left out.
      if let label = tick.label,
        tick.x + 0.2 * f + canvas.textWidth(label, size: f) <= plotWidth + left * 0.8
      {
        canvas.text(
          label, x: x + 0.2 * f, y: g.rulerTop + 1.05 * f, size: f, colour: PictureColours.ink)
      }
    }
    // The envelope, mirrored about the centre line: peak light, RMS dark.
    let centre = g.waveTop + g.waveHeight / 2
    let half = g.waveHeight / 2
    for (i, column) in layout.columns.enumerated() {
      let x = left + Double(i)
      let peak = max(Double(column.peak) * half, column.peak > 0 ? 0.25 : 0)
      canvas.fill(PictureColours.peak, x: x, y: centre - peak, width: 1, height: 2 * peak)
      let rms = Double(column.rms) * half
      canvas.fill(PictureColours.rms, x: x, y: centre - rms, width: 1, height: 2 * rms)
    }
    // Selections: a bar in their colour with the name in it.
    for span in layout.spans {
      let y = g.spansTop + Double(span.row) * g.rowHeight
      let width = max(1, span.end - span.start)
      canvas.fill(
        PictureColours.selection(span.colour), x: left + span.start, y: y, width: width,
        height: 0.8 * g.rowHeight)
      let size = 0.95 * f
      if canvas.textWidth(span.name, size: size, bold: true) <= width - 0.6 * f {
        canvas.text(
          span.name, x: left + span.start + 0.3 * f, y: y + 0.55 * g.rowHeight, size: size,
          colour: PictureColours.background, bold: true)
      } else {
        // Too narrow for its name: the name goes after the bar, in its colour, as far as the
        // next selection on the row (or the edge) allows.
        let next =
          layout.spans.filter { $0.row == span.row && $0.start >= span.end }.map(\.start).min()
          ?? (plotWidth + left * 0.8)
        let name = canvas.fitted(
          span.name, width: next - span.end - 0.6 * f, size: size, bold: true)
        canvas.text(
          name, x: left + span.end + 0.3 * f, y: y + 0.55 * g.rowHeight, size: size,
          colour: PictureColours.selection(span.colour), bold: true)
      }
    }
    canvas.text(
      formatTime(layout.startSeconds), x: left, y: g.timesBaseline, size: 0.9 * f,
      colour: PictureColours.faint)
    canvas.text(
      formatTime(layout.endSeconds), x: left + plotWidth, y: g.timesBaseline, size: 0.9 * f,
      colour: PictureColours.faint, alignRight: true)
    try canvas.finish()
  }
}
