import Foundation

// Written by hand rather than with JSONEncoder: for a 10,000-song library with 5 M beats,
// Foundation's encoder on Linux (a boxed value per number) took most of `export --all`'s
// time. The output is the JSON JSONEncoder wrote (sorted keys, absent optionals omitted,
// slashes unescaped), so the format is unchanged.
extension PracticeFile {
  /// The document as UTF-8 JSON with sorted keys.
  public func encoded() throws -> Data {
    var out = JSONWriter()
    out.bytes.reserveCapacity(
      4096 + songs.reduce(0) { $0 + 512 + 14 * ($1.beatMap?.frames.count ?? 0) })
    out.object { o in
      o.field("exported_at") { $0.string(exportedAt) }
      o.field("format") { $0.string(format) }
      o.field("setlists") { w in w.array(setlists) { $0.write($1) } }
      o.field("songs") { w in w.array(songs) { $0.write($1) } }
      o.field("version") { $0.int(Int64(version)) }
    }
    if let problem = out.problem {
      throw PracticeError(.other, "cannot write the .practice file: \(problem)")
    }
    return Data(out.bytes)
  }
}

/// The project's one JSON writer (`.practice` files, every `--json`): UTF-8 bytes, objects
/// with their keys in the order written, strings escaped as JSONEncoder escapes them, numbers
/// with a fast path for integers and three-decimal values. Written by hand: see above.
public struct JSONWriter {
  public var bytes: [UInt8] = []
  /// Set when a value cannot be JSON (a number that is not finite).
  public var problem: String?
  /// Also escapes DEL and the C1 controls (U+007F–U+009F) as `\u`: JSON that may reach a
  /// terminal, where those would act (a CSI `\u009b` in a tag).
  public let escapesTerminalControls: Bool

  /// Per open object, whether no field was written yet.
  private var firstField: [Bool] = []

  public init(escapesTerminalControls: Bool = false) {
    self.escapesTerminalControls = escapesTerminalControls
  }

  /// The bytes as text.
  public var text: String { String(decoding: bytes, as: UTF8.self) }

  /// JSON the caller spelled (`{"id":`): appended as it is.
  public mutating func raw(_ literal: String) { bytes.append(contentsOf: literal.utf8) }

  /// Writes `key` and its value (`value` writes it) into the object being written.
  public mutating func field(_ key: StaticString, _ value: (inout JSONWriter) -> Void) {
    if firstField[firstField.count - 1] {
      firstField[firstField.count - 1] = false
    } else {
      bytes.append(UInt8(ascii: ","))
    }
    bytes.append(UInt8(ascii: "\""))
    key.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    value(&self)
  }

  /// The field when `value` is not nil (JSONEncoder leaves nil optionals out).
  public mutating func field<T>(
    _ key: StaticString, _ value: T?, _ write: (inout JSONWriter, T) -> Void
  ) {
    guard let value else { return }
    field(key) { write(&$0, value) }
  }

  /// An object: `body` writes its fields.
  public mutating func object(_ body: (inout JSONWriter) -> Void) {
    bytes.append(UInt8(ascii: "{"))
    firstField.append(true)
    body(&self)
    firstField.removeLast()
    bytes.append(UInt8(ascii: "}"))
  }

  public mutating func array<C: Collection>(
    _ items: C, _ write: (inout JSONWriter, C.Element) -> Void
  ) {
    bytes.append(UInt8(ascii: "["))
    var first = true
    for item in items {
      if !first { bytes.append(UInt8(ascii: ",")) }
      first = false
      write(&self, item)
    }
    bytes.append(UInt8(ascii: "]"))
  }

  public mutating func null() { bytes.append(contentsOf: [110, 117, 108, 108]) }

  public mutating func bool(_ value: Bool) {
    bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
  }

  /// A string, or `null`.
  public mutating func optionalString(_ value: String?) {
    if let value { string(value) } else { null() }
  }

  public mutating func string(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    var utf8 = text.utf8.makeIterator()
    while let byte = utf8.next() {
      switch byte {
      case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
      case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
      case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
      case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
      case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
      case 0x08: bytes.append(contentsOf: [92, UInt8(ascii: "b")])
      case 0x0C: bytes.append(contentsOf: [92, UInt8(ascii: "f")])
      case 0..<0x20: unicodeEscape(byte)
      case 0x7F where escapesTerminalControls: unicodeEscape(byte)
      case 0xC2 where escapesTerminalControls:
        // U+0080–U+009F, the C1 controls, are 0xC2 0x80–0x9F in UTF-8.
        guard let next = utf8.next() else {
          bytes.append(byte)
          break
        }
        if (0x80...0x9F).contains(next) {
          unicodeEscape(next)
        } else {
          bytes.append(contentsOf: [byte, next])
        }
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// `\u00XX`, lowercase hex, for a code point below U+0100.
  private mutating func unicodeEscape(_ value: UInt8) {
    let hex: [UInt8] = Array("0123456789abcdef".utf8)
    bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(value >> 4)], hex[Int(value & 15)]])
  }

