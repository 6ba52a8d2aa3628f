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
  /// Opens `path` with libsndfile (so only decodable audio gets in) and fingerprints it.
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
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
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
    guard let handle = FileHandle(forReadingAtPath: path) else {
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
