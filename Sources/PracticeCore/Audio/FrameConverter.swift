import CFFmpeg
import CFFmpegLoader
import Foundation

/// libswresample from a decoded frame's shape to interleaved float with `outChannels` (one
/// or two) at the same rate, rebuilt when the shape changes: `FFmpegDecoder`'s one
/// conversion.
///
/// Layouts beyond stereo are mixed down by libswresample's default matrix, each output's
/// gains then scaled to sum to 1 (`rematrix_maxval` 1) so the mix cannot clip. One owner.
final class FrameConverter {
  /// A libswresample call that failed: FFmpeg's code and what was being done.
  struct Failure: Error {
    var code: Int32
    var operation: String
  }

  let outChannels: Int
  let sampleRate: Int
  private var resampler: OpaquePointer?  // owned SwrContext; swr_free
  private var input: (format: Int32, rate: Int32, channels: Int32)?

  init(outChannels: Int, sampleRate: Int) {
    self.outChannels = outChannels
    self.sampleRate = sampleRate
  }

  deinit { swr_free(&resampler) }

  /// The sample rate of the frames converted last, nil before the first.
  var inputRate: Int32? { input?.rate }

  /// Converts `frame` into the start of `out` (grown if needed); returns the frames written.
  func convert(_ frame: UnsafeMutablePointer<AVFrame>, into out: inout [Float]) throws -> Int {
    let shape = (
      format: frame.pointee.format, rate: frame.pointee.sample_rate,
      channels: frame.pointee.ch_layout.nb_channels
    )
    if resampler == nil || input.map({ $0 != shape }) ?? true {
      try makeResampler(for: frame)
      input = shape
    }
    let inCount = frame.pointee.nb_samples
    let capacity = Int(max(swr_get_out_samples(resampler, inCount), inCount)) + 16
    if out.count < capacity * outChannels {
      out = [Float](repeating: 0, count: capacity * outChannels)
    }
    let converted = out.withUnsafeMutableBytes { bytes -> Int32 in
      var output: UnsafeMutablePointer<UInt8>? = bytes.baseAddress?.assumingMemoryBound(
        to: UInt8.self)
      let samples = UnsafeMutableRawPointer(frame.pointee.extended_data)?
        .assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
      return swr_convert(resampler, &output, Int32(capacity), samples, inCount)
    }
    guard converted >= 0 else {
      throw Failure(code: converted, operation: "convert the samples of")
    }
    return Int(converted)
  }

  private func makeResampler(for frame: UnsafeMutablePointer<AVFrame>) throws {
    swr_free(&resampler)
    let operation = "set up the mixer for"
    var inLayout = AVChannelLayout()
    if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
      av_channel_layout_default(&inLayout, frame.pointee.ch_layout.nb_channels)
    } else {
      let status = av_channel_layout_copy(&inLayout, &frame.pointee.ch_layout)
      guard status >= 0 else { throw Failure(code: status, operation: operation) }
    }
    defer { av_channel_layout_uninit(&inLayout) }
    var outLayout = AVChannelLayout()
    av_channel_layout_default(&outLayout, Int32(outChannels))
    defer { av_channel_layout_uninit(&outLayout) }
    var status = swr_alloc_set_opts2(
      &resampler, &outLayout, AV_SAMPLE_FMT_FLT, Int32(sampleRate), &inLayout,
      AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate, 0, nil)
    guard status >= 0 else { throw Failure(code: status, operation: operation) }
    if inLayout.nb_channels > 2 {
      status = av_opt_set_double(UnsafeMutableRawPointer(resampler), "rematrix_maxval", 1.0, 0)
      guard status >= 0 else { throw Failure(code: status, operation: operation) }
    }
    status = swr_init(resampler)
    guard status >= 0 else { throw Failure(code: status, operation: operation) }
  }
}