  public mutating func int(_ value: Int64) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: 20 digits fit
    var count = 0
    withUnsafeMutableBytes(of: &digits) { buffer in
      repeat {
        buffer[23 - count] = UInt8(truncatingIfNeeded: magnitude % 10) + 48
        magnitude /= 10
        count += 1
      } while magnitude > 0
      bytes.append(contentsOf: buffer[(24 - count)...])
    }
  }

  public mutating func number(_ value: Double) {
    guard value.isFinite else {
      problem = problem ?? "the number \(value) is not finite"
      return null()
    }
    if value == value.rounded(), abs(value) < 1e15 {
      return int(Int64(value))
    }
    // Three decimals (confidences, speeds, most tempos): the digits of value × 1000.
    let thousandths = (value * 1000).rounded()
    if abs(thousandths) < 1e15, thousandths / 1000 == value {
      let whole = Int64(thousandths)
      if whole < 0 { bytes.append(UInt8(ascii: "-")) }
      int(Int64(whole.magnitude / 1000))
      var fraction = Int(whole.magnitude % 1000)
      bytes.append(UInt8(ascii: "."))
      var divisor = 100
      repeat {
        bytes.append(UInt8(fraction / divisor) + 48)
        fraction %= divisor
        divisor /= 10
      } while fraction > 0 && divisor > 0
      return
    }
    bytes.append(contentsOf: Array("\(value)".utf8))
  }
}

extension JSONWriter {
  fileprivate mutating func write(_ song: PracticeFile.SharedSong) {
    object { o in
      o.field("album", song.album) { $0.string($1) }
      o.field("artist", song.artist) { $0.string($1) }
      o.field("beat_map", song.beatMap) { $0.write($1) }
      o.field("bpm", song.bpm) { $0.number($1) }
      o.field("content_hash") { $0.string(song.contentHash) }
      o.field("duration") { $0.number(song.duration) }
      o.field("frames") { $0.int(song.frames) }
      o.field("key", song.key) { $0.string($1) }
      o.field("note", song.note) { $0.string($1) }
      o.field("ref") { $0.int(Int64(song.ref)) }
      o.field("sample_rate") { $0.int(Int64(song.sampleRate)) }
      o.field("selections") { w in w.array(song.selections) { $0.write($1) } }
      o.field("tags") { w in w.array(song.tags) { $0.string($1) } }
      o.field("title") { $0.string(song.title) }
    }
  }

  fileprivate mutating func write(_ map: PracticeFile.SharedBeatMap) {
    func pairs(_ w: inout JSONWriter, _ rows: [[Int]]) {
      w.array(rows) { w, row in w.array(row) { $0.int(Int64($1)) } }
    }
    object { o in
      o.field("bar_lengths", map.barLengths) { pairs(&$0, $1) }
      o.field("confidence", map.confidence) { w, values in
        w.array(values) { w, value in
          if let value { w.number(value) } else { w.null() }
        }
      }
      o.field("first_bar") { $0.int(Int64(map.firstBar)) }
      o.field("first_beat") { $0.int(Int64(map.firstBeat)) }
      o.field("frames") { w in w.array(map.frames) { $0.int($1) } }
      o.field("positions", map.positions) { pairs(&$0, $1) }
      o.field("sources") { w in
        w.array(map.sources) { w, run in
          w.bytes.append(UInt8(ascii: "["))
          w.string(run.source)
          w.bytes.append(UInt8(ascii: ","))
          w.int(Int64(run.count))
          w.bytes.append(UInt8(ascii: "]"))
        }
      }
    }
  }

  fileprivate mutating func write(_ selection: PracticeFile.SharedSelection) {
    object { o in
      o.field("bars", selection.bars) { $0.string($1) }
      o.field("end_frame", selection.endFrame) { $0.int($1) }
      o.field("name") { $0.string(selection.name) }
      o.field("note", selection.note) { $0.string($1) }
      o.field("practice", selection.practice) { $0.write($1) }
      o.field("start_frame", selection.startFrame) { $0.int($1) }
    }
  }

  fileprivate mutating func write(_ practice: PracticeFile.SharedPractice) {
    object { o in
      o.field("click", practice.click) { $0.bool($1) }
      o.field("count_in", practice.countIn) { $0.int(Int64($1)) }
      o.field("every", practice.every) { $0.int(Int64($1)) }
      o.field("gap", practice.gap) { $0.string($1) }
      o.field("goal", practice.goal) { $0.string($1) }
      o.field("ramp_to", practice.rampTo) { $0.number($1) }
      o.field("speed", practice.speed) { $0.number($1) }
      o.field("step", practice.step) { $0.number($1) }
      o.field("transpose", practice.transpose) { $0.number($1) }
      o.field("volume", practice.volume) { $0.number($1) }
    }
  }

  fileprivate mutating func write(_ setlist: PracticeFile.SharedSetlist) {
    object { o in
      o.field("entries") { w in
        w.array(setlist.entries) { w, entry in
          w.object { o in
            o.field("key", entry.key) { $0.string($1) }
            o.field("note", entry.note) { $0.string($1) }
            o.field("repeats", entry.repeats) { $0.int(Int64($1)) }
            o.field("selection", entry.selection) { $0.string($1) }
            o.field("song") { $0.int(Int64(entry.song)) }
            o.field("speed", entry.speed) { $0.number($1) }
            o.field("transpose", entry.transpose) { $0.int(Int64($1)) }
          }
        }
      }
      o.field("name") { $0.string(setlist.name) }
    }
  }
}
