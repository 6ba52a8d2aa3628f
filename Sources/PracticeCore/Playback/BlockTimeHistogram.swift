import Foundation

/// A histogram of render-thread block times: written by the render thread only, read
/// once the engine has ended. Preallocated; recording does not allocate.
public final class BlockTimeHistogram: @unchecked Sendable {
  private static let bucketNanoseconds: UInt64 = 10_000
  private var buckets = [Int](repeating: 0, count: 5001)  // the last one: 50 ms and more
  public private(set) var count = 0
  public private(set) var maxNanoseconds: UInt64 = 0

  func record(nanoseconds: UInt64) {
    buckets[Int(min(nanoseconds / Self.bucketNanoseconds, 5000))] += 1
    count += 1
    maxNanoseconds = max(maxNanoseconds, nanoseconds)
  }

  /// The time under which `fraction` of the blocks finished (bucket resolution, 10 µs).
  public func quantileNanoseconds(_ fraction: Double) -> UInt64 {
    guard count > 0 else { return 0 }
    let target = Int((Double(count) * fraction).rounded(.up))
    var seen = 0
    for (index, n) in buckets.enumerated() {
      seen += n
      if seen >= target { return min(UInt64(index + 1) * Self.bucketNanoseconds, maxNanoseconds) }
    }
    return maxNanoseconds
  }
}

/// CLOCK_MONOTONIC in nanoseconds, comparable with other processes' readings.
public func monotonicNanoseconds() -> UInt64 {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
