/// The nearest of some names to what was typed, for "did you mean" suggestions: a mistyped
/// command, option or title.
public enum Nearest {
  /// The name with the fewest edits from `typed` (the first such, in the order given) when
  /// that is at most `limit(name)` edits; nil otherwise.
  public static func name<S: Sequence<String>>(
    to typed: String, among names: S, within limit: (String) -> Int
  ) -> String? {
    let typedCharacters = Array(typed)
    var best: (name: String, distance: Int)?
    for name in names {
      let distance = editDistance(typedCharacters, Array(name))
      if distance < best?.distance ?? .max { best = (name, distance) }
    }
    guard let best, best.distance <= limit(best.name) else { return nil }
    return best.name
  }

  /// Levenshtein distance: insertions, deletions and substitutions from `a` to `b`.
  public static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    guard !a.isEmpty else { return b.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
      var current = [i] + [Int](repeating: 0, count: b.count)
      for j in stride(from: 1, through: b.count, by: 1) {
        current[j] = min(
          previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      }
      previous = current
    }
    return previous[b.count]
  }
}
