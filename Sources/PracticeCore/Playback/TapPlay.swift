import Dispatch
import Foundation

/// `beats tap`'s play: the song played once from a time at a speed, through an ALSA device
/// with the short buffer keys need, and key presses turned into taps at the source frame
/// audible when each came (device delay and speed accounted for). The face reads the keys
/// and draws; this holds the taps and what they make so far. Controller thread only.
public final class TapPlay {
  public let song: Song
  public let engine: PlaybackEngine
  public let file: SoundFile
  /// Source frames played.
  public let range: Range<Int64>
  public let meter: Meter?
  public private(set) var taps: [Tap] = []
  private var clock: AudibleClock

  /// Opens `song`'s audio from `from` seconds (nil: the start) at `speed`, and the ALSA PCM
  /// `device` (`deviceAdvice`: what to do when it will not open) with a buffer short enough
  /// that a tap is heard within 100 ms.
  public init(
    song: Song, from: Double?, speed: Speed, meter: Meter?, device: String, deviceAdvice: String
  ) throws {
    self.song = song
    self.meter = meter
    file = try song.openAudio()
    let info = file.info
    range = try resolveTimeRange(
      from: from, to: nil, sampleRate: info.sampleRate, frames: info.frames)
    var plan = PlaybackPlan(range: range, passes: .count(1), volume: .unity, sampleRate: info.sampleRate)
    plan.speed = speed
    let sink = try PCMDevice(
      name: device, sampleRate: info.sampleRate, channels: info.channels,
      encoding: .lossless(forBitDepth: info.bitDepth), maxBlockFrames: PlaybackEngine.blockFrames,
      bufferMilliseconds: PracticeSession.Latency.keys.bufferMilliseconds, openAdvice: deviceAdvice)
    engine = try PlaybackEngine(file: file, plan: plan, sink: sink)
    clock = AudibleClock(sampleRate: info.sampleRate, totalFrames: info.frames)
  }

  public var sampleRate: Int { file.info.sampleRate }

  /// Starts the play and runs `step` (reading keys, drawing) until it ends or is stopped.
  public func run(step: () -> Void) throws -> PlaybackReport {
    engine.start()
    while !engine.waitForEnd(timeout: .milliseconds(0)) {
      step()
      takeEvents()
    }
    return try engine.wait()
  }

  /// Takes the engine's position reports (before placing a tap: the freshest one counts).
  public func takeEvents() {
    while let event = engine.events.pop() { clock.append(event) }
  }

  /// The source frame audible at `nanoseconds` (CLOCK_MONOTONIC), once one is.
  public func audibleFrame(at nanoseconds: UInt64 = monotonicNanoseconds()) -> Int64? {
    clock.audible(at: nanoseconds)?.frame
  }

  /// A tap at the moment `nanoseconds`, where the audio was heard then; none in a gap, at
  /// the end, or before anything is heard. True when one was placed.
  @discardableResult
  public func tap(downbeat: Bool, at nanoseconds: UInt64) -> Bool {
    guard let (event, frame) = clock.audible(at: nanoseconds), !event.inGap, !event.ended else {
      return false
    }
    taps.append(Tap(frame: frame, downbeat: downbeat))
    progress = progressSoFar()
    return true
  }

  /// Takes the last tap back.
  public func untap() {
    if !taps.isEmpty { taps.removeLast() }
    progress = progressSoFar()
  }

  /// What the taps make so far (without snapping), for a status line: the taps, the last
  /// beat's bar and beat and the tempo of the last five beats (nil until they make a map),
  /// and the last tap's time in seconds.
  public struct Progress: Sendable, Equatable {
    public var taps: Int
    public var bar: Int?
    public var beat: Int?
    public var bpm: Double?
    public var lastTap: Double
  }

  /// What the taps make so far, worked out again after each tap (nil before the first).
  public private(set) var progress: Progress?

  /// The status line at `now`: `12 taps · 3.4 · 120.2 BPM · last 0:06.013 · 0:07/0:16 ·
  /// q stores` (`tap space on every beat, d on downbeats` before the first tap).
  public func statusText(at now: UInt64) -> String {
    var tapText = "tap space on every beat, d on downbeats"
    if let progress {
      tapText = [
        progress.taps == 1 ? "1 tap" : "\(progress.taps) taps",
        progress.bar.map { "\($0).\(progress.beat ?? 1)" },
        progress.bpm.map { String(format: "%.1f BPM", $0) },
        "last " + formatMilliseconds(progress.lastTap),
      ].compactMap { $0 }.joined(separator: " · ")
    }
    let rate = Double(sampleRate)
    let clockText =
      audibleFrame(at: now).map {
        "\(formatClock(Double($0) / rate))/\(formatClock(Double(file.info.frames) / rate))"
      } ?? "starting…"
    return "\(tapText) · \(clockText) · q stores"
  }

  private func progressSoFar() -> Progress? {
    guard let last = taps.last else { return nil }
    var progress = Progress(
      taps: taps.count, lastTap: Double(last.frame) / Double(sampleRate))
    if let result = try? TappedBeats.assemble(
      taps: taps, snapper: nil, meter: meter, totalFrames: file.info.frames, sampleRate: sampleRate),
      let beat = result.map.beats.last
    {
      let recent = TappedBeats.tempoRange(result.map.beats.suffix(5).map(\.frame), sampleRate: sampleRate)
      (progress.bar, progress.beat) = (beat.bar, beat.beat)
      progress.bpm = (recent.lowerBound + recent.upperBound) / 2
    }
    return progress
  }

  /// The beat map the taps make, snapped to the song's onsets, and each tap's time with the
  /// onset it snapped to (seconds; nil: none), for checking the latency.
  public func assemble() throws -> (result: TappedBeats.Result, snaps: [(tap: Double, onset: Double?)]) {
    var snapper: OnsetSnapper?
    if let first = taps.map(\.frame).min(), let last = taps.map(\.frame).max() {
      let margin = Int64(2 * song.sampleRate)
      snapper = try OnsetSnapper.reading(
        try song.openAudio(), span: (first - margin)..<(last + margin))
    }
    let rate = Double(song.sampleRate)
    let snaps = snapper.map { snapper in
      taps.map { (Double($0.frame) / rate, snapper.snap($0.frame).map { Double($0) / rate }) }
    } ?? []
    let result = try TappedBeats.assemble(
      taps: taps, snapper: snapper, meter: meter, totalFrames: song.frames,
      sampleRate: song.sampleRate)
    return (result, snaps)
  }
}
