import CFFmpeg
import CFFmpegLoader
import Foundation

/// A file sink for what libsndfile cannot write: AAC in an M4A (libavcodec's native `aac`
/// encoder, libavformat's `ipod` muxer). The muxer's edit list names the encoder's delay and
/// the last frame's padding, so a decoder that honours it (ffmpeg, practice) gets exactly
/// the frames written.
///
/// Written to the hidden partial file of an `OutputFile` (reopened by path through
/// `avio_open`: the MP4 muxer seeks back to write its index) and renamed into place by
/// `finish()`. Render thread only after `init`, like `SoundFileWriter`.
public final class FFmpegWriter: AudioFileSink {
  public let path: String
  public let sampleRate: Int
  public let channels: Int
  public let maxBlockFrames: Int
  private let output: OutputFile
  private var format: UnsafeMutablePointer<AVFormatContext>?  // owned
  private var encoder: UnsafeMutablePointer<AVCodecContext>?  // owned
  private var frame: UnsafeMutablePointer<AVFrame>?  // owned
  private var packet: UnsafeMutablePointer<AVPacket>?  // owned
  private var stream: UnsafeMutablePointer<AVStream>?  // owned by `format`
  /// Samples per encoder frame (1024 for AAC), frames filled in the current one, and the
  /// frames sent to the encoder so far (the next frame's pts).
  private var frameSize = 0
  private var filled = 0
  private var sent: Int64 = 0
  private var headerWritten = false
  private var tags: [(String, String)] = []

  /// The AAC bit rate: 256 kb/s stereo (128 mono), transparent for practice.
  public static func bitRate(channels: Int) -> Int { channels == 1 ? 128_000 : 256_000 }

