import CAubio
import CAubioLoader
import Foundation

/// A recording's concert pitch: the A4 whose equal-tempered grid its notes fit best.
public struct ConcertPitchEstimate: Sendable, Equatable {
  /// Cents from the A = 440 Hz grid, -50 ..< 50.
  public let cents: Double
  /// Spectral peaks that took part.
  public let peaks: Int
  /// Share of their weight within 12 cents of the estimate (0-1; a quarter for noise).
  public let agreement: Double

  /// A4 in Hz.
  public var a4: Double { ConcertPitch.offset(cents: cents) }
}

/// Estimates the concert pitch of a recording from the frequencies of its steady partials.
///
/// The file is heard at 44.1 kHz whatever its rate (`MonoReader`). Every 93 ms an
/// 8192-sample Hann window and the same window 1024 samples later go through aubio's FFT;
/// each clear spectral peak's frequency is measured from the phase advance between the two
/// (a phase vocoder: far finer than the 5.4 Hz bins), and kept only when the bins either
/// side agree on it, as they do for a steady partial and not for noise. Each peak's
/// distance from the 440 Hz grid, in cents modulo a semitone, goes into a circular
/// histogram weighted by its magnitude; the estimate is the weighted circular mean around
/// the histogram's highest point. Fundamentals and octave partials sit on the grid; the
/// fifth and seventh harmonics, 14 and 31 cents off, form smaller humps of their own and do
/// not pull the mean. A recording tuned a whole semitone (or more) away is
/// indistinguishable from one in tune.
public enum ConcertPitchEstimator {
  /// Below this share of the weight near the estimate, or with fewer peaks than
  /// `minimumPeaks`, there is no pitched content to speak of.
  static let minimumAgreement = 0.45
  static let minimumPeaks = 12

  public static func estimate(path: String) throws -> ConcertPitchEstimate {
    try estimate(file: SoundFile(path: path), name: path)
  }

  /// Reads `file` to its end; `name` is how errors call it. `progress` receives 0-1 as
  /// the file is read.
  public static func estimate(
    file: SoundFile, name: String, progress: (Double) -> Void = { _ in }
  ) throws -> ConcertPitchEstimate {
    if let reason = practice_aubio_load_error() {
      throw PracticeError(
        .other,
        "concert pitch estimation needs aubio, which could not be loaded (\(String(cString: reason))); install it with `make deps`"
      )
    }
    let info = file.info
    guard info.sampleRate >= 8000, info.channels >= 1 else {
      throw PracticeError(
        .badData, "'\(name)' has a sample rate of \(info.sampleRate) Hz; it needs 8000 Hz or more")
    }
    // Heard at one rate whatever rate the file was converted to: the same window, bins and
    // partials for one recording.
    let input = MonoReader(file: file, rate: BeatDetector.analysisRate)
    var window = 2048
    while Double(window) < Double(input.rate) * 0.18 { window *= 2 }
    let analyser = try PeakAnalyser(window: window, sampleRate: input.rate)
    var histogram = CentsHistogram()
    // Mono samples, analysed every half window.
    let hop = window / 2
    let span = window + analyser.offset
    var mono = [Float](repeating: 0, count: span)
    var filled = 0
    var pending: [Float] = []
    pending.reserveCapacity(8192 + span)
    _ = try input.read(name: name, progress: progress) { samples in
      pending.append(contentsOf: samples)
      var used = 0
      while pending.count - used >= span - filled {
        let take = span - filled
        for i in 0..<take { mono[filled + i] = pending[used + i] }
        used += take
        analyser.analyse(mono) { histogram.add(cents: $0, weight: $1) }
        // Keep the last (span - hop) samples for the next frame.
        for i in 0..<(span - hop) { mono[i] = mono[i + hop] }
        filled = span - hop
      }
      pending.removeFirst(used)
    }
    guard let result = histogram.estimate(), result.peaks >= minimumPeaks,
      result.agreement >= minimumAgreement
    else {
      throw PracticeError(
        .badData,
        "'\(name)' has no steady pitched notes to measure its tuning from (silence, noise or drums); try a recording with sustained notes"
      )
    }
    return result
  }
}

/// Cents off the 440 grid, weighted: a 1-cent circular histogram and the peaks themselves.
struct CentsHistogram {
  private(set) var bins = [Double](repeating: 0, count: 100)
  private var values: [(cents: Double, weight: Double)] = []

  mutating func add(cents: Double, weight: Double) {
    guard cents.isFinite, weight.isFinite, weight > 0 else { return }
    let wrapped = CentsHistogram.wrap(cents)
    values.append((wrapped, weight))
    bins[Int((wrapped + 50).rounded(.down)).clamped(to: 0...99)] += weight
  }

  /// Into -50 ..< 50.
  static func wrap(_ cents: Double) -> Double {
    var c = cents.truncatingRemainder(dividingBy: 100)
    if c < -50 { c += 100 }
    if c >= 50 { c -= 100 }
    return c
  }

