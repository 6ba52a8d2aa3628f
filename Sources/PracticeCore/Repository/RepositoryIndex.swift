import Foundation

/// A band's or teacher's repository: a folder of `.practice` files (one per song, one per
/// setlist) and this `index.json`, which says what each file holds and its version. Any
/// static web server, git or a synced folder can carry it; `pull` fetches the index with a
/// conditional request and then only the files whose version changed.
public struct RepositoryIndex: Sendable, Equatable {
  public static let formatName = "practice-repository"
  public static let currentVersion = 1
  public static let fileName = "index.json"
  /// The largest index accepted (bytes): some 30,000 entries.
  public static let maxIndexBytes: Int64 = 16 * 1_048_576
  /// The largest entry file accepted (bytes): a song of several hours with every beat.
  public static let maxEntryBytes: Int64 = 32 * 1_048_576

  public struct SongEntry: Sendable, Equatable {
    public var contentHash: String
    public var title: String
    public var artist: String?
    /// Seconds.
    public var duration: Double
    /// Changes exactly when the entry's content changes (a hash of the file without its date).
    public var version: String
    /// The entry's file name in the repository's folder (no folders, no `..`).
    public var file: String
    /// The file's size in bytes.
    public var size: Int64

    public init(
      contentHash: String, title: String, artist: String?, duration: Double, version: String,
      file: String, size: Int64
    ) {
      self.contentHash = contentHash
      self.title = title
      self.artist = artist
      self.duration = duration
      self.version = version
      self.file = file
      self.size = size
    }
  }

  public struct SetlistEntry: Sendable, Equatable {
    public var name: String
    public var version: String
    public var file: String
    public var size: Int64

    public init(name: String, version: String, file: String, size: Int64) {
      self.name = name
      self.version = version
      self.file = file
      self.size = size
    }
  }

  public var songs: [SongEntry]
  public var setlists: [SetlistEntry]

  public init(songs: [SongEntry] = [], setlists: [SetlistEntry] = []) {
    self.songs = songs
    self.setlists = setlists
  }

  // MARK: File names

  /// Whether `name` may be an entry's file: one plain component of the repository folder
  /// (no `/` or `\`, not `.` or `..`, no leading dot, no control character), ending in
  /// `.practice`, at most `maxNameBytes` bytes. Checked on every index read.
  public static func isSafeFileName(_ name: String) -> Bool {
    guard !name.isEmpty, name.utf8.count <= maxNameBytes, name.hasSuffix(".practice"),
      !name.hasPrefix("."), !name.contains("/"), !name.contains("\\"), !name.contains("..")
    else { return false }
    return !name.unicodeScalars.contains {
      $0.properties.generalCategory == .control || $0 == "\u{7F}"
    }
      && name.unicodeScalars.allSatisfy { !$0.properties.isNoncharacterCodePoint }
  }

  public static let maxNameBytes = 120