  public init(path: String, sampleRate: Int, channels: Int, maxBlockFrames: Int) throws {
    if let reason = practice_ffmpeg_load_error() {
      throw FFmpegError(
        category: .cannotCreate,
        reason: "FFmpeg's libraries cannot be loaded (\(String(cString: reason)))",
        path: path, operation: "create", advice: "install libavformat and libavcodec (`make deps`)",
        notLoaded: true)
    }
    practice_av_log_quiet()
    self.path = path
    self.sampleRate = sampleRate
    self.channels = channels
    self.maxBlockFrames = maxBlockFrames
    self.output = try OutputFile(path: path)
    // From here a throw runs `deinit`, which frees what was built and removes the file.
    func fail(_ code: Int32, _ operation: String) -> FFmpegError {
      FFmpegError(
        code: code, path: path, operation: operation, category: .cannotCreate,
        advice: "write .wav or .flac instead")
    }
    var format: UnsafeMutablePointer<AVFormatContext>?
    var code = avformat_alloc_output_context2(&format, nil, "ipod", self.output.partialPath)
    guard code >= 0, let format else { throw fail(code, "create an M4A for") }
    self.format = format
    guard let codec = avcodec_find_encoder_by_name("aac"),
      let encoder = avcodec_alloc_context3(codec)
    else { throw fail(practice_averror_enomem(), "find the AAC encoder for") }
    self.encoder = encoder
    encoder.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
    encoder.pointee.sample_rate = Int32(sampleRate)
    av_channel_layout_default(&encoder.pointee.ch_layout, Int32(channels))
    encoder.pointee.bit_rate = Int64(FFmpegWriter.bitRate(channels: channels))
    encoder.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
    if format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
      encoder.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
    }
    code = avcodec_open2(encoder, codec, nil)
    guard code >= 0 else { throw fail(code, "open the AAC encoder for") }
    guard let stream = avformat_new_stream(format, nil) else {
      throw fail(practice_averror_enomem(), "add a stream to")
    }
    self.stream = stream
    stream.pointee.time_base = encoder.pointee.time_base
    code = avcodec_parameters_from_context(stream.pointee.codecpar, encoder)
    guard code >= 0 else { throw fail(code, "describe the stream of") }
    code = avio_open(&format.pointee.pb, "file:" + self.output.partialPath, AVIO_FLAG_WRITE)
    guard code >= 0 else { throw fail(code, "create") }
    frameSize = Int(encoder.pointee.frame_size)
    guard let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
      throw fail(practice_averror_enomem(), "create")
    }
    self.frame = frame
    self.packet = packet
    frame.pointee.nb_samples = Int32(frameSize)
    frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
    frame.pointee.sample_rate = Int32(sampleRate)
    code = av_channel_layout_copy(&frame.pointee.ch_layout, &encoder.pointee.ch_layout)
    if code >= 0 { code = av_frame_get_buffer(frame, 0) }
    guard code >= 0 else { throw fail(code, "create") }
  }

  deinit { abort() }

  /// Title, artist and album tags; call before the first write.
  public func setTags(title: String?, artist: String?, album: String?) {
    for (key, value) in [("title", title), ("artist", artist), ("album", album)] {
      if let value { tags.append((key, value)) }
    }
  }

  private func check(_ code: Int32, _ operation: String) throws {
    guard code < 0 else { return }
    throw FFmpegError(
      code: code, path: path, operation: operation, category: .io,
      advice: "check the free space on the disk")
  }

  private func writeHeader() throws {
    guard !headerWritten, let format else { return }
    headerWritten = true
    for (key, value) in tags { av_dict_set(&format.pointee.metadata, key, value, 0) }
    try check(avformat_write_header(format, nil), "write the header of")
  }

  public func write(_ samples: UnsafePointer<Float>, frames: Int) throws {
    guard let frame else { return }
    precondition(frames <= maxBlockFrames, "block larger than the sink was built for")
    try writeHeader()
    var done = 0
    while done < frames {
      if filled == 0 { try check(av_frame_make_writable(frame), "encode") }
      let count = min(frames - done, frameSize - filled)
      // Interleaved in, one plane per channel out.
      for channel in 0..<channels {
        guard let data = frame.pointee.extended_data[channel] else {
          return try check(practice_averror_enomem(), "encode")
        }
        let plane = UnsafeMutableRawPointer(data).assumingMemoryBound(to: Float.self)
        for index in 0..<count {
          plane[filled + index] = samples[(done + index) * channels + channel]
        }
      }
      filled += count
      done += count
      if filled == frameSize { try sendFrame() }
    }
  }

  /// Sends the frame filled so far (a short last one included) and writes what comes out.
  private func sendFrame() throws {
    guard let frame, let encoder, filled > 0 else { return }
    frame.pointee.nb_samples = Int32(filled)
    frame.pointee.pts = sent
    sent += Int64(filled)
    filled = 0
    try check(avcodec_send_frame(encoder, frame), "encode")
    try drain()
  }

  private func drain() throws {
    guard let encoder, let packet, let format, let stream else { return }
    while true {
      let code = avcodec_receive_packet(encoder, packet)
      if code == practice_averror_eagain() || code == practice_averror_eof() { return }
      try check(code, "encode")
      // The last packet ends where the frames written end: FFmpeg's encoder gives it 34
      // frames less at 44.1 kHz (FFmpeg 5.1; `ffmpeg -c:a aac` writes the same), and the
      // muxer's edit list takes the track's length from it.
      let pts = packet.pointee.pts
      if pts >= 0, pts < sent, pts + Int64(frameSize) > sent {
        packet.pointee.duration = min(Int64(frameSize), sent - pts)
      }
      av_packet_rescale_ts(packet, encoder.pointee.time_base, stream.pointee.time_base)
      packet.pointee.stream_index = stream.pointee.index
      // Takes the packet's reference, leaving it blank.
      try check(av_interleaved_write_frame(format, packet), "write")
    }
  }

  public func pendingFrames() -> Int { 0 }

  public func finish() throws {
    guard format != nil else { return }
    do {
      try writeHeader()
      try sendFrame()
      try check(avcodec_send_frame(encoder, nil), "encode")
      try drain()
      try check(av_write_trailer(format), "finish writing")
      try check(avio_closep(&format!.pointee.pb), "finish writing")
    } catch {
      abort()
      throw error
    }
    release()
    try output.commit()
  }

  public func abort() {
    if let format { avio_closep(&format.pointee.pb) }
    release()
    output.abandon()
  }

  /// Frees the FFmpeg objects (the file is closed before).
  private func release() {
    av_frame_free(&frame)
    av_packet_free(&packet)
    avcodec_free_context(&encoder)
    avformat_free_context(format)
    format = nil
    stream = nil
  }
}
