import Foundation

/// The one rule for text a person gives a name or a note (typed on the command line, or
/// read from a `.practice` file or a beat file's loops): one line of plain text, at most
/// `maximumBytes` long, without tabs, line breaks, other control characters (C0, DEL, C1)
/// or the bidirectional controls that reorder what a terminal shows (U+202A–U+202E,
/// U+2066–U+2069). What the library holds it can always export and import again.
public enum TextRule {
  /// The longest name or note, in UTF-8 bytes.
  public static let maximumBytes = 4096

  /// Whether `scalar` is a control character or a bidirectional control: never printed
  /// raw (the terminal door and the pictures show it escaped), never in a name or note.
  public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00..<0x20, 0x7F, 0x80..<0xA0: return true
    case 0x202A...0x202E, 0x2066...0x2069: return true
    default: return false
    }
  }

  /// How many bytes the character at `index` of the whole UTF-8 text `utf8` takes when it
  /// is one `isControl` takes (1 for C0 and DEL, 2 for C1, 3 for a bidirectional control),
  /// else 0: the same rule read off the bytes, for loops over megabytes of output (`list
  /// --json`) that decoding scalar by scalar made slow.
  public static func controlBytes(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
    switch utf8[index] {
    case 0x00..<0x20, 0x7F: return 1
    case 0xC2:
      // U+0080–U+009F are 0xC2 0x80–0x9F.
      return index + 1 < utf8.count && (0x80...0x9F).contains(utf8[index + 1]) ? 2 : 0
    case 0xE2:
      // U+202A–U+202E are 0xE2 0x80 0xAA–0xAE, U+2066–U+2069 are 0xE2 0x81 0xA6–0xA9.
      guard index + 2 < utf8.count else { return 0 }
      let (second, third) = (utf8[index + 1], utf8[index + 2])
      return (second == 0x80 && (0xAA...0xAE).contains(third))
        || (second == 0x81 && (0xA6...0xA9).contains(third)) ? 3 : 0
    default: return 0
    }
  }

  /// What is wrong with `text` as a name or note, or nil.
  public static func problem(_ text: String) -> String? {
    if text.utf8.count > maximumBytes {
      return "is \(text.utf8.count) bytes long; names and notes are at most \(maximumBytes)"
    }
    guard let control = text.unicodeScalars.first(where: isControl) else { return nil }
    let code = String(control.value, radix: 16, uppercase: true)
    let kind: String
    switch control {
    case "\t": kind = "a tab"
    case "\n", "\r": kind = "a line break"
    case "\u{202A}"..."\u{202E}", "\u{2066}"..."\u{2069}": kind = "a bidirectional control"
    default: kind = "a control character"
    }
    return "holds \(kind) (U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)); "
      + "names and notes are one line of plain text"
  }

  /// `text` made to follow the rule, for a name read from another program's file (or kept
  /// by an older practice): each control replaced by U+FFFD (�), the whole cut to
  /// `maximumBytes` on a character boundary.
  public static func cleaned(_ text: String) -> String {
    guard text.utf8.count > maximumBytes || text.unicodeScalars.contains(where: isControl) else {
      return text
    }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      result.append(isControl(scalar) ? "\u{FFFD}" : scalar)
    }
    var cleaned = String(result)
    while cleaned.utf8.count > maximumBytes { cleaned.removeLast() }
    return cleaned
  }

  /// `\x1b` for a control below U+0080, `\u009b` or `\u202e` above.
  public static func escape(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16)
    if scalar.value < 0x80 { return "\\x" + (hex.count < 2 ? "0" : "") + hex }
    return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }
}
