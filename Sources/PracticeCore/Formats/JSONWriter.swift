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
      case 0xE2 where escapesTerminalControls:
        // The bidirectional controls U+202A–U+202E and U+2066–U+2069 are 0xE2 0x80 0xAA–0xAE
        // and 0xE2 0x81 0xA6–0xA9 (a String's UTF-8 is whole: two bytes follow 0xE2).
        let second = utf8.next() ?? 0
        let third = utf8.next() ?? 0
        if (second == 0x80 && (0xAA...0xAE).contains(third))
          || (second == 0x81 && (0xA6...0xA9).contains(third))
        {
          let value = 0x2000 + (Int(second & 0x3F) << 6) + Int(third & 0x3F)
          bytes.append(contentsOf: Array("\\u\(String(value, radix: 16))".utf8))
        } else {
          bytes.append(contentsOf: [byte, second, third])
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
