import Foundation

// Read by hand, in one pass over the bytes, rather than with JSONDecoder: Foundation's
// decoder spent ~80 % of importing a 10,000-song library on its 5 M beat numbers.
extension PracticeFile {
  /// The document in `data`, read from `path` (named in messages); a `PracticeError(.badData)`
  /// naming the file, the byte offset and what was expected when it is not one.
  public static func decode(_ data: Data, path: String) throws -> PracticeFile {
    try data.withUnsafeBytes { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      var reader = JSONReader(bytes)
      do {
        let top = try Top(reading: &reader)
        guard reader.peek() == 0 else { throw reader.failure("the end of the file") }
        try top.checkHeader(path: path)
        return PracticeFile(
          format: try reader.required(top.format, "format"),
          version: try reader.required(top.version, "version"),
          exportedAt: try reader.required(top.exportedAt, "exported_at"),
          songs: try reader.required(top.songs, "songs"),
          setlists: try reader.required(top.setlists, "setlists"))
      } catch let error as JSONReadError {
        // A newer or foreign file says so rather than where it differs from this version.
        // (Its version comes last: a file damaged before it is a damaged .practice file.)
        var header = JSONReader(bytes)
        let top = Top.header(&header)
        if top.format != PracticeFile.formatName || (top.version ?? 1) > PracticeFile.currentVersion
          || (top.version ?? 1) < 1
        {
          try top.checkHeader(path: path)
        }
        throw PracticeError(.badData, error.message(file: path, bytes))
      }
    }
  }

  /// The top object's fields as read so far.
  private struct Top {
    var format: String?
    var version: Int?
    var exportedAt: String?
    var songs: [SharedSong]?
    var setlists: [SharedSetlist]?

    init() {}

    init(reading r: inout JSONReader) throws {
      try r.object { r, key in
        switch key {
        case "format": format = try r.string()
        case "version": version = try r.int()
        case "exported_at": exportedAt = try r.string()
        case "songs": songs = try r.list { try SharedSong(reading: &$0) }
        case "setlists": setlists = try r.list { try SharedSetlist(reading: &$0) }
        default: try r.skip()
        }
      }
    }

    /// The format and version of a document that could not be read, as far as they can be
    /// found: the top object's other values are skipped, and reading stops at an error.
    static func header(_ r: inout JSONReader) -> Top {
      var top = Top()
      _ = try? r.object { r, key in
        switch key {
        case "format": top.format = try r.string()
        case "version": top.version = try r.int()
        default: try r.skip()
        }
      }
      return top
    }

    func checkHeader(path: String) throws {
      guard format == PracticeFile.formatName, let version else {
        throw PracticeError(
          .badData,
          "'\(path)' is not a .practice file (no \"format\": \"practice\" object at its top)")
      }
      guard version >= 1 else {
        throw PracticeError(
          .badData,
          "'\(path)' says it is of version \(version), which no practice writes; the file is "
            + "damaged or was edited by hand")
      }
      guard version <= PracticeFile.currentVersion else {
        throw PracticeError(
          .badData,
          "'\(path)' is a .practice file of version \(version); this practice reads up to "
            + "version \(PracticeFile.currentVersion): use a newer practice")
      }
    }
  }
}

extension PracticeFile.SharedSong {
  fileprivate init(reading r: inout JSONReader) throws {
    var ref: Int?
    var title: String?
    var artist: String?
    var album: String?
    var duration: Double?
    var frames: Int64?
    var sampleRate: Int?
    var contentHash: String?
    var key: String?
    var bpm: Double?
    var note: String?
    var tags: [String]?
    var beatMap: PracticeFile.SharedBeatMap?
    var selections: [PracticeFile.SharedSelection]?
    var chords: PracticeFile.SharedChords?
    try r.object { r, name in
      switch name {
      case "ref": ref = try r.int()
      case "title": title = try r.string()
      case "artist": artist = try r.nullable { try $0.string() }
      case "album": album = try r.nullable { try $0.string() }
      case "duration": duration = try r.double()
      case "frames": frames = try r.int64()
      case "sample_rate": sampleRate = try r.int()
      case "content_hash": contentHash = try r.string()
      case "key": key = try r.nullable { try $0.string() }
      case "bpm": bpm = try r.nullable { try $0.double() }
      case "note": note = try r.nullable { try $0.string() }
      case "tags": tags = try r.column { try $0.string() }
      case "beat_map": beatMap = try r.nullable { try PracticeFile.SharedBeatMap(reading: &$0) }
      case "chords": chords = try r.nullable { try PracticeFile.SharedChords(reading: &$0) }
      case "selections":
        selections = try r.list { try PracticeFile.SharedSelection(reading: &$0) }
      default: try r.skip()
      }
    }
    self.init(
      ref: try r.required(ref, "ref"), title: try r.required(title, "title"), artist: artist,
      album: album, duration: try r.required(duration, "duration"),
      frames: try r.required(frames, "frames"), sampleRate: try r.required(sampleRate, "sample_rate"),
      contentHash: try r.required(contentHash, "content_hash"), key: key, bpm: bpm, note: note,
      tags: try r.required(tags, "tags"), beatMap: beatMap,
      selections: try r.required(selections, "selections"), chords: chords)
  }
}

