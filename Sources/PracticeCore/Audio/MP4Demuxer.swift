import Foundation

/// The audio track of an ISO BMFF file (M4A, MP4, MOV), read by hand.
///
/// Why not libavformat: Debian's libavformat pulls in 134 shared libraries, ~50 ms and
/// ~20 MiB before the first packet; this reads the sample tables and hands packets to
/// libavcodec alone.
///
/// Handles the first `soun` track with AAC (`mp4a` + `esds`) or ALAC (`alac`), the sample
/// tables (stts, stsc, stsz/stz2, stco/co64), one edit (`elst`: priming and length) or
/// iTunes' `iTunSMPB`, and the title, artist and album of `ilst`. Anything else (several
/// edits, a track timescale other than its sample rate, fragments) is declined and goes to
/// libavformat. Never traps on a damaged file: every size is checked against its parent
/// and the file, every count against what the bytes can hold.
final class MP4Demuxer: PacketSource {
  let stream: PacketStream
  private let file: FileBytes
  /// Per packet: where it is, how big, and its first sample (media timescale = rate).
  private let offsets: [Int64]
  private let sizes: [Int32]
  private let times: [Int64]
  private var next = 0  // the next packet `nextPacket` returns

  /// The most a `moov` box may hold (a day of AAC needs ~10 MB of tables).
  static let maxMoovBytes: Int64 = 64 << 20
  /// The most packets a track may have (~12 hours of AAC at 48 kHz).
  static let maxPackets = 2_000_000
  static let maxPacketBytes: Int32 = 8 << 20

  /// Whether the file starts like ISO BMFF (`ftyp` first, as every M4A/MP4 writer does).
  static func sniff(_ head: [UInt8]) -> Bool {
    head.count >= 8 && Array(head[4..<8]) == Array("ftyp".utf8)
  }

  init(path: String) throws {
    file = try FileBytes(path: path)
    guard let head = file.read(at: 0, count: 8), MP4Demuxer.sniff(head) else {
      throw DemuxError.declined("not ISO BMFF")
    }
    let moov = try MP4Demuxer.findMoov(file)
    let movie = try MP4Demuxer.parseMoov(moov)
    var tables = movie.track
    guard tables.sampleRate > 0, tables.channels > 0 else {
      throw DemuxError.declined("no sample rate or channel count")
    }
    // Sample tables → one entry per packet.
    let count = tables.sizes.count
    guard count > 0, count <= MP4Demuxer.maxPackets else {
      throw DemuxError.declined("\(count) packets")
    }
    var times = [Int64]()
    times.reserveCapacity(count + 1)
    var clock: Int64 = 0
    for (runLength, delta) in tables.timeToSample {
      for _ in 0..<runLength {
        guard times.count < count else { break }
        times.append(clock)
        clock += Int64(delta)
      }
    }
    guard times.count == count else { throw DemuxError.malformed("stts covers too few packets") }
    times.append(clock)  // the end of the last packet
    var offsets = [Int64]()
    offsets.reserveCapacity(count)
    var entry = -1  // the stsc entry that covers the chunk
    for (index, chunkOffset) in tables.chunkOffsets.enumerated() {
      let chunk = UInt32(truncatingIfNeeded: index + 1)
      while entry + 1 < tables.sampleToChunk.count,
        tables.sampleToChunk[entry + 1].firstChunk <= chunk
      {
        entry += 1
      }
      let perChunk = entry >= 0 ? tables.sampleToChunk[entry].perChunk : 0
      var offset = chunkOffset
      for _ in 0..<min(perChunk, UInt32(count)) {
        guard offsets.count < count else { break }
        offsets.append(offset)
        let (sum, overflow) = offset.addingReportingOverflow(Int64(tables.sizes[offsets.count - 1]))
        guard !overflow else { throw DemuxError.malformed("a packet offset overflows") }
        offset = sum
      }
      if offsets.count == count { break }
    }
    guard offsets.count == count else { throw DemuxError.malformed("stsc/stco cover too few packets") }
    let rate = Int64(tables.sampleRate)
    // Priming and length: the edit list, else iTunSMPB, else none.
    var priming: Int64 = 0
    var frames = clock
    if let edit = tables.edit {
      priming = edit.mediaTime
      if edit.duration > 0, movie.timescale > 0 {
        let (scaled, overflow) = edit.duration.multipliedReportingOverflow(by: rate)
        guard !overflow else { throw DemuxError.malformed("the edit's length overflows") }
        // Rounded to the nearest sample, as libavformat does (av_rescale).
        let scale = Int64(movie.timescale)
        frames = scaled / scale + (scaled % scale >= (scale + 1) / 2 ? 1 : 0)
      } else {
        frames = clock - priming
      }
    } else if let smpb = movie.iTunSMPB {
      priming = smpb.priming
      frames = smpb.length > 0 ? smpb.length : clock - priming - smpb.padding
    }
    guard priming >= 0, priming < clock, frames > 0 else {
      throw DemuxError.declined("priming \(priming) and length \(frames) do not fit the track")
    }
    frames = min(frames, clock - priming)
    self.offsets = offsets
    self.sizes = tables.sizes
    self.times = times
    tables.sizes = []
    stream = PacketStream(
      codec: tables.codec, sampleRate: tables.sampleRate, channels: tables.channels,
      bitDepth: tables.bitDepth, extradata: tables.extradata, priming: priming, frames: frames,
      containerName: "QuickTime / MOV", title: movie.title, artist: movie.artist,
      album: movie.album)
  }

