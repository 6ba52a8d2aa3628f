import Synchronization

/// A flag set from a signal handler's thread (or a key) and read by the main loop: the tuner
/// and the pause between setlist entries stop on it.
public final class StopFlag: Sendable {
  private let flag = Atomic<Bool>(false)

  public init() {}

  public func set() { flag.store(true, ordering: .relaxed) }
  public var isSet: Bool { flag.load(ordering: .relaxed) }
}
