import CSndFile
import Foundation

/// What a sound file is: its shape and its tags, read once when it is opened.
public struct SoundFileInfo: Sendable, Equatable {
  public var frames: Int64
  public var sampleRate: Int
  public var channels: Int
  /// libsndfile's format word (major type | subtype); 0 for files FFmpeg decodes.
  public var format: Int32
  /// Human-readable container and encoding, e.g. "FLAC (Free Lossless Audio Codec), Signed 16 bit PCM".
  public var formatName: String
  /// Bits per sample of the source encoding, for picking an output encoding that loses
  /// nothing (16 for lossy codecs).
  public var bitDepth: Int
  public var title: String?
  public var artist: String?
  public var album: String?

  public var duration: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
}

/// One decoding library behind the `SoundFile` facade: libsndfile or FFmpeg.
///
/// A decoder gives interleaved 32-bit floats at the stream's native rate, frame 0 being
/// the first frame the encoder was given (priming and padding removed), and seeks to the
/// exact frame. One owner, one thread at a time.
public protocol AudioDecoder: AnyObject {
  /// Shape and tags, read when the decoder was opened.
  var info: SoundFileInfo { get }
  /// Moves the read position to `frame`, exactly.
  func seek(to frame: Int64) throws
  /// Reads up to `frames` interleaved frames; fewer only at the end of the decodable audio.
  func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int
  /// The library's message for the last decoding error, if there was one.
  var lastError: String? { get }
  /// The length the container declares, when `info.frames` is instead what was found to
  /// decode (FFmpeg measures a Matroska file's end by decoding it); nil when they are one.
  var declaredFrames: Int64? { get }
  /// Why the audio holds less than declared, when the decoder knows (a chained Ogg file's
  /// links at another sample rate); nil when it does not.
  var shortfall: String? { get }
}

extension AudioDecoder {
  var declaredFrames: Int64? { nil }
  var shortfall: String? { nil }
}

/// A sound file open for reading, decoded to interleaved 32-bit floats, whichever library
/// decodes it: libsndfile first (WAV, AIFF, FLAC, Ogg, MP3), then FFmpeg (libavformat's
/// demuxers, libavcodec's decoders) for every container libsndfile refuses: M4A/MP4/MOV,
/// WebM/Matroska, raw AAC and AC-3, WMA, the sound track of a video.
///
/// `info.frames` is the length the file declares until it is known better: `measureLength()`
/// (at `add`) checks it against what decodes, and `trustDecodedLength(_:)` (at play) takes
/// the length measured then. A file that decodes to less than it declares is cut short or
/// damaged (`endsEarly`): it plays what there is, and the player says so.
///
/// One owner, one thread at a time: the playback feeder reads it on its own thread.
public final class SoundFile {
  public let path: String
  /// Shape and tags; `frames` is what decodes once it is known (see above). Set before the
  /// file is handed to a player's thread, then not changed.
  public private(set) var info: SoundFileInfo
  /// The length the file itself declares (its header, its container's index).
  public let declaredFrames: Int64
  /// Owned; replaced by a fresh one after a failed look at the file's end (`measureLength`).
  private var decoder: any AudioDecoder

  /// Opens `path`, checking first for the common ways a path is not an audio file.
  /// Frames a library made before practice read the audio on an Ogg Vorbis file's headers'
  /// page (libsndfile skipped it: 0.36 s of a released soundtrack) does not know of: what
  /// the file at `path` decodes now beyond `storedFrames`, the length stored then. Its
  /// beat map, chords and selections in times sit that much early. nil for any other file,
  /// or one measured as it decodes now.
  public static func framesMissedAtStart(path: String, storedFrames: Int64) -> Int64? {
    guard OggLinks.audioOnHeaderPage(PathBytes.usable(path)),
      let file = try? SoundFile(path: path), file.info.frames > storedFrames
    else { return nil }
    return file.info.frames - storedFrames
  }

