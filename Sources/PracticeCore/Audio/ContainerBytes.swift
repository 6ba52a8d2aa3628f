import Foundation

/// Why a hand-written demuxer did not take a file: `declined` hands it to libavformat
/// (a layout it does not handle, or damage FFmpeg may cope with better); `malformed` is
/// the same, with the reason kept for the message if FFmpeg refuses it too.
enum DemuxError: Error, CustomStringConvertible {
  case declined(String)
  case malformed(String)

  var description: String {
    switch self {
    case .declined(let reason), .malformed(let reason): return reason
    }
  }
}

/// A file read at offsets (`pread`), through a read-ahead window so that packets stored
/// one after the other cost one system call per window, not one each. One thread at a time.
final class FileBytes {
  let size: Int64
  private let descriptor: Int32  // owned; closed in deinit
  private var window: [UInt8] = []  // bytes [windowStart, windowStart + window.count)
  private var windowStart: Int64 = 0
  private static let windowSize = 256 * 1024

  init(path: String) throws {
    descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw DemuxError.declined("cannot open the file") }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      close(descriptor)
      throw DemuxError.declined("not a regular file")
    }
    size = Int64(status.st_size)
  }

  deinit { close(descriptor) }

  /// `count` bytes at `offset`, or nil if they are not all in the file.
  func read(at offset: Int64, count: Int) -> [UInt8]? {
    guard count >= 0, offset >= 0, count <= Int(Int32.max),
      offset <= size, Int64(count) <= size - offset
    else { return nil }
    var bytes = [UInt8](repeating: 0, count: count)
    guard read(at: offset, count: count, into: &bytes) else { return nil }
    return bytes
  }

  /// Reads `count` bytes at `offset` into the start of `buffer` (grown if needed); false
  /// if they are not all in the file or the read fails.
  func read(at offset: Int64, count: Int, into buffer: inout [UInt8]) -> Bool {
    guard count >= 0, offset >= 0, offset <= size, Int64(count) <= size - offset else {
      return false
    }
    if buffer.count < count { buffer = [UInt8](repeating: 0, count: count) }
    if count == 0 { return true }
    let windowEnd = windowStart + Int64(window.count)
    if offset < windowStart || offset + Int64(count) > windowEnd {
      if count > FileBytes.windowSize {
        return buffer.withUnsafeMutableBytes { readFully($0.baseAddress!, count, offset) }
      }
      let length = Int(min(Int64(FileBytes.windowSize), size - offset))
      if window.count != length { window = [UInt8](repeating: 0, count: length) }
      let ok = window.withUnsafeMutableBytes { readFully($0.baseAddress!, length, offset) }
      guard ok else {
        window = []
        return false
      }
      windowStart = offset
    }
    let start = Int(offset - windowStart)
    buffer.withUnsafeMutableBufferPointer { out in
      window.withUnsafeBufferPointer { inp in
        out.baseAddress!.update(from: inp.baseAddress! + start, count: count)
      }
    }
    return true
  }

  private func readFully(_ base: UnsafeMutableRawPointer, _ count: Int, _ offset: Int64) -> Bool {
    var done = 0
    while done < count {
      let n = pread(descriptor, base + done, count - done, off_t(offset + Int64(done)))
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { return false }
      done += n
    }
    return true
  }
}

/// Big-endian fields read from bytes held in memory; every read is bounds-checked and
/// throws `DemuxError.malformed` past the end.
struct ByteCursor {
  let bytes: [UInt8]
  private(set) var position: Int
  let end: Int

  init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
    self.bytes = bytes
    let last = min(end ?? bytes.count, bytes.count)
    self.position = max(0, min(start, last))
    self.end = last
  }

  var remaining: Int { end - position }
  var atEnd: Bool { position >= end }

  mutating func skip(_ count: Int) throws {
    guard count >= 0, count <= remaining else { throw DemuxError.malformed("a field runs past its box") }
    position += count
  }

  mutating func u8() throws -> UInt8 {
    guard remaining >= 1 else { throw DemuxError.malformed("a field runs past its box") }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func u16() throws -> UInt16 { UInt16(try uint(2)) }
  mutating func u24() throws -> UInt32 { UInt32(try uint(3)) }
  mutating func u32() throws -> UInt32 { UInt32(try uint(4)) }
  mutating func u64() throws -> UInt64 { try uint(8) }

  /// `count` bytes (1 to 8) as a big-endian unsigned number.
  mutating func uint(_ count: Int) throws -> UInt64 {
    guard count >= 1, count <= 8, remaining >= count else {
      throw DemuxError.malformed("a field runs past its box")
    }
    var value: UInt64 = 0
    for i in 0..<count { value = value << 8 | UInt64(bytes[position + i]) }
    position += count
    return value
  }

  mutating func take(_ count: Int) throws -> [UInt8] {
    guard count >= 0, count <= remaining else {
      throw DemuxError.malformed("a field runs past its box")
    }
    defer { position += count }
    return Array(bytes[position..<(position + count)])
  }

  /// A cursor over the next `count` bytes; this one moves past them.
  mutating func sub(_ count: Int) throws -> ByteCursor {
    guard count >= 0, count <= remaining else {
      throw DemuxError.malformed("a box runs past its parent")
    }
    defer { position += count }
    return ByteCursor(bytes, from: position, to: position + count)
  }
}
