/// Deterministic pseudo-random numbers (xorshift64) for tests that damage files: the same
/// seed gives the same bytes on every run and machine, so a failure can be replayed.
public struct SeededRandom {
  private var state: UInt64

  public init(seed: UInt64 = 0x9E37_79B9_7F4A_7C15) { state = seed == 0 ? 1 : seed }

  /// A number in 0..<bound (0 when bound is below 1).
  public mutating func next(_ bound: Int) -> Int {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    return Int(state % UInt64(max(1, bound)))
  }
}
