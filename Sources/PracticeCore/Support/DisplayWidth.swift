/// How many terminal columns text takes: East Asian wide and fullwidth characters and
/// emoji take two, combining marks, joiners and variation selectors none, the rest one.
public enum DisplayWidth {
  public static func of(_ text: String) -> Int {
    text.unicodeScalars.reduce(0) { $0 + of($1) }
  }

  public static func of(_ scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value >= 0x20 && value < 0x7F { return 1 }  // printable ASCII, most of any list
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if value == 0x200D || (0xFE00...0xFE0F).contains(value) || (0x1160...0x11FF).contains(value) {
      return 0
    }
    if scalar.properties.isEmojiPresentation { return 2 }
    return wide.contains { $0.contains(value) } ? 2 : 1
  }

  /// East Asian wide and fullwidth blocks (Hangul, CJK, kana, fullwidth forms) and the
  /// pictographs terminals draw two columns wide.
  private static let wide: [ClosedRange<UInt32>] = [
    0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
    0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
    0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
    0x20000...0x2FFFD, 0x30000...0x3FFFD,
  ]
}
