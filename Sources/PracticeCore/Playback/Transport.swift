import Synchronization

/// What a controller (the keyboard) asks of a playing engine. Plain values, so they
/// cross to the render thread through a `ValueRing` without allocation.
public enum TransportCommand: Sendable, Equatable, BitwiseCopyable {
  case pause
  case resume
  /// Plays on at this speed from the next block; ends the speed trainer.
  case setSpeed(Speed)
  /// Pitch shift in semitones from the next block.
  case setTranspose(Double)
  /// Beat clicks on or off (a count-in always sounds).
  case setClick(Bool)
}

/// How the engine moves to a new plan (`PlaybackEngine.jump`).
public enum JumpKind: Sendable, Equatable {
  /// Fade out, go to the plan's start (its range start plus `startOffset`), fade in.
  case seek
  /// The range changes but the music goes on: if the source frame being fed lies inside
  /// the new range, play on from it without a break; otherwise behave like `seek`.
  case playOn
  /// Like `seek`, and the plan's speeds rule again (a selection's drill: its speed and its
  /// trainer's steps), over any speed the controller set.
  case drill
}

/// Where the output is, as the render thread reports it after each block.
public struct PlaybackEvent: Sendable, Equatable, BitwiseCopyable {
  /// Output frames handed to the sink so far, and how many of them were not yet audible.
  public var outputFrame: Int64
  public var delayFrames: Int
  /// CLOCK_MONOTONIC nanoseconds when the block was handed over.
  public var nanoseconds: UInt64
  /// The source frame sounding at `outputFrame` (the pass's start in a count-in, its end
  /// in a gap), and the speed it plays at.
  public var sourceFrame: Int64
  public var speed: Double
  /// The pass sounding, from 1 (0 in the count-in), passes played to their end, and the
  /// jump generation the pass belongs to.
  public var pass: Int
  public var passesCompleted: Int
  public var generation: Int
  public var inGap: Bool
  public var paused: Bool
  public var ended: Bool

  /// The source frame audible at output frame `frame`, assuming the speed holds.
  public func sourceFrame(atOutput frame: Int64) -> Int64 {
    if inGap || paused { return sourceFrame }
    return sourceFrame + Int64((Double(frame - outputFrame) * speed).rounded())
  }
}

/// A bounded single-producer, single-consumer queue of plain values (no references),
/// lock- and allocation-free after init. Full: `push` returns false and drops the value.
public final class ValueRing<Element: BitwiseCopyable>: @unchecked Sendable {
  private let capacity: Int
  private let storage: UnsafeMutablePointer<Element>  // slots owned by whoever the counters say
  private let pushed = Atomic<Int>(0)  // advanced by the producer only
  private let popped = Atomic<Int>(0)  // advanced by the consumer only

  public init(capacity: Int, filler: Element) {
    self.capacity = capacity
    storage = .allocate(capacity: capacity)
    storage.initialize(repeating: filler, count: capacity)
  }

  deinit { storage.deallocate() }

  /// Producer side.
  @discardableResult
  public func push(_ value: Element) -> Bool {
    let head = pushed.load(ordering: .relaxed)
    guard head - popped.load(ordering: .acquiring) < capacity else { return false }
    storage[head % capacity] = value
    pushed.store(head + 1, ordering: .releasing)
    return true
  }

  /// Consumer side.
  public func pop() -> Element? {
    let tail = popped.load(ordering: .relaxed)
    guard tail < pushed.load(ordering: .acquiring) else { return nil }
    let value = storage[tail % capacity]
    popped.store(tail + 1, ordering: .releasing)
    return value
  }
}

/// A fixed-capacity FIFO owned by one thread (the render thread's schedules): no
/// atomics, no allocation after init. Full: `append` drops the value and returns false.
struct LocalQueue<Element: BitwiseCopyable> {
  private let storage: UnsafeMutablePointer<Element>
  private let capacity: Int
  private var head = 0  // index of the first element, counting from 0 forever
  private(set) var count = 0

  init(capacity: Int, filler: Element) {
    self.capacity = capacity
    storage = .allocate(capacity: capacity)
    storage.initialize(repeating: filler, count: capacity)
  }

  /// Frees the storage; the owner calls it once, from its deinit.
  func deallocate() { storage.deallocate() }

  var first: Element? { count > 0 ? storage[head % capacity] : nil }
  var last: Element? { count > 0 ? storage[(head + count - 1) % capacity] : nil }

  @discardableResult
  mutating func append(_ value: Element) -> Bool {
    guard count < capacity else { return false }
    storage[(head + count) % capacity] = value
    count += 1
    return true
  }

  mutating func removeFirst() {
    guard count > 0 else { return }
    head += 1
    count -= 1
  }

  mutating func removeLast() { if count > 0 { count -= 1 } }

  /// The element `i` places after the first.
  subscript(i: Int) -> Element { storage[(head + i) % capacity] }
}
