import Foundation

/// The Opus track of a Matroska or WebM file, read by hand.
///
/// Why not libavformat: as for `MP4Demuxer`, loading it costs ~50 ms and ~20 MiB before
/// the first packet; this reads the EBML elements it needs and hands Opus packets to
/// libopus, which libsndfile has loaded already.
///
/// Reads the Segment's SeekHead, Info (TimecodeScale, Title), Tracks (the first audio
/// track, `A_OPUS`, its OpusHead), Tags (TITLE, ARTIST, ALBUM), Cues (cluster positions for
/// seeking) and the Clusters' SimpleBlocks and BlockGroups (with DiscardPadding), laced or
/// not. Anything else (another codec first, more than two channels, compressed or
/// encrypted tracks, clusters of unknown size) is declined and goes to libavformat. Never
/// traps on a damaged file: every size is checked against its parent and the file.
///
/// Timestamps: Matroska's are in TimecodeScale units (WebM: milliseconds), coarser than
/// a sample. Opus frames last multiples of 2.5 ms (120 samples at 48 kHz), so a packet's
/// sample time is its timestamp put on that grid, counted from the first packet; that is
/// exact while the rounding stays under 1.25 ms, as it does for a millisecond scale.
final class MatroskaDemuxer: PacketSource {
  private(set) var stream: PacketStream
  private let file: FileBytes
  private let track: UInt64
  /// Nanoseconds per timestamp unit.
  private let timecodeScale: UInt64
  /// The first packet's time in samples (the grid's origin), and whether it is known yet.
  private var origin: Int64 = 0
  private var snapping = false
  /// Cluster file offsets and their timestamps in samples (from the Cues or the first
  /// packet: for finding a cluster, not exact), in file order.
  private var clusters: [(offset: Int64, time: Int64)] = []
  /// The cluster `packets` came from, and the next of them `nextPacket` returns.
  private var current = -1
  private var packets: [Laced] = []
  private var next = 0
  private var clusterBytes: [UInt8] = []

  static let opusRate = 48000
  /// Opus frames are multiples of 2.5 ms.
  static let grid: Int64 = 120
  static let maxMasterBytes = 16 << 20
  static let maxClusterBytes = 32 << 20

  /// A packet inside `clusterBytes`.
  private struct Laced {
    var start: Int
    var size: Int
    var time: Int64
    var duration: Int64
  }

