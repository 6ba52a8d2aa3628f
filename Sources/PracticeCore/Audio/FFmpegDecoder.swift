import CFFmpeg
import CFFmpegLoader
import Foundation

/// An FFmpeg failure: its error code and message (`av_strerror`), the file, and what was
/// being done.
public struct FFmpegError: PracticeFailure {
  public let category: FailureCategory
  /// FFmpeg's error number (negative), 0 when the failure was found without an FFmpeg call.
  public let code: Int32
  public let reason: String
  public let path: String
  public let operation: String
  /// What the user can do about it.
  public let advice: String
  /// FFmpeg's libraries could not be loaded: the advice is to install them.
  public let notLoaded: Bool

  public init(
    category: FailureCategory, code: Int32 = 0, reason: String, path: String,
    operation: String, advice: String, notLoaded: Bool = false
  ) {
    self.notLoaded = notLoaded
    self.category = category
    self.code = code
    self.reason = reason
    self.path = path
    self.operation = operation
    self.advice = advice
  }

  /// Builds an error from an FFmpeg return code, with FFmpeg's own message for it.
  init(code: Int32, path: String, operation: String, category: FailureCategory, advice: String) {
    self.init(
      category: category, code: code, reason: FFmpegError.message(code), path: path,
      operation: operation, advice: advice)
  }

  /// FFmpeg's message for an error code (`av_strerror`).
  static func message(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    return buffer.withUnsafeMutableBufferPointer {
      String(cString: practice_av_strerror(code, $0.baseAddress, $0.count))
    }
  }

  public var description: String {
    let library = code != 0 ? " (FFmpeg error \(code))" : ""
    return "cannot \(operation) '\(path)': \(reason)\(library); \(advice)"
  }
}

/// FFmpeg's decoder (libavformat + libavcodec + libswresample) for every container
/// libsndfile refuses: M4A/MP4/MOV (AAC, ALAC), WebM/Matroska (Opus, Vorbis), raw AAC and
/// AC-3, WMA, and the sound track of a video file (of several, the one marked default, as
/// `av_find_best_stream` and the `ffmpeg` command pick it).
///
/// Output is interleaved 32-bit float at the stream's own rate. Mono stays mono; every
/// other layout comes out as stereo. Layouts beyond stereo are mixed down by
/// libswresample's default matrix (ITU-R BS.775: front left and right as they are, centre
/// and each surround at -3 dB into its side(s), LFE dropped), each output's gains then
/// scaled to sum to 1 so the mix cannot clip.
///
/// Sample-exact: libavcodec removes the encoder's priming and end padding that the
/// container declares (`AV_PKT_DATA_SKIP_SAMPLES` side data, which the MP4 demuxer makes
/// from the edit list and the Matroska one from CodecDelay/DiscardPadding), so frame 0 is
/// the first frame the encoder was given. Positions come from the decoded frames'
/// timestamps against the first frame's; a seek starts from a packet before the target
/// (with a preroll, so the decoder's overlap state is rebuilt) and decodes and discards up
/// to the exact frame.
final class FFmpegDecoder: AudioDecoder {
  let path: String
  private(set) var info: SoundFileInfo
  private(set) var lastError: String?
  /// The length the container declares for the audio, when `info.frames` was instead
  /// measured by decoding to the end (Matroska); nil when `info.frames` is the declared one.
  private(set) var declaredFrames: Int64?

  private var format: UnsafeMutablePointer<AVFormatContext>?  // owned; avformat_close_input
  private var codec: UnsafeMutablePointer<AVCodecContext>?  // owned; avcodec_free_context
  /// The stream's codec parameters (owned by `format`) and its decoder, to open it afresh.
  private var codecParameters: UnsafeMutablePointer<AVCodecParameters>?
  private var avDecoder: UnsafePointer<AVCodec>?
  private var converter: FrameConverter?  // owned; made for the first frame
  private var packet: UnsafeMutablePointer<AVPacket>?  // owned; av_packet_free
  private var frame: UnsafeMutablePointer<AVFrame>?  // owned; av_frame_free
  private var streamIndex: Int32 = -1
  private var timeBase = AVRational(num: 1, den: 1)
  private var outChannels = 2
  private var sampleRate = 0

