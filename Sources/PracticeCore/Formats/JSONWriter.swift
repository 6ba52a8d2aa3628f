import Foundation

/// The project's one JSON writer (`.practice` files, every `--json`): UTF-8 bytes, objects
/// with their keys in the order written, strings escaped as JSONEncoder escapes them, numbers
/// with a fast path for integers and three-decimal values. Written by hand: Foundation's
/// JSONEncoder on Linux boxes every number, and took most of `export --all`'s time.
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

  /// An object: `body` writes its fields.
  public mutating func object(_ body: (inout JSONWriter) -> Void) {
    bytes.append(UInt8(ascii: "{"))
    firstField.append(true)
    body(&self)
    firstField.removeLast()
    bytes.append(UInt8(ascii: "}"))
  }

  /// An array: `write` writes each item; with `onePerLine`, each item starts a line and the
  /// closing bracket has its own (a beat export a person can read and diff).
  public mutating func array<C: Collection>(
    _ items: C, onePerLine: Bool = false, _ write: (inout JSONWriter, C.Element) -> Void
  ) {
    bytes.append(UInt8(ascii: "["))
    var first = true
    for item in items {
      if !first { bytes.append(UInt8(ascii: ",")) }
      if onePerLine { bytes.append(0x0A) }
      first = false
      write(&self, item)
    }
    if onePerLine && !first { bytes.append(0x0A) }
    bytes.append(UInt8(ascii: "]"))
  }

  /// A line break between values (JSON's whitespace), for files a person reads and diffs.
  public mutating func newline() { bytes.append(0x0A) }

  public mutating func null() { bytes.append(contentsOf: [110, 117, 108, 108]) }

  public mutating func bool(_ value: Bool) {
    bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
  }

  /// `text` as a JSON string. Runs of bytes that need no escape are copied whole (a byte
  /// at a time, 5 MB of `list --json` took a tenth of its time here).
  public mutating func string(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    var text = text
    text.withUTF8 { utf8 in
      var copied = 0  // bytes of utf8 written already
      var index = 0
      while index < utf8.count {
        let length: Int  // bytes of the character escaped at `index`, 0 when it is kept
        switch utf8[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0..<0x20: length = 1
        case 0x7F, 0xC2, 0xE2:
          // DEL, the C1 controls and the bidirectional controls (`TextRule.controlBytes`).
          length = escapesTerminalControls ? TextRule.controlBytes(utf8, at: index) : 0
        default: length = 0
        }
        guard length > 0 else {
          index += 1
          continue
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[copied..<index]))
        escape(UnsafeBufferPointer(rebasing: utf8[index..<(index + length)]))
        index += length
        copied = index
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[copied...]))
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// The JSON escape of one character (its UTF-8 bytes): as JSONEncoder writes it for a
  /// quote, a backslash and C0, `\u00XX` for DEL and C1, `\u20XX` for a bidirectional control.
  private mutating func escape(_ character: UnsafeBufferPointer<UInt8>) {
    switch (character.count, character[0]) {
    case (1, UInt8(ascii: "\"")): bytes.append(contentsOf: [92, 34])
    case (1, UInt8(ascii: "\\")): bytes.append(contentsOf: [92, 92])
    case (1, 0x0A): bytes.append(contentsOf: [92, UInt8(ascii: "n")])
    case (1, 0x0D): bytes.append(contentsOf: [92, UInt8(ascii: "r")])
    case (1, 0x09): bytes.append(contentsOf: [92, UInt8(ascii: "t")])
    case (1, 0x08): bytes.append(contentsOf: [92, UInt8(ascii: "b")])
    case (1, 0x0C): bytes.append(contentsOf: [92, UInt8(ascii: "f")])
    case (1, let byte): unicodeEscape(byte)
    case (2, _): unicodeEscape(character[1])  // U+0080–U+009F: 0xC2, then the code point
    default:
      let value = 0x2000 + (Int(character[1] & 0x3F) << 6) + Int(character[2] & 0x3F)
      bytes.append(contentsOf: Array("\\u\(String(value, radix: 16))".utf8))
    }
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