  /// Whether the file starts with an EBML header (Matroska, WebM).
  static func sniff(_ head: [UInt8]) -> Bool { head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) }

  init(path: String) throws {
    file = try FileBytes(path: path)
    guard let head = file.read(at: 0, count: 4), MatroskaDemuxer.sniff(head) else {
      throw DemuxError.declined("not EBML")
    }
    // EBML header, then the Segment.
    let ebml = try elementHeader(file, at: 0)
    guard let ebmlSize = ebml.size else { throw DemuxError.malformed("EBML header size") }
    let segment = try elementHeader(file, at: ebml.body + ebmlSize)
    guard segment.id == ID.segment else { throw DemuxError.declined("no Segment") }
    let segmentStart = segment.body
    let segmentEnd = min(file.size, segment.size.map { segment.body + $0 } ?? file.size)

    // The Segment's children up to the first Cluster; SeekHead for what lies after.
    var seekHead: [UInt32: Int64] = [:]
    var info: Master?
    var tracks: Master?
    var tags: Master?
    var cues: Master?
    var firstCluster: Int64?
    var offset = segmentStart
    for _ in 0..<10_000 where offset < segmentEnd {
      let element = try elementHeader(file, at: offset)
      if element.id == ID.cluster {
        firstCluster = offset
        break
      }
      guard let size = element.size else {
        throw DemuxError.declined("an element of unknown size before the first Cluster")
      }
      switch element.id {
      case ID.seekHead: seekHead = try MatroskaDemuxer.parseSeekHead(readMaster(file, element))
      case ID.info: info = try readMaster(file, element)
      case ID.tracks: tracks = try readMaster(file, element)
      case ID.tags: tags = try? readMaster(file, element)
      case ID.cues: cues = try? readMaster(file, element)
      default: break
      }
      offset = element.body + size
    }
    guard let firstCluster else { throw DemuxError.malformed("no Cluster (truncated?)") }
    let fileBytes = file
    func at(_ id: UInt32) -> Master? {
      guard let position = seekHead[id],
        let element = try? elementHeader(fileBytes, at: segmentStart &+ position), element.id == id
      else { return nil }
      return try? readMaster(fileBytes, element)
    }
    guard let trackList = tracks ?? at(ID.tracks) else { throw DemuxError.malformed("no Tracks") }

    // Info: the timestamp scale and the title.
    var scale: UInt64 = 1_000_000
    var title: String?
    if let info = info ?? at(ID.info) {
      var cursor = info.cursor
      while !cursor.atEnd {
        let (id, body) = try cursor.element()
        if id == ID.timecodeScale { scale = try unsignedValue(body) }
        if id == ID.title { title = textValue(body) }
      }
    }
    guard scale > 0, scale <= 1_000_000_000 else { throw DemuxError.malformed("TimecodeScale") }
    timecodeScale = scale

    // The first audio track: Opus only, one or two channels.
    let audio = try MatroskaDemuxer.firstAudioTrack(trackList)
    guard audio.codecID == "A_OPUS" else { throw DemuxError.declined("codec \(audio.codecID)") }
    guard !audio.encoded else { throw DemuxError.declined("a compressed or encrypted track") }
    let opusHead = audio.codecPrivate
    guard opusHead.count >= 19, opusHead.starts(with: Array("OpusHead".utf8)) else {
      throw DemuxError.malformed("no OpusHead")
    }
    let channels = Int(opusHead[9])
    let preskip = Int64(opusHead[10]) | Int64(opusHead[11]) << 8
    let gain = Int16(bitPattern: UInt16(opusHead[16]) | UInt16(opusHead[17]) << 8)
    guard opusHead[18] == 0, channels == 1 || channels == 2 else {
      throw DemuxError.declined("Opus channel mapping \(opusHead[18]) with \(channels) channels")
    }
    track = audio.number

    // Cluster index: the Cues' positions, else a walk through the clusters.
    var index: [(offset: Int64, time: Int64)] = []
    if let cueList = cues ?? at(ID.cues) {
      index = try MatroskaDemuxer.parseCues(cueList, segmentStart: segmentStart, scale: scale)
        .filter { $0.offset >= firstCluster && $0.offset < segmentEnd }
    }
    if index.first.map({ $0.offset != firstCluster }) ?? true {
      index.insert((firstCluster, 0), at: 0)
    }
    clusters = index
    stream = PacketStream(
      codec: .opus, sampleRate: MatroskaDemuxer.opusRate, channels: channels, bitDepth: 16,
      extradata: opusHead, priming: preskip, frames: 1, containerName: "Matroska / WebM",
      title: title, artist: nil, album: nil, gain: gain)
    // Clusters after the last indexed one (Cues may cover only some), found by walking.
    try walkClusters(after: clusters.count - 1, to: segmentEnd)

    // The first packet is the grid's origin; the last one's end is the song's end.
    guard try load(cluster: 0), let first = packets.first else {
      throw DemuxError.malformed("the first Cluster holds no packet of the track")
    }
    origin = first.time
    snapping = true
    current = -1
    var end: Int64?
    for cluster in stride(from: clusters.count - 1, through: max(0, clusters.count - 8), by: -1) {
      if let last = try lastPacketEnd(cluster: cluster) {
        end = last
        break
      }
    }
    guard let end else { throw DemuxError.malformed("the last Clusters hold no packet") }
    let frames = end - origin - preskip
    guard frames > 0 else { throw DemuxError.malformed("no audio after the pre-skip") }
    stream.frames = frames
    if let tagList = tags ?? at(ID.tags) {
      let found = MatroskaDemuxer.parseTags(tagList)
      stream.title = found["TITLE"] ?? title
      stream.artist = found["ARTIST"]
      stream.album = found["ALBUM"]
    }
    current = -1
    try seekCluster(0)
  }

  // MARK: PacketSource

  func seek(toPacketAtOrBefore time: Int64) {
    // The last cluster starting at or before `time` (its timestamp snapped, the origin
    // subtracted), then the last packet in it at or before `time`.
    var low = 0
    var high = clusters.count - 1
    while low < high {
      let middle = low + (high - low + 1) / 2
      if clusters[middle].time - origin <= time { low = middle } else { high = middle - 1 }
    }
    var cluster = low
    while true {
      let loaded = (try? load(cluster: cluster)) ?? false
      if loaded, let first = packets.first, first.time - origin <= time || cluster == 0 { break }
      if cluster == 0 {
        packets = []
        break
      }
      cluster -= 1
    }
    next = 0
    while next + 1 < packets.count, packets[next + 1].time - origin <= time { next += 1 }
  }

  func nextPacket(into buffer: inout [UInt8]) throws -> Packet? {
    while next >= packets.count {
      guard current + 1 < clusters.count else { return nil }
      try seekCluster(current + 1)
    }
    let packet = packets[next]
    next += 1
    if buffer.count < packet.size { buffer = [UInt8](repeating: 0, count: packet.size) }
    buffer.withUnsafeMutableBufferPointer { out in
      clusterBytes.withUnsafeBufferPointer { bytes in
        out.baseAddress!.update(from: bytes.baseAddress! + packet.start, count: packet.size)
      }
    }
    return Packet(time: packet.time - origin, duration: packet.duration, size: packet.size)
  }

  // MARK: Clusters

  private func seekCluster(_ cluster: Int) throws {
    guard try load(cluster: cluster) else {
      throw DemuxError.malformed("Cluster \(cluster + 1) cannot be read (truncated?)")
    }
    next = 0
  }

  /// Reads cluster `cluster` into `packets` (the track's, in order); false if it is not
  /// all in the file.
  @discardableResult
  private func load(cluster: Int) throws -> Bool {
    if cluster == current { return true }
    current = -1
    packets = []
    let element = try elementHeader(file, at: clusters[cluster].offset)
    guard element.id == ID.cluster else { throw DemuxError.malformed("no Cluster at a cue") }
    guard let size = element.size else { throw DemuxError.declined("a Cluster of unknown size") }
    guard size <= Int64(MatroskaDemuxer.maxClusterBytes) else {
      throw DemuxError.declined("a Cluster of \(size) bytes")
    }
    guard file.read(at: element.body, count: Int(size), into: &clusterBytes) else { return false }
    var cursor = ByteCursor(clusterBytes, from: 0, to: Int(size))
    // ByteCursor copies the array; positions are the same in `clusterBytes`.
    var clusterTime: UInt64 = 0
    while !cursor.atEnd {
      let (id, body) = try cursor.element()
      switch id {
      case ID.timecode: clusterTime = try unsignedValue(body)
      case ID.simpleBlock: try addBlock(body, clusterTime: clusterTime, discard: 0)
      case ID.blockGroup:
        var group = body
        var block: ByteCursor?
        var discard: Int64 = 0
        while !group.atEnd {
          let (child, childBody) = try group.element()
          if child == ID.block { block = childBody }
          if child == ID.discardPadding { discard = try signedValue(childBody) }
        }
        if let block { try addBlock(block, clusterTime: clusterTime, discard: discard) }
      default: break
      }
    }
    current = cluster
    clusters[cluster].time = packets.first?.time ?? clusters[cluster].time
    return true
  }

  /// Splits a (Simple)Block of the track into its laced packets, each timed.
  private func addBlock(_ block: ByteCursor, clusterTime: UInt64, discard: Int64) throws {
    var cursor = block
    guard try cursor.vint() == track else { return }
    let relative = Int64(Int16(bitPattern: try cursor.u16()))
    let flags = try cursor.u8()
    var sizes: [Int] = []
    let lacing = (flags >> 1) & 3
    if lacing == 0 {
      sizes = [cursor.remaining]
    } else {
      let count = Int(try cursor.u8()) + 1
      switch lacing {
      case 1:  // Xiph
        for _ in 0..<(count - 1) {
          var size = 0
          while true {
            let byte = try cursor.u8()
            size += Int(byte)
            if byte != 255 { break }
          }
          guard size <= cursor.remaining else { throw DemuxError.malformed("lace sizes") }
          sizes.append(size)
        }
      case 3:  // EBML: a size, then signed differences
        if count >= 2 {
          var size = Int(clamping: try cursor.vint())
          guard size <= cursor.remaining else { throw DemuxError.malformed("lace sizes") }
          sizes.append(size)
          for _ in 0..<(count - 2) {
            let (raw, length) = try cursor.vintWithLength()
            let bias = (Int64(1) << (7 * length - 1)) - 1
            size += Int(clamping: Int64(raw) - bias)
            guard size >= 0, size <= cursor.remaining else {
              throw DemuxError.malformed("lace sizes")
            }
            sizes.append(size)
          }
        }
      default:  // fixed
        guard cursor.remaining % count == 0 else { throw DemuxError.malformed("fixed lacing") }
        sizes = [Int](repeating: cursor.remaining / count, count: count - 1)
      }
      let laced = sizes.reduce(0, +)
      guard sizes.allSatisfy({ $0 >= 0 }), laced <= cursor.remaining else {
        throw DemuxError.malformed("lace sizes")
      }
      sizes.append(cursor.remaining - laced)
    }
    var time = snapped(Int64(clamping: clusterTime) &+ relative)
    var start = cursor.position
    for (i, size) in sizes.enumerated() {
      guard size > 0 else { continue }
      let duration = MatroskaDemuxer.opusSamples(clusterBytes, start, size)
      var kept = duration
      if i == sizes.count - 1, discard > 0 {
        kept = max(0, duration - nanosecondsToSamples(discard))
      }
      packets.append(Laced(start: start, size: size, time: time, duration: kept))
      time += duration
      start += size
    }
  }

  /// A timestamp in samples, on the 2.5 ms grid counted from the first packet.
  private func snapped(_ timestamp: Int64) -> Int64 {
    // Kept within ±2^40 samples (254 days), so that no sum of times and lengths of a
    // damaged file's nonsense can overflow.
    let limit: Int64 = 1 << 40
    let raw = min(limit, max(-limit, nanosecondsToSamples(
      timestamp &* Int64(truncatingIfNeeded: timecodeScale))))
    guard snapping else { return raw }
    let offset = raw - origin
    let half = MatroskaDemuxer.grid / 2
    return origin + (offset + (offset >= 0 ? half : -half)) / MatroskaDemuxer.grid
      * MatroskaDemuxer.grid
  }

  private func nanosecondsToSamples(_ ns: Int64) -> Int64 {
    let rate = Int64(MatroskaDemuxer.opusRate)
    let (product, overflow) = ns.multipliedReportingOverflow(by: rate)
    if overflow { return ns / 1_000_000_000 &* rate }
    return (product &+ (product >= 0 ? 500_000_000 : -500_000_000)) / 1_000_000_000
  }

  /// The end (time + kept samples) of the last packet of the track in `cluster`, nil if it
  /// has none.
  private func lastPacketEnd(cluster: Int) throws -> Int64? {
    guard try load(cluster: cluster), let last = packets.last else { return nil }
    return last.time + last.duration
  }

  /// Adds the clusters found walking the Segment's children after cluster `after`.
  private func walkClusters(after: Int, to end: Int64) throws {
    var offset = clusters[after].offset
    var count = 0
    while offset < end, count < 1_000_000 {
      let element = try elementHeader(file, at: offset)
      guard let size = element.size else {
        if element.id == ID.cluster { throw DemuxError.declined("a Cluster of unknown size") }
        break
      }
      if element.id == ID.cluster, offset > clusters[clusters.count - 1].offset {
        // Its timestamp, the first child as every muxer writes it.
        var time: Int64 = clusters[clusters.count - 1].time
        if let first = try? elementHeader(file, at: element.body), first.id == ID.timecode,
          let size = first.size, size <= 8, let bytes = file.read(at: first.body, count: Int(size))
        {
          time = snapped(Int64(truncatingIfNeeded: bytes.reduce(0) { $0 << 8 | UInt64($1) }))
        }
        clusters.append((offset, time))
      }
      offset = element.body + size
      count += 1
    }
  }

  // MARK: Opus

  /// Samples (at 48 kHz) in an Opus packet, from its TOC byte (RFC 6716, 3.1).
  static func opusSamples(_ bytes: [UInt8], _ start: Int, _ size: Int) -> Int64 {
    guard size >= 1 else { return 0 }
    let toc = bytes[start]
    let config = Int(toc >> 3)
    let frame: Int64
    switch config {
    case 0..<12: frame = [480, 960, 1920, 2880][config & 3]
    case 12..<16: frame = [480, 960][config & 1]
    default: frame = [120, 240, 480, 960][config & 3]
    }
    let count: Int64
    switch toc & 3 {
    case 0: count = 1
    case 1, 2: count = 2
    default: count = size >= 2 ? Int64(bytes[start + 1] & 0x3F) : 0
    }
    return min(frame * count, 5760)
  }

  // MARK: Elements

  /// Element IDs (with their length marker bits, as written).
  enum ID {
    static let segment: UInt32 = 0x1853_8067
    static let seekHead: UInt32 = 0x114D_9B74
    static let seek: UInt32 = 0x4DBB
    static let seekID: UInt32 = 0x53AB
    static let seekPosition: UInt32 = 0x53AC
    static let info: UInt32 = 0x1549_A966
    static let timecodeScale: UInt32 = 0x2A_D7B1
    static let title: UInt32 = 0x7BA9
    static let tracks: UInt32 = 0x1654_AE6B
    static let trackEntry: UInt32 = 0xAE
    static let trackNumber: UInt32 = 0xD7
    static let trackType: UInt32 = 0x83
    static let codecID: UInt32 = 0x86
    static let codecPrivate: UInt32 = 0x63A2
    static let contentEncodings: UInt32 = 0x6D80
    static let tags: UInt32 = 0x1254_C367
    static let tag: UInt32 = 0x7373
    static let simpleTag: UInt32 = 0x67C8
    static let tagName: UInt32 = 0x45A3
    static let tagString: UInt32 = 0x4487
    static let cues: UInt32 = 0x1C53_BB6B
    static let cuePoint: UInt32 = 0xBB
    static let cueTime: UInt32 = 0xB3
    static let cueTrackPositions: UInt32 = 0xB7
    static let cueClusterPosition: UInt32 = 0xF1
    static let cluster: UInt32 = 0x1F43_B675
    static let timecode: UInt32 = 0xE7
    static let simpleBlock: UInt32 = 0xA3
    static let blockGroup: UInt32 = 0xA0
    static let block: UInt32 = 0xA1
    static let discardPadding: UInt32 = 0x75A2
  }

  /// A master element read whole.
  struct Master {
    var cursor: ByteCursor
  }

  private static func parseSeekHead(_ master: Master) throws -> [UInt32: Int64] {
    var positions: [UInt32: Int64] = [:]
    var cursor = master.cursor
    while !cursor.atEnd {
      let (id, body) = try cursor.element()
      guard id == ID.seek else { continue }
      var seek = body
      var target: UInt32?
      var position: Int64?
      while !seek.atEnd {
        let (child, value) = try seek.element()
        if child == ID.seekID, value.remaining <= 4 { target = UInt32(try unsignedValue(value)) }
        if child == ID.seekPosition { position = Int64(clamping: try unsignedValue(value)) }
      }
      if let target, let position, positions[target] == nil { positions[target] = position }
    }
    return positions
  }

  private struct AudioTrack {
    var number: UInt64 = 0
    var codecID = ""
    var codecPrivate: [UInt8] = []
    var encoded = false
  }

  private static func firstAudioTrack(_ master: Master) throws -> AudioTrack {
    var cursor = master.cursor
    while !cursor.atEnd {
      let (id, body) = try cursor.element()
      guard id == ID.trackEntry else { continue }
      var entry = body
      var track = AudioTrack()
      var type: UInt64 = 0
      while !entry.atEnd {
        let (child, value) = try entry.element()
        switch child {
        case ID.trackNumber: track.number = try unsignedValue(value)
        case ID.trackType: type = try unsignedValue(value)
        case ID.codecID: track.codecID = textValue(value) ?? ""
        case ID.codecPrivate:
          var bytes = value
          track.codecPrivate = try bytes.take(bytes.remaining)
        case ID.contentEncodings: track.encoded = true
        default: break
        }
      }
      if type == 2 { return track }
    }
    throw DemuxError.declined("no audio track")
  }

  /// (cluster offset, time in samples, not yet snapped to the grid) per distinct cluster.
  private static func parseCues(_ master: Master, segmentStart: Int64, scale: UInt64) throws
    -> [(offset: Int64, time: Int64)]
  {
    var points: [Int64: Int64] = [:]
    var cursor = master.cursor
    while !cursor.atEnd {
      let (id, body) = try cursor.element()
      guard id == ID.cuePoint else { continue }
      var point = body
      var time: UInt64 = 0
      var positions: [Int64] = []
      while !point.atEnd {
        let (child, value) = try point.element()
        if child == ID.cueTime { time = try unsignedValue(value) }
        if child == ID.cueTrackPositions {
          var inner = value
          while !inner.atEnd {
            let (field, fieldValue) = try inner.element()
            if field == ID.cueClusterPosition {
              positions.append(segmentStart &+ Int64(clamping: try unsignedValue(fieldValue)))
            }
          }
        }
      }
      let (ns, overflow) = time.multipliedReportingOverflow(by: scale)
      guard !overflow, ns <= UInt64(Int64.max) / UInt64(opusRate) else { continue }
      let samples = Int64(ns) * Int64(opusRate) / 1_000_000_000
      for position in positions where points[position].map({ samples < $0 }) ?? true {
        points[position] = samples
      }
    }
    // Ascending by offset; a cue whose time runs backwards is dropped.
    var index: [(offset: Int64, time: Int64)] = []
    for (offset, time) in points.sorted(by: { $0.key < $1.key }) {
      if let last = index.last, time < last.time { continue }
      index.append((offset, time))
    }
    return index
  }

  /// TITLE, ARTIST and ALBUM (upper-cased names) from the SimpleTags, the first of each.
  private static func parseTags(_ master: Master) -> [String: String] {
    var found: [String: String] = [:]
    func simpleTags(_ body: ByteCursor) throws {
      var cursor = body
      var name: String?
      var value: String?
      while !cursor.atEnd {
        let (id, child) = try cursor.element()
        if id == ID.tagName { name = textValue(child)?.uppercased() }
        if id == ID.tagString { value = textValue(child) }
      }
      if let name, let value, found[name] == nil { found[name] = value }
    }
    var cursor = master.cursor
    do {
      while !cursor.atEnd {
        let (id, body) = try cursor.element()
        guard id == ID.tag else { continue }
        var tag = body
        while !tag.atEnd {
          let (child, value) = try tag.element()
          if child == ID.simpleTag { try simpleTags(value) }
        }
      }
    } catch {}  // tags from a damaged element: what was read
    return found
  }
}

