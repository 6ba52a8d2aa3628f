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
  /// Opens `path` with the decoders (so only decodable audio gets in) and fingerprints it.
  public static func scan(_ path: String) throws -> ScannedFile {
    guard !path.isEmpty else {
      throw PracticeError(.usage, "the file name is empty (''); give the path of an audio file")
    }
    let absolute = absolutePath(path)
    let file = try SoundFile(path: absolute)
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
      let real = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
      guard visited.insert(real).inserted else { return }
      // Names as bytes, so that one that is not UTF-8 is found and kept (PathBytes).
      let names = PathBytes.entries(of: directory) ?? []
      for name in names.sorted(by: {
        PathBytes.bytes($0).lexicographicallyPrecedes(PathBytes.bytes($1))
      })
      where !name.hasPrefix(".") {
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        var isDirectory: ObjCBool = false
        guard
          FileManager.default.fileExists(
            atPath: PathBytes.usable(path), isDirectory: &isDirectory)
        else {
          continue  // a dangling link
        }
        if isDirectory.boolValue {
          walk(path)
        } else {
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
    "mka", "mkv", "webm", "wma", "wmv", "asf", "avi", "flv", "wv", "ape", "mpc", "dts",
  ]

  /// Whether a failure to read `target` is worth a line: it was named, or it looks like audio.
  public static func reportsFailure(of target: Target) -> Bool {
    target.named
      || audioExtensions.contains((target.path as NSString).pathExtension.lowercased())
  }

  /// The path made absolute against the working directory, with `.` and `..` resolved.
  public static func absolutePath(_ path: String) -> String {
    let url =
      path.hasPrefix("/")
      ? URL(fileURLWithPath: path)
      : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
    return url.standardizedFileURL.path
  }

  /// Size and modification time, the cheap check for "has this file changed".
  public static func stat(_ path: String) throws -> (size: Int64, modified: Double) {
    do {
      let attributes = try FileManager.default.attributesOfItem(atPath: PathBytes.usable(path))
      let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
      let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
      return (size, modified)
    } catch {
      throw PracticeError(.missingInput, "cannot read '\(path)': \(error.localizedDescription)")
    }
  }

  /// Bytes read from each of the three places a fingerprint samples.
  static let sampleBytes = 256 * 1024

  /// A fingerprint of the file's content that is cheap for large files: 64-bit FNV-1a over
  /// the size and 256 KiB from the start, the middle and the end. It identifies a moved
  /// file; it is not a checksum against tampering.
  public static func contentHash(_ path: String, size: Int64) throws -> String {
    guard let handle = FileHandle(forReadingAtPath: PathBytes.usable(path)) else {
      throw PracticeError(
        .missingInput, "cannot read '\(path)': permission denied; make it readable")
    }
    defer { try? handle.close() }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
      for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01b3
      }
    }
    withUnsafeBytes(of: size.littleEndian) { mix($0) }
    let sample = Int64(sampleBytes)
    let offsets = size <= 3 * sample ? [0] : [0, size / 2 - sample / 2, size - sample]
    let length = size <= 3 * sample ? Int(size) : sampleBytes
    for offset in offsets {
      do {
        try handle.seek(toOffset: UInt64(offset))
        let data = try handle.read(upToCount: length) ?? Data()
        mix(data)
      } catch {
        throw PracticeError(.io, "cannot read '\(path)': \(error.localizedDescription)")
      }
    }
    let hex = String(hash, radix: 16)
    return "fnv1a64s:" + String(repeating: "0", count: 16 - hex.count) + hex
  }
}
