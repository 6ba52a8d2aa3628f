import CPlatform
import Dispatch
import Foundation
import Synchronization

/// One tuner reading: the pitch of the window ending `time` seconds into the capture.
public struct TunerReading: Sendable, Equatable {
  /// Seconds of captured audio up to the end of the window analysed.
  public let time: Double
  /// The fundamental in Hz; `nil` for silence or no clear pitch.
  public let frequency: Double?
  /// The newest hop's RMS level in dBFS (at least -120).
  public let level: Double

  /// The nearest note and the cents off it, for the given A4.
  public func reading(a4: Double) -> PitchReading? {
    frequency.flatMap { PitchReading(frequency: $0, a4: a4) }
  }
}

/// Listens through an ALSA capture device and reports the pitch every hop (about 11 ms).
///
/// A capture thread reads the device in small blocks and hands the samples over through
/// a single-producer, single-consumer ring; it neither allocates nor locks in its loop.
/// The caller polls (`poll`) on its own thread, where the `PitchTracker` runs.
public final class Tuner: @unchecked Sendable {
  public let device: CaptureDevice  // read by the capture thread only after start()
  /// The tracker's hop and window, for the caller's information.
  public var hop: Int { tracker.hop }

  private let tracker: PitchTracker  // polling thread only
  private let ring: SampleRing
  private let block: UnsafeMutablePointer<Float>  // capture thread only
  private let silence: UnsafeMutablePointer<Float>  // immutable after init, spliceMark zeros
  private let hopBuffer: UnsafeMutablePointer<Float>  // polling thread only
  private let blockFrames: Int
  private let stopRequested = Atomic<Bool>(false)
  /// Samples the capture thread could not hand over because the ring was full.
  private let dropped = Atomic<Int>(0)
  private let captureEnded = Atomic<Bool>(false)
  private let done = DispatchSemaphore(value: 0)
  /// Set by the capture thread before `captureEnded`; read after it.
  private var captureError: (any Error)?
  private var started = false  // control thread only
  private var consumed = 0  // polling thread only

  /// Frames the capture thread reads at a time (about 6 ms at 44.1 kHz).
  static let blockFrames = 256
  /// Zeros marking lost audio: more than the tracker's run of digital silence.
  static let spliceMark = 2 * PitchTracker.silentRun

  /// Opens the ALSA capture PCM `device` at 44.1 kHz (`deviceAdvice`: what to do when it
  /// will not open) and a tuner over it.
  public convenience init(device: String, deviceAdvice: String) throws {
    try self.init(
      device: try CaptureDevice(
        name: device, sampleRate: 44100, maxBlockFrames: 1024, openAdvice: deviceAdvice))
  }

  public init(device: CaptureDevice) throws {
    self.device = device
    tracker = try PitchTracker(sampleRate: device.sampleRate)
    blockFrames = min(Tuner.blockFrames, device.maxBlockFrames)
    // Two seconds of slack for a polling thread that falls behind.
    ring = SampleRing(capacity: max(device.sampleRate * 2, 8 * tracker.hop))
    block = .allocate(capacity: blockFrames)
    block.initialize(repeating: 0, count: blockFrames)
    silence = .allocate(capacity: Tuner.spliceMark)
    silence.initialize(repeating: 0, count: Tuner.spliceMark)
    hopBuffer = .allocate(capacity: tracker.hop)
    hopBuffer.initialize(repeating: 0, count: tracker.hop)
  }

  deinit {
    stop()
    block.deallocate()
    silence.deallocate()
    hopBuffer.deallocate()
  }

  /// Starts the capture thread.
  public func start() throws {
    guard !started else { return }
    started = true
    try device.start()
    let thread = Thread { [self] in
      practice_set_thread_name("practice-capture")
      capture()
    }
    thread.qualityOfService = .userInteractive
    thread.start()
  }

  /// The capture thread's loop: blocking reads into `block`, handed over through the ring.
  /// Where audio was lost (an overrun, or a full ring), a run of zeros goes in first: the
  /// tracker reads no pitch across it rather than one from a spliced window.
  ///
  /// A device that is not live (ALSA's `null`, a file) delivers audio faster than it is
  /// heard: once it is more than a second ahead of the clock, a full ring is waited on
  /// rather than dropped from, so that every frame it gave is read.
  private func capture() {
    var spliced = false
    var captured = 0
    let began = DispatchTime.now().uptimeNanoseconds
    do {
      while !stopRequested.load(ordering: .relaxed) {
        let overruns = device.overruns.load(ordering: .relaxed)
        try device.read(into: block, frames: blockFrames)
        captured += blockFrames
        if spliced || device.overruns.load(ordering: .relaxed) != overruns {
          spliced = ring.write(silence, count: Tuner.spliceMark) < Tuner.spliceMark
        }
        var written = ring.write(block, count: blockFrames)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
        if written < blockFrames, Double(captured) / Double(device.sampleRate) > elapsed + 1 {
          while written < blockFrames && !stopRequested.load(ordering: .relaxed) {
            usleep(1000)
            written += ring.write(block + written, count: blockFrames - written)
          }
        }
        // A wait cut short by the stop is no loss: nothing after the stop is read.
        if written < blockFrames, !stopRequested.load(ordering: .relaxed) {
          dropped.add(blockFrames - written, ordering: .relaxed)
          spliced = true
        }
      }
    } catch {
      captureError = error
    }
    captureEnded.store(true, ordering: .releasing)
    done.signal()
  }

  /// Analyses what was captured since the last call, one reading per hop, in order,
  /// until `body` returns false (the caller has heard enough) or there is no whole hop
  /// left; at most a second's worth per call, so a caller that fell behind still gets
  /// control back. Throws the capture thread's error (a lost device) once everything
  /// before it was read.
  public func poll(_ body: (TunerReading) throws -> Bool) throws {
    let ended = captureEnded.load(ordering: .acquiring)
    let hop = tracker.hop
    var budget = device.sampleRate
    while budget >= hop, ring.available >= hop {
      budget -= hop
      _ = ring.read(into: hopBuffer, count: hop)
      consumed += hop
      let estimate = tracker.process(hopBuffer)
      let frames = consumed + dropped.load(ordering: .relaxed)
      let reading = TunerReading(
        time: Double(frames) / Double(device.sampleRate), frequency: estimate?.frequency,
        level: max(-120, tracker.level.isNaN ? -120 : tracker.level))
      guard try body(reading) else { return }
    }
    if ended, ring.available < hop, let captureError { throw captureError }
  }

  /// Whether the capture thread has ended (stopped, or the device failed).
  public var hasEnded: Bool { captureEnded.load(ordering: .acquiring) }

  /// Overruns the device recovered from plus samples the ring could not take.
  public var lostAudio: (overruns: Int, droppedFrames: Int) {
    (device.overruns.load(ordering: .relaxed), dropped.load(ordering: .relaxed))
  }

  /// Asks the capture thread to end, waits for it (a block at most), closes the device.
  public func stop() {
    guard started else { return device.close() }
    started = false
    stopRequested.store(true, ordering: .relaxed)
    done.wait()
    device.close()
  }
}
