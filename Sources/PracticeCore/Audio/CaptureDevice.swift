import CALSA
import Glibc
import Synchronization

/// An ALSA capture device opened for interleaved blocking reads (`snd_pcm_open` with
/// `SND_PCM_STREAM_CAPTURE`), delivering mono floats (channels averaged).
///
/// Created on the control thread; afterwards `read` is called by the capture thread only.
public final class CaptureDevice {
  public let name: String
  /// The rate the device runs at (the one asked for when it, or ALSA's resampler, can).
  public let sampleRate: Int
  /// Channels captured (averaged to mono by `read`).
  public let channels: Int
  /// The largest `frames` one `read` accepts.
  public let maxBlockFrames: Int
  /// Frames in the device's ring buffer, as negotiated.
  public let bufferFrames: Int
  /// Overruns recovered from so far (the reader fell behind and audio was lost).
  public let overruns = Atomic<Int>(0)

  private var pcm: OpaquePointer?  // owned; nil once closed
  private let int16Buffer: UnsafeMutablePointer<Int16>  // capture thread only

  /// How many recoveries in a row a single read may attempt before the device counts as lost.
  static let maxRecoveries = 5

  /// Opens `name` for capture at about `sampleRate`, mono if the device offers it, with
  /// periods of about `periodMilliseconds` (how often audio arrives) and a buffer of about
  /// `bufferMilliseconds` (how far the reader may fall behind before audio is lost; it
  /// adds no delay, as a read returns as soon as a period arrived).
  public init(
    name: String, sampleRate: Int, maxBlockFrames: Int, periodMilliseconds: Int = 10,
    bufferMilliseconds: Int = 200,
    openAdvice: String = "check the name with `arecord -L`, or pick another device"
  ) throws {
    let agreed = try ALSASetup.open(
      name, stream: SND_PCM_STREAM_CAPTURE,
      ALSASetup.Request(
        format: SND_PCM_FORMAT_S16_LE, formatName: "setting 16-bit samples", channels: 1,
        sampleRate: UInt32(sampleRate), nearest: true,
        bufferMicroseconds: UInt32(bufferMilliseconds * 1000),
        periodMicroseconds: UInt32(periodMilliseconds * 1000)),
      openAdvice: openAdvice)
    let pcm = agreed.pcm
    let rate = agreed.sampleRate
    let channelCount = agreed.channels
    let bufferSize = agreed.bufferFrames
    func check(_ result: Int32, _ operation: String) throws {
      try ALSASetup.check(result, operation, closing: pcm, device: name)
    }
    guard rate >= 8000, channelCount >= 1 else {
      snd_pcm_close(pcm)
      throw ALSAError(
        code: -EINVAL, device: name,
        operation: "agreeing on \(rate) Hz and \(channelCount) channel(s)",
        advice: "try a converting device such as 'default' or 'plughw:0'")
    }
    try check(snd_pcm_prepare(pcm), "preparing it")

    self.pcm = pcm
    self.name = name
    self.sampleRate = Int(rate)
    self.channels = Int(channelCount)
    self.maxBlockFrames = maxBlockFrames
    self.bufferFrames = Int(bufferSize)
    int16Buffer = .allocate(capacity: maxBlockFrames * Int(channelCount))
  }

  deinit {
    close()
    int16Buffer.deallocate()
  }

  /// Starts capturing (`snd_pcm_start`); otherwise the first `read` starts it.
  public func start() throws {
    guard let pcm else { return }
    let result = snd_pcm_start(pcm)
    if result < 0 { throw lost(result, while: "starting capture") }
  }

  /// Reads exactly `frames` frames as mono floats (`snd_pcm_readi`, blocking), with bounded
  /// recovery: an overrun (-EPIPE) or suspend (-ESTRPIPE) is recovered silently and counted;
  /// after `maxRecoveries` failures in a row the device counts as lost. Does not allocate.
  public func read(into destination: UnsafeMutablePointer<Float>, frames: Int) throws {
    precondition(frames <= maxBlockFrames, "block larger than the device was opened for")
    guard let pcm else { return }
    var done = 0
    var failures = 0
    while done < frames {
      let result = snd_pcm_readi(
        pcm, UnsafeMutableRawPointer(int16Buffer + done * channels),
        snd_pcm_uframes_t(frames - done))
      if result > 0 {
        done += Int(result)
        failures = 0
        continue
      }
      let code = result == 0 ? -EAGAIN : Int32(truncatingIfNeeded: result)
      if code == -EPIPE { overruns.add(1, ordering: .relaxed) }
      failures += 1
      if failures > CaptureDevice.maxRecoveries
        || (code != -EAGAIN && snd_pcm_recover(pcm, code, 1) < 0)
      {
        throw lost(code, while: "capturing audio")
      }
    }
    let scale = 1 / (32768 * Float(channels))
    for frame in 0..<frames {
      var sum: Int32 = 0
      for c in 0..<channels { sum += Int32(int16Buffer[frame * channels + c]) }
      destination[frame] = Float(sum) * scale
    }
  }

  private func lost(_ code: Int32, while operation: String) -> ALSAError {
    ALSAError(
      code: code, device: name, operation: operation,
      advice: "the device was lost; check that it is still connected and not in use")
  }

  /// Stops capturing (`snd_pcm_drop`) and closes the device.
  public func close() {
    guard let pcm else { return }
    self.pcm = nil
    snd_pcm_drop(pcm)
    snd_pcm_close(pcm)
  }
}