  /// Decoded, converted frames not yet returned: `pending[pendingStart ..< pendingEnd]`,
  /// interleaved, in frames.
  private var pending: [Float] = []
  private var pendingStart = 0
  private var pendingEnd = 0
  /// The source frame of `pending[pendingStart]` (the next frame `read` returns).
  private var position: Int64 = 0
  /// The first decoded frame's timestamp in samples: frame 0.
  private var origin: Int64 = 0
  private var originKnown = false
  /// The first packet's skip-samples side data (the priming), if it had one.
  private var startSkip: [UInt8]?
  /// Set by a seek to the start: the next packet gets `startSkip` if it has none.
  private var reapplyStartSkip = false
  /// Set when the first frame after a seek had no timestamp to place it by.
  private var positionUnknown = false
  /// Set by a seek to the start: the next decoded frame is frame 0.
  private var startPending = false
  /// For timestamps coarser than a sample (Matroska's milliseconds), the grid frames
  /// start on: Opus frames are multiples of 2.5 ms after its priming, Vorbis's of 64
  /// samples. 0: timestamps are exact.
  private var snapGrid: Int64 = 0
  private var snapOffset: Int64 = 0
  /// Set after a seek: the next decoded frame's position comes from its timestamp.
  private var needsPosition = true
  /// A raw stream whose timestamps are rounded to a clock that is not a multiple of the
  /// sample rate (AC-3 at 90 kHz): they drift from the true frame, so a seek decodes from
  /// the start instead of landing by timestamp.
  private var seeksByDecoding = false
  private var pump = CodecPump()
  /// An Ogg stream's packets, made at its first seek: each packet's timestamp (as the
  /// container has it) and where its audio starts counted by the durations of the packets
  /// before it (in samples, on the first packet's timeline). An Ogg muxer writes a page's
  /// granule position from the timestamps it was given, jitter and all (`ffmpeg -i song.ogg
  /// song.opus` writes pages up to 500 samples off the audio they hold), and the demuxer
  /// stamps a page's packets back from its granule, while a decode from the start counts
  /// samples; so a seek places its first frame by the count, where a decode from the start
  /// has it.
  private var oggPackets: [(pts: Int64, start: Int64)]?
  /// An Ogg stream's last page (its byte position) and the timestamp of a packet on a page
  /// before it, found when the packets were counted (see `seekContainer`).
  private var oggLastPage: (pos: Int64, earlier: Int64)?
  /// The byte position of the packet of the first frame decoded after a seek.
  private var landedPage: Int64 = -1
  /// Per Ogg page (by its byte position): the counted start of a packet on it minus its
  /// timestamp in samples. The page's second and later packets are stamped from its granule
  /// however the page is reached; the first, read on from the page before, is stamped on
  /// from there, and after a seek from the granule: the same correction holds for it then.
  private var pageCorrection: [Int64: Int64] = [:]
  private var isOgg = false
  private var isMP3 = false
  /// MP3: where each packet that is an ID3v2 tag lay on the packets' timeline, and its
  /// length (in samples), found when the packets were counted. Such a packet holds no audio
  /// (see `isTag`) and is not decoded, so a frame after it starts that much earlier than
  /// its timestamp says, as in a decode from the start.
  private var tagSlots: [(start: Int64, samples: Int64)] = []

  /// Frames before a seek target the decoder is fed, so its overlap and prediction state
  /// is rebuilt before the target: more than AAC's one frame and Opus's 80 ms.
  private var prerollFrames: Int64 { Int64(max(8192, sampleRate / 5)) }
  /// How far ahead a seek just decodes forward instead of seeking in the container.
  private var forwardLimit: Int64 { Int64(max(16384, sampleRate / 2)) }

  private static let quiet: Void = practice_av_log_quiet()