/// An element's header in the file: its ID, its body's offset and size (nil: unknown).
private struct ElementHeader {
  var id: UInt32
  var body: Int64
  var size: Int64?
}

private func elementHeader(_ file: FileBytes, at offset: Int64) throws -> ElementHeader {
  guard offset >= 0, let bytes = file.read(at: offset, count: Int(min(12, file.size - offset))),
    !bytes.isEmpty
  else { throw DemuxError.malformed("an element runs past the end of the file (truncated?)") }
  var cursor = ByteCursor(bytes)
  let id = try cursor.elementID()
  let (size, length) = try cursor.vintWithLength()
  let unknown = size == (UInt64(1) << (7 * length)) - 1
  guard unknown || size <= UInt64(Int64.max / 2) else { throw DemuxError.malformed("element size") }
  return ElementHeader(
    id: id, body: offset + Int64(cursor.position), size: unknown ? nil : Int64(size))
}

private func readMaster(_ file: FileBytes, _ element: ElementHeader) throws -> MatroskaDemuxer.Master {
  guard let size = element.size, size <= Int64(MatroskaDemuxer.maxMasterBytes),
    let bytes = file.read(at: element.body, count: Int(size))
  else { throw DemuxError.malformed("an element of unknown or excessive size, or truncated") }
  return MatroskaDemuxer.Master(cursor: ByteCursor(bytes))
}

