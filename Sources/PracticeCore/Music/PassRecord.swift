/// The player's verdict on a pass: played without a mistake, or not.
public enum PassMark: String, Sendable, CaseIterable {
  case clean, flubbed
}

/// One pass of a play, as the practice log keeps it.
public struct PassRecord: Sendable, Equatable {
  /// From 1, in the order heard (a loop changed at the keyboard continues the count).
  public var pass: Int
  /// The slowest speed heard in the pass (a pass is only as fast as its slowest part).
  public var speed: Speed
  /// nil: not marked.
  public var mark: PassMark?

  public init(pass: Int, speed: Speed, mark: PassMark?) {
    self.pass = pass
    self.speed = speed
    self.mark = mark
  }
}
