/// Where the engine's output goes: an ALSA device or a file.
///
/// Every method is called from the render thread only, and `write` must not allocate:
/// sinks convert into buffers they allocated at init.
public protocol AudioSink: AnyObject {
  var sampleRate: Int { get }
  var channels: Int { get }
  /// The largest `frames` one `write` accepts.
  var maxBlockFrames: Int { get }
  /// Writes `frames` interleaved float frames, blocking until they are accepted.
  func write(_ samples: UnsafePointer<Float>, frames: Int) throws
  /// Frames written but not yet audible (0 for a file).
  func pendingFrames() -> Int
  /// Lets everything written play out (or reach the file) and closes.
  func finish() throws
  /// Stops at once, discarding what is queued; used on Ctrl-C and after errors.
  func abort()
  /// Lets what was written play out, then holds the device idle (pause).
  func pause() throws
  /// Makes the device ready for writes again after `pause()`.
  func resume() throws
}

extension AudioSink {
  /// A file has nothing to play out or hold.
  public func pause() throws {}
  public func resume() throws {}
}

/// A sink that writes a file, which can carry the song's tags.
public protocol AudioFileSink: AudioSink {
  /// Title, artist and album tags; call before the first write.
  func setTags(title: String?, artist: String?, album: String?)
}

/// The integer or float encoding a sink hands to its library.
public enum SampleEncoding: Sendable {
  case int16, int32, float32

  /// The encoding that carries a source of `bitDepth` bits without loss.
  public static func lossless(forBitDepth bitDepth: Int) -> SampleEncoding {
    bitDepth <= 16 ? .int16 : .int32
  }
}

/// Float ↔ integer sample conversion shared by every sink, so a file and a device given
/// the same floats receive the same integers. Full scale is ±1.0 ↔ ±2^(bits−1), the
/// inverse of libsndfile's float reading, so 16- and 24-bit sources pass bit-exactly.
/// No dither: the exactness of the speed-1 path matters more than the last bit of noise.
public enum SampleConversion {
  /// Adding 1.5 × 2^23 to a Float of magnitude < 2^22 rounds it to the nearest integer
  /// (ties to even) and leaves that integer in the low bits of the sum's bit pattern, in
  /// two's complement: no float-to-integer conversion (whose range check stops the
  /// compiler from vectorising the loop).
  private static let roundingMagic: Float = 12_582_912

  public static func toInt16(
    _ source: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Int16>, count: Int
  ) {
    for i in 0..<count {
      // Float.maximum/minimum turn NaN into a bound instead of passing it on.
      let clamped = Float.minimum(Float.maximum(source[i] * 32768, -32768), 32767)
      destination[i] = Int16(truncatingIfNeeded: (clamped + roundingMagic).bitPattern)
    }
  }

  public static func toInt32(
    _ source: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Int32>, count: Int
  ) {
    for i in 0..<count {
      let scaled = (Double(source[i]) * 2_147_483_648).rounded(.toNearestOrEven)
      destination[i] = Int32(Double.minimum(Double.maximum(scaled, -2_147_483_648), 2_147_483_647))
    }
  }
}
