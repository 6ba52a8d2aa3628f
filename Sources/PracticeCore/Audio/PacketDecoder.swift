import CFAAD
import CFAADLoader
import CFFmpeg
import CFFmpegLoader
import COpus
import Foundation

/// The codecs the hand-written demuxers hand to a decoder: AAC-LC in mono or stereo to
/// libfaad2, other AAC and ALAC to libavcodec, Opus to libopus.
enum PacketCodec: Sendable {
  case aac, alac, opus
}

/// What a demuxer found: the codec and its setup, where the song lies in the track's
/// samples (`priming` samples are dropped from the start, the song is `frames` long) and
/// the tags.
struct PacketStream {
  var codec: PacketCodec
  var sampleRate: Int
  var channels: Int
  var bitDepth: Int
  var extradata: [UInt8]
  var priming: Int64
  var frames: Int64
  var containerName: String
  var title: String?
  var artist: String?
  var album: String?
  /// Output gain in dB, Q7.8 (OpusHead's), applied by the decoder.
  var gain: Int16 = 0
}

/// One compressed packet: its first sample in the track (at the sample rate), its length,
/// and its size in bytes (the bytes are in the caller's buffer).
struct Packet {
  var time: Int64
  var duration: Int64
  var size: Int
}

/// A hand-written demuxer, as `PacketDecoder` uses it.
protocol PacketSource: AnyObject {
  var stream: PacketStream { get }
  /// The next `nextPacket` is the last packet starting at or before track sample `time`.
  func seek(toPacketAtOrBefore time: Int64)
  /// Reads the next packet into `buffer`; nil at the end; throws when the file ends inside
  /// a packet or is damaged.
  func nextPacket(into buffer: inout [UInt8]) throws -> Packet?
}

/// A small codec library (libopus for Opus, libfaad2 for AAC-LC) or libavcodec (with
/// libswresample for the sample format and the mix-down), fed by a hand-written demuxer,
/// without libavformat.
///
/// Why not libavcodec for everything: Debian's libavcodec brings 96 shared libraries,
/// ~25 ms of start and ~15 MiB of mapped pages. libsndfile has loaded libopus already (for
/// Ogg Opus), and libfaad2 needs only libc and libm.
///
/// Output and guarantees as `FFmpegDecoder`'s: interleaved float at the track's rate, mono
/// as mono and everything else as stereo (same mix-down rule), priming and end padding
/// removed by the demuxer's numbers, exact seeks (from a packet at least `preroll` before
/// the target, decoding and discarding up to it). Positions come from the packets' own
/// sample times, so no timestamp rounding is involved.
final class PacketDecoder: AudioDecoder {
  let path: String
  let info: SoundFileInfo
  private(set) var lastError: String?

  private let source: any PacketSource  // owned
  private let priming: Int64
  private var codec: UnsafeMutablePointer<AVCodecContext>?  // owned; avcodec_free_context
  private var converter: FrameConverter?  // owned; made for the first libavcodec frame
  private var packet: UnsafeMutablePointer<AVPacket>?  // owned; av_packet_free
  private var frame: UnsafeMutablePointer<AVFrame>?  // owned; av_frame_free
  private var direct: (any WholePacketDecoder)?  // owned; libopus or libfaad2
  private let outChannels: Int
  private let sampleRate: Int

  private var packetBytes: [UInt8] = []
  /// Decoded frames: `pending[0 ..< pendingCount]` interleaved, the first being song frame
  /// `pendingFirst` (negative inside the priming).
  private var pending: [Float] = []
  private var pendingCount = 0
  private var pendingFirst: Int64 = Int64.min / 4
  /// Song frame of the next decoded frame when the decoder gives no timestamp.
  private var nextFirst: Int64 = Int64.min / 4
  /// The next frame `read` returns.
  private var position: Int64 = 0
  /// libavcodec's send/receive state; its `endOfStream` serves the direct decoders too.
  private var pump = CodecPump()

