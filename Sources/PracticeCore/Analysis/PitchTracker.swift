import CAubio
import CAubioLoader
import Foundation

/// A pitch heard in one analysis window.
public struct PitchEstimate: Sendable, Equatable {
  /// The fundamental, in Hz.
  public let frequency: Double
  /// aubio's confidence (1 − the YIN dip), 0-1.
  public let confidence: Double
}

/// Follows the pitch of a monophonic signal hop by hop, for the tuner.
///
/// aubio's YIN (`yinfast`, its FFT implementation of `yin`) finds the period: over the
/// newest 4 hops (46 ms at 44.1 kHz) for periods up to a hop (notes above 86 Hz), so a
/// new note shows within about 50 ms, else over 6 hops (70 ms), long enough for YIN to see
/// periods down to 29 Hz (bass E1 is 41 Hz). Not `yinfft`: in aubio 0.4.9 its confidence is
/// only set above 1,300 Hz, its loudness weighting reads a 41 Hz sine as 45 Hz, and it
/// takes the deepest dip rather than the first, reading 1,318 Hz an octave low.
///
/// YIN's estimate is then refined in the time domain: the normalised squared difference
/// of the window with itself is minimised around the period found, then around 2, 4, 8…
/// periods, each time with a parabola through the three lags nearest the minimum; the
/// lag of the dip at *k* periods divided by *k* has a *k*-th of the interpolation error.
/// Steady and decaying harmonic tones then read within a cent from 41 to 1,400 Hz
/// (Tests/PracticeCoreTests/PitchTrackerTests.swift). A window whose newest hop is
/// quieter than `silenceDecibels`, or whose YIN dip is shallow, has no pitch.
///
/// One owner; use from one thread. `process` does not allocate.
public final class PitchTracker {
  public let sampleRate: Int
  /// Samples analysed per estimate.
  public let window: Int
  /// Samples between estimates.
  public let hop: Int
  /// Below this level (dBFS, the newest hop's RMS) there is no pitch.
  public let silenceDecibels: Double
  /// Lowest and highest fundamental reported, in Hz.
  public let frequencyRange: ClosedRange<Double>
  /// The newest hop's RMS level in dBFS (-infinity for digital silence), after `process`.
  public private(set) var level: Double = -.infinity

  /// yinfast over the whole window, and over its newer half (reacts faster to a new note).
  private let long: OpaquePointer  // owned
  private let short: OpaquePointer  // owned
  private let longInput: UnsafeMutablePointer<fvec_t>  // owned, one hop
  private let shortInput: UnsafeMutablePointer<fvec_t>  // owned, one hop
  private let output: UnsafeMutablePointer<fvec_t>  // owned, one value
  /// The last `window` samples, oldest first.
  private let history: UnsafeMutablePointer<Float>  // owned
  /// Samples of `history` the refinement looks at (the newest), set before `refine`.
  private var span: Int
  /// Hops in a row, up to now, at or above `silenceDecibels`.
  private var soundingHops = 0

  /// Exact zeros in a row that count as digital silence (a dropout, a splice).
  static let silentRun = 32

  /// YIN's dip must be at most this deep (1 − confidence) for a window to count as pitched.
  static let minimumConfidence = 0.8

  public init(
    sampleRate: Int, silenceDecibels: Double = -60, frequencyRange: ClosedRange<Double> = 30...2000
  ) throws {
    if let reason = practice_aubio_load_error() {
      throw PracticeError(
        .other,
        "pitch detection needs aubio, which could not be loaded (\(String(cString: reason))); install it with `make deps`"
      )
    }
    guard sampleRate >= 8000 else {
      throw PracticeError(
        .usage, "pitch detection needs a sample rate of 8000 Hz or more, not \(sampleRate)")
    }
    // A hop of about 11 ms (512 samples at 44.1 and 48 kHz); the short window is 4 hops,
    // the long one 6: its half, the longest period YIN can see, reaches below 30 Hz.
    var hop = 256
    while Double(hop) < Double(sampleRate) * 0.0105 { hop *= 2 }
    var window = 6 * hop
    var made = new_aubio_pitch("yinfast", UInt32(window), UInt32(hop), UInt32(sampleRate))
    if made == nil {
      // aubio built on Ooura's FFT takes powers of two only.
      window = 8 * hop
      made = new_aubio_pitch("yinfast", UInt32(window), UInt32(hop), UInt32(sampleRate))
    }
    guard let long = made else {
      throw AubioError(call: "new_aubio_pitch", detail: "yinfast, window \(window), hop \(hop)")
    }
    guard let short = new_aubio_pitch("yinfast", UInt32(4 * hop), UInt32(hop), UInt32(sampleRate))
    else {
      del_aubio_pitch(long)
      throw AubioError(call: "new_aubio_pitch", detail: "yinfast, window \(4 * hop), hop \(hop)")
    }
    let longInput = new_fvec(UInt32(hop))
    let shortInput = new_fvec(UInt32(hop))
    let output = new_fvec(1)
    guard let longInput, let shortInput, let output else {
      if let output { del_fvec(output) }
      if let shortInput { del_fvec(shortInput) }
      if let longInput { del_fvec(longInput) }
      del_aubio_pitch(short)
      del_aubio_pitch(long)
      throw AubioError(call: "new_fvec", detail: "\(hop) values")
    }
    for pitch in [long, short] {
      _ = aubio_pitch_set_unit(pitch, "Hz")
      // Our own gate decides silence, on the newest hop; aubio's would answer 0 Hz.
      _ = aubio_pitch_set_silence(pitch, -120)
    }
    self.sampleRate = sampleRate
    self.window = window
    self.hop = hop
    self.silenceDecibels = silenceDecibels
    self.frequencyRange = frequencyRange
    self.long = long
    self.short = short
    self.longInput = longInput
    self.shortInput = shortInput
    self.output = output
    span = window
    history = .allocate(capacity: window)
    history.initialize(repeating: 0, count: window)
  }