  /// The weighted circular mean within 12 cents of the smoothed histogram's top.
  func estimate() -> ConcertPitchEstimate? {
    let total = values.reduce(0) { $0 + $1.weight }
    guard total > 0 else { return nil }
    // Smooth with a circular Gaussian of 3 cents.
    var best = 0
    var bestValue = -1.0
    for i in 0..<100 {
      var sum = 0.0
      for d in -9...9 { sum += bins[(i + d + 100) % 100] * exp(-Double(d * d) / 18) }
      if sum > bestValue {
        bestValue = sum
        best = i
      }
    }
    let mode = Double(best) - 50 + 0.5
    var sine = 0.0
    var cosine = 0.0
    var near = 0.0
    var count = 0
    for (cents, weight) in values where abs(CentsHistogram.wrap(cents - mode)) <= 12 {
      let angle = 2 * Double.pi * cents / 100
      sine += weight * sin(angle)
      cosine += weight * cos(angle)
      near += weight
      count += 1
    }
    guard near > 0 else { return nil }
    let mean = atan2(sine, cosine) * 100 / (2 * Double.pi)
    return ConcertPitchEstimate(
      cents: CentsHistogram.wrap(mean), peaks: values.count, agreement: near / total)
  }
}

extension Comparable {
  fileprivate func clamped(to range: ClosedRange<Self>) -> Self {
    min(max(self, range.lowerBound), range.upperBound)
  }
}

/// Steady spectral peaks of one frame, with phase-vocoder frequencies. One owner.
final class PeakAnalyser {
  let window: Int
  let sampleRate: Int
  /// Samples between the two FFTs of a frame.
  let offset: Int
  private let fft: OpaquePointer  // owned
  private let input: UnsafeMutablePointer<fvec_t>  // owned
  private let complex: UnsafeMutablePointer<fvec_t>  // owned
  private let first: UnsafeMutablePointer<cvec_t>  // owned
  private let second: UnsafeMutablePointer<cvec_t>  // owned
  private let hann: [Float]
  /// Partials are looked for between these bins (about 55 Hz to 5 kHz).
  private let bins: ClosedRange<Int>

  init(window: Int, sampleRate: Int) throws {
    guard let fft = new_aubio_fft(UInt32(window)) else {
      throw AubioError(call: "new_aubio_fft", detail: "size \(window)")
    }
    let input = new_fvec(UInt32(window))
    let complex = new_fvec(UInt32(window))
    let first = new_cvec(UInt32(window))
    let second = new_cvec(UInt32(window))
    guard let input, let complex, let first, let second else {
      if let second { del_cvec(second) }
      if let first { del_cvec(first) }
      if let complex { del_fvec(complex) }
      if let input { del_fvec(input) }
      del_aubio_fft(fft)
      throw AubioError(call: "new_fvec", detail: "\(window) values")
    }
    self.window = window
    self.sampleRate = sampleRate
    offset = window / 8
    self.fft = fft
    self.input = input
    self.complex = complex
    self.first = first
    self.second = second
    hann = (0..<window).map { Float(0.5 * (1 - cos(2 * Double.pi * Double($0) / Double(window)))) }
    let binHz = Double(sampleRate) / Double(window)
    let high = min(window / 2 - 3, Int(5000 / binHz))
    bins = min(high, Int((55 / binHz).rounded(.up)))...high
  }

  deinit {
    del_cvec(second)
    del_cvec(first)
    del_fvec(complex)
    del_fvec(input)
    del_aubio_fft(fft)
  }

  private func spectrum(_ samples: [Float], from start: Int, into out: UnsafeMutablePointer<cvec_t>)
  {
    for i in 0..<window { input.pointee.data[i] = samples[start + i] * hann[i] }
    aubio_fft_do_complex(fft, input, complex)
    aubio_fft_get_spectrum(complex, out)
  }

  /// Calls `peak(cents off the 440 grid, magnitude)` for each steady partial in
  /// `samples[0 ..< window + offset]`.
  func analyse(_ samples: [Float], peak: (Double, Double) -> Void) {
    spectrum(samples, from: 0, into: first)
    spectrum(samples, from: offset, into: second)
    let norm = first.pointee.norm!
    let phaseA = first.pointee.phas!
    let phaseB = second.pointee.phas!
    var loudest: Float = 0
    for k in bins { loudest = max(loudest, norm[k]) }
    // -70 dBFS for a sine (a full-scale sine peaks at window / 4 through a Hann window).
    let floor = max(loudest * 0.003, Float(window) / 4 * 3.2e-4)
    guard loudest > floor else { return }
    let binHz = Double(sampleRate) / Double(window)
    /// The frequency of bin `k` in bins, from the phase advance over `offset` samples.
    func instantaneous(_ k: Int) -> Double {
      let expected = 2 * Double.pi * Double(k) * Double(offset) / Double(window)
      var delta = Double(phaseB[k]) - Double(phaseA[k]) - expected
      delta -= 2 * Double.pi * (delta / (2 * Double.pi)).rounded()
      return Double(k) + delta * Double(window) / (2 * Double.pi * Double(offset))
    }
    var k = bins.lowerBound + 2
    while k <= bins.upperBound - 2 {
      let m = norm[k]
      guard m > floor, m > norm[k - 1], m >= norm[k + 1], m > norm[k - 2], m >= norm[k + 2] else {
        k += 1
        continue
      }
      let centre = instantaneous(k)
      // A steady partial: its frequency within half a bin of the peak, and the bins
      // either side (inside its main lobe) agreeing to a fiftieth of a bin.
      if abs(centre - Double(k)) <= 0.6, abs(instantaneous(k - 1) - centre) < 0.02,
        abs(instantaneous(k + 1) - centre) < 0.02
      {
        let frequency = centre * binHz
        peak(1200 * log2(frequency / 440), Double(m))
      }
      k += 2
    }
  }
}