  /// Samples before a seek target the decoder is fed from (AAC needs one frame; more is
  /// cheap and covers long ALAC packets).
  private var preroll: Int64 { Int64(max(8192, sampleRate / 5)) }
  private var forwardLimit: Int64 { Int64(max(16384, sampleRate / 2)) }

  private static let quiet: Void = practice_av_log_quiet()

  /// Opens `source`'s stream with libavcodec and decodes its first packet; throws
  /// `DemuxError.declined` if libavcodec cannot (the caller then tries libavformat).
  init(path: String, source: any PacketSource) throws {
    self.path = path
    self.source = source
    let stream = source.stream
    priming = stream.priming
    sampleRate = stream.sampleRate
    outChannels = stream.channels == 1 ? 1 : 2
    var decoder: UnsafePointer<AVCodec>?
    var codecName: String?
    if stream.codec == .opus {
      direct = try OpusPacketDecoder(stream)
      codecName = "Opus"
    } else if stream.codec == .aac, let faad = try? FAADPacketDecoder(stream) {
      direct = faad
      codecName = "AAC (Advanced Audio Coding)"
    } else {
      if let reason = practice_ffmpeg_codec_load_error() {
        throw DemuxError.declined("libavcodec cannot be loaded: \(String(cString: reason))")
      }
      _ = PacketDecoder.quiet
      decoder = avcodec_find_decoder(stream.codec == .aac ? AV_CODEC_ID_AAC : AV_CODEC_ID_ALAC)
      guard let decoder else { throw DemuxError.declined("libavcodec has no decoder for it") }
      codecName = decoder.pointee.long_name.map { String(cString: $0) }
    }
    info = SoundFileInfo(
      frames: stream.frames, sampleRate: stream.sampleRate, channels: outChannels, format: 0,
      formatName: [stream.containerName, codecName].compactMap { $0 }.joined(separator: ", "),
      bitDepth: stream.bitDepth > 24 ? 32 : stream.bitDepth > 16 ? 24 : 16,
      title: stream.title, artist: stream.artist, album: stream.album)
    // `deinit` frees whatever was built if a step below throws.
    guard let decoder else {
      // One packet decoded, to know the decoder takes the stream as described.
      source.seek(toPacketAtOrBefore: 0)
      guard try decodeNext() else {
        throw DemuxError.declined(lastError ?? "the first packets do not decode")
      }
      position = 0
      return
    }
    codec = avcodec_alloc_context3(decoder)
    packet = av_packet_alloc()
    frame = av_frame_alloc()
    guard let codec, packet != nil, frame != nil else {
      throw DemuxError.declined("out of memory (avcodec_alloc_context3)")
    }
    codec.pointee.sample_rate = Int32(stream.sampleRate)
    av_channel_layout_default(&codec.pointee.ch_layout, Int32(stream.channels))
    codec.pointee.pkt_timebase = AVRational(num: 1, den: Int32(stream.sampleRate))
    if !stream.extradata.isEmpty {
      // libavcodec frees it with the context; it wants zeroed padding after the bytes.
      let size = stream.extradata.count
      guard let bytes = av_mallocz(size + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
        throw DemuxError.declined("out of memory (av_mallocz)")
      }
      bytes.copyMemory(from: stream.extradata, byteCount: size)
      codec.pointee.extradata = bytes.assumingMemoryBound(to: UInt8.self)
      codec.pointee.extradata_size = Int32(size)
    }
    guard avcodec_open2(codec, decoder, nil) >= 0 else {
      throw DemuxError.declined("libavcodec cannot open the stream")
    }
    // One packet decoded, to know libavcodec takes the stream as the demuxer described it.
    // It is kept, not decoded again after a flush: a whole-file decode is then a fresh
    // decoder's from the first packet, bit for bit what libavformat's path gives.
    source.seek(toPacketAtOrBefore: 0)
    guard try decodeNext(), let decoded = converter?.inputRate, Int(decoded) == stream.sampleRate
    else {
      throw DemuxError.declined(lastError ?? "the first packet does not decode as described")
    }
    position = 0
  }

  deinit {
    av_frame_free(&frame)
    av_packet_free(&packet)
    avcodec_free_context(&codec)
  }

