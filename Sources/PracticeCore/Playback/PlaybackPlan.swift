import Foundation

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
  /// EQ, focus, band, channel and centre cut, after the stretcher (`PartFilter`).
  public var filter: PartFilter = .none
  /// Count-in and beat clicks; nil for neither.
  public var clicks: ClickPlan?
  /// The speed trainer: from `speed`, change by `step` every `every` passes until `target`.
  public var ramp: Ramp?
  /// Silence between passes.
  public var gap: Gap = .none
  /// Source frames into the range where the first pass starts (a plan made by a jump
  /// that lands inside the range); later passes start at the range start.
  public var startOffset: Int64 = 0
  /// The index the plan's first pass has among every pass played, for the speed trainer
  /// (a plan made by a jump continues the count).
  public var firstPass = 0

  public struct Ramp: Sendable, Equatable {
    public var target: Speed
    /// Rate change per step (0.05 = five points); negative ramps down.
    public var step: Double
    public var every: Int

    public init(target: Speed, step: Double, every: Int) {
      self.target = target
      self.step = step
      self.every = every
    }
  }

  /// `--gap 2s` (output seconds, at any speed) or `--gap 1bar` (source frames of the bar
  /// the range starts in, so it lasts a bar at the tempo heard).
  public enum Gap: Sendable, Equatable {
    case none
    case seconds(Double)
    case bars(count: Int, barFrames: Int64)
  }

  /// `0:10.0–0:20.0, 2 passes, speed 80%, transpose +2 st, volume 80%, count-in, click`
  /// (`label` names the range: `bars 9-16 (0:10.0–0:20.0)`; a trainer's speeds as `70% → 90%`,
  /// to the last pass's): what the plan plays, in words.
  public func summary(sampleRate rate: Int, label: String? = nil) -> String {
    let times = formatTimeRange(range, sampleRate: rate)
    let count: String
    switch passes {
    case .endless: count = "looped"
    case .count(1): count = "once"
    case .count(let n): count = "\(n) passes"
    }
    let volume = self.volume == .unity ? "" : ", volume \(self.volume)"
    // The trainer's climb, to the speed its last pass reaches (the target when looped).
    let reached = trainerSpeeds(limit: 10_000).last ?? self.speed
    let speed =
      reached != self.speed
      ? ", speed \(self.speed) → \(reached)"
      : self.speed == .normal ? "" : ", speed \(self.speed)"
    let transpose =
      self.transpose == 0 ? "" : ", transpose " + String(format: "%+g st", self.transpose)
    let filter = self.filter.label.map { ", " + $0 } ?? ""
    let countIn = clicks.map { $0.countIn.isEmpty ? "" : ", count-in" } ?? ""
    let click = clicks?.enabled == true ? ", click" : ""
    return "\(label.map { "\($0) (\(times))" } ?? times), \(count)\(speed)\(transpose)\(volume)"
      + "\(filter)\(countIn)\(click)"
  }

  /// The speed of pass `pass` (0-based).
  public func speed(forPass pass: Int) -> Speed {
    guard let ramp, ramp.every > 0 else { return speed }
    let rate = speed.rate + ramp.step * Double((firstPass + pass) / ramp.every)
    let bounded = ramp.step >= 0 ? min(rate, ramp.target.rate) : max(rate, ramp.target.rate)
    return Speed(clamping: bounded)
  }

  /// The distinct speeds of the passes, in order, up to `limit` of them: the trainer's
  /// steps (one speed without a trainer).
  public func trainerSpeeds(limit: Int) -> [Speed] {
    var speeds = [speed(forPass: 0)]
    guard let ramp, ramp.every > 0 else { return speeds }
    var pass = 0
    while speeds.count < limit, speeds.last != ramp.target {
      pass += ramp.every
      if case .count(let n) = passes, pass >= n { break }
      let next = speed(forPass: pass)
      if next == speeds.last { break }
      speeds.append(next)
    }
    return speeds
  }

  /// Source frames of silence after pass `pass` (none after the last).
  public func gapSourceFrames(afterPass pass: Int, sampleRate: Int) -> Int64 {
    if passes.isFinal(pass) { return 0 }
    switch gap {
    case .none: return 0
    case .seconds(let seconds):
      return Int64((seconds * Double(sampleRate) * speed(forPass: pass).rate).rounded())
    case .bars(let count, let barFrames): return Int64(count) * barFrames
    }
  }

  /// Source frames pass `pass` takes, with the gap after it (the first from `startOffset`).
  public func sourceFrames(ofPass pass: Int, sampleRate: Int) -> Int64 {
    rangeFrames - (pass == 0 ? startOffset : 0) + gapSourceFrames(afterPass: pass, sampleRate: sampleRate)
  }

  /// The transpose range `--transpose` accepts.
  public static let transposeRange = -12.0...12.0

  /// Whether the stretcher runs; at speed 1 without transposition it is bypassed, so the
  /// output is the source's frames exactly.
  public var needsStretcher: Bool { speed != .normal || transpose != 0 || ramp != nil }

  /// The seam crossfade used unless a plan says otherwise.
  public static let seamMilliseconds = 5.0

  public init(range: Range<Int64>, passes: Passes, volume: Volume, sampleRate: Int) {
    self.range = range
    self.passes = passes
    self.volume = volume
    self.seamFrames = Int((Double(sampleRate) * PlaybackPlan.seamMilliseconds / 1000).rounded())
  }

  public var rangeFrames: Int64 { range.upperBound - range.lowerBound }

  /// Output frames the plan produces after any count-in; nil when endless.
  public func totalFrames(sampleRate: Int) -> Int64? {
    guard case .count(let n) = passes else { return nil }
    let frames = (0..<n).reduce(0.0) {
      $0 + Double(sourceFrames(ofPass: $1, sampleRate: sampleRate)) * speed(forPass: $1).timeRatio
    }
    return Int64(frames.rounded())
  }

  /// How the seam between two passes is hidden, given the source's length.
  public func seam(sourceFrames: Int64) -> SeamBlend {
    let length = Int(min(Int64(seamFrames), rangeFrames / 2))
    guard length > 0 else { return .none }
    // With a gap, silence follows each pass: fade out into it and in out of it.
    if gap != .none { return .fadeOutIn(length: length) }
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