  // MARK: PacketSource

  func seek(toPacketAtOrBefore time: Int64) {
    // Binary search: the last packet whose first sample is <= time.
    var low = 0
    var high = sizes.count - 1
    while low < high {
      let middle = low + (high - low + 1) / 2
      if times[middle] <= time { low = middle } else { high = middle - 1 }
    }
    next = low
  }

  func nextPacket(into buffer: inout [UInt8]) throws -> Packet? {
    guard next < sizes.count else { return nil }
    let index = next
    let size = Int(sizes[index])
    guard file.read(at: offsets[index], count: size, into: &buffer) else {
      throw DemuxError.malformed(
        "packet \(index + 1) of \(sizes.count) lies past the end of the file (truncated?)")
    }
    next += 1
    return Packet(time: times[index], duration: times[index + 1] - times[index], size: size)
  }

  // MARK: Parsing

  private struct Box {
    var type: String
    var body: ByteCursor
  }

  /// The next box in `cursor` (its header read, its body a sub-cursor).
  private static func nextBox(_ cursor: inout ByteCursor) throws -> Box {
    let start = cursor.position
    let size32 = try cursor.u32()
    let type = fourCC(try cursor.take(4))
    var size = Int64(size32)
    if size32 == 1 {
      size = Int64(bitPattern: try cursor.u64())
    } else if size32 == 0 {
      size = Int64(cursor.end - start)
    }
    let header = Int64(cursor.position - start)
    guard size >= header, size - header <= Int64(cursor.remaining) else {
      throw DemuxError.malformed("box '\(type)' claims \(size) bytes")
    }
    return Box(type: type, body: try cursor.sub(Int(size - header)))
  }

  /// Walks the top-level boxes for `moov` and reads it whole.
  private static func findMoov(_ file: FileBytes) throws -> [UInt8] {
    var offset: Int64 = 0
    for _ in 0..<10_000 {
      guard offset <= file.size - 8, let header = file.read(at: offset, count: 8) else { break }
      var cursor = ByteCursor(header)
      let size32 = try cursor.u32()
      let type = fourCC(try cursor.take(4))
      var size = Int64(size32)
      var headerSize: Int64 = 8
      if size32 == 1 {
        guard let large = file.read(at: offset + 8, count: 8) else { break }
        var c = ByteCursor(large)
        size = Int64(bitPattern: try c.u64())
        headerSize = 16
      } else if size32 == 0 {
        size = file.size - offset
      }
      guard size >= headerSize else { throw DemuxError.malformed("box '\(type)' claims \(size) bytes") }
      if type == "moov" {
        guard size <= maxMoovBytes else { throw DemuxError.declined("moov of \(size) bytes") }
        guard let bytes = file.read(at: offset + headerSize, count: Int(size - headerSize)) else {
          throw DemuxError.malformed("the moov box runs past the end of the file (truncated?)")
        }
        return bytes
      }
      if type == "moof" { throw DemuxError.declined("fragmented MP4") }
      let (end, overflow) = offset.addingReportingOverflow(size)
      guard !overflow, end > offset else { break }
      offset = end
    }
    throw DemuxError.malformed("no moov box (truncated?)")
  }

  private struct TrackTables {
    var codec: PacketCodec = .aac
    var sampleRate = 0
    var channels = 0
    var bitDepth = 16
    var extradata: [UInt8] = []
    var timeToSample: [(UInt32, UInt32)] = []
    var sampleToChunk: [(firstChunk: UInt32, perChunk: UInt32)] = []
    var sizes: [Int32] = []
    var chunkOffsets: [Int64] = []
    var edit: (duration: Int64, mediaTime: Int64)?
  }

