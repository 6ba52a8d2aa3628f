import CFFmpeg
import CFFmpegLoader

/// libavcodec's send/receive protocol for one decoder, as `FFmpegDecoder` drives it with
/// packets from libavformat: frames are received until the decoder wants a packet, then one is fed; at the end of
/// the packets the decoder is drained (a null packet) and its last frames received.
///
/// A packet libavcodec refuses or cannot decode is noted and decoding goes on with the
/// next one, as players do; the decoder is never asked again without being fed, since one
/// in a failed state would answer forever.
struct CodecPump {
  /// No more frames: the decoder is drained (or the caller ended the stream).
  var endOfStream = false
  private var draining = false

  /// Back to the start of a stream, after `avcodec_flush_buffers`.
  mutating func reset() {
    endOfStream = false
    draining = false
  }

  /// Receives the next frame that has samples into `frame` (the caller converts it and
  /// calls `av_frame_unref`); false at the end of the stream. `feed` sends the next packet
  /// and returns `avcodec_send_packet`'s status (0 if it sent none), or nil when there are
  /// no more packets. `noteError` gets libavcodec's message for each failure it reports.
  mutating func nextFrame(
    _ codec: UnsafeMutablePointer<AVCodecContext>, _ frame: UnsafeMutablePointer<AVFrame>,
    noteError: (String) -> Void, feed: () throws -> Int32?
  ) rethrows -> Bool {
    while !endOfStream {
      let received = avcodec_receive_frame(codec, frame)
      if received == 0 {
        if frame.pointee.nb_samples > 0 { return true }
        av_frame_unref(frame)
        continue
      }
      if received == practice_averror_eof() {
        endOfStream = true
        break
      }
      if received != practice_averror_eagain() { noteError(FFmpegError.message(received)) }
      if draining {
        endOfStream = true
        break
      }
      guard let sent = try feed() else {
        draining = true
        _ = avcodec_send_packet(codec, nil)
        continue
      }
      if sent < 0, sent != practice_averror_eagain() { noteError(FFmpegError.message(sent)) }
    }
    return false
  }
}
