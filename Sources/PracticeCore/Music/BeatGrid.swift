extension BeatMap {
  /// A constant-tempo map (`beats grid`): a beat every 60/`bpm` seconds from `start`
  /// (seconds) to the end of the audio, placed into bars of `meter` from the `bar1`-th beat.
  /// nil when `start` is at or past the end of the audio (no beat to place).
  public static func grid(
    bpm: Double, start: Double, meter: Meter, bar1: Int, totalFrames: Int64, sampleRate: Int
  ) throws -> BeatMap? {
    let rate = Double(sampleRate)
    let period = 60 / bpm
    var frames: [Int64] = []
    while true {
      let frame = Int64(((start + Double(frames.count) * period) * rate).rounded())
      if frame >= totalFrames { break }
      frames.append(frame)
    }
    guard !frames.isEmpty else { return nil }
    return try placing(
      frames: frames, beatsInBar: Array(repeating: nil, count: frames.count), meter: meter,
      bar1: bar1, source: .grid, totalFrames: totalFrames, sampleRate: sampleRate)
  }
}

/// The part of a beat map a fix applies to (`beats double`, `halve`): bars, or times from
/// and to (seconds), or the whole map; in frames (nil ends: the map's) with how to name it.
public struct BeatMapSpan: Sendable, Equatable {
  public var from: Int64?
  public var to: Int64?
  /// `bars 9-16`, `0:10.0–the end`, `the whole map`.
  public var label: String

  /// `bars` on `map` (`9-` runs to its last bar), else the times; a bar the map does not
  /// have throws a `RangeError`.
  public init(bars: BarRangeText?, from: Double?, to: Double?, on map: BeatMap) throws {
    if let bars {
      let closed = bars.closed(lastBar: map.lastBar)
      let frames = try map.frames(of: bars)
      (self.from, self.to, label) = (frames.lowerBound, frames.upperBound, closed.label)
      return
    }
    let rate = Double(map.sampleRate)
    self.from = from.map { Int64(($0 * rate).rounded()) }
    self.to = to.map { Int64(($0 * rate).rounded()) }
    let start = self.from.map { formatTime(Double($0) / rate) } ?? "the start"
    let end = self.to.map { formatTime(Double($0) / rate) } ?? "the end"
    label = self.from == nil && self.to == nil ? "the whole map" : "\(start)–\(end)"
  }
}