  private struct Movie {
    var timescale: UInt32 = 0
    var track = TrackTables()
    var title: String?
    var artist: String?
    var album: String?
    var iTunSMPB: (priming: Int64, padding: Int64, length: Int64)?
  }

  private static func parseMoov(_ bytes: [UInt8]) throws -> Movie {
    var movie = Movie()
    var cursor = ByteCursor(bytes)
    var found = false
    while !cursor.atEnd {
      var box = try nextBox(&cursor)
      switch box.type {
      case "mvhd":
        let version = try box.body.u8()
        try box.body.skip(3 + (version == 1 ? 16 : 8))
        movie.timescale = try box.body.u32()
      case "trak" where !found:
        if let track = try parseTrak(box.body) {
          movie.track = track
          found = true
        }
      case "mvex":
        throw DemuxError.declined("fragmented MP4")
      case "udta":
        try parseUdta(box.body, &movie)
      default: break
      }
    }
    guard found else { throw DemuxError.declined("no AAC or ALAC sound track") }
    return movie
  }

  /// The track's tables if it is a sound track this demuxer decodes, else nil.
  private static func parseTrak(_ body: ByteCursor) throws -> TrackTables? {
    var tables = TrackTables()
    var cursor = body
    var mdia: ByteCursor?
    while !cursor.atEnd {
      var box = try nextBox(&cursor)
      if box.type == "mdia" { mdia = box.body }
      if box.type == "edts" {
        while !box.body.atEnd {
          var elst = try nextBox(&box.body)
          guard elst.type == "elst" else { continue }
          let version = try elst.body.u8()
          try elst.body.skip(3)
          let count = try elst.body.u32()
          var edits: [(Int64, Int64)] = []
          for _ in 0..<min(count, 16) {
            let duration = Int64(try elst.body.uint(version == 1 ? 8 : 4) & 0x7FFF_FFFF_FFFF_FFFF)
            let raw = try elst.body.uint(version == 1 ? 8 : 4)
            let media = version == 1 ? Int64(bitPattern: raw) : Int64(Int32(truncatingIfNeeded: raw))
            try elst.body.skip(4)
            edits.append((duration, media))
          }
          guard count <= 1, let edit = edits.first else {
            if count == 0 { continue }
            throw DemuxError.declined("\(count) edits")
          }
          guard edit.1 >= 0 else { throw DemuxError.declined("an empty edit") }
          tables.edit = (duration: edit.0, mediaTime: edit.1)
        }
      }
    }
    guard var media = mdia else { return nil }
    var timescale: UInt32 = 0
    var isSound = false
    var stbl: ByteCursor?
    while !media.atEnd {
      var box = try nextBox(&media)
      switch box.type {
      case "mdhd":
        let version = try box.body.u8()
        try box.body.skip(3 + (version == 1 ? 16 : 8))
        timescale = try box.body.u32()
      case "hdlr":
        try box.body.skip(8)
        isSound = fourCC(try box.body.take(4)) == "soun"
      case "minf":
        var minf = box.body
        while !minf.atEnd {
          let child = try nextBox(&minf)
          if child.type == "stbl" { stbl = child.body }
        }
      default: break
      }
    }
    guard isSound, var table = stbl else { return nil }
    var haveEntry = false
    while !table.atEnd {
      var box = try nextBox(&table)
      switch box.type {
      case "stsd":
        try box.body.skip(4)
        guard try box.body.u32() >= 1 else { return nil }
        var entry = try nextBox(&box.body)
        guard try parseSampleEntry(entry.type, &entry.body, &tables) else { return nil }
        haveEntry = true
      case "stts":
        try box.body.skip(4)
        let count = Int(try box.body.u32())
        guard count <= box.body.remaining / 8 else { throw DemuxError.malformed("stts count") }
        var total: UInt64 = 0
        for _ in 0..<count {
          let run = try box.body.u32()
          let delta = try box.body.u32()
          total += UInt64(run)
          guard total <= UInt64(maxPackets), delta <= 1 << 20 else {
            throw DemuxError.declined("stts entry \(run) × \(delta)")
          }
          tables.timeToSample.append((run, delta))
        }
      case "stsc":
        try box.body.skip(4)
        let count = Int(try box.body.u32())
        guard count <= box.body.remaining / 12 else { throw DemuxError.malformed("stsc count") }
        var last: UInt32 = 0
        for _ in 0..<count {
          let first = try box.body.u32()
          let perChunk = try box.body.u32()
          try box.body.skip(4)
          guard first > last else { throw DemuxError.malformed("stsc out of order") }
          last = first
          tables.sampleToChunk.append((first, perChunk))
        }
      case "stsz", "stz2":
        try box.body.skip(4)
        var fieldBits = 32
        var fixed: UInt32 = 0
        if box.type == "stsz" {
          fixed = try box.body.u32()
        } else {
          try box.body.skip(3)
          fieldBits = Int(try box.body.u8())
          guard [4, 8, 16].contains(fieldBits) else { throw DemuxError.malformed("stz2 field size") }
        }
        let count = Int(try box.body.u32())
        guard count <= maxPackets else { throw DemuxError.declined("\(count) packets") }
        if fixed != 0 {
          guard fixed <= UInt32(maxPacketBytes) else { throw DemuxError.malformed("packet size") }
          tables.sizes = [Int32](repeating: Int32(fixed), count: count)
        } else {
          guard count <= box.body.remaining * 8 / fieldBits else {
            throw DemuxError.malformed("stsz count")
          }
          tables.sizes.reserveCapacity(count)
          var nibble: UInt8 = 0
          for i in 0..<count {
            let size: UInt32
            switch fieldBits {
            case 4:
              if i % 2 == 0 { nibble = try box.body.u8() }
              size = UInt32(i % 2 == 0 ? nibble >> 4 : nibble & 0xF)
            case 8: size = UInt32(try box.body.u8())
            case 16: size = UInt32(try box.body.u16())
            default: size = try box.body.u32()
            }
            guard size <= UInt32(maxPacketBytes) else { throw DemuxError.malformed("packet size") }
            tables.sizes.append(Int32(size))
          }
        }
      case "stco", "co64":
        try box.body.skip(4)
        let width = box.type == "stco" ? 4 : 8
        let count = Int(try box.body.u32())
        guard count <= box.body.remaining / width else { throw DemuxError.malformed("stco count") }
        tables.chunkOffsets.reserveCapacity(count)
        for _ in 0..<count {
          let offset = try box.body.uint(width)
          guard offset <= UInt64(Int64.max / 2) else { throw DemuxError.malformed("chunk offset") }
          tables.chunkOffsets.append(Int64(offset))
        }
      default: break
      }
    }
    guard haveEntry else { return nil }
    if timescale != UInt32(tables.sampleRate) {
      throw DemuxError.declined("track timescale \(timescale) is not the rate \(tables.sampleRate)")
    }
    if let edit = tables.edit, edit.mediaTime > Int64(timescale) * 10 {
      throw DemuxError.declined("an edit starting \(edit.mediaTime) samples in")
    }
    return tables
  }

