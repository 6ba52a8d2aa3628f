import CALSA
import Glibc

/// Opening an ALSA PCM and agreeing on its hardware parameters: what playback
/// (`PCMDevice`) and capture (`CaptureDevice`) share.
enum ALSASetup {
  /// What was asked of a device, and how strictly.
  struct Request {
    var format: snd_pcm_format_t
    var formatName: String
    var channels: UInt32
    var sampleRate: UInt32
    /// Take the nearest channel count and rate the device offers instead of refusing.
    var nearest: Bool
    var bufferMicroseconds: UInt32
    var periodMicroseconds: UInt32
  }

  /// What the device agreed to.
  struct Agreed {
    var pcm: OpaquePointer
    var channels: UInt32
    var sampleRate: UInt32
    var bufferFrames: Int
  }

  /// Opens `name` for `stream` with interleaved read/write access and `request`'s format,
  /// channels, rate (through ALSA's resampler where the device needs it), buffer and
  /// period. On any failure the device is closed and the error names the step.
  static func open(
    _ name: String, stream: snd_pcm_stream_t, _ request: Request, openAdvice: String
  ) throws -> Agreed {
    practice_alsa_silence_errors()
    let capture = stream == SND_PCM_STREAM_CAPTURE
    var handle: OpaquePointer?
    let openResult = snd_pcm_open(&handle, name, stream, 0)
    guard openResult >= 0, let pcm = handle else {
      if openResult == -ENOMEM || practice_alsa_ran_out_of_memory() != 0 {
        throw PracticeError(
          .other,
          "audio device '\(name)': ALSA ran out of memory while opening it (error \(openResult)): "
            + PracticeError.tooLittleMemory)
      }
      throw ALSAError(
        code: openResult, device: name, operation: capture ? "opening it for capture" : "opening it",
        advice: openAdvice)
    }
    func check(_ result: Int32, _ operation: String) throws {
      try ALSASetup.check(result, operation, closing: pcm, device: name)
    }
    var params: OpaquePointer?
    try check(snd_pcm_hw_params_malloc(&params), "allocating hardware parameters")
    defer { snd_pcm_hw_params_free(params) }
    try check(snd_pcm_hw_params_any(pcm, params), "reading hardware parameters")
    try check(
      snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED),
      "setting interleaved access")
    try check(snd_pcm_hw_params_set_format(pcm, params, request.format), request.formatName)
    var channels = request.channels
    let channelStep = "setting \(channels) channel(s)"
    try check(
      request.nearest
        ? snd_pcm_hw_params_set_channels_near(pcm, params, &channels)
        : snd_pcm_hw_params_set_channels(pcm, params, channels), channelStep)
    try check(snd_pcm_hw_params_set_rate_resample(pcm, params, 1), "enabling resampling")
    var rate = request.sampleRate
    var direction: Int32 = 0
    try check(
      request.nearest
        ? snd_pcm_hw_params_set_rate_near(pcm, params, &rate, &direction)
        : snd_pcm_hw_params_set_rate(pcm, params, rate, 0),
      "setting the rate to \(request.sampleRate) Hz")
    var bufferTime = request.bufferMicroseconds
    try check(
      snd_pcm_hw_params_set_buffer_time_near(pcm, params, &bufferTime, &direction),
      "setting the buffer time")
    var periodTime = request.periodMicroseconds
    try check(
      snd_pcm_hw_params_set_period_time_near(pcm, params, &periodTime, &direction),
      "setting the period time")
    try check(snd_pcm_hw_params(pcm, params), "applying hardware parameters")
    var bufferSize: snd_pcm_uframes_t = 0
    try check(snd_pcm_hw_params_get_buffer_size(params, &bufferSize), "reading the buffer size")
    return Agreed(pcm: pcm, channels: channels, sampleRate: rate, bufferFrames: Int(bufferSize))
  }

  /// Closes `pcm` and throws the step's error if `result` is one.
  static func check(
    _ result: Int32, _ operation: String, closing pcm: OpaquePointer, device name: String
  ) throws {
    guard result < 0 else { return }
    snd_pcm_close(pcm)
    throw ALSAError(
      code: result, device: name, operation: operation,
      advice: "try a converting device such as 'default' or 'plughw:0'")
  }
}
