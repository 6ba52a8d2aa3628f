import Foundation

/// The click's sound: a short decaying sine burst, higher and louder on downbeats.
/// Rendered once at set-up; mixing it allocates nothing.
public struct ClickSound: Sendable {
  public let normal: [Float]
  public let accent: [Float]

  public init(sampleRate: Int) {
    func burst(_ hertz: Double, _ level: Double) -> [Float] {
      let rate = Double(sampleRate)
      return (0..<Int(0.02 * rate)).map { i in
        Float(level * exp(-Double(i) / (0.004 * rate)) * sin(2 * Double.pi * hertz * Double(i) / rate))
      }
    }
    normal = burst(1000, 0.5)
    accent = burst(1500, 0.8)
  }
}
