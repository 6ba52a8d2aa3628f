import Foundation

/// A playback gain, 0 %–200 %, written as `80%`, `0.8` or `-6dB`.
public struct Volume: Sendable, Equatable, CustomStringConvertible {
  /// Linear gain factor applied to every sample (1 = unchanged).
  public let gain: Double

  public static let allowed = 0.0...2.0
  public static let unity = Volume(uncheckedGain: 1)

  private init(uncheckedGain gain: Double) { self.gain = gain }

  /// A gain clamped into 0 %–200 % (for live changes), rounded to a hundredth.
  public init(clamping gain: Double) {
    self.gain = min(
      max((gain * 100).rounded() / 100, Volume.allowed.lowerBound), Volume.allowed.upperBound)
  }

  /// Returns nil if the text is malformed or outside 0 %–200 %.
  public init?(parsing text: String) {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let lower = trimmed.lowercased()
    var gain: Double?
    if lower.hasSuffix("%") {
      gain = parseDecimal(lower.dropLast()).map { $0 / 100 }
    } else if lower.hasSuffix("db") {
      gain = parseDecimal(lower.dropLast(2)).map { pow(10, $0 / 20) }
    } else {
      gain = parseDecimal(lower)
    }
    guard let g = gain, g.isFinite else { return nil }
    // Allow the rounding of "+6dB" (1.995…) but nothing past 200 %.
    guard Volume.allowed.contains(g) else { return nil }
    self.gain = g
  }

  public var description: String {
    let percent = gain * 100
    return percent == percent.rounded() ? "\(Int(percent))%" : String(format: "%.1f%%", percent)
  }
}