  func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
    var done = 0
    while done < frames, position < info.frames {
      if pendingFirst + Int64(pendingCount) <= position {
        let decoded: Bool
        do { decoded = try decodeNext() } catch {
          lastError = "\(error)"
          decoded = false
        }
        if !decoded { break }
        continue
      }
      let want = min(Int64(frames - done), info.frames - position)
      if pendingFirst > position {
        // A packet that did not decode: the audio is readable only up to here (the caller
        // reports how far, with `lastError`), as with FFmpeg's own demuxer.
        if lastError == nil { lastError = "a packet at frame \(position) does not decode" }
        break
      }
      let offset = Int(position - pendingFirst)
      let n = Int(min(want, Int64(pendingCount - offset)))
      pending.withUnsafeBufferPointer {
        (buffer + done * outChannels).update(
          from: $0.baseAddress! + offset * outChannels, count: n * outChannels)
      }
      done += n
      position += Int64(n)
    }
    return done
  }

  func seek(to target: Int64) throws {
    guard target >= 0, target <= info.frames else {
      throw SoundFileError(
        category: .io, reason: "the file has \(info.frames) frames", path: path,
        operation: "seek to frame \(target) in", advice: "the file may be truncated or damaged")
    }
    let decodedEnd = pendingFirst + Int64(pendingCount)
    if target < pendingFirst || target - decodedEnd > forwardLimit || pump.endOfStream {
      try restart(at: target)
    }
    position = target
    // Decode up to the target, so that a seek past the decodable audio fails here.
    while pendingFirst + Int64(pendingCount) <= position, position < info.frames {
      guard try decodeNext() else {
        throw SoundFileError(
          category: .badData, reason: lastError ?? "the audio ends before frame \(target)",
          path: path, operation: "seek to frame \(target) in",
          advice: "the file may be truncated or damaged")
      }
    }
  }

  /// Flushes the decoder and starts again from the packet at or before `preroll` samples
  /// before song frame `frame` (the very first packet for a frame near the start, as when
  /// the whole file is decoded, so the two decode the same packets alike).
  private func restart(at frame: Int64) throws {
    if let direct {
      try direct.reset()
    } else if let codec {
      avcodec_flush_buffers(codec)
    }
    source.seek(toPacketAtOrBefore: max(0, frame + priming - preroll))
    pendingCount = 0
    pendingFirst = Int64.min / 4
    nextFirst = Int64.min / 4
    pump.reset()
    position = max(0, frame)
  }

  /// Decodes the next frame into `pending`; false at the end of the stream.
  private func decodeNext() throws -> Bool {
    if let direct { return decodeNextDirect(direct) }
    guard let codec, let packet, let frame else { return false }
    let decoded = pump.nextFrame(
      codec, frame, noteError: { lastError = $0 }, feed: { send(codec, packet) })
    guard decoded else { return false }
    defer { av_frame_unref(frame) }
    try convert(frame)
    return true
  }

  /// Sends the demuxer's next packet to libavcodec: `avcodec_send_packet`'s status, or nil
  /// when there are no more.
  private func send(
    _ codec: UnsafeMutablePointer<AVCodecContext>, _ packet: UnsafeMutablePointer<AVPacket>
  ) -> Int32? {
    let next: Packet?
    do { next = try source.nextPacket(into: &packetBytes) } catch {
      lastError = "\(error)"
      next = nil
    }
    guard let next else { return nil }
    if nextFirst == Int64.min / 4 { nextFirst = next.time - priming }
    // libavcodec copies the bytes (the packet is not reference-counted) into a padded
    // buffer of its own.
    let sent = packetBytes.withUnsafeMutableBufferPointer { bytes -> Int32 in
      packet.pointee.data = bytes.baseAddress
      packet.pointee.size = Int32(next.size)
      packet.pointee.pts = next.time
      packet.pointee.dts = next.time
      packet.pointee.duration = next.duration
      defer {
        packet.pointee.data = nil
        packet.pointee.size = 0
      }
      return avcodec_send_packet(codec, packet)
    }
    if sent < 0, sent != practice_averror_eagain() {
      nextFirst = next.time + next.duration - priming
    }
    return sent
  }

  /// Decodes the next packet that gives frames into `pending`; false at the end.
  private func decodeNextDirect(_ decoder: any WholePacketDecoder) -> Bool {
    while !pump.endOfStream {
      let next: Packet?
      do { next = try source.nextPacket(into: &packetBytes) } catch {
        lastError = "\(error)"
        next = nil
      }
      guard let next else {
        pump.endOfStream = true
        break
      }
      let decoded: Int
      do { decoded = try decoder.decode(&packetBytes, next.size, into: &pending) } catch {
        // A damaged packet: noted, and decoding goes on with the next one.
        lastError = "\(error)"
        continue
      }
      if decoded == 0 { continue }  // libfaad2's first packet after opening
      pendingFirst = next.time - priming
      pendingCount = decoded
      nextFirst = pendingFirst + Int64(pendingCount)
      return true
    }
    return false
  }

  /// Converts a decoded frame into `pending` and places it by its timestamp.
  private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws {
    let converter =
      self.converter ?? FrameConverter(outChannels: outChannels, sampleRate: sampleRate)
    self.converter = converter
    let converted: Int
    do { converted = try converter.convert(frame, into: &pending) } catch let failed
      as FrameConverter.Failure
    { throw failure(failed.code, failed.operation) }
    let pts = frame.pointee.pts
    pendingFirst = pts == practice_av_nopts_value() ? nextFirst : pts - priming
    pendingCount = converted
    nextFirst = pendingFirst + Int64(pendingCount)
  }

  private func failure(_ code: Int32, _ operation: String) -> FFmpegError {
    FFmpegError(
      code: code, path: path, operation: operation, category: .badData,
      advice: "the file may be damaged")
  }
}

