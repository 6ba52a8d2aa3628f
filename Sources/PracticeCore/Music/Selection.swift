/// What a selection covers: bars (which follow the beat map) or a fixed stretch of frames.
public enum SelectionSpan: Sendable, Equatable, CustomStringConvertible {
  case bars(BarRange)
  case frames(Range<Int64>)

  public var description: String {
    switch self {
    case .bars(let range): return range.label
    case .frames(let range): return "frames \(range.lowerBound)-\(range.upperBound)"
    }
  }

  /// The source frames the span covers, given the song's beat map.
  public func frames(beatMap: BeatMap?) throws -> Range<Int64> {
    switch self {
    case .frames(let range): return range
    case .bars(let range):
      guard let beatMap else {
        throw PracticeError(
          .missingInput, "it is made of bars and the song has no beat map any more")
      }
      return try beatMap.frames(of: range)
    }
  }
}

extension SelectionSpan {
  /// Whether `beatMap` places it within audio of `totalFrames` frames.
  public func fits(beatMap: BeatMap?, totalFrames: Int64) -> Bool {
    (try? frames(beatMap: beatMap)).map { $0.upperBound <= totalFrames } ?? false
  }
}

/// The moves a musician makes with a loop: shift it, take half of it, double it.
public enum SelectionMove {
  /// Shifts by `bars` (negative: earlier); time spans move by that many bars' length.
  public static func move(
    _ span: SelectionSpan, byBars bars: Int, beatMap: BeatMap?
  ) throws -> SelectionSpan {
    switch span {
    case .bars(var range):
      range.start.bar += bars
      range.end.bar += bars
      if let beatMap, range.start.bar < beatMap.firstBar || range.end.bar > beatMap.lastBar {
        throw PracticeError(
          .usage,
          "moved by \(bars) bars the selection would leave the song's \(beatMap.barsDescription)")
      }
      if let beatMap { _ = try beatMap.frames(of: range) }
      return .bars(range)
    case .frames:
      throw PracticeError(
        .usage, "the selection was made from times; move works on selections made of bars")
    }
  }

  /// The first (or second) half. Two or more whole bars halve in bars (the first half
  /// takes the smaller share of an odd count); one bar, or a span written in beats
  /// (`9.3-12.2`), halves in beats; a span of times halves in time.
  public static func halve(_ span: SelectionSpan, second: Bool, beatMap: BeatMap?) throws -> SelectionSpan {
    switch span {
    case .bars(let range):
      if let (first, last) = wholeBars(range), last > first {
        let split = first + (last - first + 1) / 2
        return .bars(
          second
            ? BarRange(start: BarPosition(bar: split), end: BarPosition(bar: last))
            : BarRange(start: BarPosition(bar: first), end: BarPosition(bar: split - 1)))
      }
      let (map, beats) = try beatsCovered(range, beatMap: beatMap)
      guard beats.count >= 2 else {
        throw PracticeError(.usage, "\(range.label) is one beat; halve needs at least two")
      }
      let split = beats.lowerBound + beats.count / 2
      let kept = second ? split...beats.upperBound : beats.lowerBound...(split - 1)
      return .bars(BarRange(start: map.position(ofBeat: kept.lowerBound), end: map.position(ofBeat: kept.upperBound)))
    case .frames(let range):
      guard range.count >= 2 else { throw PracticeError(.usage, "the selection is too short to halve") }
      let middle = range.lowerBound + Int64(range.count / 2)
      return .frames(second ? middle..<range.upperBound : range.lowerBound..<middle)
    }
  }

  /// Twice as long from the same start, in bars for whole bars, in beats for a span
  /// written in beats, in time for times; it must still fit the song.
  public static func double(
    _ span: SelectionSpan, beatMap: BeatMap?, totalFrames: Int64
  ) throws -> SelectionSpan {
    switch span {
    case .bars(let range):
      let doubled: BarRange
      if let (first, last) = wholeBars(range) {
        doubled = BarRange(start: BarPosition(bar: first), end: BarPosition(bar: last + (last - first + 1)))
      } else {
        let (map, beats) = try beatsCovered(range, beatMap: beatMap)
        let end = beats.upperBound + beats.count
        guard end < map.beats.count else {
          throw PracticeError(.usage, "doubled, \(range.label) would run past the song's last beat")
        }
        doubled = BarRange(start: map.position(ofBeat: beats.lowerBound), end: map.position(ofBeat: end))
      }
      if let beatMap { _ = try beatMap.frames(of: doubled) }
      return .bars(doubled)
    case .frames(let range):
      let end = range.upperBound + Int64(range.count)
      guard end <= totalFrames else {
        throw PracticeError(.usage, "doubled, the selection would run past the end of the song")
      }
      return .frames(range.lowerBound..<end)
    }
  }

  /// First and last bar when the range is whole bars (no beat given); nil otherwise.
  private static func wholeBars(_ range: BarRange) -> (Int, Int)? {
    range.start.beat == nil && range.end.beat == nil ? (range.start.bar, range.end.bar) : nil
  }

  /// The beat map and the beats a bar range covers (it needs the map).
  private static func beatsCovered(_ range: BarRange, beatMap: BeatMap?) throws -> (BeatMap, ClosedRange<Int>) {
    guard let beatMap else {
      throw PracticeError(.missingInput, "\(range.label) needs the song's beat map, and it has none")
    }
    return (beatMap, try beatMap.beatIndices(of: range))
  }
}

/// Why a selection cannot be moved, halved or doubled as it is; the face words it.
public enum ReshapeRefusal: Error, Equatable {
  /// It is made of bars, and the song has no beat map.
  case noBeatMap
  /// Its bars (`range`) no longer fit the song's beat map or audio: fix them first.
  case noLongerFits(BarRange)
  /// The reshaped bars are not bars of the song.
  case notInSong(RangeError)
}

/// Move, halve or double, as a value: what `select move|halve|double` ask of a selection.
public enum SelectionReshape: Sendable, Equatable {
  case move(bars: Int)
  case halve(second: Bool)
  case double

  /// The span `span` becomes on a song of `totalFrames` frames with `beatMap`. Throws a
  /// `ReshapeRefusal` when a span of bars cannot be placed first (no map; bars that no
  /// longer fit) or its result is not bars of the song; `SelectionMove`'s own refusals as
  /// they are.
  public func apply(
    to span: SelectionSpan, beatMap: BeatMap?, totalFrames: Int64
  ) throws -> SelectionSpan {
    if case .bars(let range) = span {
      guard beatMap != nil else { throw ReshapeRefusal.noBeatMap }
      guard span.fits(beatMap: beatMap, totalFrames: totalFrames) else {
        throw ReshapeRefusal.noLongerFits(range)
      }
    }
    do {
      switch self {
      case .move(let bars): return try SelectionMove.move(span, byBars: bars, beatMap: beatMap)
      case .halve(let second):
        return try SelectionMove.halve(span, second: second, beatMap: beatMap)
      case .double:
        return try SelectionMove.double(span, beatMap: beatMap, totalFrames: totalFrames)
      }
    } catch let error as RangeError {
      throw ReshapeRefusal.notInSong(error)
    }
  }
}
