import Dispatch
import CPlatform
import Foundation
import Synchronization

/// What happened during a run of the engine.
public struct PlaybackReport: Sendable, Equatable {
  /// Frames handed to the sink.
  public var framesWritten: Int64
  /// Passes played to their end.
  public var passesCompleted: Int
  /// Stopped by `stop()` (Ctrl-C) before the plan's end.
  public var interrupted: Bool
  /// Decoding stopped early (damaged or truncated file); what was decodable was played.
  public var truncation: Truncation?
  /// Device underruns that were recovered from.
  public var underruns: Int
}

/// Executes a `PlaybackPlan` into an `AudioSink`: file → feeder (read-ahead, loop seams)
/// → render thread (gain) → sink. The same engine drives `play` and `render`, so what a
/// render contains is what a listener hears.
public final class PlaybackEngine: @unchecked Sendable {
  /// Frames per block the render thread hands to the sink; the same for every sink so
  /// that output never depends on where it goes.
  public static let blockFrames = 1024

  public let plan: PlaybackPlan
  /// Frames handed to the sink so far (render thread writes, anyone reads).
  public let framesWritten = Atomic<Int64>(0)
  /// CLOCK_MONOTONIC nanoseconds when the first frame was handed to the sink (0 before).
  public let firstFrameNanoseconds = Atomic<UInt64>(0)
  /// CLOCK_MONOTONIC nanoseconds when the sink accepted the last frame (before draining).
  public let lastFrameNanoseconds = Atomic<UInt64>(0)
  /// Linear gain as Float bits, so a controller can change the volume while playing.
  private let gainBits: Atomic<UInt32>
  private let stopRequested = Atomic<Bool>(false)

  private let feeder: SourceFeeder
  private let sink: any AudioSink  // render thread only after start()
  private let channels: Int
  private let block: UnsafeMutablePointer<Float>  // render thread only
  /// Present when the plan changes speed or pitch; render thread only after init.
  private let stretcher: TimeStretcher?
  private let stretchInput: UnsafeMutablePointer<Float>  // render thread only
  /// Output frames still to drop (start delay; negative: silence still to lead with).
  private var stretchDrop = 0  // render thread only
  private var stretchFlushed = false  // render thread only
  /// Output frames the source fed so far is worth (sum of frames × time ratio).
  private var stretchExpected = 0.0  // render thread only
  private var stretchProduced: Int64 = 0  // render thread only
  /// The pass whose source frames the stretcher is being fed, and how many are left.
  private var feedPass = 0  // render thread only
  private var feedPassRemaining: Int64 = 0  // render thread only
  /// Output frames at which pass `clockPass` ends (after the count-in); render thread only.
  private var clockPass = 0
  private var clockPassEnd = 0.0
  /// Passes that have started sounding (in output order); the player announces them.
  public let passesStarted = Atomic<Int>(0)
  /// Passes played to their end.
  public let passesEnded = Atomic<Int>(0)
  private let sampleRate: Int
  /// Render-thread work per block (everything but the sink's blocking write), in 10 µs
  /// buckets up to 50 ms; read after the engine ends.
  public let blockTimes: BlockTimeHistogram
  private let clicks: ClickPlan?  // immutable after init
  private let clickSound: ClickSound  // immutable after init
  private var countInRemaining: Int64  // render thread only
  /// The next click that may still sound: its place in the sequence count-in, pass 0, pass 1…
  private var clickCursor: ClickCursor? = ClickCursor()  // nil once past the last; render thread only
  private let renderDone = DispatchSemaphore(value: 0)
  private let feederDone = DispatchSemaphore(value: 0)
  private var renderError: (any Error)?  // written by the render thread before renderDone
  private var interrupted = false  // written by the render thread before renderDone

