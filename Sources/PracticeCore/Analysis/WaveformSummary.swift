import Foundation

/// A song's loudness envelope, small enough to keep in the library: the peak and the RMS of
/// every 50 ms of audio, each in one byte on a decibel scale.
///
/// Why 50 ms and one byte each (40 bytes a second: 9.6 kB for a four-minute song, 144 kB
/// for an hour): the narrowest useful view is one bar across a terminal or a player strip
/// (a bar of 4/4 at 120 BPM, 2 s, over 80 columns is 25 ms a column), where a bin still
/// covers at most two columns; every wider view (the song, a few bars) reduces many bins
/// per column, which the maximum and the power mean do exactly. A logarithmic byte keeps
/// quiet passages as well resolved as loud ones: codes 1-255 span -72 to 0 dBFS in steps of
/// 0.28 dB (±3 % in amplitude), code 0 is anything quieter.
public struct WaveformSummary: Sendable, Equatable {
  /// The length of a bin, in seconds of audio.
  public static let binSeconds = 0.05
  /// How the bytes are coded; a stored summary with another coding is computed again.
  public static let coding = "peak-rms-u8-db72"
  /// The quietest level a nonzero code stands for, in dBFS.
  static let floorDecibels: Float = -72

  public let sampleRate: Int
  /// Frames per bin (the last bin may be shorter).
  public let binFrames: Int64
  /// Frames of audio summarised.
  public let frames: Int64
  /// Two bytes per bin, peak then RMS.
  public let codes: [UInt8]
  /// The loudest peak of the song, linear (0-1, more for a float file that clips).
  public let loudestPeak: Float

  public var binCount: Int { codes.count / 2 }

  /// A summary from stored codes; nil if their shape does not fit the audio's.
  public init?(sampleRate: Int, binFrames: Int64, frames: Int64, codes: [UInt8]) {
    guard sampleRate > 0, binFrames > 0, frames >= 0, codes.count % 2 == 0,
      Int64(codes.count / 2) == (frames + binFrames - 1) / binFrames
    else { return nil }
    self.sampleRate = sampleRate
    self.binFrames = binFrames
    self.frames = frames
    self.codes = codes
    var loudest: UInt8 = 0
    for i in stride(from: 0, to: codes.count, by: 2) where codes[i] > loudest { loudest = codes[i] }
    loudestPeak = WaveformSummary.amplitude(loudest)
  }

  /// The bin length for a sample rate: 50 ms, rounded to whole frames.
  public static func binFrames(sampleRate: Int) -> Int64 {
    max(1, Int64((Double(sampleRate) * binSeconds).rounded()))
  }

  /// The byte for a linear amplitude.
  public static func code(_ amplitude: Float) -> UInt8 {
    guard amplitude > 0 else { return 0 }
    let decibels = 20 * log10(amplitude)
    guard decibels >= floorDecibels else { return 0 }
    let step = (decibels - floorDecibels) / -floorDecibels * 254
    return UInt8(min(255, 1 + max(0, step.rounded())))
  }

  /// The linear amplitude a byte stands for.
  public static func amplitude(_ code: UInt8) -> Float { amplitudes[Int(code)] }

  private static let amplitudes: [Float] = (0..<256).map { code in
    code == 0 ? 0 : pow(10, (floorDecibels + Float(code - 1) / 254 * -floorDecibels) / 20)
  }

  /// Peak and RMS of bin `index`, linear.
  public func bin(_ index: Int) -> (peak: Float, rms: Float) {
    (WaveformSummary.amplitude(codes[2 * index]), WaveformSummary.amplitude(codes[2 * index + 1]))
  }

  /// Peak (the largest) and RMS (the power mean) of the bins the frames touch; zero
  /// outside the audio.
  public func envelope(of range: Range<Int64>) -> (peak: Float, rms: Float) {
    let lower = max(0, range.lowerBound)
    let upper = min(frames, range.upperBound)
    guard upper > lower else { return (0, 0) }
    let first = Int(lower / binFrames)
    let last = Int((upper - 1) / binFrames)
    var peak: Float = 0
    var power: Float = 0
    for index in first...last {
      let (p, r) = bin(index)
      if p > peak { peak = p }
      power += r * r
    }
    return (peak, (power / Float(last - first + 1)).squareRoot())
  }

  /// Reads the whole file once and summarises it. A file that ends early (a truncated
  /// file) is summarised as far as it decodes; the rest reads as silence.
  public static func compute(from file: SoundFile) throws -> WaveformSummary {
    let info = file.info
    let channels = info.channels
    let binFrames = binFrames(sampleRate: info.sampleRate)
    let bins = Int((info.frames + binFrames - 1) / binFrames)
    var codes = [UInt8](repeating: 0, count: 2 * bins)
    try file.seek(to: 0)
    let block = 65_536
    var buffer = [Float](repeating: 0, count: block * channels)
    var bin = 0
    var inBin: Int64 = 0
    var peak: Float = 0
    var power: Double = 0
    func close() {
      guard bin < bins else { return }
      codes[2 * bin] = code(peak)
      let samples = Double(inBin) * Double(channels)
      codes[2 * bin + 1] = code(Float((power / max(1, samples)).squareRoot()))
      bin += 1
      inBin = 0
      peak = 0
      power = 0
    }
    var read: Int64 = 0
    while read < info.frames {
      let wanted = Int(min(Int64(block), info.frames - read))
      let n = buffer.withUnsafeMutableBufferPointer {
        file.read(into: $0.baseAddress!, frames: wanted)
      }
      if n <= 0 { break }
      buffer.withUnsafeBufferPointer { samples in
        var frame = 0
        while frame < n {
          let take = min(n - frame, Int(binFrames - inBin))
          var blockPeak: Float = 0
          var blockPower: Float = 0
          for i in (frame * channels)..<((frame + take) * channels) {
            let s = samples[i]
            blockPeak = max(blockPeak, abs(s))
            blockPower += s * s
          }
          peak = max(peak, blockPeak)
          power += Double(blockPower)
          inBin += Int64(take)
          frame += take
          if inBin == binFrames { close() }
        }
      }
      read += Int64(n)
    }
    if inBin > 0 { close() }
    guard
      let summary = WaveformSummary(
        sampleRate: info.sampleRate, binFrames: binFrames, frames: info.frames, codes: codes)
    else {
      throw PracticeError(.other, "the waveform summary of '\(file.path)' came out malformed")
    }
    return summary
  }
}
