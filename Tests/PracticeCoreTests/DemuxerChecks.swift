import Foundation
@testable import PracticeCore
import Testing

/// What the hand-written demuxers' tests share.
enum DemuxerChecks {
  /// Every frame `decoder` gives from where it is.
  static func decodeAll(_ decoder: any AudioDecoder) -> [Float] {
    var out: [Float] = []
    var buffer = [Float](repeating: 0, count: 4096 * decoder.info.channels)
    while true {
      let n = buffer.withUnsafeMutableBufferPointer { decoder.read(into: $0.baseAddress!, frames: 4096) }
      if n <= 0 { break }
      out += buffer[0..<(n * decoder.info.channels)]
    }
    return out
  }

  /// Opening and reading a damaged file (`bytes` written to `path`) must end: a clean
  /// error, or frames (fewer if cut), through `open` and through `SoundFile`.
  static func survive(
    _ bytes: [UInt8], at path: String, _ label: String,
    open: (String) throws -> PacketDecoder
  ) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    if let decoder = try? open(path) {
      let frames = decodeAll(decoder).count / max(1, decoder.info.channels)
      #expect(Int64(frames) <= decoder.info.frames, "\(label)")
      _ = try? decoder.seek(to: decoder.info.frames / 2)
      _ = decodeAll(decoder)
    }
    do {
      let file = try SoundFile(path: path)
      #expect(file.info.frames >= 0)
    } catch let failure as PracticeFailure {
      #expect(!failure.description.contains("\n"), "\(label)")
    }
  }
}
