import Foundation

/// One second-order section, `H(z) = (b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²)`,
/// designed with the formulas of Robert Bristow-Johnson's "Audio EQ Cookbook" (the ones
/// mpv, Ardour and sox carry). Coefficients are normalised by the cookbook's `a0`.
public struct Biquad: Sendable, Equatable, BitwiseCopyable {
  public var b0: Double
  public var b1: Double
  public var b2: Double
  public var a1: Double
  public var a2: Double

  /// Passes everything unchanged.
  public static let identity = Biquad(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

  /// From the cookbook's unnormalised coefficients.
  init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
    self.b0 = b0 / a0
    self.b1 = b1 / a0
    self.b2 = b2 / a0
    self.a1 = a1 / a0
    self.a2 = a2 / a0
  }

  init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
    self.b0 = b0
    self.b1 = b1
    self.b2 = b2
    self.a1 = a1
    self.a2 = a2
  }

  /// The cookbook's intermediate values: cos w0, sin w0 at `frequency` Hz. The frequency is
  /// held below 45 % of the sample rate, where every formula stays well defined.
  private static func angle(_ frequency: Double, _ sampleRate: Int) -> (cos: Double, sin: Double) {
    let f = min(frequency, Biquad.highestFrequency(sampleRate: sampleRate))
    let w0 = 2 * Double.pi * f / Double(sampleRate)
    return (cos(w0), sin(w0))
  }

  /// The highest centre or corner frequency a section is designed at: 45 % of the rate.
  public static func highestFrequency(sampleRate: Int) -> Double { 0.45 * Double(sampleRate) }

  /// Second-order low-pass (cookbook LPF).
  public static func lowPass(_ frequency: Double, q: Double, sampleRate: Int) -> Biquad {
    let (c, s) = angle(frequency, sampleRate)
    let alpha = s / (2 * q)
    return Biquad(
      b0: (1 - c) / 2, b1: 1 - c, b2: (1 - c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
  }

  /// Second-order high-pass (cookbook HPF).
  public static func highPass(_ frequency: Double, q: Double, sampleRate: Int) -> Biquad {
    let (c, s) = angle(frequency, sampleRate)
    let alpha = s / (2 * q)
    return Biquad(
      b0: (1 + c) / 2, b1: -(1 + c), b2: (1 + c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
  }

  /// Band-pass with 0 dB at the centre (cookbook BPF, constant 0 dB peak gain).
  public static func bandPass(_ frequency: Double, q: Double, sampleRate: Int) -> Biquad {
    let (c, s) = angle(frequency, sampleRate)
    let alpha = s / (2 * q)
    return Biquad(b0: alpha, b1: 0, b2: -alpha, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
  }

  /// Band-stop (cookbook notch).
  public static func notch(_ frequency: Double, q: Double, sampleRate: Int) -> Biquad {
    let (c, s) = angle(frequency, sampleRate)
    let alpha = s / (2 * q)
    return Biquad(b0: 1, b1: -2 * c, b2: 1, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
  }

  /// Peaking EQ, `gain` dB at the centre (cookbook peakingEQ).
  public static func peak(_ frequency: Double, q: Double, gain: Double, sampleRate: Int) -> Biquad {
    let (c, s) = angle(frequency, sampleRate)
    let alpha = s / (2 * q)
    let a = pow(10, gain / 40)
    return Biquad(
      b0: 1 + alpha * a, b1: -2 * c, b2: 1 - alpha * a, a0: 1 + alpha / a, a1: -2 * c,
      a2: 1 - alpha / a)
  }

  /// Low shelf, `gain` dB below the corner, shelf slope S = 1 (cookbook lowShelf).
  public static func lowShelf(_ frequency: Double, gain: Double, sampleRate: Int) -> Biquad {
    let (c, s) = angle(frequency, sampleRate)
    let a = pow(10, gain / 40)
    let beta = 2 * a.squareRoot() * s / 2.0.squareRoot()  // 2√A·alpha with S = 1
    return Biquad(
      b0: a * ((a + 1) - (a - 1) * c + beta), b1: 2 * a * ((a - 1) - (a + 1) * c),
      b2: a * ((a + 1) - (a - 1) * c - beta),
      a0: (a + 1) + (a - 1) * c + beta, a1: -2 * ((a - 1) + (a + 1) * c),
      a2: (a + 1) + (a - 1) * c - beta)
  }

  /// High shelf, `gain` dB above the corner, shelf slope S = 1 (cookbook highShelf).
  public static func highShelf(_ frequency: Double, gain: Double, sampleRate: Int) -> Biquad {
    let (c, s) = angle(frequency, sampleRate)
    let a = pow(10, gain / 40)
    let beta = 2 * a.squareRoot() * s / 2.0.squareRoot()
    return Biquad(
      b0: a * ((a + 1) + (a - 1) * c + beta), b1: -2 * a * ((a - 1) + (a + 1) * c),
      b2: a * ((a + 1) + (a - 1) * c - beta),
      a0: (a + 1) - (a - 1) * c + beta, a1: 2 * ((a - 1) - (a + 1) * c),
      a2: (a + 1) - (a - 1) * c - beta)
  }

  /// `rest + (1 − rest)·H`: the section's band at its level, the rest of the spectrum at
  /// `rest` (linear); still one section, as it shares H's denominator.
  public func blended(rest: Double) -> Biquad {
    Biquad(
      b0: rest + (1 - rest) * b0, b1: rest * a1 + (1 - rest) * b1, b2: rest * a2 + (1 - rest) * b2,
      a1: a1, a2: a2)
  }

  /// The Q values of the two sections of a 4th-order Butterworth filter: 1/(2 cos(π/8))
  /// and 1/(2 cos(3π/8)).
  public static let butterworth4Q = [
    1 / (2 * cos(Double.pi / 8)), 1 / (2 * cos(3 * Double.pi / 8)),
  ]
}
