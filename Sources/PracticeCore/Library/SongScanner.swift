import Foundation

/// What `add` learns about a file: the song's fields, before it is stored.
public struct ScannedFile: Sendable {
  public var path: String
  public var contentHash: String
  public var fileSize: Int64
  public var modifiedAt: Double
  public var info: SoundFileInfo
}

/// Reads a file's metadata and fingerprint for the library.
public enum SongScanner {
  /// Opens `path` with the decoders (so only decodable audio gets in), measures the length
  /// that decodes (`SoundFile.measureLength`: the declared one when the audio reaches it,
  /// else counted by decoding once; `progress` hears that count's fraction) and
  /// fingerprints it.
  public static func scan(_ path: String, progress: (Double) -> Void = { _ in }) throws
    -> ScannedFile
  {
    guard !path.isEmpty else {
      throw PracticeError(.usage, "the file name is empty (''); give the path of an audio file")
    }
    let absolute = absolutePath(path)
    // Nothing there is said as `play` says it (a search refused on the way is the
    // decoder's to word).
    var status = Glibc.stat()
    if statusOf(absolute, &status) != 0 && errno != EACCES {
      throw AudioPathError.noSuchFile(path: path)
    }
    let file = try SoundFile(path: absolute)
    try file.measureLength(progress: progress)
    let (size, modified) = try stat(absolute)
    return ScannedFile(
      path: absolute, contentHash: try contentHash(absolute, size: size), fileSize: size,
      modifiedAt: modified, info: file.info)
  }

  /// One file `add` will try: given by name, or found in a folder given by name.
  public struct Target: Sendable, Equatable {
    public let path: String
    /// Named on the command line: a failure to read it is reported, never skipped.
    public let named: Bool
  }

  /// The files `add` tries for its arguments, in order: a file as it is; a folder's files
  /// recursively, each folder's entries in byte order of their names, hidden ones (a
  /// leading dot) left out, symbolic links to folders not followed twice.
  public static func targets(_ arguments: [String]) -> [Target] {
    var targets: [Target] = []
    var visited = Set<String>()
    func walk(_ directory: String) {
      guard let resolved = realpath(PathBytes.usable(directory), nil) else { return }
      let real = String(cString: resolved)
      free(resolved)
      guard visited.insert(real).inserted else { return }
      // Names as bytes, so that one that is not UTF-8 is found and kept (PathBytes).
      let names = PathBytes.entries(of: directory) ?? []
      for name in names.sorted(by: {
        PathBytes.bytes($0).lexicographicallyPrecedes(PathBytes.bytes($1))
      })
      where !name.hasPrefix(".") {
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        // stat(2) follows links, as FileManager.fileExists did, and is one call.
        var status = Glibc.stat()
        guard statusOf(path, &status) == 0 else { continue }  // a dangling link
        if status.st_mode & S_IFMT == S_IFDIR {
          walk(path)
        } else if !otherExtensions.contains((name as NSString).pathExtension.lowercased()) {
          targets.append(Target(path: path, named: false))
        }
      }
    }
    for argument in arguments {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(
        atPath: PathBytes.usable(argument), isDirectory: &isDirectory),
        isDirectory.boolValue
      {
        walk(argument)
      } else {
        targets.append(Target(path: argument, named: true))
      }
    }
    return targets
  }

  /// Extensions of audio and video files: one found in a folder that cannot be read is
  /// reported; any other file that cannot be read is skipped without a word.
  static let audioExtensions: Set<String> = [
    "wav", "wave", "w64", "rf64", "aif", "aiff", "aifc", "caf", "au", "snd", "flac", "ogg",
    "oga", "opus", "mp3", "mp2", "m4a", "m4b", "mp4", "m4v", "mov", "3gp", "aac", "ac3", "eac3",
    "mka", "mkv", "webm", "wma", "wmv", "asf", "avi", "flv", "wv", "ape", "mpc", "dts", "tta",
    "tak", "dsf", "dff", "amr", "spx", "m4r", "mpga",
  ]

