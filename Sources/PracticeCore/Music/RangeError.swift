/// What is wrong with a part of a song asked for, as values: the bar, the beats, the
/// times, the audio's length. The face words them with the option the player typed (a
/// range given as a selection is not a `--bars` the player wrote). `description` names
/// no option.
public enum RangeError: PracticeFailure, Equatable {
  /// `bar` of `range` (as asked for: `16-` stays open) is not in the beat map, which has
  /// `bars` (`bars 1-8`).
  case barNotInSong(bar: Int, range: BarRangeText, bars: String)
  /// `bar` of `range` (as asked for) has only `beats`.
  case beatNotInBar(bar: Int, beats: ClosedRange<Int>, range: BarRangeText)
  case endsBeforeStart(BarRange)
  /// A start (seconds) at or past the end of audio `duration` seconds long.
  case startPastEnd(start: Double, duration: Double)
  /// An end (seconds) past the end of audio `duration` seconds long.
  case endPastEnd(end: Double, duration: Double)
  /// A start that is not before the end (seconds, as resolved to frames).
  case startNotBeforeEnd(start: Double, end: Double)
  /// A position counted from 1 given as `position`.
  case positionFromOne(Int)

  public var category: FailureCategory { .usage }

  public var description: String {
    switch self {
    case .barNotInSong(let bar, _, let bars): return "bar \(bar) is not in this song; it has \(bars)"
    case .beatNotInBar(let bar, let beats, _):
      return "bar \(bar) has beats \(beats.lowerBound)-\(beats.upperBound)"
    case .endsBeforeStart(let range):
      return "\(range.label) ends before it starts; write the earlier bar first"
    case .startPastEnd(let start, let duration):
      return "the start \(formatTime(start)) is at or past the end of the audio "
        + "(\(formatTime(duration))); pick a time before it"
    case .endPastEnd(let end, let duration):
      return "the end \(formatTime(end)) is past the end of the audio "
        + "(\(RangeError.audioEnd(end: end, duration: duration))); pick a time up to it"
    case .startNotBeforeEnd(let start, let end):
      return "the start \(formatTime(start)) is not before the end \(formatTime(end)); "
        + "the range must be at least one frame long"
    case .positionFromOne(let position): return "position \(position): positions count from 1"
    }
  }

  /// The audio's end as shown beside an end past it: to the tenth, or to the millisecond
  /// when both read the same in tenths (3.0 past an end of 2.996).
  public static func audioEnd(end: Double, duration: Double) -> String {
    formatTime(duration) == formatTime(end) ? String(format: "%.3f s", duration) : formatTime(duration)
  }
}

/// What is wrong with a beat-map edit, as values, for the face to word.
public enum BeatMapEditError: PracticeFailure, Equatable {
  /// The first downbeat asked for (`bar1`, the K-th beat) is past the `beats` there are.
  case firstDownbeatPastBeats(bar1: Int, beats: Int)
  /// It leaves a pickup longer than a bar of `meter`.
  case pickupLongerThanBar(bar1: Int, meter: Meter)
  /// The bar to count again from is not in the map, which has `bars`.
  case barNotInSong(bar: Int, bars: String)

  public var category: FailureCategory { .usage }

  public var description: String {
    switch self {
    case .firstDownbeatPastBeats(let bar1, let beats):
      return "the first downbeat, beat \(bar1), is past the \(beats) beats; pick 1-\(beats)"
    case .pickupLongerThanBar(let bar1, let meter):
      return "a first downbeat at beat \(bar1) leaves a pickup longer than a bar of \(meter); "
        + "pick 1-\(meter.beats + 1)"
    case .barNotInSong(let bar, let bars): return "bar \(bar) is not in this song; it has \(bars)"
    }
  }
}