  public init(path: String) throws {
    try SoundFile.checkReadable(path)
    self.path = path
    decoder = try SoundFile.openDecoder(path)
    var info = decoder.info
    guard SoundFile.plausibleRates.contains(info.sampleRate) else {
      // A damaged header (an ALAC box saying 2 Hz): nothing downstream could use it.
      throw SoundFileError(
        category: .badData,
        reason: "it says its sample rate is \(info.sampleRate) Hz, which no audio has",
        path: path, operation: "read audio from", advice: "the file is damaged")
    }
    if info.frames > SoundFile.longestPlausible(sampleRate: info.sampleRate) {
      // libsndfile's "length unknown" (SF_COUNT_MAX: an Ogg file cut short, as by an
      // interrupted download), or a header's nonsense: count what decodes.
      info.frames = try SoundFile.countFrames(decoder, path: path)
    }
    self.info = info
    declaredFrames = max(info.frames, decoder.declaredFrames ?? info.frames)
  }

  /// libsndfile's decoder for `path`, else FFmpeg's; an error naming both if neither reads it.
  private static func openDecoder(_ path: String) throws -> any AudioDecoder {
    // A name that is not UTF-8 is opened through its descriptor (PathBytes).
    let reachable = PathBytes.usable(path)
    // Ogg streams one after another (`cat a.ogg b.ogg`): libsndfile would play the first
    // only, and libavformat reads them as one stream whose timestamps start again.
    let links = OggLinks.ranges(reachable)
    if links.count > 1, let chain = try? ChainedOggDecoder(path: reachable, ranges: links) {
      return chain
    }
    do {
      let sndfile = try SndFileDecoder(path: reachable)
      let format = sndfile.info.format
      let mpegGuess =
        format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_MPEG)
        && SoundFile.mpegLengthIsAGuess(reachable)
      let opus = format & Int32(SF_FORMAT_SUBMASK) == Int32(SF_FORMAT_OPUS)
      let surround = sndfile.info.channels > 2
      let noFrames = sndfile.info.frames == 0
      let vorbisAudioOnHeaderPage =
        format & Int32(SF_FORMAT_SUBMASK) == Int32(SF_FORMAT_VORBIS)
        && OggLinks.audioOnHeaderPage(reachable)
      if mpegGuess || opus || surround || noFrames || vorbisAudioOnHeaderPage,
        let ffmpeg = try? FFmpegDecoder(path: reachable)
      {
        // An MP3 without a Xing, Info or VBRI header: libsndfile's length is a guess from
        // the first frame's bit rate (3.1 s for 6 s of VBR audio), and it reads no further.
        // FFmpeg counts its packets and seeks in the index that count builds.
        // Ogg Opus: libsndfile 1.2.0 drops a 20 ms packet now and then in files as plain
        // `ffmpeg -i song.ogg song.opus` writes them (10 of 12 soundtracks, a failed read
        // each time), so the music after it comes 20 ms early and a player that takes the
        // failed read for the end stops there. FFmpeg decodes every packet.
        // More than two channels (5.1 WAV, FLAC, AIFF, Ogg Vorbis): libsndfile gives them all,
        // in the file's order and with no layout (Vorbis's L, C, R, Ls, Rs, LFE put the centre
        // in the right's place), so a render wrote six channels and a play sent six to the
        // device. FFmpeg knows the layout (a WAV's channel mask, FLAC's and Vorbis's fixed
        // orders; the default one for the count where none is given, as `ffmpeg -ac 2` takes
        // it) and mixes it to stereo with libswresample's matrix (`FrameConverter`): one
        // downmix for every surround file, whichever container it came in.
        // No frames by the header: a WAV whose recorder stopped before it wrote the data
        // size (0), or one written to a pipe; FFmpeg reads such a data chunk to the end of
        // the file, as `ffmpeg -i` plays it. A header with truly nothing after it stays
        // libsndfile's (FFmpeg finds nothing to decode there).
        // Ogg Vorbis whose first audio shares the page its headers end on: libsndfile starts
        // after that page (`OggLinks.audioOnHeaderPage`), FFmpeg at the first frame.
        return ffmpeg
      }
      return sndfile
    } catch let sndfileError as SoundFileError where sndfileError.category == .badData {
      do {
        return try FFmpegDecoder(path: reachable)
      } catch let ffmpegError as FFmpegError {
        let sndfileReason = sndfileError.reason.trimmingCharacters(
          in: CharacterSet(charactersIn: ". "))
        // At open, a read that fails part-way means the data is not audio FFmpeg can use.
        let category = ffmpegError.category == .io ? .badData : ffmpegError.category
        if category == .badData, !ffmpegError.notLoaded, let kind = SoundFile.notSound(path) {
          // Neither library reads it, and its first bytes say what it is: say that.
          throw SoundFileError(
            category: .badData, reason: "it is \(kind.what), not recorded sound", path: path,
            operation: "read audio from", advice: kind.advice)
        }
        if category == .badData, !ffmpegError.notLoaded, SoundFile.looksLikeMPEGAudio(path) {
          // libsndfile's words for an MPEG stream libmpg123 cannot open ("File does not
          // exist or is not a regular file") are wrong here: the file is there.
          throw SoundFileError(
            category: .badData,
            reason: "not a readable MP3 stream (FFmpeg: \(ffmpegError.reason))",
            path: path, operation: "read audio from",
            advice: "the file is damaged or is not MP3 audio")
        }
        if category == .badData, !ffmpegError.notLoaded, SoundFile.isMP4(path) {
          // MP4 writes its index (the moov box) last unless told otherwise (`ffmpeg -i
          // x.wav x.m4a` does): a copy or download cut short has the audio and no index.
          throw SoundFileError(
            category: .badData,
            reason: "an MP4/M4A file whose index (moov box) is missing or damaged "
              + "(FFmpeg: \(ffmpegError.reason))",
            path: path, operation: "read audio from",
            advice: "the file was cut short or damaged; copy or download it again")
        }
        throw SoundFileError(
          category: category,
          reason: "libsndfile: \(sndfileReason); FFmpeg: \(ffmpegError.reason)",
          path: path, operation: "read audio from",
          advice: category == .badData && !ffmpegError.notLoaded
            ? "is it an audio file (WAV, AIFF, FLAC, Ogg, MP3, M4A, WebM, or a video with sound)?"
            : ffmpegError.advice)
      }
    }
  }

  /// Why the audio ends before the length the file declares, when the decoder knows.
  public var shortfall: String? { decoder.shortfall }

  /// Whether the audio ends before the length the file declares by more than a rounding
  /// (a container's length in milliseconds): the file is cut short or damaged.
  public var endsEarly: Bool {
    declaredFrames - info.frames > SoundFile.roundingSlack(sampleRate: info.sampleRate)
  }

  /// The most a declared length may exceed the decoded one and still be a rounding: 20 ms
  /// (Matroska's lengths are in milliseconds).
  static func roundingSlack(sampleRate: Int) -> Int64 { Int64(sampleRate / 50) }

  /// Takes `frames` (the decoded length measured when the song was added) as the length,
  /// when it is shorter than the declared one; positions past it are past the end. A
  /// length shorter by more than a rounding is checked first: if audio decodes past it (it
  /// was stored by an older version, or by another decoder), it is not taken. The read
  /// position is left at frame 0.
  public func trustDecodedLength(_ frames: Int64) throws {
    guard frames >= 0, frames < info.frames else { return }
    let slack = SoundFile.roundingSlack(sampleRate: info.sampleRate)
    if info.frames - frames > slack {
      let past = (try? framesReadable(from: frames, upTo: slack + 1)) ?? 0
      // A decoder that failed a seek may not read again (libsndfile's FLAC): a fresh one.
      decoder = try SoundFile.openDecoder(path)
      if past > slack { return }
    }
    info.frames = frames
  }

  /// The length in frames that decodes, taken as `info.frames`. Cheap when the declared
  /// length holds: the last half second before it is decoded and must reach it. When it
  /// does not (a file cut short, a header that guesses), the file is decoded once from the
  /// start and counted; `progress` hears the fraction of the declared length read then.
  /// A file whose length is exact by construction (PCM in WAV, AIFF, CAF: libsndfile
  /// counts the data there is) is not decoded. The read position is left at frame 0.
  @discardableResult
  public func measureLength(progress: (Double) -> Void = { _ in }) throws -> Int64 {
    if let sndfile = decoder as? SndFileDecoder, sndfile.lengthIsExact { return info.frames }
    let declared = info.frames
    let tail = min(declared, Int64(info.sampleRate) / 2)
    if tail > 0, let read = try? framesReadable(from: declared - tail, upTo: tail), read == tail {
      try decoder.seek(to: 0)
      return declared
    }
    // A decoder that failed a seek may not seek again (libsndfile's FLAC): a fresh one.
    decoder = try SoundFile.openDecoder(path)
    let counted = try SoundFile.countFrames(
      decoder, path: path, expected: declared, progress: progress, rewind: false)
    info.frames = min(counted, declared)
    // One that read to a damaged end may not seek back (libsndfile's FLAC): a fresh one.
    decoder = try SoundFile.openDecoder(path)
    return info.frames
  }

  /// How many of `count` frames from `start` decode (up to the first short read).
  private func framesReadable(from start: Int64, upTo count: Int64) throws -> Int64 {
    try decoder.seek(to: start)
    let block = 16_384
    var scratch = [Float](repeating: 0, count: block * info.channels)
    var total: Int64 = 0
    while total < count {
      let wanted = Int(min(Int64(block), count - total))
      let n = scratch.withUnsafeMutableBufferPointer {
        decoder.read(into: $0.baseAddress!, frames: wanted)
      }
      if n <= 0 { break }
      total += Int64(n)
      if n < wanted { break }
    }
    return total
  }

  /// The sample rates a file of audio can have: below the lowest any format is used at
  /// (telephone speech, 8 kHz) up to twice 768 kHz studio masters.
  static let plausibleRates = 1000...1_536_000

  /// More frames than 100 hours hold: a length no file of music reports honestly.
  static func longestPlausible(sampleRate: Int) -> Int64 { Int64(sampleRate) * 100 * 3600 }

  /// The frames `decoder` gives from the start to where it stops, read through once; the
  /// read position is left at frame 0. `progress` hears the fraction of `expected` read.
  private static func countFrames(
    _ decoder: any AudioDecoder, path: String, expected: Int64 = 0,
    progress: (Double) -> Void = { _ in }, rewind: Bool = true
  ) throws -> Int64 {
    try decoder.seek(to: 0)
    let block = 65_536
    var scratch = [Float](repeating: 0, count: block * decoder.info.channels)
    var total: Int64 = 0
    while true {
      let n = scratch.withUnsafeMutableBufferPointer {
        decoder.read(into: $0.baseAddress!, frames: block)
      }
      if n <= 0 { break }
      total += Int64(n)
      if expected > 0 { progress(min(1, Double(total) / Double(expected))) }
      guard total <= longestPlausible(sampleRate: decoder.info.sampleRate) else {
        throw SoundFileError(
          category: .badData, reason: "it decodes to more than 100 hours of audio",
          path: path, operation: "read audio from", advice: "the file is damaged")
      }
    }
    if rewind { try decoder.seek(to: 0) }
    return total
  }

  /// Moves the read position to `frame`, exactly (`sf_seek`, or FFmpeg's seek and decode).
  public func seek(to frame: Int64) throws { try decoder.seek(to: frame) }

  /// Reads up to `frames` interleaved frames into `buffer`; returns how many were read,
  /// fewer only at the end of the decodable audio. Samples that are not numbers (NaN or
  /// infinite: a glitch in a float file) read as silence; passed on, they would turn
  /// everything after them in the time stretcher into full-scale noise, and the
  /// analysis's running sums into NaN.
  public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
    let n = decoder.read(into: buffer, frames: frames)
    for i in 0..<(max(0, n) * info.channels) where !buffer[i].isFinite { buffer[i] = 0 }
    return n
  }

  /// The decoding library's message for the last error on this file, if there was one.
  public var lastError: String? { decoder.lastError }

  /// Whether an MPEG audio file's length can only be guessed: its first frame (after the
  /// ID3v2 tags, which taggers sometimes stack) carries no Xing, Info or VBRI header, which
  /// is where encoders write the frame count of a variable bit rate stream (and LAME its
  /// gapless delays); or its Xing/Info header counts the bytes of a shorter stream than
  /// the file holds (`cat a.mp3 b.mp3 > both.mp3`: the count is the first file's, and
  /// libsndfile stops there). The size check is FFmpeg's own ("invalid concatenated file",
  /// more than 1/16 larger than the header says); FFmpeg then decodes every frame.
  static func mpegLengthIsAGuess(_ path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    guard let fileSize = try? handle.seekToEnd() else { return false }
    var start: UInt64 = 0
    while true {  // skip every ID3v2 tag ("ID3", version, flags, a syncsafe size)
      guard (try? handle.seek(toOffset: start)) != nil,
        let head = try? handle.read(upToCount: 10).map({ [UInt8]($0) }), head.count == 10
      else { return false }
      guard head[0] == 0x49, head[1] == 0x44, head[2] == 0x33 else { break }
      let size = head[6...9].reduce(UInt64(0)) { $0 << 7 | UInt64($1 & 0x7F) }
      start += 10 + size + (head[5] & 0x10 != 0 ? 10 : 0)
    }
    guard (try? handle.seek(toOffset: start)) != nil,
      let head = try? handle.read(upToCount: 4096).map({ [UInt8]($0) })
    else { return false }
    // The first frame sync, then the tags within the frame's first 200 bytes.
    guard let sync = head.indices.dropLast().first(where: { head[$0] == 0xFF && head[$0 + 1] & 0xE0 == 0xE0 })
    else { return false }
    let window = Array(head[sync..<min(head.count, sync + 200)])
    func word(_ at: Int) -> UInt64? {
      guard at + 4 <= window.count else { return nil }
      return window[at..<(at + 4)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
    for tag in ["Xing", "Info", "VBRI"].map({ Array($0.utf8) }) {
      guard
        let at = window.indices.first(where: { i in
          i + 4 <= window.count && Array(window[i..<(i + 4)]) == tag
        })
      else { continue }
      // Xing/Info: big-endian flags, then the frame count (flag 1), then the byte count
      // (flag 2) of the stream from this frame on.
      if tag != Array("VBRI".utf8), let flags = word(at + 4), flags & 2 != 0,
        let bytes = word(at + 4 + (flags & 1 != 0 ? 8 : 4)), bytes > 0
      {
        let stream = fileSize - start - UInt64(sync)
        return stream > bytes && stream - bytes > bytes >> 4
      }
      return false
    }
    return true
  }

  /// Whether the file claims to be MPEG audio: an `.mp3`/`.mp2`/`.mpga` name, an ID3v2 tag
  /// at the start, or an MPEG audio frame sync (11 set bits, and a layer) as its first bytes.
  static func looksLikeMPEGAudio(_ path: String) -> Bool {
    let name = (path as NSString).pathExtension.lowercased()
    if ["mp3", "mp2", "mp1", "mpga", "mpa"].contains(name) { return true }
    guard let handle = FileHandle(forReadingAtPath: PathBytes.usable(path)) else { return false }
    defer { try? handle.close() }
    let head = [UInt8]((try? handle.read(upToCount: 3)) ?? Data())
    guard head.count == 3 else { return false }
    // Layer bits 00 are reserved in MPEG audio: that sync is an ADTS (AAC) header.
    return head == Array("ID3".utf8)
      || (head[0] == 0xFF && head[1] & 0xE0 == 0xE0 && head[1] & 0x06 != 0)
  }

  /// What a file that is not sound is, by its first bytes (a MIDI file, a picture, a
  /// document, an archive), with what to do; nil for anything else.
  static func notSound(_ path: String) -> (what: String, advice: String)? {
    guard let handle = FileHandle(forReadingAtPath: PathBytes.usable(path)) else { return nil }
    defer { try? handle.close() }
    let head = [UInt8]((try? handle.read(upToCount: 8)) ?? Data())
    func starts(_ magic: [UInt8]) -> Bool { head.count >= magic.count && Array(head.prefix(magic.count)) == magic }
    let other = "give the path of an audio file (WAV, AIFF, FLAC, Ogg, MP3, M4A, WebM, or a video with sound)"
    if starts(Array("MThd".utf8)) {
      return ("a MIDI file (notes for a synthesizer)",
        "render it to audio first (e.g. `fluidsynth -F song.wav SOUNDFONT.sf2 song.mid`), then add that")
    }
    if starts(Array("%PDF".utf8)) { return ("a PDF document", other) }
    if starts([0x89, 0x50, 0x4E, 0x47]) { return ("a PNG image", other) }
    if starts([0xFF, 0xD8, 0xFF]) { return ("a JPEG image", other) }
    if starts(Array("GIF8".utf8)) { return ("a GIF image", other) }
    if starts([0x50, 0x4B, 0x03, 0x04]) { return ("a ZIP archive", "unpack it, then " + other) }
    return nil
  }

  /// Whether the file starts as an ISO base media file (MP4, M4A, MOV, 3GP): a box whose
  /// type is `ftyp` first.
  static func isMP4(_ path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: PathBytes.usable(path)) else { return false }
    defer { try? handle.close() }
    let head = [UInt8]((try? handle.read(upToCount: 8)) ?? Data())
    return head.count == 8 && Array(head[4..<8]) == Array("ftyp".utf8)
  }

  /// Turns a missing, unreadable, empty path or a directory into a clear error before
  /// a library gives a vaguer one; `wanted` names the kind of file the advice asks for.
  static func checkReadable(_ path: String, wanted: String = "an audio file") throws {
    // One stat(2) answers all but readability.
    let reachable = PathBytes.usable(path)
    var status = stat()
    if stat(reachable, &status) != 0 {
      if errno == EACCES {
        throw SoundFileError(
          category: .missingInput,
          reason: "permission denied (a directory on the way cannot be searched)",
          path: path, operation: "open",
          advice: "make the directories on the path searchable (chmod +x)")
      }
      throw SoundFileError(
        category: .missingInput, reason: "no such file", path: path, operation: "open",
        advice: "check the path")
    }
    if status.st_mode & S_IFMT == S_IFDIR {
      throw SoundFileError(
        category: .missingInput, reason: "it is a directory", path: path, operation: "open",
        advice: "give the path of \(wanted)")
    }
    guard access(reachable, R_OK) == 0 else {
      throw SoundFileError(
        category: .missingInput, reason: "permission denied", path: path, operation: "open",
        advice: "make the file readable (chmod +r)")
    }
    // A fifo or a device is refused here rather than blocking a decoder (or reading
    // /dev/zero for ever).
    let kind = status.st_mode & S_IFMT
    if kind != S_IFREG {
      let what =
        kind == S_IFIFO ? "a named pipe (FIFO)" : kind == S_IFSOCK ? "a socket" : "a device"
      throw SoundFileError(
        category: .badData, reason: "it is \(what), not a file", path: path,
        operation: "read audio from",
        advice: "give the path of \(wanted) (practice reads files, not streams)")
    }
    if status.st_size == 0 {
      throw SoundFileError(
        category: .badData, reason: "the file is empty (0 bytes)", path: path,
        operation: "read audio from", advice: "the file is damaged or was not fully copied")
    }
  }
}

