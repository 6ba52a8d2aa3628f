import Foundation

/// A chained Ogg file: Ogg streams one after another in one file (`cat a.ogg b.ogg`, an
/// internet radio recording), each link a whole song with its own headers. It plays link
/// after link, each decoded on its own as the file it was (its own priming and pre-skip
/// removed, its decoder fresh), the way the codecs' own players (oggdec, opusdec) play a
/// chain; frame 0 of each link follows the last frame of the one before.
///
/// Needed because neither library does it: libsndfile stops at the first link's end, and
/// libavformat reads the links as one stream whose timestamps start again at each link
/// (its seeks land in the wrong link, ffprobe's length is the last link's, and `ffmpeg -i`
/// decodes straight across the join with the first link's decoder state: 128 frames of
/// the two windows' overlap between Vorbis songs, 100 ms of a mistuned Opus decoder).
/// Each link is read by FFmpeg through its `subfile` protocol (a byte range of the file).
///
/// A link with another sample rate than the first one's ends the chain: it and the links
/// after it are not played (no resampling here), and the chain says so: its declared length
/// counts them (at the chain's rate), and `shortfall` says why they are missing, so a play
/// that reaches the end warns as for any audio that ends early. A mono link in a stereo
/// chain is heard on both sides, a stereo link in a mono chain mixed to mono.
final class ChainedOggDecoder: AudioDecoder {
  let info: SoundFileInfo
  private(set) var lastError: String?
  /// The chain's length with the links left out (another sample rate), at its rate.
  let declaredFrames: Int64?
  let shortfall: String?
  /// One decoder per link, and the frame of the chain where each starts.
  private let links: [FFmpegDecoder]
  private let starts: [Int64]
  /// The link being read; its read position is the chain's.
  private var current = 0
  /// Frames read from a link whose channel count is not the chain's, before they are mixed.
  private var scratch: [Float] = []

  /// Opens each link of `ranges` (byte ranges of `path`, from `OggLinks.ranges`).
  init(path: String, ranges: [Range<Int64>]) throws {
    var links: [FFmpegDecoder] = []
    var leftOut: (frames: Int64, reason: String?) = (0, nil)
    for (index, range) in ranges.enumerated() {
      let link = try FFmpegDecoder(
        path: path, url: "subfile,,start,\(range.lowerBound),end,\(range.upperBound),,:file:\(path)")
      if let first = links.first,
        leftOut.reason != nil || link.info.sampleRate != first.info.sampleRate
      {
        let rate = first.info.sampleRate
        leftOut.frames += link.info.frames * Int64(rate) / Int64(max(1, link.info.sampleRate))
        leftOut.reason =
          leftOut.reason
          ?? "its stream \(index + 1) of \(ranges.count) is at \(link.info.sampleRate) Hz, not "
          + "\(rate) Hz as the first; it and those after it are not played"
        continue
      }
      links.append(link)
    }
    guard let first = links.first else {
      throw FFmpegError(
        category: .badData, reason: "it holds no Ogg stream", path: path,
        operation: "read audio from", advice: "the file is damaged")
    }
    var starts: [Int64] = []
    var total: Int64 = 0
    for link in links {
      starts.append(total)
      total += link.info.frames
    }
    self.links = links
    self.starts = starts
    shortfall = leftOut.reason
    declaredFrames = leftOut.reason == nil ? nil : total + leftOut.frames
    var info = first.info
    info.frames = total
    if links.count > 1 { info.formatName += " (\(links.count) streams chained)" }
    self.info = info
  }

  func seek(to frame: Int64) throws {
    guard frame >= 0, frame <= info.frames else {
      throw FFmpegError(
        category: .io, reason: "the file has \(info.frames) frames",
        path: links[0].path, operation: "seek to frame \(frame) in",
        advice: "the file may be truncated or damaged")
    }
    let index = starts.lastIndex(where: { $0 <= frame }) ?? 0
    try links[index].seek(to: frame - starts[index])
    current = index
  }

