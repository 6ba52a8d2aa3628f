/// The playback rate the musician chose (0.75 = slower). Rubber Band's time ratio is its
/// inverse; the two are kept apart by name.
public struct Speed: Sendable, Equatable, BitwiseCopyable, CustomStringConvertible {
  public let rate: Double

  public static let allowed = 0.25...2.0
  public static let normal = Speed(uncheckedRate: 1)

  private init(uncheckedRate rate: Double) { self.rate = rate }

  /// Parses `0.75`, `75%` or `75` (a plain number from 25 up is read as percent: the two
  /// ranges do not overlap); nil if malformed or outside 0.25–2.0.
  public init?(parsing text: String) {
    let percent = text.hasSuffix("%")
    guard let value = parseDecimal(percent ? text.dropLast() : Substring(text)) else { return nil }
    let rate = percent || value >= Speed.allowed.lowerBound * 100 ? value / 100 : value
    guard Speed.allowed.contains(rate) else { return nil }
    self.rate = rate
  }

  /// A rate clamped into the allowed range (for computed speeds, such as a ramp's).
  public init(clamping rate: Double) {
    // Rounded to 1e-9 so that 0.7 + 0.1 + 0.1 is 0.9.
    let rounded = (rate * 1e9).rounded() / 1e9
    self.rate = min(max(rounded, Speed.allowed.lowerBound), Speed.allowed.upperBound)
  }

  /// Output duration over input duration, as Rubber Band wants it.
  public var timeRatio: Double { 1 / rate }

  public var description: String {
    let tenths = (rate * 1000).rounded()
    return tenths.truncatingRemainder(dividingBy: 10) == 0
      ? "\(Int(tenths / 10))%" : "\(tenths / 10)%"
  }
}

/// Which Rubber Band engine stretches: R3 ("finer", better sound) or R2 ("faster").
public enum StretchQuality: String, Sendable, CaseIterable {
  case finer, faster
}
