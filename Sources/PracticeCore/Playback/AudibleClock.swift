/// Follows a live engine's position reports (`PlaybackEngine.events`) to tell which source
/// frame is audible at a moment: the output position less the device's delay, followed
/// along since the report. Speed and the stretcher are accounted for because the reports
/// carry source frames. A controller-thread value; `play`'s status line and `beats tap`
/// both read it.
public struct AudibleClock: Sendable {
  public let sampleRate: Int
  public let totalFrames: Int64
  /// Recent reports, oldest first (64 blocks, about a second and a half).
  public private(set) var events: [PlaybackEvent] = []

  public init(sampleRate: Int, totalFrames: Int64) {
    self.sampleRate = sampleRate
    self.totalFrames = totalFrames
  }

  public var last: PlaybackEvent? { events.last }

  public mutating func append(_ event: PlaybackEvent) {
    events.append(event)
    if events.count > 64 { events.removeFirst(events.count - 64) }
  }

  /// The report covering what is audible at `nanoseconds` (CLOCK_MONOTONIC), and the
  /// source frame audible then; nil before the first report. Reports made after that
  /// moment are not used to extrapolate from, so a key read a little before the latest
  /// reports were taken is still placed at the moment it was read.
  public func audible(at nanoseconds: UInt64 = monotonicNanoseconds()) -> (event: PlaybackEvent, frame: Int64)? {
    guard let first = events.first, let output = audibleOutput(at: nanoseconds) else { return nil }
    let event = events.last { $0.outputFrame <= output } ?? first
    let frame = min(max(0, event.sourceFrame(atOutput: output)), max(0, totalFrames - 1))
    return (event, frame)
  }

  /// The output frame audible at `nanoseconds`: the last report before then, less what the
  /// device still held, plus what it has played since (at most that). nil before the first
  /// report.
  public func audibleOutput(at nanoseconds: UInt64 = monotonicNanoseconds()) -> Int64? {
    guard let first = events.first else { return nil }
    let base = events.last { $0.nanoseconds <= nanoseconds } ?? first
    var output = base.outputFrame - Int64(base.delayFrames)
    if !base.paused && !base.ended {
      let elapsed = nanoseconds >= base.nanoseconds
        ? Int64(Double(nanoseconds - base.nanoseconds) * Double(sampleRate) / 1e9) : 0
      output += min(elapsed, Int64(base.delayFrames))
    }
    return output
  }
}
