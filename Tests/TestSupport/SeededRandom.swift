/// The tests' one random generator: deterministic pseudo-random numbers (SplitMix64), so
/// that the same seed gives the same audio, the same damaged bytes and the same fuzzed
/// values on every run and machine, and a failure can be replayed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64 = 0x9E37_79B9_7F4A_7C15) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in 0..<bound (0 when bound is below 1).
  public mutating func next(_ bound: Int) -> Int {
    Int(next() % UInt64(max(1, bound)))
  }

  /// Uniform in [-1, 1).
  public mutating func nextSigned() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }
}
