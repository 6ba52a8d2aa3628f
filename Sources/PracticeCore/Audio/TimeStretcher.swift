import CRubberBand
import CRubberBandGuard
import Foundation

/// Rubber Band in real-time mode (`rubberband_new`, through `practice_rubberband_new`, which
/// turns its std::bad_alloc into an error): interleaved frames in and out,
/// converted to and from its planar buffers here. One owner: the render thread, after init.
public final class TimeStretcher {
  public let channels: Int
  public let maxBlockFrames: Int
  /// Frames of silence to feed before the first real frame (`rubberband_get_preferred_start_pad`).
  public let startPad: Int
  /// Output frames to drop before the first real output frame (`rubberband_get_start_delay`).
  public let startDelay: Int

  private let state: OpaquePointer  // owned; deleted in deinit
  private let planes: [UnsafeMutablePointer<Float>]  // render thread only
  private let inputPointers: UnsafeMutablePointer<UnsafePointer<Float>?>
  private let outputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>

  /// `live`: the pitch may change while playing (the keyboard), which needs Rubber Band's
  /// resampler running all the time (`PitchHighConsistency`).
  public init(
    sampleRate: Int, channels: Int, speed: Speed, semitones: Double, quality: StretchQuality,
    maxBlockFrames: Int, live: Bool = false
  ) throws {
    // Pitch option: the resampler runs only when transposing (HighQuality); HighConsistency
    // keeps it running at pitch 1 too, which only pitch changes while playing need.
    let pitch =
      live
      ? RubberBandOptionPitchHighConsistency
      : semitones != 0 ? RubberBandOptionPitchHighQuality : RubberBandOptionPitchHighSpeed
    var options = RubberBandOptionProcessRealTime.rawValue | RubberBandOptionThreadingNever.rawValue
      | RubberBandOptionChannelsTogether.rawValue | pitch.rawValue
    options |= (quality == .finer ? RubberBandOptionEngineFiner : RubberBandOptionEngineFaster).rawValue
    var outOfMemory: Int32 = 0
    guard let state = practice_rubberband_new(
      UInt32(sampleRate), UInt32(channels), Int32(bitPattern: UInt32(options)), speed.timeRatio,
      pow(2, semitones / 12), UInt32(maxBlockFrames), &outOfMemory)
    else {
      if outOfMemory != 0 {
        throw PracticeError(
          .other,
          "Rubber Band ran out of memory setting up the time stretcher: "
            + PracticeError.tooLittleMemory)
      }
      throw PracticeError(.other, "Rubber Band could not be set up for \(channels) channel(s) at \(sampleRate) Hz")
    }
    // The library ignores flags it does not know; check that the engine asked for is the one running.
    let engine = rubberband_get_engine_version(state)
    if quality == .finer && engine < 3 {
      rubberband_delete(state)
      throw PracticeError(
        .usage, "this Rubber Band library (engine \(engine)) has no finer (R3) engine",
        remedy: .fasterStretcher)
    }
    self.state = state
    self.channels = channels
    self.maxBlockFrames = maxBlockFrames
    startPad = Int(rubberband_get_preferred_start_pad(state))
    startDelay = Int(rubberband_get_start_delay(state))
    planes = (0..<channels).map { _ in
      let plane = UnsafeMutablePointer<Float>.allocate(capacity: maxBlockFrames)
      plane.initialize(repeating: 0, count: maxBlockFrames)
      return plane
    }
    inputPointers = .allocate(capacity: channels)
    outputPointers = .allocate(capacity: channels)
    for c in 0..<channels {
      inputPointers[c] = UnsafePointer(planes[c])
      outputPointers[c] = planes[c]
    }
  }

  deinit {
    rubberband_delete(state)
    for plane in planes { plane.deallocate() }
    inputPointers.deallocate()
    outputPointers.deallocate()
  }

  /// Sets the speed from the next process call (`rubberband_set_time_ratio`).
  public func setSpeed(_ speed: Speed) { rubberband_set_time_ratio(state, speed.timeRatio) }

  /// Sets a raw time ratio (output over input) from the next process call, for fine
  /// steering around a speed change (`rubberband_set_time_ratio`).
  public func setTimeRatio(_ ratio: Double) { rubberband_set_time_ratio(state, ratio) }

  /// Sets the pitch shift from the next process call (`rubberband_set_pitch_scale`).
  public func setTranspose(_ semitones: Double) { rubberband_set_pitch_scale(state, pow(2, semitones / 12)) }

  /// Forgets all audio fed so far (`rubberband_reset`); prime again before feeding.
  public func reset() { rubberband_reset(state) }

  /// Input frames the stretcher wants before it can produce more (`rubberband_get_samples_required`).
  public var framesRequired: Int { Int(rubberband_get_samples_required(state)) }

  /// Output frames ready, or -1 once everything after a final process call has been retrieved.
  public var framesAvailable: Int { Int(rubberband_available(state)) }

  /// Feeds up to `maxBlockFrames` interleaved frames (nil: silence) (`rubberband_process`).
  public func process(_ interleaved: UnsafePointer<Float>?, frames: Int, final: Bool = false) {
    for c in 0..<channels {
      let plane = planes[c]
      if let interleaved {
        for i in 0..<frames { plane[i] = interleaved[i * channels + c] }
      } else {
        plane.update(repeating: 0, count: frames)
      }
    }
    rubberband_process(state, inputPointers, UInt32(frames), final ? 1 : 0)
  }

