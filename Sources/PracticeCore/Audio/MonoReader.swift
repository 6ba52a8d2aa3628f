import Foundation

/// A sound file as the harmonic analyses hear it: the mean of its channels, block by block,
/// at one rate through `MonoResampler` (`BeatDetector.analysisRate` for chords, key and
/// tuning), so that what they measure does not depend on the rate a recording was converted
/// to. A file already at that rate, or one libswresample cannot convert, is heard at its own
/// rate, sample for sample.
struct MonoReader {
  let file: SoundFile
  /// The rate the samples come at.
  let rate: Int

  init(file: SoundFile, rate: Int) {
    self.file = file
    let own = file.info.sampleRate
    self.rate = own == rate || MonoResampler(from: own, to: rate) == nil ? own : rate
  }

  /// Reads from where the file stands to its end: `body` gets the mono samples at `rate`,
  /// `progress` 0-1 of the file read. The file's own frames read, and the loudest mono
  /// sample's magnitude (before resampling). `name` is how a decoding error calls the file.
  func read(
    name: String, progress: (Double) -> Void = { _ in },
    _ body: (UnsafeBufferPointer<Float>) -> Void
  ) throws -> (frames: Int64, peak: Float) {
    let info = file.info
    // A fresh filter each pass: what one pass leaves in it must not reach the next.
    let resampler = rate == info.sampleRate ? nil : MonoResampler(from: info.sampleRate, to: rate)
    guard rate == info.sampleRate || resampler != nil else {
      throw PracticeError(
        .other, "cannot resample '\(name)' from \(info.sampleRate) to \(rate) Hz (libswresample)")
    }
    let block = 8192
    let channels = info.channels
    var interleaved = [Float](repeating: 0, count: block * channels)
    var mono = [Float](repeating: 0, count: block)
    var read: Int64 = 0
    var peak: Float = 0
    while true {
      let n = interleaved.withUnsafeMutableBufferPointer {
        file.read(into: $0.baseAddress!, frames: block)
      }
      if n <= 0 { break }
      for i in 0..<n {
        var sum: Float = 0
        for c in 0..<channels { sum += interleaved[i * channels + c] }
        mono[i] = sum / Float(channels)
        peak = max(peak, abs(mono[i]))
      }
      mono.withUnsafeBufferPointer {
        let samples = UnsafeBufferPointer(rebasing: $0[0..<n])
        if let resampler { resampler.process(samples, body) } else { body(samples) }
      }
      read += Int64(n)
      if info.frames > 0 { progress(min(1, Double(read) / Double(info.frames))) }
    }
    if let error = file.lastError {
      throw SoundFileError(
        category: .badData, reason: error, path: name, operation: "decode",
        advice: "the file may be truncated or damaged")
    }
    resampler?.finish(body)
    return (read, peak)
  }
}