extension PracticeFile.SharedChords {
  fileprivate init(reading r: inout JSONReader) throws {
    var source: String?
    var key: String?
    var starts: [Int64]?
    var ends: [Int64]?
    var labels: [String]?
    try r.object { r, name in
      switch name {
      case "source": source = try r.string()
      case "key": key = try r.nullable { try $0.string() }
      case "starts": starts = try r.column { try $0.int64() }
      case "ends": ends = try r.column { try $0.int64() }
      case "labels": labels = try r.column { try $0.string() }
      default: try r.skip()
      }
    }
    self.init(
      source: try r.required(source, "source"), key: key, starts: try r.required(starts, "starts"),
      ends: try r.required(ends, "ends"), labels: try r.required(labels, "labels"))
  }
}

extension PracticeFile.SharedBeatMap {
  fileprivate init(reading r: inout JSONReader) throws {
    var frames: [Int64]?
    var firstBar: Int?
    var firstBeat: Int?
    var barLengths: [[Int]]?
    var positions: [[Int]]?
    var sources: [PracticeFile.SourceRun]?
    var confidence: [Double?]?
    func pairs(_ r: inout JSONReader) throws -> [[Int]] {
      try r.column { try $0.column { try $0.int() } }
    }
    try r.object { r, name in
      switch name {
      case "frames": frames = try r.column { try $0.int64() }
      case "first_bar": firstBar = try r.int()
      case "first_beat": firstBeat = try r.int()
      case "bar_lengths": barLengths = try r.nullable(pairs)
      case "positions": positions = try r.nullable(pairs)
      case "sources":
        sources = try r.column { r in
          var source: String?
          var count: Int?
          try r.array { r, index in
            switch index {
            case 0: source = try r.string()
            case 1: count = try r.int()
            default: throw r.failure("']' after a [source, count] pair")
            }
          }
          guard let source, let count else { throw r.failure("a [source, count] pair") }
          return PracticeFile.SourceRun(source: source, count: count)
        }
      case "confidence":
        confidence = try r.nullable { try $0.column { try $0.nullable { try $0.double() } } }
      default: try r.skip()
      }
    }
    self.init(
      frames: try r.required(frames, "frames"), firstBar: try r.required(firstBar, "first_bar"),
      firstBeat: try r.required(firstBeat, "first_beat"), barLengths: barLengths,
      positions: positions, sources: try r.required(sources, "sources"), confidence: confidence)
  }
}

extension PracticeFile.SharedSelection {
  fileprivate init(reading r: inout JSONReader) throws {
    var name: String?
    var bars: String?
    var startFrame: Int64?
    var endFrame: Int64?
    var note: String?
    var practice: PracticeFile.SharedPractice?
    try r.object { r, key in
      switch key {
      case "name": name = try r.string()
      case "bars": bars = try r.nullable { try $0.string() }
      case "start_frame": startFrame = try r.nullable { try $0.int64() }
      case "end_frame": endFrame = try r.nullable { try $0.int64() }
      case "note": note = try r.nullable { try $0.string() }
      case "practice": practice = try r.nullable { try PracticeFile.SharedPractice(reading: &$0) }
      default: try r.skip()
      }
    }
    self.init(
      name: try r.required(name, "name"), bars: bars, startFrame: startFrame, endFrame: endFrame,
      note: note, practice: practice)
  }
}

extension PracticeFile.SharedPractice {
  fileprivate init(reading r: inout JSONReader) throws {
    self.init()
    try r.object { r, key in
      switch key {
      case "speed": speed = try r.nullable { try $0.double() }
      case "ramp_to": rampTo = try r.nullable { try $0.double() }
      case "step": step = try r.nullable { try $0.double() }
      case "every": every = try r.nullable { try $0.int() }
      case "count_in": countIn = try r.nullable { try $0.int() }
      case "click": click = try r.nullable { try $0.bool() }
      case "gap": gap = try r.nullable { try $0.string() }
      case "transpose": transpose = try r.nullable { try $0.double() }
      case "volume": volume = try r.nullable { try $0.double() }
      case "goal": goal = try r.nullable { try $0.string() }
      case "passes": passes = try r.nullable { try $0.int() }
      default: try r.skip()
      }
    }
  }
}

extension PracticeFile.SharedSetlist {
  fileprivate init(reading r: inout JSONReader) throws {
    var name: String?
    var entries: [PracticeFile.SharedEntry]?
    try r.object { r, key in
      switch key {
      case "name": name = try r.string()
      case "entries": entries = try r.list { try PracticeFile.SharedEntry(reading: &$0) }
      default: try r.skip()
      }
    }
    self.init(name: try r.required(name, "name"), entries: try r.required(entries, "entries"))
  }
}

extension PracticeFile.SharedEntry {
  fileprivate init(reading r: inout JSONReader) throws {
    var song: Int?
    var selection: String?
    var key: String?
    var transpose: Int?
    var speed: Double?
    var repeats: Int?
    var note: String?
    try r.object { r, name in
      switch name {
      case "song": song = try r.int()
      case "selection": selection = try r.nullable { try $0.string() }
      case "key": key = try r.nullable { try $0.string() }
      case "transpose": transpose = try r.nullable { try $0.int() }
      case "speed": speed = try r.nullable { try $0.double() }
      case "repeats": repeats = try r.nullable { try $0.int() }
      case "note": note = try r.nullable { try $0.string() }
      default: try r.skip()
      }
    }
    self.init(
      song: try r.required(song, "song"), selection: selection, key: key, transpose: transpose,
      speed: speed, repeats: repeats, note: note)
  }
}