/// A decoder that turns each packet into its frames at once (libopus, libfaad2).
protocol WholePacketDecoder: AnyObject {
  /// Decodes the first `size` bytes of `bytes` into `out` (grown if needed), interleaved
  /// float with the stream's channels; returns the frames. Throws for a damaged packet.
  func decode(_ bytes: inout [UInt8], _ size: Int, into out: inout [Float]) throws -> Int
  /// Back to the state before the first packet.
  func reset() throws
}

/// libopus's decoder for a one- or two-channel stream (the demuxer checked).
final class OpusPacketDecoder: WholePacketDecoder {
  private let handle: OpaquePointer  // owned OpusDecoder; opus_decoder_destroy
  private let channels: Int
  /// The most frames an Opus packet holds (120 ms at 48 kHz).
  private static let maxFrames = 5760

  init(_ stream: PacketStream) throws {
    var status: Int32 = 0
    channels = stream.channels
    guard let handle = opus_decoder_create(Int32(stream.sampleRate), Int32(channels), &status),
      status == OPUS_OK
    else { throw DemuxError.declined("libopus cannot open the stream (\(opusMessage(status)))") }
    self.handle = handle
    if stream.gain != 0 { _ = practice_opus_set_gain(handle, Int32(stream.gain)) }
  }

  deinit { opus_decoder_destroy(handle) }

  /// `opus_decode_float`.
  func decode(_ bytes: inout [UInt8], _ size: Int, into out: inout [Float]) throws -> Int {
    let capacity = OpusPacketDecoder.maxFrames
    if out.count < capacity * channels { out = [Float](repeating: 0, count: capacity * channels) }
    let decoded = bytes.withUnsafeBufferPointer { input in
      out.withUnsafeMutableBufferPointer { output in
        opus_decode_float(
          handle, input.baseAddress, Int32(size), output.baseAddress!, Int32(capacity), 0)
      }
    }
    guard decoded >= 0 else { throw DemuxError.malformed("Opus: \(opusMessage(decoded))") }
    return Int(decoded)
  }

  /// `OPUS_RESET_STATE`.
  func reset() { _ = practice_opus_reset(handle) }
}