private func unsignedValue(_ body: ByteCursor) throws -> UInt64 {
  var cursor = body
  guard cursor.remaining <= 8 else { throw DemuxError.malformed("an integer of \(cursor.remaining) bytes") }
  return cursor.remaining == 0 ? 0 : try cursor.uint(cursor.remaining)
}

private func signedValue(_ body: ByteCursor) throws -> Int64 {
  let length = body.remaining
  let value = try unsignedValue(body)
  guard length > 0, length < 8 else { return Int64(bitPattern: value) }
  let shift = UInt64(64 - 8 * length)
  return Int64(bitPattern: value << shift) >> Int64(shift)
}

private func textValue(_ body: ByteCursor) -> String? {
  var cursor = body
  guard let bytes = try? cursor.take(cursor.remaining) else { return nil }
  let value = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    .trimmingCharacters(in: .whitespacesAndNewlines)
  return value.isEmpty ? nil : value
}

extension ByteCursor {
  /// An EBML variable-length integer, its length marker removed, and its length in bytes.
  mutating func vintWithLength() throws -> (UInt64, Int) {
    let first = try u8()
    guard first != 0 else { throw DemuxError.malformed("an EBML number longer than 8 bytes") }
    let length = first.leadingZeroBitCount + 1
    var value = UInt64(first) & (0xFF >> UInt64(length))
    for _ in 1..<length { value = value << 8 | UInt64(try u8()) }
    return (value, length)
  }

  mutating func vint() throws -> UInt64 { try vintWithLength().0 }

  /// An element ID, its length marker kept (IDs are written that way), at most 4 bytes.
  mutating func elementID() throws -> UInt32 {
    let first = try u8()
    let length = first.leadingZeroBitCount + 1
    guard length <= 4 else { throw DemuxError.malformed("an element ID longer than 4 bytes") }
    var value = UInt32(first)
    for _ in 1..<length { value = value << 8 | UInt32(try u8()) }
    return value
  }

  /// The next element's ID and a cursor over its body (which must have a known size).
  mutating func element() throws -> (UInt32, ByteCursor) {
    let id = try elementID()
    let (size, length) = try vintWithLength()
    guard size != (UInt64(1) << (7 * length)) - 1 else {
      throw DemuxError.declined("an element of unknown size inside another")
    }
    guard size <= UInt64(remaining) else {
      throw DemuxError.malformed("an element runs past its parent")
    }
    return (id, try sub(Int(size)))
  }
}
