import Foundation

/// A key from the terminal.
enum Key: Equatable {
  case char(Character)
  case left, right, shiftLeft, shiftRight, up, down
  case enter, backspace, escape, interrupt, tab

  /// A one-word name, for trace lines.
  var name: String {
    switch self {
    case .char(" "): return "space"
    case .char(let c): return String(c)
    default: return "\(self)"
    }
  }
}

/// Turns raw terminal bytes into keys (arrows arrive as `ESC [ C`, shift-arrows as
/// `ESC [ 1 ; 2 C`); an incomplete sequence at the end is handed back.
enum KeyParser {
  static func parse(_ bytes: [UInt8]) -> (keys: [Key], rest: [UInt8]) {
    var keys: [Key] = []
    var i = 0
    while i < bytes.count {
      let b = bytes[i]
      switch b {
      case 27:
        if i + 1 >= bytes.count {
          keys.append(.escape)
          i += 1
        } else if bytes[i + 1] == UInt8(ascii: "[") || bytes[i + 1] == UInt8(ascii: "O") {
          // CSI: parameters, then a final byte in 0x40...0x7E.
          var j = i + 2
          while j < bytes.count && !(0x40...0x7E).contains(bytes[j]) { j += 1 }
          guard j < bytes.count else { return (keys, Array(bytes[i...])) }
          let parameters = String(decoding: bytes[(i + 2)..<j], as: UTF8.self)
          let shifted = parameters.hasSuffix(";2")
          switch bytes[j] {
          case UInt8(ascii: "C"): keys.append(shifted ? .shiftRight : .right)
          case UInt8(ascii: "D"): keys.append(shifted ? .shiftLeft : .left)
          case UInt8(ascii: "A"): keys.append(.up)
          case UInt8(ascii: "B"): keys.append(.down)
          default: break
          }
          i = j + 1
        } else {
          keys.append(.escape)
          i += 1
        }
      case 3: keys.append(.interrupt); i += 1
      case 9: keys.append(.tab); i += 1
      case 13, 10: keys.append(.enter); i += 1
      case 127, 8: keys.append(.backspace); i += 1
      case 0x20...0x7E: keys.append(.char(Character(UnicodeScalar(b)))); i += 1
      default:
        // A UTF-8 sequence (a name typed at the prompt) or another control byte.
        let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
        guard i + length <= bytes.count else { return (keys, Array(bytes[i...])) }
        if length > 1, let text = String(bytes: bytes[i..<(i + length)], encoding: .utf8), let c = text.first {
          keys.append(.char(c))
        }
        i += length
      }
    }
    return (keys, [])
  }
}

/// Reads keys from stdin (a terminal in raw mode): waits up to a given time for bytes and
/// parses them, keeping an incomplete escape sequence for the next call.
struct KeyReader {
  private var pendingBytes: [UInt8] = []

  mutating func read(waitingMilliseconds: Int32) -> [Key] {
    var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, waitingMilliseconds) > 0 else { return [] }
    var buffer = [UInt8](repeating: 0, count: 64)
    let n = Foundation.read(STDIN_FILENO, &buffer, buffer.count)
    guard n > 0 else { return [] }
    pendingBytes += buffer[0..<n]
    // A lone Esc is the key; Esc followed by more is an arrow's escape sequence.
    if pendingBytes.last == 27 || (pendingBytes.count >= 2 && pendingBytes[pendingBytes.count - 2] == 27) {
      var more = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
      if poll(&more, 1, 30) > 0 {
        let m = Foundation.read(STDIN_FILENO, &buffer, buffer.count)
        if m > 0 { pendingBytes += buffer[0..<m] }
      }
    }
    let parsed = KeyParser.parse(pendingBytes)
    pendingBytes = parsed.rest
    return parsed.keys
  }
}
