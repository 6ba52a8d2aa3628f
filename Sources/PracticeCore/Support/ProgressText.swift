/// What a progress bar shows, as a value: `[##########....................] 33% song.flac`
/// or `[###...] 412/1000 song.flac`. The CLI draws it (escaped, cut to the terminal).
public struct ProgressText: Sendable, Equatable {
  /// Characters between the brackets.
  public static let width = 30

  /// Done, 0 to 1 (a value outside is held to the nearest end; one not finite is 0).
  public let fraction: Double
  /// `33%`, or `412/1000`.
  public let count: String
  public let label: String

  /// `fraction` done, counted as a percentage.
  public init(fraction: Double, label: String) {
    let bounded = fraction.isFinite ? min(1, max(0, fraction)) : 0
    self.init(bounded, count: "\(Int(bounded * 100))%", label: label)
  }

  /// `done` of `total` items, counted.
  public init(done: Int, of total: Int, label: String) {
    let fraction = total > 0 ? Double(done) / Double(total) : 0
    self.init(min(1, max(0, fraction)), count: "\(done)/\(total)", label: label)
  }

  private init(_ fraction: Double, count: String, label: String) {
    self.fraction = fraction
    self.count = count
    self.label = label
  }

  /// Whether the work is done (a bar always drawn, however soon after the last).
  public var isDone: Bool { fraction >= 1 }

  /// The line: the bar, the count and the label.
  public var text: String {
    let filled = min(ProgressText.width, Int(fraction * Double(ProgressText.width)))
    return "[" + String(repeating: "#", count: filled)
      + String(repeating: ".", count: ProgressText.width - filled) + "] \(count) \(label)"
  }
}
