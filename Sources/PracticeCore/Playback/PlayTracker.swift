/// Follows a play's position reports (a controller-thread value) for what outlives the
/// play: the audible clock, each pass's speed and the player's marks, time paused, and
/// where the sound stopped.
public struct PlayTracker: Sendable {
  public private(set) var clock: AudibleClock
  /// The slowest speed heard in each pass, by pass number.
  public private(set) var passSpeeds: [Int: Speed] = [:]
  public private(set) var marks: [Int: PassMark] = [:]
  public private(set) var slowest: Speed?
  public private(set) var fastest: Speed?
  /// The report the render thread made as it ended; nil until then (or when the ring
  /// was full: a device faster than real time outruns the controller).
  public private(set) var endEvent: PlaybackEvent?
  /// Nanoseconds spent paused.
  public private(set) var pausedNanoseconds: UInt64 = 0
  private var pausedSince: UInt64?

  /// A mark given this soon after a pass began (audibly; at most a quarter of the pass)
  /// is for the pass before: the player needs a moment to say how a pass went.
  public static let markGraceSeconds = 1.5

  public init(sampleRate: Int, totalFrames: Int64) {
    clock = AudibleClock(sampleRate: sampleRate, totalFrames: totalFrames)
  }

  /// Speeds count from reports of this jump generation on (`countSpeeds`).
  private var speedsFromGeneration = 0

  /// Speeds heard from the next jump on alone (a selection's drill begun from a key in
  /// pass `pass`, after reports of `generation`): what played before it, in that pass too,
  /// is not the drill's.
  public mutating func countSpeeds(after generation: Int, fromPass pass: Int) {
    speedsFromGeneration = generation + 1
    passSpeeds = passSpeeds.filter { $0.key < pass }
    slowest = nil
    fastest = nil
  }

  public mutating func take(_ event: PlaybackEvent) {
    if let since = pausedSince, !event.paused {
      pausedNanoseconds += event.nanoseconds &- since
      pausedSince = nil
    } else if pausedSince == nil, event.paused {
      pausedSince = event.nanoseconds
    }
    if event.ended {
      endEvent = event
      return
    }
    clock.append(event)
    guard !event.inGap, !event.paused, event.pass > 0, event.generation >= speedsFromGeneration
    else { return }
    let speed = Speed(clamping: event.speed)
    if speed.rate < (passSpeeds[event.pass]?.rate ?? .infinity) { passSpeeds[event.pass] = speed }
    if speed.rate < (slowest?.rate ?? .infinity) { slowest = speed }
    if speed.rate > (fastest?.rate ?? 0) { fastest = speed }
  }

  /// Marks the pass audible at `nanoseconds` (or the one before it, in the gap after it
  /// or in the first moments of the next pass) whose range is `range`; the pass marked,
  /// or nil before the first pass. The pass before is never one earlier than `earliest`
  /// (the first pass of the part playing: passes before it were another range's).
  public mutating func mark(
    _ mark: PassMark, range: Range<Int64>, earliest: Int = 1,
    at nanoseconds: UInt64 = monotonicNanoseconds()
  ) -> Int? {
    guard let (event, frame) = clock.audible(at: nanoseconds), event.pass > 0 else { return nil }
    var pass = event.pass
    if !event.inGap && pass > 1 {
      let rate = Double(clock.sampleRate) * max(event.speed, 0.01)
      let into = Double(frame - range.lowerBound) / rate
      let length = Double(range.count) / rate
      if into >= 0 && into < min(PlayTracker.markGraceSeconds, length / 4) && pass > earliest {
        pass -= 1
      }
    }
    marks[pass] = mark
    return pass
  }

  /// The passes to log: every pass played to its end (`completed`), and a pass stopped
  /// part-way if it was marked. A pass the reports missed takes `fallback(pass)`.
  public func passes(completed: Int, fallback: (Int) -> Speed) -> [PassRecord] {
    let last = max(completed, marks.keys.max() ?? 0)
    guard last > 0 else { return [] }
    return (1...last).map { pass in
      PassRecord(pass: pass, speed: passSpeeds[pass] ?? fallback(pass), mark: marks[pass])
    }
  }

  /// The source frame audible when the play ended: a stopped play's last frame heard (what
  /// the device still held was dropped), a finished play's end. nil before any report.
  public func stoppedFrame(interrupted: Bool) -> Int64? {
    guard let end = endEvent else { return clock.audible()?.frame }
    if !interrupted { return end.sourceFrame }
    return clock.audible(at: end.nanoseconds)?.frame ?? end.sourceFrame
  }

  /// Output frames heard by the end: up to the audible position for a stopped play, all
  /// of them for one that played out.
  public func heardOutputFrames(written: Int64, interrupted: Bool) -> Int64 {
    guard interrupted, let end = endEvent, let output = clock.audibleOutput(at: end.nanoseconds)
    else { return written }
    return min(written, max(0, output))
  }

  /// Seconds of real time from the first frame to `endNanoseconds`, pauses excluded.
  private func wallSeconds(firstFrameNanoseconds: UInt64, endNanoseconds: UInt64) -> Double {
    guard firstFrameNanoseconds > 0, endNanoseconds > firstFrameNanoseconds else { return 0 }
    let paused = pausedNanoseconds + (pausedSince.map { endNanoseconds &- $0 } ?? 0)
    return Double(
      (endNanoseconds - firstFrameNanoseconds)
        &- min(paused, endNanoseconds - firstFrameNanoseconds)) / 1e9
  }

  /// How far ahead of real time a device may take audio and still be one that plays it:
  /// its buffer, and a sound server's own (PulseAudio's ALSA plugin holds up to 2 s).
  public static let bufferAllowanceSeconds = 2.0

  /// Whether the device took the audio faster than real time: more than twice the real
  /// time that passed, and more than `bufferAllowanceSeconds` ahead of it. Such a device
  /// (ALSA's `null`, a `file` PCM over it) has no audible clock: nobody heard the play.
  public func outranRealTime(
    written: Int64, interrupted: Bool, firstFrameNanoseconds: UInt64, endNanoseconds: UInt64
  ) -> Bool {
    let output =
      Double(heardOutputFrames(written: written, interrupted: interrupted))
      / Double(clock.sampleRate)
    let wall = wallSeconds(
      firstFrameNanoseconds: firstFrameNanoseconds, endNanoseconds: endNanoseconds)
    return output > 2 * wall && output - wall > PlayTracker.bufferAllowanceSeconds
  }

  /// Seconds practised: the output heard, but never more than the real time the play
  /// took from its first frame to `endNanoseconds`, pauses excluded; none at all on a
  /// device without an audible clock (`audibleClock` false: ALSA's `null`), or one that
  /// took the audio faster than real time (`outranRealTime`: a `file` PCM over `null`).
  public func heardSeconds(
    written: Int64, interrupted: Bool, firstFrameNanoseconds: UInt64, endNanoseconds: UInt64,
    audibleClock: Bool = true
  ) -> Double {
    if !audibleClock { return 0 }
    if outranRealTime(
      written: written, interrupted: interrupted, firstFrameNanoseconds: firstFrameNanoseconds,
      endNanoseconds: endNanoseconds)
    {
      return 0
    }
    let output =
      Double(heardOutputFrames(written: written, interrupted: interrupted))
      / Double(clock.sampleRate)
    let wall = wallSeconds(
      firstFrameNanoseconds: firstFrameNanoseconds, endNanoseconds: endNanoseconds)
    return max(0, min(output, wall))
  }
}
