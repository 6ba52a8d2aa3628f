import Foundation

/// How many times the range is played.
public enum Passes: Sendable, Equatable {
  case count(Int)
  /// Until stopped (`--loop`).
  case endless

  /// Whether pass `index` (0-based) is the last one.
  func isFinal(_ index: Int) -> Bool {
    if case .count(let n) = self { return index == n - 1 }
    return false
  }
}

/// What to play: a range of source frames, how often, how loud. A pure value; the
/// engine only executes it.
public struct PlaybackPlan: Sendable, Equatable {
  /// Source frames, `[start, end)`.
  public var range: Range<Int64>
  public var passes: Passes
  public var volume: Volume
  /// Length of the crossfade that hides each loop seam, in source frames.
  public var seamFrames: Int
  public var speed: Speed = .normal
  /// Pitch shift in semitones, independent of speed.
  public var transpose: Double = 0
  public var quality: StretchQuality = .finer
  /// Count-in and beat clicks; nil for neither.
  public var clicks: ClickPlan?

  /// The transpose range `--transpose` accepts.
  public static let transposeRange = -12.0...12.0

  /// Whether the stretcher runs; at speed 1 without transposition it is bypassed, so the
  /// output is the source's frames exactly.
  public var needsStretcher: Bool { speed != .normal || transpose != 0 }

  /// The seam crossfade used unless a plan says otherwise.
  public static let seamMilliseconds = 5.0

  public init(range: Range<Int64>, passes: Passes, volume: Volume, sampleRate: Int) {
    self.range = range
    self.passes = passes
    self.volume = volume
    self.seamFrames = Int((Double(sampleRate) * PlaybackPlan.seamMilliseconds / 1000).rounded())
  }

  public var rangeFrames: Int64 { range.upperBound - range.lowerBound }

  /// Output frames the plan produces; nil when endless.
  public var totalFrames: Int64? {
    if case .count(let n) = passes {
      return Int64((Double(rangeFrames * Int64(n)) * speed.timeRatio).rounded())
    }
    return nil
  }

  /// How the seam between two passes is hidden, given the source's length.
  public func seam(sourceFrames: Int64) -> SeamBlend {
    let length = Int(min(Int64(seamFrames), rangeFrames / 2))
    guard length > 0 else { return .none }
    if range.lowerBound >= Int64(length) {
      return .tailIntoPreroll(length: length)
    }
    if range.upperBound + Int64(length) <= sourceFrames {
      return .headFromPostroll(length: length)
    }
    return .fadeOutIn(length: length)
  }
}

/// The three ways a loop seam is made inaudible without changing the pass length.
///
/// Each keeps the first pass's start and the last pass's end bit-exact, and makes the
/// audio around the seam continue the way the source itself continues.
public enum SeamBlend: Sendable, Equatable {
  /// The end of every pass but the last crossfades into the frames just before the
  /// range start, so the pass ends as the source runs into the start.
  case tailIntoPreroll(length: Int)
  /// The start of every pass but the first crossfades out of the frames just after the
  /// range end (used when the range starts too near the file start for a preroll).
  case headFromPostroll(length: Int)
  /// The range is the whole file: fade out at the end of a pass and in at the next start.
  case fadeOutIn(length: Int)
  case none

  /// The rising half of a raised cosine at position `i` of `length`, in (0, 1).
  static func rise(_ i: Int, _ length: Int) -> Float {
    let t = (Double(i) + 0.5) / Double(length)
    return Float(0.5 - 0.5 * cos(Double.pi * t))
  }
}
