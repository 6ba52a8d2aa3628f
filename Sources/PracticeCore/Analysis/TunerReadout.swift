import Foundation

/// What a tuner shows as its readings come (`tune`'s status line): a pitched reading stays
/// up for a quarter second after it, so that a note does not flicker off between two
/// readings; a run of `duration` seconds of audio is over once a reading reaches it.
public struct TunerReadout: Sendable {
  /// How long a pitched reading stays up after it.
  public static let holdSeconds = 0.25
  public let a4: Double
  public let duration: Double?
  public private(set) var latest: TunerReading?
  private var lastPitched: TunerReading?

  public init(a4: Double, duration: Double?) {
    self.a4 = a4
    self.duration = duration
  }

  /// Takes `reading`; false (and it is dropped) when it lies past the duration.
  public mutating func take(_ reading: TunerReading) -> Bool {
    if let duration, reading.time > duration + 1e-9 { return false }
    latest = reading
    if reading.frequency != nil { lastPitched = reading }
    return true
  }

  /// The note to show: the last pitched reading's, within a quarter second of the newest.
  public var shown: PitchReading? {
    lastPitched.flatMap {
      (latest?.time ?? 0) - $0.time < TunerReadout.holdSeconds ? $0.reading(a4: a4) : nil
    }
  }

  /// Whether the readings have reached the duration.
  public var isOver: Bool { duration.map { (latest?.time ?? 0) >= $0 - 1e-9 } ?? false }
}
