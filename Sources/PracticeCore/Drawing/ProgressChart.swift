import Foundation

/// What `stats SONG -o` draws: for each selection practised (and the plays that were not of
/// a selection), the clean top speed of each day: the highest speed of a pass marked clean
/// (key g). A pass heard fast but flubbed, or not marked, is not progress; a day with no
/// clean pass has no point.
public struct ProgressChartContent: Sendable, Equatable {
  public struct Point: Sendable, Equatable {
    /// Days since the first day in the chart (local calendar days).
    public var day: Int
    public var speed: Double

    public init(day: Int, speed: Double) {
      self.day = day
      self.speed = speed
    }
  }

  public struct Series: Sendable, Equatable {
    /// The selection's name, or "other plays".
    public var name: String
    /// The palette colour: the selection's place among the song's selections (as in
    /// `view`); selections since removed come after them; -1 for other plays.
    public var colour: Int
    public var points: [Point]
  }

  public var title: String
  public var artist: String?
  /// The first day (local midnight) and the number of days shown.
  public var firstDay: Date
  public var days: Int
  public var series: [Series]

  /// Groups `entries` (the song's plays, read with their passes) by selection and by local
  /// day.
  /// `selectionNames` are the song's selections in `select list` order.
  public init(
    title: String, artist: String?, entries: [PracticeEntry], selectionNames: [String],
    calendar: Calendar = .current
  ) {
    self.title = title
    self.artist = artist
    let starts = entries.map { calendar.startOfDay(for: $0.startedAt) }
    let first = starts.min() ?? calendar.startOfDay(for: Date())
    firstDay = first
    func dayIndex(_ start: Date) -> Int {
      calendar.dateComponents([.day], from: first, to: start).day ?? 0
    }
    var colours: [String: Int] = [:]
    for (index, name) in selectionNames.enumerated() { colours[name.lowercased()] = index }
    var nextColour = selectionNames.count
    var names: [Int: String] = [:]
    var best: [Int: [Int: Double]] = [:]  // colour -> day -> highest speed
    for (entry, start) in zip(entries, starts) {
      let colour: Int
      if let name = entry.selectionName {
        if let known = colours[name.lowercased()] {
          colour = known
        } else {
          colour = nextColour
          colours[name.lowercased()] = nextColour
          nextColour += 1
        }
        if names[colour] == nil {
          names[colour] = selectionNames.first { $0.lowercased() == name.lowercased() } ?? name
        }
      } else {
        colour = -1
        names[-1] = "other plays"
      }
      let clean = entry.passRecords.filter { $0.mark == .clean }.map(\.speed.rate).max()
      guard let clean else { continue }
      let day = dayIndex(start)
      best[colour, default: [:]][day] = max(best[colour]?[day] ?? 0, clean)
    }
    days = (starts.map(dayIndex).max() ?? 0) + 1
    series = best.sorted { ($0.key < 0 ? Int.max : $0.key) < ($1.key < 0 ? Int.max : $1.key) }
      .map { colour, days in
        Series(
          name: names[colour] ?? "", colour: colour,
          points: days.sorted { $0.key < $1.key }.map { Point(day: $0.key, speed: $0.value) })
      }
  }
}

/// The chart drawn with cairo: speed (%) up, days across, a line and dots per series, a
/// legend of names in their colours under the title.
public enum ProgressChart {
  public struct Geometry: Sendable, Equatable {
    public var width: Double
    public var height: Double
    public var fontSize: Double
    public var plotLeft: Double
    public var plotRight: Double
    public var plotTop: Double
    public var plotBottom: Double
    public var lowestSpeed: Double
    public var highestSpeed: Double
    public var days: Int

    /// The x of a day's centre.
    public func x(day: Int) -> Double {
      plotLeft + (Double(day) + 0.5) * (plotRight - plotLeft) / Double(max(1, days))
    }

    /// The y of a speed (a rate: 1 is 100 %).
    public func y(speed: Double) -> Double {
      plotBottom - (speed - lowestSpeed) / max(0.01, highestSpeed - lowestSpeed)
        * (plotBottom - plotTop)
    }
  }

  /// The chart's geometry: the speed axis runs from 50 % (lower if a day was slower) to
  /// 100 % (higher if one was faster), in steps of 10 %.
  public static func geometry(_ content: ProgressChartContent, width: Double) -> Geometry {
    let f = min(24, max(8, width / 90))
    let margin = 2 * f
    let speeds = content.series.flatMap { $0.points.map(\.speed) }
    let lowest = min(0.5, ((speeds.min() ?? 1) * 10).rounded(.down) / 10)
    let highest = max(1.0, ((speeds.max() ?? 1) * 10).rounded(.up) / 10)
    let legendRows = Double(legendRowCount(content, width: width, fontSize: f))
    let plotTop = margin + 2.2 * f + legendRows * 1.6 * f + f
    let height = (width * 0.5).rounded()
    return Geometry(
      width: width, height: max(height, plotTop + 12 * f), fontSize: f,
      plotLeft: margin + 3.5 * f, plotRight: width - margin, plotTop: plotTop,
      plotBottom: max(height, plotTop + 12 * f) - margin - 1.5 * f, lowestSpeed: lowest,
      highestSpeed: highest, days: content.days)
  }

