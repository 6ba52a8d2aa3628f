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
  }

  deinit { block.deallocate() }

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
      practice_set_thread_name("practice-render")
      renderLoop()
      renderDone.signal()
    }
    renderThread.qualityOfService = .userInteractive
    renderThread.start()
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
      passesCompleted: plan.rangeFrames > 0 ? Int(written / plan.rangeFrames) : 0,
      interrupted: interrupted,
      truncation: feeder.truncation,
      underruns: underruns)
  }

  /// The render thread: blocks from the ring, gain, sink. No allocation, no locks.
  private func renderLoop() {
    let samplesPerBlock = PlaybackEngine.blockFrames * channels
    do {
      while true {
        if stopRequested.load(ordering: .relaxed) {
          interrupted = true
          break
        }
        let count = fillBlock(samplesPerBlock)
        if count == 0 { break }
        let gain = Float(bitPattern: gainBits.load(ordering: .relaxed))
        if gain != 1 {
          for i in 0..<count { block[i] *= gain }
        }
        if firstFrameNanoseconds.load(ordering: .relaxed) == 0 {
          firstFrameNanoseconds.store(monotonicNanoseconds(), ordering: .relaxed)
        }
        try sink.write(block, frames: count / channels)
        framesWritten.add(Int64(count / channels), ordering: .releasing)
      }
      lastFrameNanoseconds.store(monotonicNanoseconds(), ordering: .relaxed)
      if interrupted { sink.abort() } else { try sink.finish() }
    } catch {
      sink.abort()
      renderError = error
    }
  }

  /// Fills the block from the ring, waiting for the feeder; short only at the plan's end.
  private func fillBlock(_ wanted: Int) -> Int {
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

/// CLOCK_MONOTONIC in nanoseconds, comparable with other processes' readings.
public func monotonicNanoseconds() -> UInt64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
