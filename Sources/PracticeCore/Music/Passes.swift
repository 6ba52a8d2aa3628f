/// How many times the range is played.
public enum Passes: Sendable, Equatable {
  case count(Int)
  /// Until stopped (`--loop`).
  case endless

  /// As a library or a shared file keeps it: the count, 0 for a loop.
  public var stored: Int {
    if case .count(let n) = self { return n }
    return 0
  }

  /// From `stored`.
  public init(stored: Int) { self = stored == 0 ? .endless : .count(stored) }

  /// Whether pass `index` (0-based) is the last one.
  func isFinal(_ index: Int) -> Bool {
    if case .count(let n) = self { return index == n - 1 }
    return false
  }
}