/// libsndfile's decoder (`sf_open`): WAV, AIFF, FLAC, Ogg Vorbis/Opus, MP3.
final class SndFileDecoder: AudioDecoder {
  let path: String
  let info: SoundFileInfo
  private let handle: OpaquePointer  // owned; closed in deinit

  init(path: String) throws {
    var sfinfo = SF_INFO()
    guard let handle = sf_open(path, Int32(SFM_READ), &sfinfo) else {
      throw SoundFileError(
        handle: nil, path: path, operation: "read audio from", category: .badData,
        advice: "is it an audio file libsndfile can decode (WAV, AIFF, FLAC, OGG, Opus, MP3)?")
    }
    guard sfinfo.channels > 0, sfinfo.samplerate > 0, sfinfo.frames >= 0 else {
      sf_close(handle)
      throw SoundFileError(
        category: .badData, reason: "the file reports no channels or no sample rate",
        path: path, operation: "read audio from", advice: "the file is damaged")
    }
    self.path = path
    self.handle = handle
    self.info = SoundFileInfo(
      frames: Int64(sfinfo.frames), sampleRate: Int(sfinfo.samplerate),
      channels: Int(sfinfo.channels), format: sfinfo.format,
      formatName: SndFileDecoder.formatName(sfinfo.format),
      bitDepth: SndFileDecoder.bitDepth(sfinfo.format),
      title: SndFileDecoder.tag(handle, SF_STR_TITLE),
      artist: SndFileDecoder.tag(handle, SF_STR_ARTIST),
      album: SndFileDecoder.tag(handle, SF_STR_ALBUM))
  }

