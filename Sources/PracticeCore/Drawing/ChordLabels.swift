/// How the chord lanes (`view` in the terminal and in its pictures, the player's strip) label
/// the chords in view: every change is marked, never left out. A symbol gets the room from
/// where its chord starts to the next change (less a gap); one too long for it is shortened
/// to its root and `…` (`Gmaj7` as `G…`), then to its root (`G`), then to `·`, which marks
/// the change where not even the root fits.
public enum ChordLabels {
  /// One label of the lane: where it starts (the units of the lane) and what it says.
  public struct Label: Equatable, Sendable {
    public var x: Double
    public var text: String
  }

  /// The change mark where not even the root fits.
  public static let mark = "·"

  /// The shortenings of `symbol`, longest first: `Gmaj7`, `G…`, `G`, then the mark.
  public static func shortenings(of symbol: String) -> [String] {
    let root = String(
      symbol.prefix(1) + symbol.dropFirst().prefix { $0 == "#" || $0 == "b" })
    var forms = [symbol]
    if root.count < symbol.count { forms += [root + "…", root] }
    if !forms.contains(mark) { forms.append(mark) }
    return forms
  }

  /// Labels for chords that start at `x` (in order, left to right) on a lane that ends at
  /// `right`: each the longest shortening that ends `gap` before the next chord's start (at
  /// `right` for the last), else the mark. A chord that starts where the next one does is
  /// marked by the next one's label; one at or past `right` is not in the lane.
  public static func fit(
    _ chords: [(x: Double, symbol: String)], right: Double, gap: Double,
    width: (String) -> Double
  ) -> [Label] {
    var labels: [Label] = []
    for (i, chord) in chords.enumerated() where chord.x < right {
      let next = i + 1 < chords.count ? chords[i + 1].x : nil
      if let next, next <= chord.x { continue }
      let limit = next.map { min($0 - gap, right) } ?? right
      let forms = shortenings(of: chord.symbol)
      let text = forms.first { chord.x + width($0) <= limit } ?? mark
      labels.append(Label(x: chord.x, text: text))
    }
    return labels
  }
}
