import Foundation

/// What an overview of a song shows, before it is laid out: the envelope, the bars, the
/// selections, and the part of the song in view.
public struct OverviewContent: Sendable {
  public struct Span: Sendable, Equatable {
    public var name: String
    public var frames: Range<Int64>
    /// Which colour of the palette: the selection's place among the song's selections, so
    /// a selection keeps its colour whatever is in view and in every picture.
    public var colour: Int

    public init(name: String, frames: Range<Int64>, colour: Int) {
      self.name = name
      self.frames = frames
      self.colour = colour
    }
  }

  public var title: String
  public var artist: String?
  public var summary: WaveformSummary
  public var beatMap: BeatMap?
  public var selections: [Span]
  /// The source frames in view.
  public var window: Range<Int64>
  /// The chord lane: each chord's frames and how it is written (`Am7`); empty for none.
  public var chords: [(frames: Range<Int64>, symbol: String)]

  public init(
    title: String, artist: String?, summary: WaveformSummary, beatMap: BeatMap?,
    selections: [Span], window: Range<Int64>,
    chords: [(frames: Range<Int64>, symbol: String)] = []
  ) {
    self.title = title
    self.artist = artist
    self.summary = summary
    self.beatMap = beatMap
    self.selections = selections
    self.window = window
    self.chords = chords
  }
}

/// An overview laid out across `width` units (terminal columns, or pixels or points of a
/// picture): the envelope per unit, the ruler's ticks and labels, the selections' spans
/// on rows. Plain values, the same for every way of drawing them.
public struct OverviewLayout: Sendable {
  public struct Column: Sendable, Equatable {
    /// Peak and RMS as fractions of the song's loudest peak (0-1).
    public var peak: Float
    public var rms: Float
  }

  public struct Tick: Sendable, Equatable {
    /// Units from the left edge of the waveform (0 ..< width).
    public var x: Double
    /// The bar number or the time, where the ruler has room for it.
    public var label: String?
    /// A bar of a detected map with a beat below `BeatDetector.lowConfidence`.
    public var doubtful: Bool
    /// The bar it starts (nil on a time ruler).
    public var bar: Int?
  }

  public struct Span: Sendable, Equatable {
    public var name: String
    public var colour: Int
    /// Units from the left edge, clipped to the view.
    public var start: Double
    public var end: Double
    /// Whether the selection goes on before or after the view.
    public var clippedStart: Bool
    public var clippedEnd: Bool
    /// Row under the waveform, from 0; overlapping selections are on different rows.
    public var row: Int
  }

  public let width: Int
  public let columns: [Column]
  public let ticks: [Tick]
  /// Units from the left edge of the beats in view that do not start a bar (a bar ruler).
  public let beats: [Double]
  public let spans: [Span]
  public let spanRows: Int
  /// Bars between labels (1, 2, 4, 8, …) on a bar ruler; nil on a time ruler.
  public let barStep: Int?
  /// Seconds between ticks on a time ruler; nil on a bar ruler.
  public let timeStep: Double?
  public let startSeconds: Double
  public let endSeconds: Double
  /// The chord lane: where each chord in view starts (units from the left edge; a chord
  /// begun before the view at 0) and its symbol.
  public let chords: [(x: Double, symbol: String)]

