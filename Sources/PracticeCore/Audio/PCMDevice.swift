import CALSA
import Glibc
import Synchronization

/// An ALSA playback device opened for interleaved blocking writes (`snd_pcm_open`).
///
/// Created on the control thread; afterwards used by the render thread only.
public final class PCMDevice: AudioSink {
  public let name: String
  public let sampleRate: Int
  public let channels: Int
  public let maxBlockFrames: Int
  public let encoding: SampleEncoding
  /// Frames in the device's ring buffer, as negotiated.
  public let bufferFrames: Int
  /// Whether what is written is played out at the sample rate: not ALSA's `null` PCM, which
  /// takes audio as fast as it comes (`snd_pcm_type`), so that nobody heard it.
  public let hasAudibleClock: Bool
  /// Underruns recovered from so far; read by the player to report them.
  public let underruns = Atomic<Int>(0)

  private var pcm: OpaquePointer?  // owned; nil once closed by finish(), abort() or deinit
  private let int16Buffer: UnsafeMutablePointer<Int16>  // render thread only
  private let int32Buffer: UnsafeMutablePointer<Int32>  // render thread only

  /// How many recoveries in a row a single write may attempt before the device counts as lost.
  static let maxRecoveries = 5

  /// Opens `name` for `channels` × `sampleRate` playback with roughly `bufferMilliseconds`
  /// of device buffer; `openAdvice` says what to do when it cannot be opened (the face
  /// names its own way of picking another device).
  public init(
    name: String, sampleRate: Int, channels: Int, encoding: SampleEncoding,
    maxBlockFrames: Int, bufferMilliseconds: Int = 100,
    openAdvice: String = "check the name with `aplay -L`, or pick another device"
  ) throws {
    let format: snd_pcm_format_t
    switch encoding {
    case .int16: format = SND_PCM_FORMAT_S16_LE
    case .int32: format = SND_PCM_FORMAT_S32_LE
    case .float32: format = SND_PCM_FORMAT_FLOAT_LE
    }
    let bufferTime = UInt32(bufferMilliseconds * 1000)
    let agreed = try ALSASetup.open(
      name, stream: SND_PCM_STREAM_PLAYBACK,
      ALSASetup.Request(
        format: format, formatName: "setting the sample format", channels: UInt32(channels),
        sampleRate: UInt32(sampleRate), nearest: false, bufferMicroseconds: bufferTime,
        periodMicroseconds: bufferTime / 4),
      openAdvice: openAdvice)
    let pcm = agreed.pcm
    let bufferSize = snd_pcm_uframes_t(agreed.bufferFrames)
    func check(_ result: Int32, _ operation: String) throws {
      try ALSASetup.check(result, operation, closing: pcm, device: name)
    }

    var swParams: OpaquePointer?
    try check(snd_pcm_sw_params_malloc(&swParams), "allocating software parameters")
    defer { snd_pcm_sw_params_free(swParams) }
    try check(snd_pcm_sw_params_current(pcm, swParams), "reading software parameters")
    // Start once the buffer is full, so playback begins with a full cushion.
    try check(
      snd_pcm_sw_params_set_start_threshold(pcm, swParams, bufferSize), "setting the start threshold")
    try check(snd_pcm_sw_params(pcm, swParams), "applying software parameters")

    self.pcm = pcm
    self.name = name
    self.sampleRate = sampleRate
    self.channels = channels
    self.encoding = encoding
    self.maxBlockFrames = maxBlockFrames
    self.bufferFrames = Int(bufferSize)
    hasAudibleClock = snd_pcm_type(pcm) != SND_PCM_TYPE_NULL
    self.int16Buffer = .allocate(capacity: maxBlockFrames * channels)
    self.int32Buffer = .allocate(capacity: maxBlockFrames * channels)
  }

  deinit {
    abort()
    int16Buffer.deallocate()
    int32Buffer.deallocate()
  }

  public func write(_ samples: UnsafePointer<Float>, frames: Int) throws {
    precondition(frames <= maxBlockFrames, "block larger than the sink was built for")
    let count = frames * channels
    switch encoding {
    case .int16:
      SampleConversion.toInt16(samples, int16Buffer, count: count)
      try writeAll(UnsafeRawPointer(int16Buffer), frames: frames, bytesPerFrame: 2 * channels)
    case .int32:
      SampleConversion.toInt32(samples, int32Buffer, count: count)
      try writeAll(UnsafeRawPointer(int32Buffer), frames: frames, bytesPerFrame: 4 * channels)
    case .float32:
      try writeAll(UnsafeRawPointer(samples), frames: frames, bytesPerFrame: 4 * channels)
    }
  }

  /// `snd_pcm_writei` until every frame is accepted, with bounded recovery: an underrun
  /// (-EPIPE) or suspend (-ESTRPIPE) is recovered silently and counted; after
  /// `maxRecoveries` failures in a row the device counts as lost.
  private func writeAll(_ bytes: UnsafeRawPointer, frames: Int, bytesPerFrame: Int) throws {
    guard let pcm else { return }
    var done = 0
    var failures = 0
    while done < frames {
      let result = snd_pcm_writei(
        pcm, bytes + done * bytesPerFrame, snd_pcm_uframes_t(frames - done))
      if result >= 0 {
        done += Int(result)
        failures = 0
        continue
      }
      let code = Int32(truncatingIfNeeded: result)
      if code == -EPIPE { underruns.add(1, ordering: .relaxed) }
      failures += 1
      if failures > PCMDevice.maxRecoveries || snd_pcm_recover(pcm, code, 1) < 0 {
        throw lost(code, while: "writing audio")
      }
    }
  }

  public func pendingFrames() -> Int {
    guard let pcm else { return 0 }
    var delay: snd_pcm_sframes_t = 0
    return snd_pcm_delay(pcm, &delay) == 0 ? max(0, Int(delay)) : 0
  }

  /// Plays out what was written (`snd_pcm_drain`) and closes the device; plugins such
  /// as ALSA's `file` PCM finish their output only on close.
  public func finish() throws {
    guard let pcm else { return }
    self.pcm = nil
    let result = snd_pcm_drain(pcm)
    snd_pcm_close(pcm)
    if result < 0 {
      throw ALSAError(
        code: result, device: name, operation: "draining the last audio",
        advice: "the end of the audio may have been cut off")
    }
  }

  /// Plays out what was written (`snd_pcm_drain`): the engine ends the last block with a
  /// fade to silence, so the sound stops without a click; the device then idles.
  public func pause() throws {
    guard let pcm else { return }
    let result = snd_pcm_drain(pcm)
    if result < 0 { throw lost(result, while: "pausing") }
  }

  /// Makes the drained device ready for writes again (`snd_pcm_prepare`).
  public func resume() throws {
    guard let pcm else { return }
    let result = snd_pcm_prepare(pcm)
    if result < 0 { throw lost(result, while: "resuming") }
  }

  /// The error for a device that went away while playing.
  private func lost(_ code: Int32, while operation: String) -> ALSAError {
    ALSAError(
      code: code, device: name, operation: operation,
      advice: "the device was lost; check that it is still connected and not in use")
  }

  /// Discards what is queued (`snd_pcm_drop`) and closes the device.
  public func abort() {
    guard let pcm else { return }
    self.pcm = nil
    snd_pcm_drop(pcm)
    snd_pcm_close(pcm)
  }
}