  /// Opens `path` (named in errors), or `url` instead when given (a `subfile` range of it).
  init(path: String, url: String? = nil) throws {
    if let reason = practice_ffmpeg_load_error() {
      throw FFmpegError(
        category: .badData,
        reason: "FFmpeg's libraries cannot be loaded (\(String(cString: reason)))",
        path: path, operation: "read audio from",
        advice: "install libavformat, libavcodec and libswresample (`make deps`)", notLoaded: true)
    }
    _ = FFmpegDecoder.quiet
    self.path = path
    info = SoundFileInfo(
      frames: 0, sampleRate: 0, channels: 0, format: 0, formatName: "", bitDepth: 16,
      title: nil, artist: nil, album: nil)
    // `deinit` frees whatever was built if a step below throws.
    var format: UnsafeMutablePointer<AVFormatContext>?
    try check(avformat_open_input(&format, url ?? path, nil, nil), "open")
    self.format = format
    try check(avformat_find_stream_info(format, nil), "read the streams of")
    guard let format else { throw failure("open", "FFmpeg returned no context") }

    // The audio stream libavformat picks (`av_find_best_stream`: the one marked default,
    // as ffmpeg and players take it, else the first; a video file's sound track); every
    // other stream is skipped.
    let best = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
    guard best >= 0, Int(best) < Int(format.pointee.nb_streams),
      let stream = format.pointee.streams[Int(best)]
    else {
      throw failure(
        "read audio from", "it holds no audio stream", advice: "is it a video without sound?")
    }
    streamIndex = best
    for i in 0..<Int(format.pointee.nb_streams) where i != Int(best) {
      format.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL
    }
    guard let parameters = stream.pointee.codecpar else {
      throw failure("read audio from", "the audio stream has no codec parameters")
    }
    timeBase = stream.pointee.time_base
    guard let decoder = avcodec_find_decoder(parameters.pointee.codec_id) else {
      let name = String(cString: avcodec_get_name(parameters.pointee.codec_id))
      throw failure("decode", "FFmpeg has no decoder for \(name) audio")
    }
    codecParameters = parameters
    avDecoder = decoder
    isOgg = format.pointee.iformat.map { String(cString: $0.pointee.name) == "ogg" } ?? false
    isMP3 = parameters.pointee.codec_id == AV_CODEC_ID_MP3
    try openCodec()
    guard let codec else { throw failure("decode", "out of memory (avcodec_alloc_context3)") }
    sampleRate = Int(codec.pointee.sample_rate)
    let inChannels = Int(codec.pointee.ch_layout.nb_channels)
    guard sampleRate > 0, inChannels > 0 else {
      throw failure("read audio from", "the audio stream reports no channels or no sample rate")
    }
    outChannels = inChannels == 1 ? 1 : 2
    packet = av_packet_alloc()
    frame = av_frame_alloc()
    guard packet != nil, frame != nil else {
      throw failure("decode", "out of memory (av_frame_alloc)")
    }

    // Frame 0 is the first decoded frame, after the decoder removed the priming.
    guard try decodeFrame() else {
      throw failure("decode", lastError ?? "the audio stream holds no decodable audio")
    }
    if startSkip == nil, parameters.pointee.initial_padding > 0 {
      // Priming declared on the stream, not on its first packet (Matroska's CodecDelay):
      // the same skip in the side data's layout (LE32 start, LE32 end, two reasons).
      let skip = UInt32(parameters.pointee.initial_padding)
      startSkip = (0..<4).map { UInt8(truncatingIfNeeded: skip >> (8 * $0)) } + [0, 0, 0, 0, 0, 0]
    }
    // Where a frame lands after a seek comes from its timestamp, which may be coarser than
    // a sample (Matroska's milliseconds) or carry a muxer's jitter (uneven `stts`
    // durations): it is snapped to the codec's frame grid, which continuous decoding
    // (and ffmpeg's own) follows. Codecs whose frames vary are snapped only when the
    // timestamps are coarse: Opus on its 2.5 ms, Vorbis on 64 samples.
    let coarse = Int64(timeBase.num) * Int64(sampleRate) > Int64(timeBase.den)
    switch parameters.pointee.codec_id {
    case AV_CODEC_ID_OPUS where coarse: snapGrid = Int64(sampleRate / 400)
    case AV_CODEC_ID_VORBIS where coarse: snapGrid = 64
    case AV_CODEC_ID_AAC:
      let profile = parameters.pointee.profile
      snapGrid = profile == 4 || profile == 28 ? 2048 : profile <= 3 ? 1024 : 0  // HE: SBR doubles
    case AV_CODEC_ID_AC3: snapGrid = 1536
    case AV_CODEC_ID_EAC3: snapGrid = 256
    case AV_CODEC_ID_MP3, AV_CODEC_ID_MP2: snapGrid = 576
    case AV_CODEC_ID_WMAV1, AV_CODEC_ID_WMAV2:
      // ASF stamps in milliseconds; WMA's frames are all one length (2048 at 44.1 kHz).
      snapGrid = Int64(codec.pointee.frame_size > 0 ? Int(codec.pointee.frame_size) : pendingEnd)
    default: snapGrid = 0
    }
    if snapGrid > 0 {
      let skip =
        startSkip.map { bytes in
          bytes.count >= 4
            ? Int64(bytes[0]) | Int64(bytes[1]) << 8 | Int64(bytes[2]) << 16 | Int64(bytes[3]) << 24
            : 0
        } ?? 0
      snapOffset = ((-skip % snapGrid) + snapGrid) % snapGrid
    }
    let bits = Int(parameters.pointee.bits_per_raw_sample)
    info = SoundFileInfo(
      frames: try totalFrames(format: format, stream: stream), sampleRate: sampleRate,
      channels: outChannels, format: 0,
      formatName: FFmpegDecoder.formatName(format, decoder),
      bitDepth: bits > 24 ? 32 : bits > 16 ? 24 : 16,
      title: FFmpegDecoder.tag("title", format, stream),
      artist: FFmpegDecoder.tag("artist", format, stream),
      album: FFmpegDecoder.tag("album", format, stream))
  }

  deinit {
    av_frame_free(&frame)
    av_packet_free(&packet)
    avcodec_free_context(&codec)
    avformat_close_input(&format)
  }