  /// Lays `content` out across `width` units. `labelWidth` says how many units a ruler
  /// label takes, the room it needs after it included.
  public init(_ content: OverviewContent, width: Int, labelWidth: (String) -> Double) {
    let width = max(1, width)
    self.width = width
    let window = content.window
    let length = Double(max(1, window.count))
    let rate = Double(content.summary.sampleRate)
    startSeconds = Double(window.lowerBound) / rate
    endSeconds = Double(window.upperBound) / rate
    func x(_ frame: Int64) -> Double { Double(frame - window.lowerBound) * Double(width) / length }
    func frame(atUnit unit: Int) -> Int64 {
      window.lowerBound + Int64((Double(unit) * length / Double(width)).rounded(.down))
    }

    let loudest = content.summary.loudestPeak
    let scale: Float = loudest > 0 ? 1 / loudest : 0
    columns = (0..<width).map { unit in
      let range = frame(atUnit: unit)..<max(frame(atUnit: unit) + 1, frame(atUnit: unit + 1))
      let (peak, rms) = content.summary.envelope(of: range)
      return Column(peak: min(1, peak * scale), rms: min(1, rms * scale))
    }

    if let map = content.beatMap {
      let inView = map.bars.compactMap { bar -> (number: Int, x: Double)? in
        let start = map.beats[bar.beatIndices.lowerBound].frame
        return window.contains(start) ? (bar.number, x(start)) : nil
      }
      // The smallest step, 1, 2, 4, 8, … bars, whose labels do not run into each other.
      var step = 1
      func labelled(_ number: Int) -> Bool { number == 0 ? step == 1 : (number - 1) % step == 0 }
      while step < 1 << 20 {
        var fits = true
        var previousEnd = -Double.infinity
        for bar in inView where labelled(bar.number) {
          if bar.x < previousEnd {
            fits = false
            break
          }
          previousEnd = bar.x + labelWidth(String(bar.number))
        }
        if fits { break }
        step *= 2
      }
      let detected = map.beats.contains { $0.confidence != nil }
      ticks = inView.map { bar in
        let doubtful =
          detected
          && (map.lowestConfidence(ofBar: bar.number).map { $0 < BeatDetector.lowConfidence }
            ?? false)
        return Tick(
          x: bar.x, label: labelled(bar.number) ? String(bar.number) : nil, doubtful: doubtful,
          bar: bar.number)
      }
      let barStarts = Set(map.bars.map { $0.beatIndices.lowerBound })
      beats = map.beats.indices.compactMap { index in
        let frame = map.beats[index].frame
        return !barStarts.contains(index) && window.contains(frame) ? x(frame) : nil
      }
      barStep = step
      timeStep = nil
    } else {
      // Round times: the smallest step whose labels fit.
      let steps: [Double] = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 18000, 36000,
      ]
      let unitsPerSecond = Double(width) / max(endSeconds - startSeconds, 1e-9)
      let widest = labelWidth(OverviewLayout.clock(endSeconds))
      let step = steps.first { $0 * unitsPerSecond >= widest } ?? steps[steps.count - 1]
      var marks: [Tick] = []
      var k = (startSeconds / step).rounded(.up)
      while k * step < endSeconds {
        let seconds = k * step
        marks.append(
          Tick(
            x: (seconds - startSeconds) * unitsPerSecond, label: OverviewLayout.clock(seconds),
            doubtful: false, bar: nil))
        k += 1
      }
      ticks = marks
      beats = []
      barStep = nil
      timeStep = step
    }

    chords = content.chords.filter { $0.frames.overlaps(window) }.map {
      (x(max($0.frames.lowerBound, window.lowerBound)), $0.symbol)
    }

    // Spans: clipped to the view; each on the first row where it overlaps nothing.
    var rowsEnd: [Int64] = []
    var spans: [Span] = []
    let visible = content.selections.filter { $0.frames.overlaps(window) }
      .sorted {
        ($0.frames.lowerBound, $0.frames.upperBound) < ($1.frames.lowerBound, $1.frames.upperBound)
      }
    for selection in visible {
      let lower = max(selection.frames.lowerBound, window.lowerBound)
      let upper = min(selection.frames.upperBound, window.upperBound)
      let row = rowsEnd.firstIndex { $0 <= lower } ?? rowsEnd.count
      if row == rowsEnd.count { rowsEnd.append(upper) } else { rowsEnd[row] = upper }
      spans.append(
        Span(
          name: selection.name, colour: selection.colour, start: x(lower), end: x(upper),
          clippedStart: selection.frames.lowerBound < window.lowerBound,
          clippedEnd: selection.frames.upperBound > window.upperBound, row: row))
    }
    self.spans = spans
    spanRows = rowsEnd.count
  }

  /// `1:30`, `0:05`, `1:02:03`: a ruler's time, whole seconds.
  public static func clock(_ seconds: Double) -> String {
    let total = Int(seconds.rounded())
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
    let ss = s < 10 ? "0\(s)" : "\(s)"
    if h > 0 { return "\(h):" + (m < 10 ? "0\(m)" : "\(m)") + ":" + ss }
    return "\(m):" + ss
  }
}