  public init(file: SoundFile, plan: PlaybackPlan, sink: any AudioSink) throws {
    precondition(sink.channels == file.info.channels, "sink and source channel counts differ")
    precondition(sink.maxBlockFrames >= PlaybackEngine.blockFrames, "sink blocks too small")
    self.plan = plan
    self.sink = sink
    self.channels = file.info.channels
    self.feeder = try SourceFeeder(file: file, plan: plan)
    self.gainBits = Atomic(Float(plan.volume.gain).bitPattern)
    block = .allocate(capacity: PlaybackEngine.blockFrames * channels)
    stretchInput = .allocate(capacity: PlaybackEngine.blockFrames * channels)
    blockTimes = BlockTimeHistogram()
    sampleRate = file.info.sampleRate
    feedPassRemaining = plan.sourceFrames(ofPass: 0, sampleRate: file.info.sampleRate)
    clockPassEnd = Double(plan.clicks?.countInFrames ?? 0)
      + Double(plan.sourceFrames(ofPass: 0, sampleRate: file.info.sampleRate))
      * plan.speed(forPass: 0).timeRatio
    clicks = plan.clicks
    clickSound = ClickSound(sampleRate: file.info.sampleRate)
    countInRemaining = plan.clicks?.countInFrames ?? 0
    if plan.needsStretcher {
      let stretcher = try TimeStretcher(
        sampleRate: file.info.sampleRate, channels: channels, speed: plan.speed,
        semitones: plan.transpose, quality: plan.quality, maxBlockFrames: PlaybackEngine.blockFrames)
      // Prime with the start pad and a lead-in of silence, and drop their output plus the
      // measured delay, so the range's first downbeat is the first thing heard.
      stretchDrop = stretcher.prime(
        alignedStartDelay: try TimeStretcher.alignedStartDelay(
          sampleRate: file.info.sampleRate, channels: channels, speed: plan.speed,
          semitones: plan.transpose, quality: plan.quality),
        sampleRate: file.info.sampleRate, speed: plan.speed)
      self.stretcher = stretcher
    } else {
      stretcher = nil
    }
  }

  deinit {
    block.deallocate()
    stretchInput.deallocate()
  }

  /// Sets the gain applied from the next block on.
  public func setVolume(_ volume: Volume) {
    gainBits.store(Float(volume.gain).bitPattern, ordering: .relaxed)
  }

  /// Asks the engine to stop at the next block; safe from any thread or a signal source.
  public func stop() {
    stopRequested.store(true, ordering: .relaxed)
    feeder.stopRequested.store(true, ordering: .relaxed)
    feeder.dataReady.signal()
    feeder.spaceReady.signal()
  }

  /// Plays the whole plan and returns when it has ended, was stopped, or failed.
  public func run() throws -> PlaybackReport {
    start()
    return try wait()
  }

  /// Starts the feeder and render threads.
  public func start() {
    let feederThread = Thread { [self] in
      practice_set_thread_name("practice-feeder")
      feeder.run()
      feederDone.signal()
    }
    feederThread.start()
    let renderThread = Thread { [self] in
      renderLoop()
      renderDone.signal()
    }
    renderThread.qualityOfService = .userInteractive
    renderThread.start()
  }

  /// Waits up to `timeout` for the render thread to end; true if it has (then call `wait()`).
  public func waitForEnd(timeout: DispatchTimeInterval) -> Bool {
    guard renderDone.wait(timeout: .now() + timeout) == .success else { return false }
    renderDone.signal()  // leave it signalled for wait()
    return true
  }

  /// Waits for the render thread to end; rethrows its error.
  public func wait() throws -> PlaybackReport {
    renderDone.wait()
    feeder.stopRequested.store(true, ordering: .relaxed)
    feeder.spaceReady.signal()
    feederDone.wait()
    if let renderError { throw renderError }
    let written = framesWritten.load(ordering: .acquiring)
    let underruns = (sink as? PCMDevice)?.underruns.load(ordering: .relaxed) ?? 0
    return PlaybackReport(
      framesWritten: written,
      passesCompleted: passesEnded.load(ordering: .acquiring),
      interrupted: interrupted,
      truncation: feeder.truncation,
      underruns: underruns)
  }

  /// The render thread: per block, count-in silence, then source frames from the ring
  /// (through the stretcher when the plan needs it), gain, clicks, sink. No allocation,
  /// no locks; it waits only when the feeder has fallen behind.
  private func renderLoop() {
    practice_set_thread_name("practice-render")
    do {
      while true {
        if stopRequested.load(ordering: .relaxed) {
          interrupted = true
          break
        }
        // Count-in silence first, then the source (stretched or not).
        let workStart = monotonicNanoseconds()
        var frames = 0
        if countInRemaining > 0 {
          frames = Int(min(countInRemaining, Int64(PlaybackEngine.blockFrames)))
          block.update(repeating: 0, count: frames * channels)
          countInRemaining -= Int64(frames)
        }
        let sourceStart = frames
        let wanted = PlaybackEngine.blockFrames - frames
        if wanted > 0 {
          let out = block + frames * channels
          if let stretcher {
            frames += fillStretched(stretcher, into: out, frames: wanted)
          } else {
            frames += fillBlock(out, wanted * channels) / channels
          }
        }
        if frames == 0 { break }
        let count = frames * channels
        let gain = Float(bitPattern: gainBits.load(ordering: .relaxed))
        if gain != 1 {
          for i in (sourceStart * channels)..<count { block[i] *= gain }
        }
        if clicks != nil { mixClicks(frames: frames) }
        blockTimes.record(nanoseconds: monotonicNanoseconds() - workStart)
        if firstFrameNanoseconds.load(ordering: .relaxed) == 0 {
          firstFrameNanoseconds.store(monotonicNanoseconds(), ordering: .relaxed)
        }
        try sink.write(block, frames: frames)
        let written = framesWritten.add(Int64(frames), ordering: .releasing).newValue
        advancePassClock(written: written)
      }
      lastFrameNanoseconds.store(monotonicNanoseconds(), ordering: .relaxed)
      if interrupted { sink.abort() } else { try sink.finish() }
    } catch {
      sink.abort()
      renderError = error
    }
  }