  /// A safe file name from text (a title, a setlist's name): separators, control
  /// characters and dots at the start replaced, runs of `_` and spaces collapsed, capped at
  /// 60 bytes on a character boundary; `fallback` when nothing usable is left.
  public static func safeStem(_ text: String, fallback: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      let bad =
        scalar == "/" || scalar == "\\" || scalar == ":" || scalar == "*" || scalar == "?"
        || scalar == "\"" || scalar == "<" || scalar == ">" || scalar == "|"
        || scalar.properties.generalCategory == .control || scalar == "\u{7F}"
        || scalar.properties.generalCategory == .format
      let c: Character = bad || scalar == " " ? "_" : Character(scalar)
      if c == "_" && out.last == "_" { continue }
      if c == "." && out.last == "." { continue }
      out.append(c)
    }
    while let first = out.first, first == "." || first == "_" || first == "-" { out.removeFirst() }
    while let last = out.last, last == "." || last == "_" { out.removeLast() }
    var capped = ""
    for character in out {
      if capped.utf8.count + character.utf8.count > 60 { break }
      capped.append(character)
    }
    while let last = capped.last, last == "." || last == "_" { capped.removeLast() }
    return capped.isEmpty ? fallback : capped
  }

  // MARK: Reading and writing

  /// The index as JSON: one entry a line, sorted by file, so that an unchanged repository
  /// writes the same bytes (and a web server's ETag stays the same).
  public func encoded() -> Data {
    var out = JSONWriter()
    out.object { o in
      o.field("format", Self.formatName)
      o.field("setlists") { w in
        w.array(setlists.sorted { $0.file < $1.file }) { w, entry in
          w.newline()
          w.object { o in
            o.field("file", entry.file)
            o.field("name", entry.name)
            o.field("size", entry.size)
            o.field("version", entry.version)
          }
        }
      }
      o.field("songs") { w in
        w.array(songs.sorted { $0.file < $1.file }) { w, entry in
          w.newline()
          w.object { o in
            o.field("artist", ifPresent: entry.artist)
            o.field("content_hash", entry.contentHash)
            o.field("duration", entry.duration)
            o.field("file", entry.file)
            o.field("size", entry.size)
            o.field("title", entry.title)
            o.field("version", entry.version)
          }
        }
      }
      o.field("version", Self.currentVersion)
    }
    out.newline()
    return Data(out.bytes)
  }

  /// Reads an index; a `PracticeError(.badData)` naming `source` when it is not one or is of
  /// a newer format. Entries' names and sizes are checked one by one when they are pulled
  /// (`isSafeFileName`), so that one bad entry does not stop the rest.
  public static func decode(_ data: Data, source: String) throws -> RepositoryIndex {
    func bad(_ what: String) -> PracticeError {
      PracticeError(.badData, "'\(source)': \(what); the repository's index is damaged")
    }
    return try data.withUnsafeBytes { raw -> RepositoryIndex in
      let bytes = raw.bindMemory(to: UInt8.self)
      var r = JSONReader(bytes)
      var format: String?
      var version: Int?
      var songs: [SongEntry]?
      var setlists: [SetlistEntry] = []
      do {
        try r.object { r, key in
          switch key {
          case "format": format = try r.string()
          case "version": version = try r.int()
          case "songs":
            songs = try r.list { r in
              var hash: String?
              var title: String?
              var artist: String?
              var duration: Double?
              var version: String?
              var file: String?
              var size: Int64?
              try r.object { r, key in
                switch key {
                case "content_hash": hash = try r.string()
                case "title": title = try r.string()
                case "artist": artist = try r.nullable { try $0.string() }
                case "duration": duration = try r.double()
                case "version": version = try r.string()
                case "file": file = try r.string()
                case "size": size = try r.int64()
                default: try r.skip()
                }
              }
              return SongEntry(
                contentHash: try r.required(hash, "content_hash"),
                title: try r.required(title, "title"),
                artist: artist, duration: try r.required(duration, "duration"),
                version: try r.required(version, "version"), file: try r.required(file, "file"),
                size: try r.required(size, "size"))
            }
          case "setlists":
            setlists = try r.list { r in
              var name: String?
              var version: String?
              var file: String?
              var size: Int64?
              try r.object { r, key in
                switch key {
                case "name": name = try r.string()
                case "version": version = try r.string()
                case "file": file = try r.string()
                case "size": size = try r.int64()
                default: try r.skip()
                }
              }
              return SetlistEntry(
                name: try r.required(name, "name"), version: try r.required(version, "version"),
                file: try r.required(file, "file"), size: try r.required(size, "size"))
            }
          default: try r.skip()
          }
        }
        guard r.peek() == 0 else { throw r.failure("the end of the file") }
      } catch let error as JSONReadError {
        throw PracticeError(.badData, error.message(file: source, bytes))
      }
      guard format == formatName else {
        throw bad("it is not a practice repository index (no \"format\": \"\(formatName)\")")
      }
      guard let version, version <= currentVersion else {
        throw PracticeError(
          .badData,
          "'\(source)' is a repository of a newer format (version \(version ?? 0)); use a newer practice"
        )
      }
      guard let songs else { throw bad("it has no songs list") }
      return RepositoryIndex(songs: songs, setlists: setlists)
    }
  }
}

/// 64-bit FNV-1a over bytes, as hex with a prefix: versions and fingerprints, not a
/// checksum against tampering (the entry's content is checked by `import`'s rules).
struct Fingerprint {
  private var hash: UInt64 = 0xcbf2_9ce4_8422_2325

  mutating func add(_ bytes: some Sequence<UInt8>) {
    var h = hash
    for byte in bytes {
      h ^= UInt64(byte)
      h = h &* 0x0000_0100_0000_01b3
    }
    hash = h
  }

  mutating func add(_ text: String) {
    add(text.utf8)
    add(CollectionOfOne(0))
  }

  var hex: String {
    let digits = String(hash, radix: 16)
    return "fnv1a64:" + String(repeating: "0", count: 16 - digits.count) + digits
  }
}