  /// Legend entries laid left to right, wrapping: (series index, row, x offset).
  static func legend(_ content: ProgressChartContent, width: Double, fontSize f: Double) -> [(
    Int, Int, Double
  )] {
    let margin = 2 * f
    var row = 0
    var x = 0.0
    var placed: [(Int, Int, Double)] = []
    for (index, series) in content.series.enumerated() {
      let entry = 1.6 * f + Double(series.name.count) * 0.62 * f + 1.5 * f
      if x > 0 && margin + x + entry > width - margin {
        row += 1
        x = 0
      }
      placed.append((index, row, x))
      x += entry
    }
    return placed
  }

  static func legendRowCount(_ content: ProgressChartContent, width: Double, fontSize: Double)
    -> Int
  {
    (legend(content, width: width, fontSize: fontSize).map(\.1).max() ?? -1) + 1
  }

  /// Draws the chart into `path` as `format`.
  public static func write(
    _ content: ProgressChartContent, to path: String, format: PictureFormat, width: Double? = nil
  ) throws {
    let width = width ?? OverviewPicture.defaultWidth(format)
    let g = geometry(content, width: width)
    let canvas = try Canvas(path: path, format: format, width: g.width, height: g.height)
    let f = g.fontSize
    let margin = 2 * f
    var heading = content.title
    if let artist = content.artist, !artist.isEmpty { heading += " — " + artist }
    heading += ": clean top speed each day"
    canvas.text(
      canvas.fitted(heading, width: g.width - 2 * margin, size: 1.4 * f, bold: true), x: margin,
      y: margin + 1.3 * f, size: 1.4 * f, colour: PictureColours.ink, bold: true)
    for (index, row, x) in legend(content, width: width, fontSize: f) {
      let series = content.series[index]
      let y = margin + 2.2 * f + Double(row) * 1.6 * f
      canvas.fill(
        PictureColours.selection(series.colour), x: margin + x, y: y + 0.2 * f, width: 1.1 * f,
        height: 1.1 * f)
      canvas.text(
        series.name, x: margin + x + 1.6 * f, y: y + 1.15 * f, size: f, colour: PictureColours.ink)
    }
    // Speed grid: every 10 % (every 25 % over a wide range), labelled.
    let step = g.highestSpeed - g.lowestSpeed > 1.0 ? 0.25 : 0.1
    var speed = g.lowestSpeed
    while speed <= g.highestSpeed + 1e-9 {
      let y = g.y(speed: speed)
      canvas.line(
        PictureColours.grid, from: (g.plotLeft, y), to: (g.plotRight, y), width: max(0.5, f / 14))
      canvas.text(
        "\(Int((speed * 100).rounded()))%", x: g.plotLeft - 0.4 * f, y: y + 0.35 * f, size: 0.9 * f,
        colour: PictureColours.faint, alignRight: true)
      speed += step
    }
    // Days: a label every 1, 2, 7, 14, … days as space allows.
    let dayWidth = (g.plotRight - g.plotLeft) / Double(max(1, g.days))
    let labelStep =
      [1, 2, 7, 14, 28, 56, 112, 365, 730].first { Double($0) * dayWidth >= 4.2 * f } ?? 1461
    var calendar = Calendar.current
    calendar.timeZone = .current
    for day in stride(from: 0, to: g.days, by: labelStep) {
      guard let date = calendar.date(byAdding: .day, value: day, to: content.firstDay) else {
        continue
      }
      let parts = calendar.dateComponents([.month, .day], from: date)
      let label = String(format: "%02d-%02d", parts.month ?? 0, parts.day ?? 0)
      let x = g.x(day: day)
      canvas.line(
        PictureColours.grid, from: (x, g.plotBottom), to: (x, g.plotBottom + 0.3 * f),
        width: max(0.5, f / 14))
      canvas.text(
        label, x: x - 1.4 * f, y: g.plotBottom + 1.3 * f, size: 0.9 * f,
        colour: PictureColours.faint)
    }
    for series in content.series {
      let colour = PictureColours.selection(series.colour)
      canvas.polyline(
        colour, series.points.map { (g.x(day: $0.day), g.y(speed: $0.speed)) }, width: max(1, f / 6)
      )
      for point in series.points {
        canvas.dot(colour, x: g.x(day: point.day), y: g.y(speed: point.speed), radius: 0.4 * f)
      }
    }
    try canvas.finish()
  }
}
