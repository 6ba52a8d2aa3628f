/// Turns `--from`/`--to` seconds into a range of source frames, checking it against the
/// audio. Missing ends default to the start and the end of the audio.
public func resolveTimeRange(
  from: Double?, to: Double?, sampleRate: Int, frames: Int64
) throws -> Range<Int64> {
  let rate = Double(sampleRate)
  let duration = Double(frames) / rate
  let start = from.map { Int64(($0 * rate).rounded()) } ?? 0
  let end = to.map { Int64(($0 * rate).rounded()) } ?? frames
  if start >= frames {
    throw PracticeError(
      .usage,
      "--from \(formatTime(from ?? 0)) is at or past the end of the audio (\(formatTime(duration))); "
        + "pick a time before it")
  }
  if end > frames {
    // Both in tenths they can read the same (3.0 past an end of 2.996): then the end to
    // the millisecond.
    let asked = formatTime(to ?? 0)
    let ends = formatTime(duration) == asked ? String(format: "%.3f s", duration) : formatTime(duration)
    throw PracticeError(
      .usage, "--to \(asked) is past the end of the audio (\(ends)); pick a time up to it")
  }
  if start >= end {
    throw PracticeError(
      .usage,
      "--from \(formatTime(Double(start) / rate)) is not before --to \(formatTime(Double(end) / rate)); "
        + "the range must be at least one frame long")
  }
  return start..<end
}