  /// Reads an `mp4a` or `alac` sample entry; false for another codec.
  private static func parseSampleEntry(
    _ type: String, _ body: inout ByteCursor, _ tables: inout TrackTables
  ) throws -> Bool {
    guard type == "mp4a" || type == "alac" else { return false }
    try body.skip(8)  // reserved, data reference index
    let version = try body.u16()
    try body.skip(6)
    tables.channels = Int(try body.u16())
    tables.bitDepth = Int(try body.u16())
    try body.skip(4)
    tables.sampleRate = Int(try body.u32() >> 16)
    switch version {
    case 0: break
    case 1: try body.skip(16)
    case 2:
      try body.skip(4)
      let rate = Double(bitPattern: try body.u64())
      tables.channels = Int(try body.u32())
      guard rate.isFinite, rate >= 1, rate <= 1_000_000 else {
        throw DemuxError.malformed("sample rate \(rate)")
      }
      tables.sampleRate = Int(rate)
      try body.skip(20)
    default: throw DemuxError.declined("sound sample entry version \(version)")
    }
    while !body.atEnd {
      let start = body.position
      let child = try nextBox(&body)
      if type == "alac", child.type == "alac" {
        // FFmpeg's ALAC decoder takes the whole atom (size, 'alac', version) as extradata.
        var config = ByteCursor(body.bytes, from: start, to: body.position)
        let atom = try config.take(config.remaining)
        guard atom.count >= 36 else { throw DemuxError.malformed("ALAC config too short") }
        var fields = ByteCursor(atom, from: 12)
        try fields.skip(5)
        tables.bitDepth = Int(try fields.u8())
        try fields.skip(3)
        tables.channels = Int(try fields.u8())
        try fields.skip(10)  // maxRun, maxFrameBytes, avgBitRate
        let rate = Int(try fields.u32())
        if rate > 0 { tables.sampleRate = rate }
        tables.codec = .alac
        tables.extradata = atom
        return tables.channels > 0 && tables.channels <= 8
      }
      if type == "mp4a", child.type == "esds" {
        var esds = child.body
        try esds.skip(4)
        guard let config = try audioSpecificConfig(&esds) else { return false }
        tables.codec = .aac
        tables.bitDepth = 16
        tables.extradata = config
        return tables.channels > 0 && tables.channels <= 8
      }
    }
    return false
  }