  func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
    var done = 0
    while done < frames, position < info.frames {
      if pendingEnd == pendingStart {
        let decoded: Bool
        do { decoded = try decodeFrame() } catch {
          lastError = "\(error)"
          decoded = false
        }
        // The end of what decodes, wherever the declared length is: never padded.
        if !decoded { break }
        continue
      }
      let n = min(frames - done, pendingEnd - pendingStart, Int(info.frames - position))
      pending.withUnsafeBufferPointer {
        (buffer + done * outChannels).update(
          from: $0.baseAddress! + pendingStart * outChannels, count: n * outChannels)
      }
      pendingStart += n
      done += n
      position += Int64(n)
    }
    return done
  }

  func seek(to target: Int64) throws {
    guard target >= 0, target <= info.frames else {
      throw failure(
        "seek to frame \(target) in", "the file has \(info.frames) frames", category: .io)
    }
    if seeksByDecoding {
      if target < position { try seekContainer(to: -1) }
    } else if target < position || target - position > forwardLimit {
      // Near the start, from the very first packet: the priming is removed again.
      do {
        try seekContainer(to: target - prerollFrames > 0 ? target - prerollFrames : -1)
      } catch {
        // A stream that cannot seek to a time (raw, with no index there yet) is decoded
        // from its start.
        try seekContainer(to: -1)
      }
      // Landed late, or on a frame without a timestamp: decode from the start.
      if position > target || positionUnknown { try seekContainer(to: -1) }
    }
    try discard(upTo: target)
  }

  /// Decodes and discards up to the exact frame `target`.
  private func discard(upTo target: Int64) throws {
    while position < target {
      if pendingEnd == pendingStart {
        guard try decodeFrame() else {
          // A target within a rounding (20 ms) of a length that the decode stopped short of
          // lands there: a read from it gives nothing, which the player reports.
          if target <= info.frames, target - position <= Int64(sampleRate / 50) {
            position = target
            return
          }
          throw failure(
            "seek to frame \(target) in", lastError ?? "the audio ends at frame \(position)",
            category: .badData)
        }
        continue
      }
      let skip = Int(min(Int64(pendingEnd - pendingStart), target - position))
      pendingStart += skip
      position += Int64(skip)
    }
  }

  /// Seeks the container to the packet at or before source frame `frame` (-1: the very
  /// start), flushes the decoder and decodes the first frame there, which sets `position`.
  private func seekContainer(to frame: Int64) throws {
    if frame >= 0, isOgg, oggPackets == nil { try countOggPackets() }
    var ts =
      frame < 0
      ? Int64.min / 4
      : av_rescale_q(frame + origin, AVRational(num: 1, den: Int32(sampleRate)), timeBase)
    if frame >= 0, let packets = oggPackets, !packets.isEmpty {
      // The last packet whose counted start is at or before the frame: seek to its stamp.
      var (lo, hi) = (0, packets.count - 1)
      while lo < hi {
        let mid = (lo + hi + 1) / 2
        if packets[mid].start <= frame + origin { lo = mid } else { hi = mid - 1 }
      }
      ts = packets[lo].pts
    }
    try seekAndDecode(frame, ts)
    // Ogg: the packets of the page a seek lands on are stamped back from its granule
    // position, which on the last page the end trimming shortens: there they came out
    // later than a decode from the start has them, by up to the trimmed part (3,072
    // samples in a 6 s Vorbis: a range in its last half second played earlier audio). A
    // seek that lands on the last page is made again from the page before, and decodes on.
    guard frame >= 0, let last = oggLastPage, landedPage == last.pos else { return }
    try seekAndDecode(frame, last.earlier)
    if landedPage == last.pos { positionUnknown = true }  // `seek` decodes from the start
  }

  /// Seeks the container to timestamp `ts` (the start when `frame` is -1), flushes the
  /// decoder and decodes the first frame there, which sets `position`.
  private func seekAndDecode(_ frame: Int64, _ ts: Int64) throws {
    landedPage = -1
    var sought = avformat_seek_file(format, streamIndex, Int64.min, ts, ts, AVSEEK_FLAG_BACKWARD)
    if sought < 0, frame < 0, let stream = format?.pointee.streams[Int(streamIndex)] {
      // A demuxer that seeks in its own index only, to an entry at or before the time asked
      // (TTA, WavPack): its first packet's time, the stream's start.
      let start = stream.pointee.start_time
      let first = start != practice_av_nopts_value() ? start : 0
      sought = avformat_seek_file(format, streamIndex, Int64.min, first, first, 0)
    }
    if sought < 0, frame < 0 {
      // A raw stream (ADTS AAC, AC-3) seeks only within the index built as it was read,
      // which holds no entry before its first packet: its start is its first byte.
      sought = avformat_seek_file(format, -1, 0, 0, 0, AVSEEK_FLAG_BYTE)
    }
    try check(sought, "seek to frame \(max(0, frame)) in", category: .badData)
    if frame < 0 {
      // From the start, a decoder as new as at opening: its random state too (AAC's noise
      // substitution, AC-3's dither), so a decode from the start is ffmpeg's, sample for sample.
      try openCodec()
    } else {
      avcodec_flush_buffers(codec)
    }
    reapplyStartSkip = frame < 0
    positionUnknown = false
    startPending = frame < 0 && originKnown
    pendingStart = 0
    pendingEnd = 0
    pump.reset()
    needsPosition = true
    guard try decodeFrame() else {
      throw failure(
        "seek to frame \(frame) in", lastError ?? "no audio after the seek", category: .io)
    }
  }

  /// Decodes the next frame of the stream into `pending`; false at the end of the stream.
  private func decodeFrame() throws -> Bool {
    guard let format, let codec, let packet, let frame else { return false }
    let decoded = try pump.nextFrame(
      codec, frame, noteError: { lastError = $0 }, feed: { try send(format, codec, packet) })
    guard decoded else { return false }
    defer { av_frame_unref(frame) }
    try convert(frame)
    return true
  }

  /// Reads the stream's next packet and sends it to libavcodec: `avcodec_send_packet`'s
  /// status, or nil at the end of the file; throws if the file cannot be read.
  private func send(
    _ format: UnsafeMutablePointer<AVFormatContext>,
    _ codec: UnsafeMutablePointer<AVCodecContext>, _ packet: UnsafeMutablePointer<AVPacket>
  ) throws -> Int32? {
    while true {
      let status = av_read_frame(format, packet)
      if status == practice_averror_eof() { return nil }
      if status < 0 {
        lastError = FFmpegError.message(status)
        throw FFmpegError(
          code: status, path: path, operation: "read audio from", category: .io,
          advice: "the file may be truncated or damaged")
      }
      defer { av_packet_unref(packet) }
      if packet.pointee.stream_index != streamIndex || isTag(packet) { continue }
      try keepStartSkip(packet)
      return avcodec_send_packet(codec, packet)
    }
  }

  /// Whether an MP3 stream's packet is an ID3v2 tag ("ID3" first), not audio. libavformat's
  /// MP3 reader takes a tag only at the start of the file; in MP3s joined with `cat`, each
  /// with its tag (as `ffmpeg -i x.wav x.mp3` writes them), the second tag comes out as a
  /// packet (with the Info frame behind it) that the decoder refuses ("Header missing") and
  /// `ffmpeg -i` decodes to nothing, while its timestamp slot stays on the timeline.
  private func isTag(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
    guard isMP3, packet.pointee.size >= 3, let data = packet.pointee.data else { return false }
    return data[0] == 0x49 && data[1] == 0x44 && data[2] == 0x33
  }

  /// Notes the priming the container declared on the stream's first packet
  /// (`AV_PKT_DATA_SKIP_SAMPLES`), and puts it back on the first packet after a seek to
  /// the start, where some demuxers (Matroska) do not declare it again.
  private func keepStartSkip(_ packet: UnsafeMutablePointer<AVPacket>) throws {
    if !originKnown, startSkip == nil {
      var size = 0
      if let data = av_packet_get_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, &size), size > 0 {
        startSkip = Array(UnsafeBufferPointer(start: data, count: size))
      }
    } else if reapplyStartSkip {
      reapplyStartSkip = false
      var size = 0
      guard let startSkip, av_packet_get_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, &size) == nil
      else { return }
      guard let data = av_packet_new_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, startSkip.count)
      else { throw failure("decode", "out of memory (av_packet_new_side_data)") }
      data.update(from: startSkip, count: startSkip.count)
    }
  }

  /// Reads every packet of an Ogg stream once (demuxing only) to make `oggPackets`; the
  /// next seek moves the container where it has to be. No index when a packet has no
  /// timestamp or duration: positions then come from the timestamps.
  private func countOggPackets() throws {
    guard let format, let packet else { return }
    let rate = AVRational(num: 1, den: Int32(sampleRate))
    let nopts = practice_av_nopts_value()
    try check(
      avformat_seek_file(format, streamIndex, Int64.min, Int64.min / 4, Int64.min / 4, 0),
      "seek to the start of", category: .io)
    var packets: [(pts: Int64, start: Int64)] = []
    var pages: [(pos: Int64, pts: Int64)] = []  // each page's first packet
    var next: Int64?
    var complete = true
    var stoppedEarly = false
    var page: Int64 = -1
    var corrections: [Int64: Int64] = [:]
    while av_read_frame(format, packet) >= 0 {
      defer { av_packet_unref(packet) }
      guard packet.pointee.stream_index == streamIndex else { continue }
      guard packet.pointee.pts != nopts, packet.pointee.duration > 0 else {
        complete = false
        stoppedEarly = true
        break
      }
      let start = next ?? av_rescale_q(packet.pointee.pts, timeBase, rate)
      packets.append((packet.pointee.pts, start))
      if packet.pointee.pos != page { pages.append((packet.pointee.pos, packet.pointee.pts)) }
      next = start + av_rescale_q(packet.pointee.duration, timeBase, rate)
      if packet.pointee.pos >= 0, packet.pointee.pos == page {
        corrections[page] = start - av_rescale_q(packet.pointee.pts, timeBase, rate)
      }
      page = packet.pointee.pos
    }
    if !stoppedEarly, pages.count >= 2 {
      oggLastPage = (pages[pages.count - 1].pos, pages[pages.count - 2].pts)
    }
    // Only Opus packets' durations are exact (each packet's TOC says it). libavformat's
    // Vorbis durations fall short of the pages' granule positions now and then (448 samples
    // at a time, as libvorbis writes 5.1 and stereo alike: 50,000 short over 30 s), so a
    // seek by the count landed late (1.1 s) and the length measured near the end came out
    // short (28.9 s of 30). Vorbis positions come from the timestamps; and an Opus count
    // that drifts further from them than a muxer's jitter (a few hundred samples) is not used.
    let opus = codecParameters?.pointee.codec_id == AV_CODEC_ID_OPUS
    let drift = packets.lazy.map { abs($0.start - av_rescale_q($0.pts, self.timeBase, rate)) }
    if !opus || drift.contains(where: { $0 > Int64(self.sampleRate / 10) }) { complete = false }
    oggPackets = complete ? packets : []
    pageCorrection = complete ? corrections : [:]
  }

  /// Converts a decoded frame to interleaved float with `outChannels` channels in
  /// `pending`, and places it: from its timestamp after a seek, else right after the last.
  private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws {
    let converter =
      self.converter ?? FrameConverter(outChannels: outChannels, sampleRate: sampleRate)
    self.converter = converter
    let converted: Int
    do { converted = try converter.convert(frame, into: &pending) } catch let failed
      as FrameConverter.Failure
    {
      try check(failed.code, failed.operation, category: .badData)
      throw failure(failed.operation, "FFmpeg error \(failed.code)")
    }
    pendingStart = 0
    pendingEnd = Int(converted)
    if needsPosition, reapplyStartSkip || startPending {
      // The first frame after a seek to the very start, priming removed: frame 0.
      position = 0
      startPending = false
      needsPosition = false
    } else if needsPosition {
      var pts = frame.pointee.pts
      if pts == practice_av_nopts_value() { pts = frame.pointee.best_effort_timestamp }
      landedPage = frame.pointee.pkt_pos
      if pts == practice_av_nopts_value(), originKnown { positionUnknown = true }
      var samples =
        pts == practice_av_nopts_value()
        ? 0 : av_rescale_q(pts, timeBase, AVRational(num: 1, den: Int32(sampleRate)))
      if originKnown, frame.pointee.pkt_pos >= 0,
        let correction = pageCorrection[frame.pointee.pkt_pos]
      {
        samples += correction  // Ogg: where the count from the start puts it
      }
      let stamped = samples
      for slot in tagSlots where slot.start < stamped { samples -= slot.samples }  // MP3
      if !originKnown {
        origin = samples  // the first frame of the stream: frame 0
        originKnown = true
      }
      position = samples - origin
      if snapGrid > 0 {
        // Timestamps coarser than a sample: the frame starts on the codec's frame grid.
        let offset = position - snapOffset
        let rounded = (offset + (offset >= 0 ? snapGrid / 2 : -snapGrid / 2)) / snapGrid
        position = rounded * snapGrid + snapOffset
      }
      needsPosition = false
    }
  }

  /// The stream's length in frames, from frame 0: the stream's own duration (the MP4
  /// edit list's); when the container has none for the stream (Matroska, whose segment
  /// duration also covers a longer video), the end of the last frame decoded near the
  /// end; when the container only guesses it from the bit rate (raw AAC, AC-3), the
  /// packets' durations counted to the end (demuxing only).
  private func totalFrames(
    format: UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>
  ) throws -> Int64 {
    let rate = AVRational(num: 1, den: Int32(sampleRate))
    let nopts = practice_av_nopts_value()
    let codecID = codecParameters?.pointee.codec_id
    let wma = codecID == AV_CODEC_ID_WMAV1 || codecID == AV_CODEC_ID_WMAV2
    var duration = stream.pointee.duration
    let guessed = format.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
    if wma, guessed || duration <= 0,
      let stated = FFmpegDecoder.asfPlayMilliseconds(path)
    {
      // libavformat drops the ASF header's length when the file is not the size the header
      // states (by 5 % or more: a download or copy cut short) and guesses one from the bit
      // rate; the header's is still what the file declares, and what decodes is measured.
      duration = av_rescale_q(stated, AVRational(num: 1, den: 1000), timeBase)
    }
    if !guessed || (wma && duration != stream.pointee.duration) {
      if duration != nopts, duration > 0 {
        let start = stream.pointee.start_time != nopts ? stream.pointee.start_time : 0
        let end = av_rescale_q(start + duration, timeBase, rate)
        // The decoded start may lie after the stream's start (priming removed).
        let declared = max(0, end - max(origin, av_rescale_q(start, timeBase, rate)))
        if isOgg {
          // Ogg states no length: libavformat's comes from the last page's granule position
          // (for Opus after a start offset, `-output_ts_offset 1`, the end time rather than
          // the length, a second too long). What decodes near it is the length, and nothing
          // is declared: a cut Ogg plays what there is, as ffmpeg does.
          return try measuredEnd(near: declared)
        }
        guard wma else { return declared }
        // WMA's decoder holds its first packet back and says nothing of it (no skip
        // samples), so its first frame is stamped a packet late and the ASF header's length,
        // counted from there, ends a packet before what decodes (`ffmpeg -i` decodes it
        // all): the end is found by decoding, and the header's length is what it declares.
        declaredFrames = declared
        return try measuredEnd(near: declared)
      }
      if format.pointee.duration != nopts, format.pointee.duration > 0 {
        let estimate = av_rescale_q(
          format.pointee.duration, AVRational(num: 1, den: 1_000_000), rate)
        declaredFrames = declaredLength(format: format, stream: stream, estimate: estimate)
        return try measuredEnd(near: estimate)
      }
    }
    // Count the packets.
    guard let packet else { return 0 }
    seeksByDecoding = timeBase.num != 1 || Int64(timeBase.den) % Int64(sampleRate) != 0
    var end: Int64 = origin
    var sum: Int64 = 0
    while av_read_frame(format, packet) >= 0 {
      if packet.pointee.stream_index == streamIndex, isTag(packet) {
        // Not audio: its slot is taken off the timeline (`tagSlots`).
        if packet.pointee.pts != nopts {
          tagSlots.append(
            (av_rescale_q(packet.pointee.pts, timeBase, rate),
             av_rescale_q(packet.pointee.duration, timeBase, rate)))
        }
      } else if packet.pointee.stream_index == streamIndex {
        sum += av_rescale_q(packet.pointee.duration, timeBase, rate)
        if packet.pointee.pts != nopts {
          end = max(
            end, av_rescale_q(packet.pointee.pts + packet.pointee.duration, timeBase, rate))
        }
      }
      av_packet_unref(packet)
    }
    try rewind()
    end -= tagSlots.reduce(0) { $0 + $1.samples }
    return max(0, end > origin ? end - origin : sum)
  }

  /// Where the decoded audio ends, decoding from 2 s (else 30 s) before `estimate`, else
  /// from the start; the read position is left at frame 0.
  private func measuredEnd(near estimate: Int64) throws -> Int64 {
    for back in [Int64(2), 30] {
      if let end = try decodedEnd(from: estimate - back * Int64(sampleRate)) {
        try rewind()
        return end
      }
    }
    let end = try decodedEnd(from: -1) ?? 0
    try rewind()
    return end
  }

  /// What the container says the audio's length is, from frame 0: the track's own
  /// `DURATION` tag (Matroska writes one per track), else the file's duration when the
  /// audio is its only stream; nil when neither says (a video's length is not its sound's).
  private func declaredLength(
    format: UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>,
    estimate: Int64
  ) -> Int64? {
    let nopts = practice_av_nopts_value()
    let start =
      stream.pointee.start_time != nopts
      ? av_rescale_q(stream.pointee.start_time, timeBase, AVRational(num: 1, den: Int32(sampleRate)))
      : 0
    // Both are end times on the stream's timeline: before frame 0 lie a start offset
    // (`-output_ts_offset 1`) and the priming the decoder removed.
    let lead = max(0, start) + max(0, origin - start)
    if let entry = av_dict_get(stream.pointee.metadata, "DURATION", nil, 0),
      let value = entry.pointee.value
    {
      // "HH:MM:SS.nnnnnnnnn"
      let parts = String(cString: value).split(separator: ":")
      // A tag no length can come from (`nan:00:00`, `1e300:00:00`) is passed over.
      if parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]),
        let sec = Double(parts[2]),
        let frames = Int64(nearest: (h * 3600 + m * 60 + sec) * Double(sampleRate)),
        (-Int64.max / 2...Int64.max / 2).contains(frames)
      {
        return max(0, frames - lead)
      }
    }
    guard format.pointee.nb_streams == 1 else { return nil }
    return max(0, estimate - lead)
  }

  /// Opens the stream's decoder (`avcodec_open2`), replacing the one there was.
  private func openCodec() throws {
    avcodec_free_context(&codec)
    guard let avDecoder, let codecParameters else { return }
    codec = avcodec_alloc_context3(avDecoder)
    guard let codec else { throw failure("decode", "out of memory (avcodec_alloc_context3)") }
    try check(avcodec_parameters_to_context(codec, codecParameters), "set up the decoder for")
    codec.pointee.pkt_timebase = timeBase
    try check(avcodec_open2(codec, avDecoder, nil), "open the decoder for")
  }

  /// Back to frame 0, as after opening.
  private func rewind() throws {
    try seekContainer(to: -1)
    try discard(upTo: 0)
  }

  /// Where the decoded audio ends, decoding from about `frame` (-1: the start) to the end;
  /// nil if no audio was decoded from there (a seek past the end of the sound track).
  private func decodedEnd(from frame: Int64) throws -> Int64? {
    let start = frame > 0 ? frame : -1
    do { try seekContainer(to: start) } catch { return nil }
    if start > 0, position > start + Int64(sampleRate) { return nil }  // no packet near there
    var end = position + Int64(pendingEnd - pendingStart)
    while true {
      position = end
      pendingStart = pendingEnd
      guard try decodeFrame() else { break }
      end = position + Int64(pendingEnd - pendingStart)
    }
    return end
  }

  /// The length an ASF (WMA) file's header states, in milliseconds: its File Properties
  /// object's play duration (100 ns units) less the preroll, as libavformat takes it when
  /// it trusts the header; nil without that object or for a broadcast (flag bit 0: no valid
  /// durations). Read here because libavformat keeps it only when the file is the size the
  /// header states, and a file cut short is not.
  static func asfPlayMilliseconds(_ path: String) -> Int64? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard let head = try? handle.read(upToCount: 1 << 16).map({ [UInt8]($0) }) else { return nil }
    // The Header Object's GUID, and the File Properties Object's (ASF 1.2, 3.1 and 3.2).
    let header: [UInt8] = [
      0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11,
      0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C,
    ]
    let properties: [UInt8] = [
      0xA1, 0xDC, 0xAB, 0x8C, 0x47, 0xA9, 0xCF, 0x11,
      0x8E, 0xE4, 0x00, 0xC0, 0x0C, 0x20, 0x53, 0x65,
    ]
    func little(_ at: Int, _ count: Int) -> UInt64? {
      guard at >= 0, at + count <= head.count else { return nil }
      return (0..<count).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64(head[at + $1]) }
    }
    guard head.count >= 30, Array(head[0..<16]) == header else { return nil }
    var at = 30  // GUID, size (8), object count (4), two reserved bytes
    while at + 24 <= head.count {
      guard let size = little(at + 16, 8), size >= 24, size < UInt64(Int.max / 2) else {
        return nil
      }
      if Array(head[at..<(at + 16)]) == properties {
        // After the GUID and size: file ID (16), file size, creation date, packet count,
        // play duration, send duration, preroll (ms), flags (4).
        guard let play = little(at + 64, 8), let preroll = little(at + 80, 8),
          let flags = little(at + 88, 4), flags & 1 == 0, play / 10_000 > preroll
        else { return nil }
        return Int64(play / 10_000) - Int64(preroll)
      }
      at += Int(size)
    }
    return nil
  }

  private static func tag(
    _ key: String, _ format: UnsafeMutablePointer<AVFormatContext>,
    _ stream: UnsafeMutablePointer<AVStream>
  ) -> String? {
    for dictionary in [format.pointee.metadata, stream.pointee.metadata] {
      guard let entry = av_dict_get(dictionary, key, nil, 0), let value = entry.pointee.value
      else { continue }
      let text = String(cString: value).trimmingCharacters(in: .whitespacesAndNewlines)
      if !text.isEmpty { return text }
    }
    return nil
  }

  private static func formatName(
    _ format: UnsafeMutablePointer<AVFormatContext>, _ decoder: UnsafePointer<AVCodec>
  ) -> String {
    let container = format.pointee.iformat?.pointee.long_name.map { String(cString: $0) }
    let codec = decoder.pointee.long_name.map { String(cString: $0) }
    return [container, codec].compactMap { $0 }.joined(separator: ", ")
  }

  private func check(
    _ status: Int32, _ operation: String, category: FailureCategory = .badData
  ) throws {
    guard status < 0 else { return }
    throw FFmpegError(
      code: status, path: path, operation: operation, category: category,
      advice: category == .io
        ? "the file may be truncated or damaged"
        : "is it an audio or video file FFmpeg can decode?")
  }

  private func failure(
    _ operation: String, _ reason: String, category: FailureCategory = .badData,
    advice: String = "is it an audio or video file FFmpeg can decode?"
  ) -> FFmpegError {
    FFmpegError(
      category: category, reason: reason, path: path, operation: operation, advice: advice)
  }
}
