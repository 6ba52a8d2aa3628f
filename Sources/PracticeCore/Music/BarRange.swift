/// A bar, or a beat of a bar: `9` or `9.3`.
public struct BarPosition: Sendable, Equatable, CustomStringConvertible {
  public var bar: Int
  /// 1-based beat within the bar; nil means the whole bar.
  public var beat: Int?

  public init(bar: Int, beat: Int? = nil) {
    self.bar = bar
    self.beat = beat
  }

  /// Parses `9` or `9.3`; nil if malformed.
  public init?(parsing text: Substring) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count),
      parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
      let bar = Int(parts[0]), bar <= BarPosition.maximumBar
    else { return nil }
    if parts.count == 2 {
      guard let beat = Int(parts[1]), (1...BarPosition.maximumBar).contains(beat) else {
        return nil
      }
      self.init(bar: bar, beat: beat)
    } else {
      self.init(bar: bar)
    }
  }

  public var description: String { beat.map { "\(bar).\($0)" } ?? "\(bar)" }

  /// The highest bar (and beat) number accepted: far past any song, far from overflowing.
  public static let maximumBar = 100_000
}

/// `--bars A-B`: from the start of A through the end of B (both inclusive); `9` is one
/// bar, `9.3-12.2` runs from beat 3 of bar 9 through the end of beat 2 of bar 12.
public struct BarRange: Sendable, Equatable, CustomStringConvertible {
  public var start: BarPosition
  public var end: BarPosition

  public init(start: BarPosition, end: BarPosition) {
    self.start = start
    self.end = end
  }

  /// Parses `A`, `A-B`, with `bar.beat` positions; nil if malformed.
  public init?(parsing text: String) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), let start = BarPosition(parsing: parts[0]) else {
      return nil
    }
    if parts.count == 2 {
      guard let end = BarPosition(parsing: parts[1]) else { return nil }
      self.init(start: start, end: end)
    } else {
      self.init(start: start, end: start)
    }
  }

  public var description: String { start == end ? "\(start)" : "\(start)-\(end)" }

  /// `bar 9`, `bar 9.3` (one beat), `bars 9-16`: the range as a musician names it.
  public var label: String { start == end ? "bar \(self)" : "bars \(self)" }

  /// `label` for a range written as `description` writes it (the log keeps that text).
  public static func label(_ text: String) -> String {
    text.contains("-") ? "bars \(text)" : "bar \(text)"
  }
}

/// `--bars` as typed for a play: a closed `BarRange`, or `A-` (with `bar.beat` for A), open
/// to the end of the song's last bar.
public struct BarRangeText: Sendable, Equatable, CustomStringConvertible {
  public var start: BarPosition
  /// nil: through the last bar of the beat map.
  public var end: BarPosition?

  /// A closed range as typed text (`9-16`).
  public init(_ range: BarRange) {
    start = range.start
    end = range.end
  }

  /// Parses `A`, `A-B` or `A-`; nil if malformed.
  public init?(parsing text: String) {
    if text.hasSuffix("-"), !text.dropLast().contains("-"),
      let start = BarPosition(parsing: text.dropLast())
    {
      self.start = start
      end = nil
    } else if let closed = BarRange(parsing: text) {
      start = closed.start
      end = closed.end
    } else {
      return nil
    }
  }

  /// The closed range, an open end taken as `lastBar` (the beat map's).
  public func closed(lastBar: Int) -> BarRange {
    BarRange(start: start, end: end ?? BarPosition(bar: max(lastBar, start.bar)))
  }

  public var description: String {
    end == nil ? "\(start)-" : "\(BarRange(start: start, end: end!))"
  }
}
