import CPlatform
import Foundation

/// File names are bytes; Swift strings are Unicode. A name that is not UTF-8 (`caf\xe9.wav`,
/// written by a Latin-1 system) is carried in a `String` without loss: each byte that is
/// not part of valid UTF-8 becomes one scalar of a private-use block, U+10FD80–U+10FDFF
/// (byte 0x80–0xFF). A name that already holds a scalar of that block has that scalar's
/// UTF-8 bytes carried the same way, so every byte string has exactly one form and back.
/// The library stores that form; the terminal door shows those scalars as `\xHH`.
public enum PathBytes {
  static let base: UInt32 = 0x10FD00

  /// The byte a carried scalar stands for, or nil for any other scalar.
  public static func byte(carriedBy scalar: Unicode.Scalar) -> UInt8? {
    (0x10FD80...0x10FDFF).contains(scalar.value) ? UInt8(scalar.value - base) : nil
  }

  /// The string form of a byte string: valid UTF-8 as itself, every other byte carried.
  public static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let bytes = Array(bytes)
    if let text = String(validating: bytes, as: UTF8.self),
      !text.unicodeScalars.contains(where: { byte(carriedBy: $0) != nil })
    {
      return text
    }
    var scalars = String.UnicodeScalarView()
    var i = 0
    while i < bytes.count {
      let length = sequenceLength(bytes, at: i)
      if length > 0, let text = String(validating: bytes[i..<(i + length)], as: UTF8.self),
        let scalar = text.unicodeScalars.first, byte(carriedBy: scalar) == nil
      {
        scalars.append(scalar)
        i += length
      } else {
        // Not UTF-8 here (never ASCII, which always is): this one byte is carried.
        scalars.append(Unicode.Scalar(base + UInt32(bytes[i])) ?? "\u{FFFD}")
        i += 1
      }
    }
    return String(scalars)
  }

  /// The bytes a string form stands for.
  public static func bytes(_ text: String) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      if let b = byte(carriedBy: scalar) {
        result.append(b)
      } else {
        result.append(contentsOf: String(scalar).utf8)
      }
    }
    return result
  }

  /// Whether `text` carries bytes that are not UTF-8 (and so needs `usable` to be opened).
  public static func carriesBytes(_ text: String) -> Bool {
    text.unicodeScalars.contains { byte(carriedBy: $0) != nil }
  }

  /// The command-line arguments as string forms (Swift's `CommandLine.arguments` replaces
  /// bytes that are not UTF-8 with U+FFFD, which loses the file's name).
  public static func arguments() -> [String] {
    (0..<Int(CommandLine.argc)).map { index in
      guard let argument = CommandLine.unsafeArgv[index] else { return "" }
      return string(
        UnsafeBufferPointer(start: argument, count: strlen(argument)).map { UInt8(bitPattern: $0) })
    }
  }

  /// A path the file APIs (Foundation's, libsndfile's, FFmpeg's, which take UTF-8) reach the
  /// file by: `path` itself, or for a name carrying other bytes, `/proc/self/fd/N` of an
  /// `O_PATH` descriptor opened by its bytes (kept open for the process: few names need one).
  public static func usable(_ path: String) -> String {
    guard carriesBytes(path) else { return path }
    return lock.withLock {
      if let known = opened[path] { return known }
      var raw = bytes(path).map { CChar(bitPattern: $0) }
      raw.append(0)
      let descriptor = practice_open_path(raw)
      guard descriptor >= 0 else { return path }
      let proxy = "/proc/self/fd/\(descriptor)"
      opened[path] = proxy
      return proxy
    }
  }

  /// The names in a directory, as string forms, without `.` and `..`; nil if it cannot be read.
  public static func entries(of directory: String) -> [String]? {
    guard let stream = opendir(usable(directory)) else { return nil }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        Array(raw.prefix { $0 != 0 })
      }
      if name == [0x2E] || name == [0x2E, 0x2E] { continue }
      names.append(string(name))
    }
    return names
  }

  nonisolated(unsafe) private static var opened: [String: String] = [:]
  private static let lock = NSLock()

  /// The length of the UTF-8 sequence a lead byte announces, or 0 for a byte that cannot lead.
  private static func sequenceLength(_ bytes: [UInt8], at i: Int) -> Int {
    let b = bytes[i]
    let length: Int
    switch b {
    case 0x00..<0x80: return 1
    case 0xC2...0xDF: length = 2
    case 0xE0...0xEF: length = 3
    case 0xF0...0xF4: length = 4
    default: return 0
    }
    return i + length <= bytes.count ? length : 0
  }
}
