/// Turns a start and an end in seconds into a range of source frames, checking it against the
/// audio. Missing ends default to the start and the end of the audio.
public func resolveTimeRange(
  from: Double?, to: Double?, sampleRate: Int, frames: Int64
) throws -> Range<Int64> {
  let rate = Double(sampleRate)
  let duration = Double(frames) / rate
  let start = from.map { Int64(($0 * rate).rounded()) } ?? 0
  let end = to.map { Int64(($0 * rate).rounded()) } ?? frames
  if start >= frames { throw RangeError.startPastEnd(start: from ?? 0, duration: duration) }
  if end > frames { throw RangeError.endPastEnd(end: to ?? 0, duration: duration) }
  if start >= end {
    throw RangeError.startNotBeforeEnd(start: Double(start) / rate, end: Double(end) / rate)
  }
  return start..<end
}
