import CPlatform
import Foundation
import PracticeCore

/// A key from the terminal.
public enum Key: Equatable, Sendable {
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

  /// The keys of a loop that listens while it works (the player, `tune`, `tone`, the pause
  /// between setlist entries): those `reader` gets within `waiting` milliseconds, or,
  /// without a reader (stdin not a terminal), none after `idle` milliseconds.
  static func keys(_ reader: KeyReader?, waiting: Int32, idle: Int32) -> [Key] {
    guard let reader else {
      if idle > 0 { usleep(UInt32(idle) * 1000) }
      return []
    }
    return reader.read(waitingMilliseconds: waiting)
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

/// What a key of the player does: a command for the practice session, or one of the face's
/// own (the name prompt, the keys overlay, the screen's zoom, stopping).
enum PlayerAction: Equatable, Sendable {
  case session(PracticeSession.Command)
  /// `s`: the status line asks for the selection's name.
  case namePrompt
  case showKeys
  case zoom(inward: Bool)
  case stop
  case interrupt
}

/// One row of the player's keys: the keys and what each does, with the words of the `?`
/// overlay (`short`) and of practice(1) (`name`, `help`).
struct KeyBinding: Sendable {
  /// When the keys are read: always, while the loop's ends are edited (taking the arrows
  /// first), or with the player screen.
  enum Mode: Sendable { case always, editing, screen }

  let name: String
  let help: String
  /// The overlay's words, keys first (nil: not shown there).
  let short: String?
  var mode = Mode.always
  let keys: [(key: Key, action: PlayerAction)]
}

/// The player's keys: the one table the key handling (`LiveSession`), the `?` overlay and
/// the man page's KEYS section read.
public enum PlayerKeys {
  static let table: [KeyBinding] = [
    // Editing the loop (`e`): the arrows and tab move its ends, before their usual meaning.
    KeyBinding(
      name: "", help: "", short: nil, mode: .editing,
      keys: [
        (.left, .session(.moveEditedEdge(by: -1, unit: .beat))),
        (.right, .session(.moveEditedEdge(by: 1, unit: .beat))),
        (.shiftLeft, .session(.moveEditedEdge(by: -1, unit: .bar))),
        (.shiftRight, .session(.moveEditedEdge(by: 1, unit: .bar))),
        (.tab, .session(.switchEditedEdge)),
      ]),
    KeyBinding(
      name: "space", help: "Pause / resume (a 5 ms fade each way).", short: "space pause",
      keys: [(.char(" "), .session(.togglePause))]),
    KeyBinding(
      name: "← / →", help: "Back / forward one beat (without a beat map: one second).",
      short: "←/→ beat",
      keys: [(.left, .session(.moveBeats(-1))), (.right, .session(.moveBeats(1)))]),
    KeyBinding(
      name: "shift-← / shift-→, , / .",
      help: "Back / forward one bar, to its first beat (without a beat map: five seconds).",
      short: ",/. or shift-←/→ bar",
      keys: [
        (.shiftLeft, .session(.moveBars(-1))), (.shiftRight, .session(.moveBars(1))),
        (.char(","), .session(.moveBars(-1))), (.char("."), .session(.moveBars(1))),
      ]),
    KeyBinding(
      name: "[ / ], { / }",
      help: "Speed −5 / +5 points, −1 / +1 point (ends the speed trainer).",
      short: "[/] speed ∓5 · {/} speed ∓1",
      keys: [
        (.char("["), .session(.changeSpeed(by: -0.05))),
        (.char("]"), .session(.changeSpeed(by: 0.05))),
        (.char("{"), .session(.changeSpeed(by: -0.01))),
        (.char("}"), .session(.changeSpeed(by: 0.01))),
      ]),
    KeyBinding(
      name: "- / +", help: "Volume −/+ 10 % (_ and = too).", short: "-/+ volume",
      keys: [
        (.char("-"), .session(.changeVolume(by: -0.1))),
        (.char("_"), .session(.changeVolume(by: -0.1))),
        (.char("+"), .session(.changeVolume(by: 0.1))),
        (.char("="), .session(.changeVolume(by: 0.1))),
      ]),
    KeyBinding(
      name: "m", help: "Mute / unmute.", short: "m mute",
      keys: [(.char("m"), .session(.toggleMute))]),
    KeyBinding(
      name: "< / >", help: "Transpose −/+ 1 semitone.", short: "</> transpose",
      keys: [
        (.char("<"), .session(.changeTranspose(by: -1))),
        (.char(">"), .session(.changeTranspose(by: 1))),
      ]),
    KeyBinding(
      name: "c", help: "Beat clicks on / off (needs a beat map).", short: "c click",
      keys: [(.char("c"), .session(.toggleClick))]),
    KeyBinding(
      name: "a / b",
      help: "Loop from / to the current beat (without a beat map: the current tenth of a second).",
      short: "a/b loop start/end",
      keys: [(.char("a"), .session(.setLoopStart)), (.char("b"), .session(.setLoopEnd))]),
    KeyBinding(
      name: "l", help: "Loop the current bar; again: one bar longer.", short: "l loop bar",
      keys: [(.char("l"), .session(.loopBar))]),
    KeyBinding(
      name: "s",
      help: "Save the loop as a selection: type a name on the status line, Enter saves, Esc cancels.",
      short: "s save loop", keys: [(.char("s"), .namePrompt)]),
    KeyBinding(
      name: "1–9, 0",
      help:
        "Play the 1st–9th, 10th selection (in song order, as select list shows them) as its drill: its own speed, trainer, repeats or loop, transpose, volume, clicks and count-in (options given to play override them).",
      short: "1-9,0 selection",
      keys: (1...10).map { (.char(Character("\($0 % 10)")), .session(.select($0))) }),
    KeyBinding(
      name: "r", help: "Restart the loop from its start.", short: "r restart",
      keys: [(.char("r"), .session(.restart))]),
    KeyBinding(
      name: "g / x",
      help:
        "Mark the pass heard (in its first moments: the one before) clean / flubbed, for stats.",
      short: "g/x pass clean/flubbed",
      keys: [(.char("g"), .session(.mark(.clean))), (.char("x"), .session(.mark(.flubbed)))]),
    KeyBinding(
      name: "F", help: "Focus: bass, guitar, vocal, drums, treble, then off.",
      short: "F focus bass/guitar/vocal/drums/treble/off",
      keys: [(.char("F"), .session(.cycleFocus))]),
    KeyBinding(
      name: "C", help: "Centre cut on / off (stereo only).", short: "C centre cut",
      keys: [(.char("C"), .session(.toggleCentreCut))]),
    KeyBinding(
      name: "L / R / M",
      help:
        "Play the left channel, the right one, or the mono mix; the same key again: both channels.",
      short: "L/R/M left/right/mono (again: both)",
      keys: [
        (.char("L"), .session(.chooseChannel(.left))),
        (.char("R"), .session(.chooseChannel(.right))),
        (.char("M"), .session(.chooseChannel(.mono))),
      ]),
    KeyBinding(
      name: "e",
      help:
        "Edit the loop on the player screen: ← / → move its start one beat, shift-← / shift-→ one bar (without a beat map: 0.1 s and 1 s); tab switches to its end and back; e again ends editing. The loop played follows at once; s saves it.",
      short: "e edit the loop: ←/→ start by a beat, shift-←/→ by a bar, tab end, e done",
      keys: [(.char("e"), .session(.toggleEditing))]),
    KeyBinding(
      name: "z / Z",
      help: "Player screen: show half / twice as much of the song, from one bar to the whole song.",
      short: "z/Z zoom in/out", mode: .screen,
      keys: [(.char("z"), .zoom(inward: true)), (.char("Z"), .zoom(inward: false))]),
    KeyBinding(
      name: "d",
      help:
        "The beat heard now (the nearest) is a downbeat: every bar line moves with it, as beats downbeat does. Stored at once; the status line says which bar starts there.",
      short: "beat map: d the beat heard is a downbeat", keys: [fix("d", .downbeat)]),
    KeyBinding(
      name: "( / )", help: "Move every beat of the map 10 ms earlier / later (beats shift).",
      short: "(/) beats 10 ms earlier/later",
      keys: [fix("(", .shift(milliseconds: -10)), fix(")", .shift(milliseconds: 10))]),
    KeyBinding(
      name: "* / /",
      help:
        "Twice / half the beats from the beat heard now to the end of the map (beats double, beats halve).",
      short: "* / twice/half the beats from here", keys: [fix("*", .double), fix("/", .halve)]),
    KeyBinding(
      name: "u",
      help:
        "Undo the last change to the beat map (beats undo), whichever command or key made it. Selections follow each of these as the beats commands have them.",
      short: "u undo the last change to the map", keys: [(.char("u"), .session(.undoMapChange))]),
    // Read by the setlist itself (`playSong`'s `extraKey`), before this table.
    KeyBinding(
      name: "n / p", help: "In setlist play: the next / previous entry (q stops the setlist).",
      short: nil, keys: []),
    KeyBinding(
      name: "q, Esc", help: "Stop (exit 0). Ctrl-C stops with exit 130.", short: "q/Esc stop",
      keys: [(.char("q"), .stop), (.escape, .stop), (.interrupt, .interrupt)]),
    KeyBinding(
      name: "?", help: "Show the keys.", short: "? keys", keys: [(.char("?"), .showKeys)]),
  ]

  /// A beat-map fix from key `key`, named in the map's history after it.
  private static func fix(_ key: Character, _ fix: PracticeSession.MapFix)
    -> (key: Key, action: PlayerAction)
  {
    (.char(key), .session(.fixMap(fix, summary: "key \(key) while playing")))
  }

  /// What `key` does now: while `editing` the loop the edit keys come first; the zoom keys
  /// only on the player `screen`.
  static func action(for key: Key, editing: Bool, screen: Bool) -> PlayerAction? {
    for row in table {
      switch row.mode {
      case .editing where !editing, .screen where !screen: continue
      default: break
      }
      if let match = row.keys.first(where: { $0.key == key }) { return match.action }
    }
    return nil
  }

  /// The `?` overlay: the rows' short words, `keys: ` first, wrapped at `width` columns
  /// (the zoom keys only with the player `screen`). An item that fits on no line goes on at
  /// its spaces, indented further.
  static func overlay(screen: Bool, width: Int = 76) -> [String] {
    let items = table.filter { screen || $0.mode != .screen }.compactMap(\.short)
    var lines = ["keys:"]
    for item in items {
      let last = lines[lines.count - 1]
      if DisplayWidth.of(last) + 3 + DisplayWidth.of(item) <= width {
        lines[lines.count - 1] = last + (last == "keys:" ? " " : " · ") + item
        continue
      }
      var line = "      "
      for word in item.split(separator: " ") {
        let fresh = line.allSatisfy { $0 == " " }
        if !fresh && DisplayWidth.of(line) + 1 + DisplayWidth.of(String(word)) > width {
          lines.append(line)
          line = "        " + word
        } else {
          line += (fresh ? "" : " ") + word
        }
      }
      lines.append(line)
    }
    return lines
  }

  /// The rows practice(1) lists (the edit keys are told under `e`).
  public static var manual: [(key: String, action: String)] {
    table.filter { $0.mode != .editing }.map { ($0.name, $0.help) }
  }
}