  /// Fills a block with source samples from the ring, waiting for the feeder; short only
  /// at the plan's end.
  private func fillBlock(_ block: UnsafeMutablePointer<Float>, _ wanted: Int) -> Int {
    var count = 0
    while count < wanted {
      let n = feeder.ring.read(into: block + count, count: wanted - count)
      count += n
      if n > 0 { feeder.spaceReady.signal() }
      if count == wanted { break }
      if stopRequested.load(ordering: .relaxed) { break }
      if feeder.finished.load(ordering: .acquiring) && feeder.ring.available == 0 { break }
      if n == 0 { feeder.dataReady.wait() }  // signalled by every write, at the end, and by stop()
    }
    return count
  }
}

extension PlaybackEngine {
  /// Fills the block with stretched output: feeds the stretcher from the ring as it asks,
  /// drops its start delay, and holds the total to the frames the source is worth at the
  /// speed (cutting the tail of the final flush, or padding with silence), so pass
  /// lengths are exact. Returns frames, 0 at the end.
  private func fillStretched(
    _ stretcher: TimeStretcher, into block: UnsafeMutablePointer<Float>, frames blockFrames: Int
  ) -> Int {
    var produced = 0
    if stretchDrop < 0 {
      // Lead with silence where the stretcher's transients would otherwise come early.
      produced = min(-stretchDrop, blockFrames)
      block.update(repeating: 0, count: produced * channels)
      stretchDrop += produced
    }
    while produced < blockFrames {
      let available = stretcher.framesAvailable
      if available > 0 {
        let out = block + produced * channels
        var got = stretcher.retrieve(into: out, frames: min(available, blockFrames - produced))
        if stretchDrop > 0 {
          let dropped = min(stretchDrop, got)
          out.update(from: out + dropped * channels, count: (got - dropped) * channels)
          stretchDrop -= dropped
          got -= dropped
        }
        produced += got
        continue
      }
      if stretchFlushed || stopRequested.load(ordering: .relaxed) { break }
      // Never feed across a pass boundary: the next pass may run at another speed.
      let wanted = Int(min(Int64(min(max(stretcher.framesRequired, 1), blockFrames)), max(1, feedPassRemaining)))
      let frames = fillBlock(stretchInput, wanted * channels) / channels
      if frames > 0 {
        stretchExpected += Double(frames) * plan.speed(forPass: feedPass).timeRatio
        stretcher.process(stretchInput, frames: frames)
        feedPassRemaining -= Int64(frames)
        if feedPassRemaining <= 0 {
          feedPass += 1
          feedPassRemaining = plan.sourceFrames(ofPass: feedPass, sampleRate: sampleRate)
          let speed = plan.speed(forPass: feedPass)
          if speed != plan.speed(forPass: feedPass - 1) { stretcher.setSpeed(speed) }
        }
      } else {
        stretcher.process(nil, frames: 0, final: true)
        stretchFlushed = true
      }
    }
    if stretchFlushed {
      // The stretcher's flush may run long or short of the exact length: hold it to it.
      let target = Int64(stretchExpected.rounded())
      let room = Int(max(0, min(Int64(blockFrames), target - stretchProduced)))
      if produced > room { produced = room }
      if produced < room && stretcher.framesAvailable <= 0 {
        (block + produced * channels).update(repeating: 0, count: (room - produced) * channels)
        produced = room
      }
    }
    stretchProduced += Int64(produced)
    return produced
  }
}

/// A histogram of render-thread block times: written by the render thread only, read
/// once the engine has ended. Preallocated; recording does not allocate.
public final class BlockTimeHistogram: @unchecked Sendable {
  private static let bucketNanoseconds: UInt64 = 10_000
  private var buckets = [Int](repeating: 0, count: 5001)  // the last one: 50 ms and more
  public private(set) var count = 0
  public private(set) var maxNanoseconds: UInt64 = 0

  func record(nanoseconds: UInt64) {
    buckets[Int(min(nanoseconds / Self.bucketNanoseconds, 5000))] += 1
    count += 1
    maxNanoseconds = max(maxNanoseconds, nanoseconds)
  }

