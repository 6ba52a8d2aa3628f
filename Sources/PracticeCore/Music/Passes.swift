/// How many times the range is played.
public enum Passes: Sendable, Equatable {
  case count(Int)
  /// Until stopped (`--loop`).
  case endless

  /// Whether pass `index` (0-based) is the last one.
  func isFinal(_ index: Int) -> Bool {
    if case .count(let n) = self { return index == n - 1 }
    return false
  }
}
