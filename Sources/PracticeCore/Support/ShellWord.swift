import Foundation

/// `text` as one word for a POSIX shell: in single quotes (a quote inside as '\''); with a
/// control character or a byte that is not UTF-8 (a path's, carried by `PathBytes`), in
/// $'…' with it escaped, since single quotes would keep it raw or could not hold the byte.
public enum ShellWord {
  public static func quoted(_ text: String) -> String {
    let plain = text.unicodeScalars.allSatisfy {
      $0.isASCII
        && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
          || "/._-+,:=@%".unicodeScalars.contains($0))
    }
    if plain && !text.isEmpty { return text }
    let control = text.unicodeScalars.contains {
      TextRule.isControl($0) || PathBytes.byte(carriedBy: $0) != nil
    }
    guard control else { return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    var out = "$'"
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": out += "\\\\"
      case "'": out += "\\'"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        out += String(format: "\\x%02x", scalar.value)
      case _ where PathBytes.byte(carriedBy: scalar) != nil:
        out += String(format: "\\x%02x", PathBytes.byte(carriedBy: scalar) ?? 0)
      case _ where TextRule.isControl(scalar):
        out += String(format: "\\u%04x", scalar.value)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "'"
  }
}
