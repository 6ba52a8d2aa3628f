import Foundation

/// A sound file as the analyses hear it: the mean of its channels (or one of them), block
/// by block, at one rate through `MonoResampler` (`BeatDetector.analysisRate` for beats,
/// chords, key and tuning), so that what they measure does not depend on the rate a
/// recording was converted to. A file already at that rate, one below `lowest`, or one
/// libswresample cannot convert, is heard at its own rate, sample for sample.
struct MonoReader {
  let file: SoundFile
  /// The rate the samples come at.
  let rate: Int
  /// The channel heard alone; nil: the channels' mean.
  let channel: Int?

  /// What one pass read.
  struct Pass {
    /// The file's own frames read.
    var frames: Int64 = 0
    /// The loudest mono sample's magnitude (before resampling).
    var peak: Float = 0
    /// The mono samples' energy (sum of squares, before resampling).
    var monoEnergy = 0.0
    /// The channels' own energy, their mean at each frame, summed.
    var channelEnergy = 0.0
  }

  init(file: SoundFile, rate: Int, channel: Int? = nil, lowest: Int = 1) {
    self.file = file
    self.channel = channel
    let own = file.info.sampleRate
    self.rate =
      own == rate || own < lowest || MonoResampler(from: own, to: rate) == nil ? own : rate
  }

  /// Reads from where the file stands to its end: `body` gets the mono samples at `rate`,
  /// `progress` 0-1 of the file read (at most every hundredth, and at the end). `name` is
  /// how a decoding error calls the file.
  func read(
    name: String, progress: (Double) -> Void = { _ in },
    _ body: (UnsafeBufferPointer<Float>) -> Void
  ) throws -> Pass {
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
    var pass = Pass()
    var lastReport = -1.0
    while true {
      let n = interleaved.withUnsafeMutableBufferPointer {
        file.read(into: $0.baseAddress!, frames: block)
      }
      if n <= 0 { break }
      for i in 0..<n {
        var sum: Float = 0
        var squares: Float = 0
        for c in 0..<channels {
          let x = interleaved[i * channels + c]
          sum += x
          squares += x * x
        }
        mono[i] = channel.map { interleaved[i * channels + $0] } ?? sum / Float(channels)
        pass.peak = max(pass.peak, abs(mono[i]))
        pass.monoEnergy += Double(mono[i] * mono[i])
        pass.channelEnergy += Double(squares) / Double(channels)
      }
      mono.withUnsafeBufferPointer {
        let samples = UnsafeBufferPointer(rebasing: $0[0..<n])
        if let resampler { resampler.process(samples, body) } else { body(samples) }
      }
      pass.frames += Int64(n)
      let fraction = info.frames > 0 ? min(1, Double(pass.frames) / Double(info.frames)) : 0
      if fraction - lastReport >= 0.01 || (fraction == 1 && lastReport < 1) {
        progress(fraction)
        lastReport = fraction
      }
    }
    if let error = file.lastError {
      throw SoundFileError(
        category: .badData, reason: error, path: name, operation: "decode",
        advice: "the file may be truncated or damaged")
    }
    resampler?.finish(body)
    return pass
  }
}