  deinit { sf_close(handle) }

  /// `sf_seek`.
  func seek(to frame: Int64) throws {
    if sf_seek(handle, sf_count_t(frame), SEEK_SET) < 0 {
      throw SoundFileError(
        handle: handle, path: path, operation: "seek to frame \(frame) in", category: .badData,
        advice: "the file may be truncated or damaged")
    }
  }

  /// Whether libsndfile's length is the data there is, not a header's claim: PCM or
  /// float samples in WAV, AIFF, CAF and the like (a cut file's length is counted from its
  /// size), as opposed to FLAC, Ogg and MP3, whose lengths are written in a header.
  var lengthIsExact: Bool {
    let major = info.format & Int32(SF_FORMAT_TYPEMASK)
    if [SF_FORMAT_FLAC, SF_FORMAT_OGG, SF_FORMAT_MPEG].map({ Int32($0) }).contains(major) {
      return false
    }
    switch info.format & Int32(SF_FORMAT_SUBMASK) {
    case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8), Int32(SF_FORMAT_PCM_16),
      Int32(SF_FORMAT_PCM_24), Int32(SF_FORMAT_PCM_32), Int32(SF_FORMAT_FLOAT),
      Int32(SF_FORMAT_DOUBLE), Int32(SF_FORMAT_ULAW), Int32(SF_FORMAT_ALAW):
      return true
    default: return false
    }
  }

  /// `sf_readf_float`.
  func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
    Int(sf_readf_float(handle, buffer, sf_count_t(frames)))
  }

  var lastError: String? {
    sf_error(handle) == 0 ? nil : String(cString: sf_strerror(handle))
  }

  /// Bits per sample of libsndfile's subtype.
  static func bitDepth(_ format: Int32) -> Int {
    switch format & Int32(SF_FORMAT_SUBMASK) {
    case Int32(SF_FORMAT_PCM_S8), Int32(SF_FORMAT_PCM_U8): return 8
    case Int32(SF_FORMAT_PCM_24): return 24
    case Int32(SF_FORMAT_PCM_32), Int32(SF_FORMAT_FLOAT), Int32(SF_FORMAT_DOUBLE): return 32
    default: return 16
    }
  }

  private static func tag(_ handle: OpaquePointer, _ kind: Int) -> String? {
    guard let text = sf_get_string(handle, Int32(kind)) else { return nil }
    let value = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    return value.isEmpty ? nil : value
  }

  private static func formatName(_ format: Int32) -> String {
    let major = formatInfoName(
      format & Int32(SF_FORMAT_TYPEMASK), SFC_GET_FORMAT_MAJOR_COUNT, SFC_GET_FORMAT_MAJOR)
    let sub = formatInfoName(
      format & Int32(SF_FORMAT_SUBMASK), SFC_GET_FORMAT_SUBTYPE_COUNT, SFC_GET_FORMAT_SUBTYPE)
    return [major, sub].compactMap { $0 }.joined(separator: ", ")
  }

  /// Looks a major type or subtype up in libsndfile's format tables (`SFC_GET_FORMAT_*`).
  private static func formatInfoName(_ value: Int32, _ countCommand: Int, _ itemCommand: Int)
    -> String?
  {
    var count: Int32 = 0
    sf_command(nil, Int32(countCommand), &count, Int32(MemoryLayout<Int32>.size))
    for index in 0..<count {
      var info = SF_FORMAT_INFO()
      info.format = index
      sf_command(nil, Int32(itemCommand), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
      if info.format == value, let cName = info.name { return String(cString: cName) }
    }
    return nil
  }
}
