import Foundation

/// Measuring tones in rendered audio: the amplitude of one frequency over a window (a
/// single DFT bin, exact when the window holds a whole number of its cycles), and the
/// documented filter curves evaluated independently of the code under test.
public enum ToneAnalysis {
  /// Peak amplitude of the component at `frequency` Hz in channel `channel` of interleaved
  /// `samples`, over `frames` frames from `start`.
  public static func amplitude(
    _ samples: [Float], channels: Int = 1, channel: Int = 0, frequency: Double, sampleRate: Int,
    start: Int, frames: Int
  ) -> Double {
    var re = 0.0
    var im = 0.0
    let step = 2 * Double.pi * frequency / Double(sampleRate)
    for n in 0..<frames {
      let x = Double(samples[(start + n) * channels + channel])
      let phase = step * Double(start + n)
      re += x * cos(phase)
      im += x * sin(phase)
    }
    return 2 * (re * re + im * im).squareRoot() / Double(frames)
  }

  /// A sum of sines (one per frequency, `amplitude` each, phases spread so the peaks do not
  /// line up), mono.
  public static func multitone(
    _ frequencies: [Double], amplitude: Double, seconds: Double, sampleRate: Int
  ) -> [Float] {
    let frames = Int(seconds * Double(sampleRate))
    var out = [Float](repeating: 0, count: frames)
    for (k, f) in frequencies.enumerated() {
      let phase = Double(k * k) * 0.7
      let step = 2 * Double.pi * f / Double(sampleRate)
      for n in 0..<frames { out[n] += Float(amplitude * sin(step * Double(n) + phase)) }
    }
    return out
  }

  /// `count` whole-hertz frequencies spaced logarithmically from `low` to `high`.
  public static func logSpaced(from low: Double, to high: Double, count: Int) -> [Double] {
    (0..<count).map { i in (low * pow(high / low, Double(i) / Double(count - 1))).rounded() }
  }

  public static func decibels(_ ratio: Double) -> Double { 20 * log10(max(ratio, 1e-30)) }
}

/// A complex number, for evaluating transfer functions.
public struct Complex: Sendable {
  public var re: Double
  public var im: Double
  public init(_ re: Double, _ im: Double = 0) {
    self.re = re
    self.im = im
  }
  public static func + (a: Complex, b: Complex) -> Complex { Complex(a.re + b.re, a.im + b.im) }
  public static func * (a: Complex, b: Complex) -> Complex {
    Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
  }
  public static func * (a: Double, b: Complex) -> Complex { Complex(a * b.re, a * b.im) }
  public static func / (a: Complex, b: Complex) -> Complex {
    let d = b.re * b.re + b.im * b.im
    return Complex((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d)
  }
  public var magnitude: Double { (re * re + im * im).squareRoot() }
}

/// The documented curves (README, "Hearing your part"), from the analogue prototypes of the
/// Audio EQ Cookbook: a cookbook section is the bilinear transform of its prototype with
/// the centre frequency pre-warped, so its response at f is the prototype's at
/// s = j·tan(πf/fs)/tan(πf0/fs). Nothing here calls the code under test.
public enum DocumentedCurve {
  /// s at `frequency` for a section centred at `centre`.
  static func s(_ frequency: Double, centre: Double, rate: Double) -> Complex {
    Complex(0, tan(Double.pi * frequency / rate) / tan(Double.pi * centre / rate))
  }

  static func section(_ numerator: [Double], _ denominator: [Double], _ s: Complex) -> Complex {
    // Coefficients of s², s, 1.
    let s2 = s * s
    let n = numerator[0] * s2 + numerator[1] * s + Complex(numerator[2])
    let d = denominator[0] * s2 + denominator[1] * s + Complex(denominator[2])
    return n / d
  }

  public static func lowPass(_ f: Double, _ f0: Double, q: Double, rate: Double) -> Complex {
    section([0, 0, 1], [1, 1 / q, 1], s(f, centre: f0, rate: rate))
  }
  public static func highPass(_ f: Double, _ f0: Double, q: Double, rate: Double) -> Complex {
    section([1, 0, 0], [1, 1 / q, 1], s(f, centre: f0, rate: rate))
  }
  public static func bandPass(_ f: Double, _ f0: Double, q: Double, rate: Double) -> Complex {
    section([0, 1 / q, 0], [1, 1 / q, 1], s(f, centre: f0, rate: rate))
  }
  public static func notch(_ f: Double, _ f0: Double, q: Double, rate: Double) -> Complex {
    section([1, 0, 1], [1, 1 / q, 1], s(f, centre: f0, rate: rate))
  }
  public static func peak(_ f: Double, _ f0: Double, q: Double, gain: Double, rate: Double)
    -> Complex
  {
    let a = pow(10, gain / 40)
    return section([1, a / q, 1], [1, 1 / (a * q), 1], s(f, centre: f0, rate: rate))
  }
  /// Shelf slope S = 1: 1/Q = √2.
  public static func lowShelf(_ f: Double, _ f0: Double, gain: Double, rate: Double) -> Complex {
    let a = pow(10, gain / 40)
    let k = a.squareRoot() * 2.0.squareRoot()
    return a * section([1, k, a], [a, k, 1], s(f, centre: f0, rate: rate))
  }
  public static func highShelf(_ f: Double, _ f0: Double, gain: Double, rate: Double) -> Complex {
    let a = pow(10, gain / 40)
    let k = a.squareRoot() * 2.0.squareRoot()
    return a * section([a, k, 1], [1, k, a], s(f, centre: f0, rate: rate))
  }

  /// The focus presets: the part at its level, the rest 9 dB down.
  public static func focus(_ name: String, _ f: Double, rate: Double) -> Double {
    let r = pow(10, -9.0 / 20)
    let h: Complex
    switch name {
    case "bass": h = lowPass(f, 300, q: 1 / 2.0.squareRoot(), rate: rate)
    case "guitar": h = bandPass(f, 700, q: 0.7, rate: rate)
    case "vocal": h = bandPass(f, 2000, q: 0.7, rate: rate)
    case "drums": h = notch(f, 1000, q: 0.3, rate: rate)
    default: h = highPass(f, 3000, q: 1 / 2.0.squareRoot(), rate: rate)
    }
    return (Complex(r) + (1 - r) * h).magnitude
  }

  /// `--eq LOW:MID:HIGH`.
  public static func eq(_ low: Double, _ mid: Double, _ high: Double, _ f: Double, rate: Double)
    -> Double
  {
    (lowShelf(f, 250, gain: low, rate: rate) * peak(f, 1000, q: 0.7, gain: mid, rate: rate)
      * highShelf(f, 4000, gain: high, rate: rate)).magnitude
  }

  /// `--band LOW-HIGH`: 4th-order Butterworth each side, |H| = 1/√(1 + Ω⁸) in the
  /// pre-warped frequency.
  public static func band(_ low: Double, _ high: Double, _ f: Double, rate: Double) -> Double {
    let w = tan(Double.pi * f / rate)
    let lowSide = 1 / (1 + pow(tan(Double.pi * low / rate) / w, 8)).squareRoot()
    let highSide = 1 / (1 + pow(w / tan(Double.pi * high / rate), 8)).squareRoot()
    return lowSide * highSide
  }
}