/// libfaad2's decoder for AAC-LC in mono or stereo, 1024 samples a frame; declines
/// anything else (HE-AAC, more channels), which goes to libavcodec.
///
/// libfaad2 gives no output for the first packet after opening (its overlap is not yet
/// complete), then each packet's own frames: placed by packet time, nothing is shifted.
/// The first packet is always priming (an encoder's delay is at least one frame).
final class FAADPacketDecoder: WholePacketDecoder {
  private var handle: NeAACDecHandle?  // owned; NeAACDecClose
  private var config: [UInt8]
  private let channels: Int
  private let sampleRate: Int

  init(_ stream: PacketStream) throws {
    if let reason = practice_faad_load_error() {
      throw DemuxError.declined("libfaad2 cannot be loaded: \(String(cString: reason))")
    }
    config = stream.extradata
    channels = stream.channels
    sampleRate = stream.sampleRate
    var asc = mp4AudioSpecificConfig()
    let parsed = config.withUnsafeMutableBufferPointer {
      NeAACDecAudioSpecificConfig($0.baseAddress, UInt($0.count), &asc)
    }
    guard parsed == 0, asc.objectTypeIndex == 2, asc.sbr_present_flag != 1,
      asc.frameLengthFlag == 0, channels == 1 || channels == 2,
      Int(asc.channelsConfiguration) == channels
    else { throw DemuxError.declined("not AAC-LC in mono or stereo") }
    try open()
  }

  deinit { if let handle { NeAACDecClose(handle) } }

  private func open() throws {
    guard let handle = NeAACDecOpen() else { throw DemuxError.declined("NeAACDecOpen failed") }
    self.handle = handle
    if let settings = NeAACDecGetCurrentConfiguration(handle) {
      settings.pointee.outputFormat = UInt8(FAAD_FMT_FLOAT)
      settings.pointee.downMatrix = 0
      settings.pointee.dontUpSampleImplicitSBR = 1
      _ = NeAACDecSetConfiguration(handle, settings)
    }
    var rate: UInt = 0
    var count: UInt8 = 0
    let status = config.withUnsafeMutableBufferPointer {
      NeAACDecInit2(handle, $0.baseAddress, UInt($0.count), &rate, &count)
    }
    guard status == 0, Int(rate) == sampleRate, Int(count) == channels else {
      throw DemuxError.declined("libfaad2 reads the stream as \(count) channels at \(rate) Hz")
    }
  }

  /// Room for the largest frame libfaad2 can give here: 2048 samples (implicit SBR) on two
  /// channels (parametric stereo makes two of one).
  private static let outputCapacity = 2048 * 2

  /// `NeAACDecDecode2`, which writes the samples straight into `out`.
  func decode(_ bytes: inout [UInt8], _ size: Int, into out: inout [Float]) throws -> Int {
    guard let handle else { throw DemuxError.malformed("libfaad2 is not open") }
    let capacity = FAADPacketDecoder.outputCapacity
    if out.count < capacity { out = [Float](repeating: 0, count: capacity) }
    var frame = NeAACDecFrameInfo()
    bytes.withUnsafeMutableBufferPointer { input in
      out.withUnsafeMutableBytes { output in
        var samples: UnsafeMutableRawPointer? = output.baseAddress
        _ = NeAACDecDecode2(
          handle, &frame, input.baseAddress, UInt(size), &samples, UInt(output.count))
      }
    }
    guard frame.error == 0 else {
      throw DemuxError.malformed("AAC: \(String(cString: NeAACDecGetErrorMessage(frame.error)))")
    }
    guard frame.samples > 0 else { return 0 }
    guard Int(frame.channels) == channels, Int(frame.samplerate) == sampleRate else {
      throw DemuxError.malformed(
        "AAC: a frame of \(frame.channels) channels at \(frame.samplerate) Hz")
    }
    return Int(frame.samples) / channels
  }

  /// Closed and opened again: the next packet is a first packet, as after opening.
  func reset() throws {
    if let handle { NeAACDecClose(handle) }
    handle = nil
    try open()
  }
}

/// libopus's message for an error code (`opus_strerror`).
private func opusMessage(_ code: Int32) -> String { String(cString: opus_strerror(code)) }
