import CPlatform
import Dispatch
import Foundation
import Synchronization

/// The reference tone's sound: a sine with its second and third harmonics a quarter and
/// a tenth as loud (audible on small speakers even for bass notes, and clearly one
/// pitch), about -10 dBFS at its peak, starting and ending with 10 ms raised-cosine fades.
public enum ReferenceTone {
  /// The second and third harmonics' amplitudes relative to the fundamental's.
  public static let second = 0.25
  public static let third = 0.1
  /// The fundamental's amplitude (full scale is 1).
  public static let amplitude = 0.25
  /// Fade in and out, in seconds.
  public static let fadeSeconds = 0.01

  /// One sample at `phase` radians of the fundamental.
  @inline(__always)
  static func value(phase: Double) -> Double {
    amplitude * (sin(phase) + second * sin(2 * phase) + third * sin(3 * phase))
  }
}

/// Plays reference tones one after another through a sink (the ALSA device `play` uses),
/// each for a fixed time or, as a drone, until told to move on or stop.
///
/// A render thread synthesises blocks into a buffer allocated at init and writes them; it
/// does not allocate, lock or log. Control (next, previous, stop) reaches it through
/// atomics; every change of note fades out and in over 10 ms, so nothing clicks.
public final class TonePlayer: @unchecked Sendable {
  public let frequencies: [Double]
  /// Frames per note, or nil for a drone until `next`, `previous` or `stop`.
  public let framesEach: Int64?
  /// The note sounding now (an index into `frequencies`), published by the render thread.
  public let current = Atomic<Int>(0)

  private let sink: any AudioSink  // render thread only after start()
  private let buffer: UnsafeMutablePointer<Float>  // render thread only
  private let blockFrames: Int
  private let fadeFrames: Int
  /// The note asked for (`next`, `previous`); -1 asks to stop.
  private let requested = Atomic<Int>(0)
  private let done = DispatchSemaphore(value: 0)
  /// Set by the render thread before `done` is signalled.
  private var renderError: (any Error)?

  public init(sink: any AudioSink, frequencies: [Double], secondsEach: Double?) {
    precondition(!frequencies.isEmpty)
    self.sink = sink
    self.frequencies = frequencies
    let rate = Double(sink.sampleRate)
    framesEach = secondsEach.map { Int64(($0 * rate).rounded()) }
    blockFrames = min(512, sink.maxBlockFrames)
    fadeFrames = max(1, Int((ReferenceTone.fadeSeconds * rate).rounded()))
    buffer = .allocate(capacity: blockFrames * sink.channels)
    buffer.initialize(repeating: 0, count: blockFrames * sink.channels)
  }

  /// Tones made at this rate (stereo, 16 bits).
  public static let sampleRate = 44100

  /// Opens the ALSA PCM `device` (`deviceAdvice`: what to do when it will not open) for the
  /// tones: with `steered` (keys move between notes) a key is heard within 100 ms; a script
  /// gets a deep buffer instead, which a busy machine does not run dry.
  public convenience init(
    device: String, frequencies: [Double], secondsEach: Double?, steered: Bool,
    deviceAdvice: String
  ) throws {
    let sink = try PCMDevice(
      name: device, sampleRate: TonePlayer.sampleRate, channels: 2, encoding: .int16,
      maxBlockFrames: 512, bufferMilliseconds: steered ? 100 : 500, openAdvice: deviceAdvice)
    self.init(sink: sink, frequencies: frequencies, secondsEach: secondsEach)
  }

  /// Times the device ran dry and recovered.
  public var underruns: Int { (sink as? PCMDevice)?.underruns.load(ordering: .relaxed) ?? 0 }

  deinit { buffer.deallocate() }

  public func start() {
    let thread = Thread { [self] in
      practice_set_thread_name("practice-tone")
      do { try render() } catch { renderError = error }
      if renderError != nil { sink.abort() }
      done.signal()
    }
    thread.qualityOfService = .userInteractive
    thread.start()
  }

  /// Moves on to the next note (the last stays), fading.
  public func next() { move(by: 1) }
  /// Goes back to the previous note (the first stays), fading.
  public func previous() { move(by: -1) }

  private func move(by step: Int) {
    let now = requested.load(ordering: .relaxed)
    guard now >= 0 else { return }
    requested.store(min(max(now + step, 0), frequencies.count - 1), ordering: .relaxed)
  }

  /// Fades out and stops.
  public func stop() { requested.store(-1, ordering: .relaxed) }

  /// Whether the tones have ended, waiting up to `timeout`.
  public func waitForEnd(timeout: DispatchTimeInterval) -> Bool {
    guard done.wait(timeout: .now() + timeout) == .success else { return false }
    done.signal()  // leave it signalled for wait()
    return true
  }

  /// Waits for the end; rethrows the render thread's error (a lost device).
  public func wait() throws {
    done.wait()
    done.signal()
    if let renderError { throw renderError }
  }

  /// The render loop: note after note, each faded in, held, faded out.
  private func render() throws {
    let rate = Double(sink.sampleRate)
    let channels = sink.channels
    var index = 0
    while true {
      current.store(index, ordering: .relaxed)
      let step = 2 * Double.pi * frequencies[index] / rate
      var phase = 0.0
      var frame: Int64 = 0
      // Frames of fade-out left once the note ends; nil while it holds.
      var fadeOutLeft: Int?
      var nextIndex: Int? = index + 1
      while fadeOutLeft.map({ $0 > 0 }) ?? true {
        let frames = blockFrames
        for i in 0..<frames {
          if fadeOutLeft == nil {
            let ask = requested.load(ordering: .relaxed)
            if let framesEach, frame >= framesEach - Int64(fadeFrames) {
              fadeOutLeft = fadeFrames
              nextIndex = index + 1
            } else if ask < 0 {
              fadeOutLeft = fadeFrames
              nextIndex = nil
            } else if ask != index {
              fadeOutLeft = fadeFrames
              nextIndex = ask
            }
          }
          var gain = 1.0
          if frame < Int64(fadeFrames) {
            gain = 0.5 - 0.5 * cos(Double.pi * Double(frame) / Double(fadeFrames))
          }
          if let left = fadeOutLeft {
            gain *=
              left > 0 ? 0.5 - 0.5 * cos(Double.pi * Double(left - 1) / Double(fadeFrames)) : 0
            fadeOutLeft = left - 1
          }
          let value = Float(gain * ReferenceTone.value(phase: phase))
          for c in 0..<channels { buffer[i * channels + c] = value }
          phase += step
          if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
          frame += 1
          if let left = fadeOutLeft, left <= 0 {
            // The note is over: the rest of the block is silence.
            for j in (i + 1)..<frames { for c in 0..<channels { buffer[j * channels + c] = 0 } }
            break
          }
        }
        try sink.write(buffer, frames: frames)
      }
      guard let following = nextIndex, following < frequencies.count else { break }
      index = following
      if framesEach != nil { requested.store(index, ordering: .relaxed) }
    }
    try sink.finish()
  }
}