  /// Extensions of files a music folder holds beside the audio that are never audio
  /// (pictures, text, playlists, cue sheets, checksums, archives): in a folder they are
  /// skipped without being opened, which saves the decoders' probing (and FFmpeg's loading).
  static let otherExtensions: Set<String> = [
    "jpg", "jpeg", "png", "gif", "bmp", "webp", "tif", "tiff", "heic", "svg", "ico", "txt",
    "md", "rtf", "pdf", "doc", "docx", "odt", "nfo", "log", "cue", "m3u", "m3u8", "pls",
    "xspf", "sfv", "md5", "sha1", "sha256", "ffp", "json", "xml", "html", "htm", "ini", "db",
    "lrc", "srt", "vtt", "zip", "rar", "7z", "gz", "tar", "exe", "dll", "sqlite", "xsc", "mid",
    "midi", "gp", "gp5", "gpx", "musicxml", "mscz", "ly",
  ]

  /// Whether a failure to read `target` is worth a line: it was named, or it looks like audio.
  public static func reportsFailure(of target: Target) -> Bool {
    target.named
      || audioExtensions.contains((target.path as NSString).pathExtension.lowercased())
  }

  /// The path made absolute against the working directory, with `.` and `..` resolved.
  public static func absolutePath(_ path: String) -> String {
    // Already absolute and clean (no `.`, `..` or empty component, no trailing slash): as
    // it is, without building a URL (most of a large `add`'s paths).
    if path.hasPrefix("/"), path.count > 1, !path.hasSuffix("/"), !path.hasSuffix("/."),
      !path.hasSuffix("/.."), !path.contains("//"), !path.contains("/./"),
      !path.contains("/../")
    {
      return path
    }
    let url =
      path.hasPrefix("/")
      ? URL(fileURLWithPath: path)
      : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
    return url.standardizedFileURL.path
  }

  /// Size and modification time, the cheap check for "has this file changed" (`stat(2)`).
  /// The time is computed as FileManager's `modificationDate` computes it (seconds since
  /// 2001 plus the nanoseconds, as a `Date`), to the last bit, so that libraries that
  /// stored it that way see their files unchanged.
  public static func stat(_ path: String) throws -> (size: Int64, modified: Double) {
    var status = Glibc.stat()
    guard statusOf(path, &status) == 0 else {
      let reason = String(cString: strerror(errno))
      throw PracticeError(.missingInput, "cannot read '\(path)': \(reason)")
    }
    let sinceReference =
      Double(status.st_mtim.tv_sec) - Date.timeIntervalBetween1970AndReferenceDate
      + Double(status.st_mtim.tv_nsec) / 1_000_000_000
    return (
      Int64(status.st_size), Date(timeIntervalSinceReferenceDate: sinceReference).timeIntervalSince1970
    )
  }

  /// Bytes read from each of the three places a fingerprint samples.
  static let sampleBytes = 256 * 1024

  /// A fingerprint of the file's content that is cheap for large files: 64-bit FNV-1a over
  /// the size and 256 KiB from the start, the middle and the end. It identifies a moved
  /// file; it is not a checksum against tampering.
  public static func contentHash(_ path: String, size: Int64) throws -> String {
    let fd = open(PathBytes.usable(path), O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw PracticeError(
        .missingInput, "cannot read '\(path)': permission denied; make it readable")
    }
    defer { close(fd) }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ bytes: UnsafeRawBufferPointer) {
      var h = hash
      for byte in bytes {
        h ^= UInt64(byte)
        h = h &* 0x0000_0100_0000_01b3
      }
      hash = h
    }
    withUnsafeBytes(of: size.littleEndian) { mix($0) }
    let sample = Int64(sampleBytes)
    let offsets = size <= 3 * sample ? [0] : [0, size / 2 - sample / 2, size - sample]
    let length = size <= 3 * sample ? Int(size) : sampleBytes
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(1, length), alignment: 16)
    defer { buffer.deallocate() }
    for offset in offsets {
      // The bytes there, up to `length` (fewer if the file shrank meanwhile).
      var filled = 0
      while filled < length {
        let n = pread(fd, buffer + filled, length - filled, off_t(offset) + off_t(filled))
        if n < 0 && errno == EINTR { continue }
        guard n >= 0 else {
          let reason = String(cString: strerror(errno))
          throw PracticeError(.io, "cannot read '\(path)': \(reason)")
        }
        if n == 0 { break }
        filled += n
      }
      mix(UnsafeRawBufferPointer(start: buffer, count: filled))
    }
    let hex = String(hash, radix: 16)
    return "fnv1a64s:" + String(repeating: "0", count: 16 - hex.count) + hex
  }
}

/// `stat(2)`, by a name `SongScanner.stat` does not hide.
private func statusOf(_ path: String, _ status: inout stat) -> Int32 {
  stat(PathBytes.usable(path), &status)
}