  /// Retrieves up to `frames` (at most `maxBlockFrames`) into `interleaved`; returns how many.
  public func retrieve(into interleaved: UnsafeMutablePointer<Float>, frames: Int) -> Int {
    let got = Int(rubberband_retrieve(state, outputPointers, UInt32(min(frames, maxBlockFrames))))
    for c in 0..<channels {
      let plane = planes[c]
      for i in 0..<got { interleaved[i * channels + c] = plane[i] }
    }
    return got
  }
}

extension TimeStretcher {
  /// Silence fed after the start pad, before the first real frame: a transient right at
  /// the start of the stream is placed differently from later ones, so the range's first
  /// downbeat is kept away from it. Its output is dropped with the start delay.
  public static func leadInFrames(sampleRate: Int) -> Int { sampleRate / 4 }

  /// Feeds the start pad and the lead-in silence; returns the output frames to drop
  /// (`alignedStartDelay` plus the lead-in's stretched length).
  public func prime(alignedStartDelay: Int, sampleRate: Int, speed: Speed) -> Int {
    let leadIn = TimeStretcher.leadInFrames(sampleRate: sampleRate)
    var silence = startPad + leadIn
    while silence > 0 {
      let n = min(silence, maxBlockFrames)
      process(nil, frames: n)
      silence -= n
    }
    return alignedStartDelay + Int((Double(leadIn) * speed.timeRatio).rounded())
  }

  /// Output frames to drop before the first real output frame so that *transients* (the
  /// beats a musician plays against) land where the speed puts them.
  ///
  /// Rubber Band treats the time ratio as a long-term average and moves locally around
  /// transients; in real-time mode at large ratios its transients come out several
  /// milliseconds earlier than `rubberband_get_start_delay` implies (about 6 ms at half
  /// speed with the R3 engine). This measures the offset for this configuration: a few
  /// clicks through an identical stretcher, their envelope peaks compared with where the
  /// ratio puts them. The result may be negative: lead with that much silence.
  public static func alignedStartDelay(
    sampleRate: Int, channels: Int, speed: Speed, semitones: Double, quality: StretchQuality,
    live: Bool = false
  ) throws -> Int {
    let block = 1024
    let probe = try TimeStretcher(
      sampleRate: sampleRate, channels: channels, speed: speed, semitones: semitones,
      quality: quality, maxBlockFrames: block, live: live)
    let rate = Double(sampleRate)
    let clickTimes = [0.25, 0.52, 0.83, 1.07]  // irregular, so hop phases differ
    let clickLength = Int(0.01 * rate)
    let inputFrames = Int(1.3 * rate)
    var input = [Float](repeating: 0, count: inputFrames * channels)
    var clickStarts: [Int] = []
    for time in clickTimes {
      let start = Int(time * rate)
      clickStarts.append(start)
      for i in 0..<clickLength {
        let value = Float(0.6 * exp(-Double(i) / (0.002 * rate)) * sin(2 * Double.pi * 1000 * Double(i) / rate))
        for c in 0..<channels { input[(start + i) * channels + c] = value }
      }
    }
    var output: [Float] = []
    var scratch = [Float](repeating: 0, count: block * channels)
    func drain() {
      while case let available = probe.framesAvailable, available > 0 {
        let n = scratch.withUnsafeMutableBufferPointer {
          probe.retrieve(into: $0.baseAddress!, frames: min(available, block))
        }
        if n == 0 { break }
        output += scratch.prefix(n * channels)
      }
    }
    let drop = probe.prime(alignedStartDelay: probe.startDelay, sampleRate: sampleRate, speed: speed)
    drain()
    var fed = 0
    while fed < inputFrames {
      let n = min(block, inputFrames - fed)
      input.withUnsafeBufferPointer { probe.process($0.baseAddress! + fed * channels, frames: n) }
      fed += n
      drain()
    }
    probe.process(nil, frames: 0, final: true)
    drain()

    // Envelope peak (1 ms moving sum of the first channel) near where each click should be.
    let window = max(1, Int(0.001 * rate))
    func peak(_ samples: [Float], near center: Int, radius: Int) -> Int? {
      let lower = max(0, center - radius)
      let upper = min(samples.count / channels - window, center + radius)
      guard upper > lower else { return nil }
      var best = lower
      var bestSum: Float = -1
      var sum: Float = 0
      for i in lower..<(lower + window) { sum += abs(samples[i * channels]) }
      for i in lower..<upper {
        if sum > bestSum {
          bestSum = sum
          best = i
        }
        sum += abs(samples[(i + window) * channels]) - abs(samples[i * channels])
      }
      return best
    }
    let ratio = speed.timeRatio
    var offsets: [Double] = []
    for start in clickStarts {
      guard let inPeak = peak(input, near: start + clickLength / 4, radius: clickLength) else { continue }
      let expected = drop + Int((Double(start) * ratio).rounded()) + (inPeak - start)
      if let outPeak = peak(output, near: expected, radius: Int(0.03 * rate)) {
        offsets.append(Double(outPeak - expected))
      }
    }
    guard !offsets.isEmpty else { return probe.startDelay }
    // Offsets are relative to the primed position, whose lead-in part the caller adds back.
    return probe.startDelay + Int((offsets.reduce(0, +) / Double(offsets.count)).rounded())
  }
}