  /// The time under which `fraction` of the blocks finished (bucket resolution, 10 µs).
  public func quantileNanoseconds(_ fraction: Double) -> UInt64 {
    guard count > 0 else { return 0 }
    let target = Int((Double(count) * fraction).rounded(.up))
    var seen = 0
    for (index, n) in buckets.enumerated() {
      seen += n
      if seen >= target { return min(UInt64(index + 1) * Self.bucketNanoseconds, maxNanoseconds) }
    }
    return maxNanoseconds
  }
}

/// A position in the endless sequence of clicks: the count-in, then the beats (and gap
/// clicks) of pass 0, pass 1, … with the output frame where the cursor's pass starts.
struct ClickCursor {
  var pass = -1  // -1: the count-in
  var index = 0
  var passStart = 0.0
}

extension PlaybackEngine {
  /// Advances the pass clock past `written` output frames: `clockPass` is the pass
  /// sounding, `clockPassEnd` the output frame where it ends.
  private func advancePassClock(written: Int64) {
    guard written > plan.clicks?.countInFrames ?? 0 else { return }
    while Double(written) >= clockPassEnd - 0.5 {
      if case .count(let n) = plan.passes, clockPass + 1 >= n {
        passesEnded.store(n, ordering: .releasing)
        return
      }
      clockPass += 1
      passesEnded.store(clockPass, ordering: .releasing)
      clockPassEnd += Double(plan.sourceFrames(ofPass: clockPass, sampleRate: sampleRate))
        * plan.speed(forPass: clockPass).timeRatio
    }
    passesStarted.store(clockPass + 1, ordering: .releasing)
  }

  /// The clicks of pass `pass`: its beats, plus the gap bar's beats unless it is the last.
  private func passClicks(_ pass: Int) -> [ClickPlan.Click] {
    guard let clicks else { return [] }
    return plan.passes.isFinal(pass) || plan.gapSourceFrames(afterPass: pass, sampleRate: sampleRate) == 0
      ? clicks.beats : clicks.beatsWithGap
  }

  /// The output frame and accent of the click at `cursor`, or nil past the last one.
  private func click(at cursor: ClickCursor) -> (frame: Int64, accent: Bool)? {
    guard let clicks else { return nil }
    if cursor.pass < 0 {
      guard cursor.index < clicks.countIn.count else { return nil }
      let c = clicks.countIn[cursor.index]
      return (c.frame, c.accent)
    }
    if case .count(let n) = plan.passes, cursor.pass >= n { return nil }
    let list = passClicks(cursor.pass)
    guard cursor.index < list.count else { return nil }
    let c = list[cursor.index]
    let ratio = plan.speed(forPass: cursor.pass).timeRatio
    return (Int64((cursor.passStart + Double(c.frame) * ratio).rounded()), c.accent)
  }

  private func next(_ cursor: ClickCursor) -> ClickCursor? {
    guard let clicks else { return nil }
    var next = cursor
    next.index += 1
    let count = next.pass < 0 ? clicks.countIn.count : passClicks(next.pass).count
    if next.index >= count {
      if clicks.beats.isEmpty { return nil }
      if case .count(let n) = plan.passes, next.pass + 1 >= n { return nil }
      next.passStart =
        next.pass < 0
        ? Double(clicks.countInFrames)
        : next.passStart + Double(plan.sourceFrames(ofPass: next.pass, sampleRate: sampleRate))
          * plan.speed(forPass: next.pass).timeRatio
      next.pass += 1
      next.index = 0
    }
    return next
  }

  /// Adds the clicks that overlap the block just filled (output frames from
  /// `framesWritten`) into every channel, at the click volume.
  private func mixClicks(frames: Int) {
    guard let clicks else { return }
    let blockStart = framesWritten.load(ordering: .relaxed)
    let blockEnd = blockStart + Int64(frames)
    let gain = Float(clicks.volume.gain)
    // Skip clicks that ended before this block.
    while let at = clickCursor, let c = click(at: at),
      c.frame + Int64(clickSound.accent.count) <= blockStart
    {
      clickCursor = next(at)
    }
    if let at = clickCursor, click(at: at) == nil { clickCursor = next(at) }
    var cursor = clickCursor
    while let at = cursor, let c = click(at: at), c.frame < blockEnd {
      let sound = c.accent ? clickSound.accent : clickSound.normal
      let from = max(blockStart, c.frame)
      let to = min(blockEnd, c.frame + Int64(sound.count))
      if from < to {
        for frame in from..<to {
          let value = sound[Int(frame - c.frame)] * gain
          let base = Int(frame - blockStart) * channels
          for ch in 0..<channels { block[base + ch] += value }
        }
      }
      cursor = next(at)
    }
  }
}

/// CLOCK_MONOTONIC in nanoseconds, comparable with other processes' readings.
public func monotonicNanoseconds() -> UInt64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