  deinit {
    del_aubio_pitch(long)
    del_aubio_pitch(short)
    del_fvec(longInput)
    del_fvec(shortInput)
    del_fvec(output)
    history.deallocate()
  }

  /// Takes the next `hop` mono samples; returns the pitch of the window that ends with
  /// them, or `nil` when it is silent or has no clear pitch.
  public func process(_ samples: UnsafePointer<Float>) -> PitchEstimate? {
    history.update(from: history + hop, count: window - hop)
    (history + window - hop).update(from: samples, count: hop)
    // A run of exact zeros is digital silence: a note starting after it, or a dropout
    // (the player ran dry) that splices the tone; no window across it is read.
    var energy = 0.0
    var zeros = 0
    var longestZeros = 0
    for i in 0..<hop {
      let value = Double(samples[i])
      energy += value * value
      zeros = value == 0 ? zeros + 1 : 0
      longestZeros = max(longestZeros, zeros)
    }
    level = 10 * log10(energy / Double(hop))
    soundingHops =
      level >= silenceDecibels && longestZeros < PitchTracker.silentRun ? soundingHops + 1 : 0
    // The short window answers for periods up to a hop (above 86 Hz at 44.1 kHz), so a
    // new note shows sooner; lower notes need the long one. A window that reaches back
    // into silence (a note starting, a dropout) answers nothing: YIN can then see a
    // period twice as long as the note's.
    let fromShort = detect(short, shortInput, samples)
    let fromLong = detect(long, longInput, samples)
    let estimate: (frequency: Double, confidence: Double)
    if let fromShort, soundingHops >= 4, Double(sampleRate) / fromShort.frequency <= Double(hop) {
      estimate = fromShort
      span = 4 * hop
    } else if let fromLong, soundingHops >= window / hop {
      estimate = fromLong
      span = window
    } else {
      return nil
    }
    guard level >= silenceDecibels, frequencyRange.contains(estimate.frequency),
      let refined = refine(period: Double(sampleRate) / estimate.frequency)
    else { return nil }
    let frequency = Double(sampleRate) / refined
    guard frequencyRange.contains(frequency) else { return nil }
    return PitchEstimate(frequency: frequency, confidence: estimate.confidence)
  }

  /// One yinfast step; its frequency when it is confident.
  private func detect(
    _ pitch: OpaquePointer, _ input: UnsafeMutablePointer<fvec_t>, _ samples: UnsafePointer<Float>
  ) -> (frequency: Double, confidence: Double)? {
    input.pointee.data.update(from: samples, count: hop)
    aubio_pitch_do(pitch, input, output)
    let frequency = Double(output.pointee.data[0])
    let confidence = Double(aubio_pitch_get_confidence(pitch))
    guard frequency.isFinite, frequency > 0, confidence >= PitchTracker.minimumConfidence else {
      return nil
    }
    return (frequency, confidence)
  }

  /// The period (in samples) near `period` at which the window best matches itself,
  /// found at ever more periods' distance; `nil` if the refinement wandered off. When
  /// the window matches itself at half that period nearly as well (odd harmonics under
  /// about a tenth of the energy: YIN has taken two periods for one, as it can when its
  /// window starts in a fade-in), half is the period.
  func refine(period: Double) -> Double? {
    var period = period
    // YIN's estimate can be a few tenths of a percent off: search wider at first.
    var reach = 2 + Int((period * 0.01).rounded(.up))
    var periods = 1
    var first = true
    while true {
      let centre = Double(periods) * period
      guard let found = dip(near: centre, reach: min(reach, max(2, Int(period / 3)))) else {
        return first ? nil : period
      }
      period = found.lag / Double(periods)
      if first, period >= 8, let half = dip(near: period / 2, reach: 2), half.value < 0.2 {
        period = half.lag
      }
      first = false
      periods *= 2
      reach = 2
      if Double(periods) * period > Double(span) / 2 { return period }
    }
  }

  /// The interpolated lag of the lowest normalised squared difference between `centre −
  /// reach` and `centre + reach`, and that difference (0 for a perfect match, 1 for none,
  /// 2 for opposite); `nil` when the lowest is at the edge of that span.
  private func dip(near centre: Double, reach: Int) -> (lag: Double, value: Double)? {
    let middle = Int(centre.rounded())
    let first = middle - reach
    let last = middle + reach
    guard first >= 1, last < span - 1 else { return nil }
    let start = history + (window - span)
    var best = Double.infinity
    var bestLag = first
    var values = (0.0, 0.0, 0.0)
    func value(_ lag: Int) -> Double {
      let n = span - lag
      var difference = 0.0
      var power = 0.0
      for i in 0..<n {
        let a = Double(start[i])
        let b = Double(start[i + lag])
        difference += (a - b) * (a - b)
        power += a * a + b * b
      }
      return power > 0 ? difference / power : 1
    }
    for lag in first...last {
      let v = value(lag)
      if v < best {
        best = v
        bestLag = lag
      }
    }
    guard bestLag > first, bestLag < last else { return nil }
    values = (value(bestLag - 1), best, value(bestLag + 1))
    let denominator = values.0 - 2 * values.1 + values.2
    guard denominator > 0 else { return (Double(bestLag), best) }
    let offset = 0.5 * (values.0 - values.2) / denominator
    return (Double(bestLag) + min(max(offset, -0.5), 0.5), best)
  }
}
