import CPlatform
import Foundation
import PracticeCore

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

/// The one owner of raw terminal mode and of key reading, for every screen that reads keys
/// (the player, the pause between setlist entries, `beats tap`, `tune`, `tone`).
///
/// `withKeys` switches stdin to raw mode (no echo, no line buffering, Ctrl-C read as a key)
/// around its body and puts the terminal back as it was however the body ends: a return, a
/// thrown error, or the clean stop a signal makes during a session. A signal that ends the
/// process outside a session (`SignalGate`) and a crash (cplatform's fatal-signal handlers)
/// put it back too. Main thread only.
final class KeyReader {
  private var pendingBytes: [UInt8] = []
  /// When the keys last read arrived (CLOCK_MONOTONIC ns): a tap is placed there.
  private(set) var arrived: UInt64 = 0

  private init() {}

  /// Runs `body` with a reader of stdin's keys in raw mode when `enabled` (else nil); the
  /// terminal is restored however `body` ends. When stdin will not switch to raw mode:
  /// `refusal`'s category and words, with the system's reason.
  static func withKeys<T>(
    _ enabled: Bool, refusal: (FailureCategory, String) = (.other, "cannot read keys"),
    _ body: (KeyReader?) throws -> T
  ) throws -> T {
    guard enabled else { return try body(nil) }
    guard practice_terminal_raw(STDIN_FILENO) == 0 else {
      throw PracticeError(
        refusal.0,
        "\(refusal.1): stdin would not switch to raw mode (\(String(cString: strerror(errno))))")
    }
    defer { practice_terminal_restore() }
    return try body(KeyReader())
  }

  /// Waits up to `waitingMilliseconds` for keys and returns those that came (an escape
  /// sequence cut in two is kept for the next call).
  func read(waitingMilliseconds: Int32) -> [Key] {
    var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, waitingMilliseconds) > 0 else { return [] }
    arrived = monotonicNanoseconds()
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

  /// Stdin not a terminal: waits up to `waitingMilliseconds` for a line (or the end of the
  /// input) and reads it; true when one came.
  static func readLine(waitingMilliseconds: Int32) -> Bool {
    var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, waitingMilliseconds) > 0 else { return false }
    var byte: UInt8 = 0
    while Foundation.read(STDIN_FILENO, &byte, 1) == 1 && byte != 10 {}
    return true
  }
}