  /// The AudioSpecificConfig in an `esds` (ES_Descriptor → DecoderConfigDescriptor with
  /// an AAC object type → DecoderSpecificInfo); nil for another object type.
  private static func audioSpecificConfig(_ cursor: inout ByteCursor) throws -> [UInt8]? {
    func descriptor(_ cursor: inout ByteCursor) throws -> (tag: UInt8, body: ByteCursor) {
      let tag = try cursor.u8()
      var length = 0
      for _ in 0..<4 {
        let byte = try cursor.u8()
        length = length << 7 | Int(byte & 0x7F)
        if byte & 0x80 == 0 { break }
      }
      return (tag, try cursor.sub(min(length, cursor.remaining)))
    }
    var es = try descriptor(&cursor)
    guard es.tag == 0x03 else { return nil }
    try es.body.skip(2)
    let flags = try es.body.u8()
    if flags & 0x80 != 0 { try es.body.skip(2) }
    if flags & 0x40 != 0 { try es.body.skip(Int(try es.body.u8())) }
    if flags & 0x20 != 0 { try es.body.skip(2) }
    while !es.body.atEnd {
      var config = try descriptor(&es.body)
      guard config.tag == 0x04 else { continue }
      let objectType = try config.body.u8()
      guard [0x40, 0x66, 0x67, 0x68].contains(objectType) else { return nil }
      try config.body.skip(12)
      while !config.body.atEnd {
        var info = try descriptor(&config.body)
        if info.tag == 0x05 {
          let bytes = try info.body.take(info.body.remaining)
          return bytes.count >= 2 ? bytes : nil
        }
      }
      return nil
    }
    return nil
  }

  /// `udta/meta/ilst`: title, artist, album and iTunSMPB.
  private static func parseUdta(_ body: ByteCursor, _ movie: inout Movie) throws {
    var cursor = body
    while !cursor.atEnd {
      var box = try nextBox(&cursor)
      guard box.type == "meta" else { continue }
      // MP4's meta is a full box (4 bytes of version and flags); QuickTime's is not.
      if box.body.remaining >= 8 {
        var peek = box.body
        try peek.skip(4)
        if fourCC(try peek.take(4)) != "hdlr" { try box.body.skip(4) }
      }
      while !box.body.atEnd {
        var ilst = try nextBox(&box.body)
        guard ilst.type == "ilst" else { continue }
        while !ilst.body.atEnd {
          var item = try nextBox(&ilst.body)
          var name: String?
          var value: String?
          while !item.body.atEnd {
            var child = try nextBox(&item.body)
            switch child.type {
            case "name":
              try child.body.skip(4)
              name = String(decoding: try child.body.take(child.body.remaining), as: UTF8.self)
            case "data":
              let kind = try child.body.u32()
              try child.body.skip(4)
              guard kind == 1 else { continue }  // UTF-8 text
              value = String(decoding: try child.body.take(child.body.remaining), as: UTF8.self)
            default: break
            }
          }
          let text = value?.trimmingCharacters(in: .whitespacesAndNewlines)
          guard let text, !text.isEmpty else { continue }
          switch Array(item.type.unicodeScalars).map(\.value) {
          case [0xA9, 0x6E, 0x61, 0x6D]: movie.title = movie.title ?? text  // ©nam
          case [0xA9, 0x41, 0x52, 0x54]: movie.artist = movie.artist ?? text  // ©ART
          case [0xA9, 0x61, 0x6C, 0x62]: movie.album = movie.album ?? text  // ©alb
          default:
            if item.type == "----", name == "iTunSMPB" { movie.iTunSMPB = parseSMPB(text) }
          }
        }
      }
    }
  }

  /// A box type as text, one character per byte (ISO 8859-1: `©nam` is A9 6E 61 6D).
  private static func fourCC(_ bytes: [UInt8]) -> String {
    String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
  }

  /// iTunSMPB: " 00000000 PRIMING PADDING LENGTH …" in hexadecimal.
  private static func parseSMPB(_ text: String) -> (Int64, Int64, Int64)? {
    let fields = text.split(separator: " ").map { Int64($0, radix: 16) }
    guard fields.count >= 4, let priming = fields[1], let padding = fields[2],
      let length = fields[3], priming >= 0, padding >= 0, length >= 0
    else { return nil }
    return (priming, padding, length)
  }
}
