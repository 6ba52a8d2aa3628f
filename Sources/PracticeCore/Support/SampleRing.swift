import Synchronization

/// A single-producer, single-consumer ring of interleaved float samples.
///
/// The producer (the feeder thread) calls `write`, the consumer (the render thread)
/// calls `read`; neither locks nor allocates. Counters only grow; the storage index is
/// the counter modulo the capacity.
final class SampleRing: @unchecked Sendable {
  let capacity: Int
  private let storage: UnsafeMutablePointer<Float>  // immutable after init
  private let written = Atomic<Int>(0)  // advanced by the producer only
  private let consumed = Atomic<Int>(0)  // advanced by the consumer only

  init(capacity: Int) {
    self.capacity = capacity
    storage = .allocate(capacity: capacity)
    storage.initialize(repeating: 0, count: capacity)
  }

  deinit { storage.deallocate() }

  /// Samples waiting to be read.
  var available: Int {
    written.load(ordering: .acquiring) - consumed.load(ordering: .acquiring)
  }

  /// Room for samples to be written.
  var space: Int { capacity - available }

  /// Samples written since the start (producer side, or with acquire for the consumer).
  var writtenCount: Int { written.load(ordering: .acquiring) }

  /// Consumer side: drops every sample written before counter `mark` (a flush the
  /// producer acknowledged at that point).
  func discard(upTo mark: Int) {
    if mark > consumed.load(ordering: .relaxed) { consumed.store(mark, ordering: .releasing) }
  }

  /// Copies up to `count` samples in; returns how many fit.
  func write(_ source: UnsafePointer<Float>, count: Int) -> Int {
    let head = written.load(ordering: .relaxed)
    let tail = consumed.load(ordering: .acquiring)
    let n = min(count, capacity - (head - tail))
    copy(n) { ringIndex, offset, length in
      (storage + ringIndex).update(from: source + offset, count: length)
    } start: { head }
    written.store(head + n, ordering: .releasing)
    return n
  }

  /// Copies up to `count` samples out; returns how many there were.
  func read(into destination: UnsafeMutablePointer<Float>, count: Int) -> Int {
    let tail = consumed.load(ordering: .relaxed)
    let head = written.load(ordering: .acquiring)
    let n = min(count, head - tail)
    copy(n) { ringIndex, offset, length in
      (destination + offset).update(from: storage + ringIndex, count: length)
    } start: { tail }
    consumed.store(tail + n, ordering: .releasing)
    return n
  }

  /// Splits `n` samples starting at counter `start()` into at most two contiguous runs.
  @inline(__always)
  private func copy(
    _ n: Int, _ body: (_ ringIndex: Int, _ offset: Int, _ length: Int) -> Void,
    start: () -> Int
  ) {
    guard n > 0 else { return }
    let index = start() % capacity
    let first = min(n, capacity - index)
    body(index, 0, first)
    if n > first { body(0, first, n - first) }
  }
}