  func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
    var done = 0
    while done < frames {
      let n = readLink(into: buffer + done * info.channels, frames: frames - done)
      done += n
      if done == frames { break }
      // This link is at its end: on to the next, from its first frame.
      guard current + 1 < links.count else { break }
      do { try links[current + 1].seek(to: 0) } catch {
        lastError = "\(error)"
        break
      }
      current += 1
    }
    return done
  }

  /// Reads from the current link, in the chain's channel count.
  private func readLink(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> Int {
    let link = links[current]
    let channels = link.info.channels
    guard channels != info.channels else {
      let n = link.read(into: buffer, frames: frames)
      if n < frames, let error = link.lastError { lastError = error }
      return n
    }
    if scratch.count < frames * channels { scratch = [Float](repeating: 0, count: frames * channels) }
    let n = scratch.withUnsafeMutableBufferPointer { link.read(into: $0.baseAddress!, frames: frames) }
    for i in 0..<max(0, n) {
      if info.channels == 2 {  // a mono link: on both sides
        buffer[2 * i] = scratch[i]
        buffer[2 * i + 1] = scratch[i]
      } else {  // a stereo link in a mono chain
        buffer[i] = (scratch[2 * i] + scratch[2 * i + 1]) / 2
      }
    }
    return n
  }
}

/// Where the links of an Ogg file lie: a link starts with its beginning-of-stream pages (one
/// per multiplexed stream) and ends where the next link's start. Read from the pages'
/// headers (RFC 3533: "OggS", version, header type, granule, serial, sequence, checksum,
/// segment count, segment table), which no library here exposes (see `ChainedOggDecoder`).
enum OggLinks {
  /// The byte ranges of the links of the Ogg file at `path`; one range for a plain Ogg
  /// file, empty when it does not start with an Ogg page.
  static func ranges(_ path: String) -> [Range<Int64>] {
    guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
    defer { try? handle.close() }
    var starts: [Int64] = []
    var offset: Int64 = 0
    var previousWasStart = false
    while true {
      guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
        let head = try? handle.read(upToCount: 27 + 255).map({ [UInt8]($0) }), head.count >= 27,
        head[0] == 0x4F, head[1] == 0x67, head[2] == 0x67, head[3] == 0x53,
        head.count >= 27 + Int(head[26])
      else { break }
      let isStart = head[5] & 0x02 != 0
      if isStart, !previousWasStart { starts.append(offset) }
      previousWasStart = isStart
      let segments = Int(head[26])
      let body = head[27..<(27 + segments)].reduce(0) { $0 + Int($1) }
      offset += Int64(27 + segments + body)
    }
    // Whatever follows the last whole page (a cut file's part page) belongs to the last link.
    let size = Int64((try? handle.seekToEnd()) ?? UInt64(offset))
    guard !starts.isEmpty, starts[0] == 0 else { return [] }
    return starts.indices.map { i in starts[i]..<(i + 1 < starts.count ? starts[i + 1] : size) }
  }

  /// Whether the Vorbis stream that starts the file at `path` has audio on the page where
  /// its three header packets end (packets after the third, or a granule position). The
  /// Vorbis spec has the first audio packet begin a page of its own, and ogginfo warns of
  /// such a file ("headers not correctly framed"), but some encoders wrote it so and FFmpeg
  /// decodes it whole; libsndfile (as libvorbisfile) skips that page's audio and the
  /// packet it leaves unfinished: a released game soundtrack lost its first 0.36 s.
  static func audioOnHeaderPage(_ path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    var offset: UInt64 = 0
    var serial: ArraySlice<UInt8>?
    var packets = 0
    // The headers fit in a few pages; a stream whose headers run on longer is left alone.
    for _ in 0..<64 {
      guard (try? handle.seek(toOffset: offset)) != nil,
        let head = try? handle.read(upToCount: 27 + 255).map({ [UInt8]($0) }), head.count >= 27,
        head[0] == 0x4F, head[1] == 0x67, head[2] == 0x67, head[3] == 0x53,
        head.count >= 27 + Int(head[26])
      else { return false }
      let table = head[27..<(27 + Int(head[26]))]
      let body = table.reduce(0) { $0 + Int($1) }
      defer { offset += UInt64(27 + table.count + body) }
      if serial == nil {
        // The first page holds the identification header: "\u{1}vorbis".
        guard (try? handle.seek(toOffset: UInt64(27 + table.count))) != nil,
          let start = try? handle.read(upToCount: 7), start == Data([1]) + Data("vorbis".utf8)
        else { return false }
        serial = head[14..<18]
      }
      guard head[14..<18] == serial else { continue }  // another stream multiplexed in
      for (index, lacing) in table.enumerated() where lacing < 255 {
        packets += 1
        if packets == 3 {
          let granule = head[6..<14].contains { $0 != 0 }
          return granule || index < table.count - 1
        }
      }
    }
    return false
  }
}
