import CFFmpeg
import CFFmpegLoader
import Foundation

/// One channel of float samples from one rate to another, in blocks, through
/// libswresample (the analysis hears every file at one rate: `BeatDetector.analysisRate`).
/// Its output is aligned with its input (sample k in comes out at k · to / from) and
/// `finish` drains what its filter still holds, so the whole output is
/// round(count · to / from) samples long. One owner of the context.
final class MonoResampler {
  let from: Int
  let to: Int
  private var context: OpaquePointer?  // owned SwrContext; swr_free
  private var out: [Float] = []

  /// Nil when FFmpeg's libraries cannot be loaded or libswresample refuses the rates.
  init?(from: Int, to: Int) {
    guard from > 0, to > 0, practice_ffmpeg_load_error() == nil else { return nil }
    self.from = from
    self.to = to
    var outLayout = AVChannelLayout()
    var inLayout = AVChannelLayout()
    av_channel_layout_default(&outLayout, 1)
    av_channel_layout_default(&inLayout, 1)
    defer {
      av_channel_layout_uninit(&outLayout)
      av_channel_layout_uninit(&inLayout)
    }
    guard
      swr_alloc_set_opts2(
        &context, &outLayout, AV_SAMPLE_FMT_FLT, Int32(to), &inLayout, AV_SAMPLE_FMT_FLT,
        Int32(from), 0, nil) >= 0, swr_init(context) >= 0
    else { return nil }
  }

  deinit { swr_free(&context) }

  /// Converts `input`; `body` gets the samples that came out (possibly none).
  func process(_ input: UnsafeBufferPointer<Float>, _ body: (UnsafeBufferPointer<Float>) -> Void) {
    convert(input.baseAddress, count: input.count, body)
  }

  /// Drains the filter: the last samples, then no more.
  func finish(_ body: (UnsafeBufferPointer<Float>) -> Void) {
    convert(nil, count: 0, body)
  }

  private func convert(
    _ input: UnsafePointer<Float>?, count: Int, _ body: (UnsafeBufferPointer<Float>) -> Void
  ) {
    let capacity = Int(max(0, swr_get_out_samples(context, Int32(count)))) + 64
    if out.count < capacity { out = [Float](repeating: 0, count: capacity) }
    let made = out.withUnsafeMutableBytes { bytes -> Int32 in
      var output: UnsafeMutablePointer<UInt8>? = bytes.baseAddress?.assumingMemoryBound(
        to: UInt8.self)
      guard let input else { return swr_convert(context, &output, Int32(capacity), nil, 0) }
      var plane: UnsafePointer<UInt8>? = UnsafeRawPointer(input).assumingMemoryBound(
        to: UInt8.self)
      return swr_convert(context, &output, Int32(capacity), &plane, Int32(count))
    }
    guard made > 0 else { return }
    out.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<Int(made)])) }
  }
}
