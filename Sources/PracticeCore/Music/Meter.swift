/// A time signature as written, `N/D`: N beats of the beat map per bar.
public struct Meter: Sendable, Equatable, CustomStringConvertible {
  public let beats: Int
  public let unit: Int

  public static let common = Meter(uncheckedBeats: 4, unit: 4)

  private init(uncheckedBeats beats: Int, unit: Int) {
    self.beats = beats
    self.unit = unit
  }

  /// Parses `3/4`, `6/8`, `7/8`…; nil unless 1 ≤ N ≤ 32 and D is 1, 2, 4, 8, 16 or 32.
  public init?(parsing text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]),
      (1...32).contains(n), [1, 2, 4, 8, 16, 32].contains(d)
    else { return nil }
    self.init(uncheckedBeats: n, unit: d)
  }

  public var description: String { "\(beats)/\(unit)" }
}
