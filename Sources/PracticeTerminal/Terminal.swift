import Foundation
import PracticeCore

/// The one door to the terminal: every text the CLI prints to stdout or stderr goes out
/// here. Control characters (C0, DEL and C1) and bidirectional controls (U+202A–U+202E,
/// U+2066–U+2069: `TextRule.isControl`) in what is printed are shown escaped, `\x1b`,
/// `\u009b` or `\u202e`, so that a tag, a file name or a selection name read from a file
/// can never move the cursor, retitle the window, clear the screen or reorder a line. Tabs and newlines are kept only
/// where they are the program's own: between the fields and records it writes.
///
/// Stdout is data, stderr is talk: lists and reports go to stdout; errors, warnings,
/// progress and status lines to stderr.
public enum Terminal {
  /// `practice: MESSAGE` on stderr.
  public static func error(_ message: String) { say("practice: \(message)") }

  /// `practice: warning: MESSAGE` on stderr.
  public static func warning(_ message: String) { say("practice: warning: \(message)") }

  /// One line on stderr; a tab or newline in it is escaped like any control character.
  public static func say(_ line: String) { write(escaped(line) + "\n", to: .standardError) }

  /// Tab-separated records on stdout, one a line, every field escaped (so a tab or a
  /// newline in a title cannot split a record).
  public static func records(_ rows: [[String]]) {
    write(
      rows.map { $0.map { escaped($0) }.joined(separator: "\t") + "\n" }.joined(),
      to: .standardOutput)
  }

  /// Lines on stdout (`key value` reports), each escaped whole.
  public static func lines(_ lines: [String]) {
    write(lines.map { escaped($0) + "\n" }.joined(), to: .standardOutput)
  }

  /// `key value` lines on stdout (`show`), each escaped whole; a field with no value is its
  /// key alone (no trailing space).
  public static func fields(_ fields: [(key: String, value: String)]) {
    lines(fields.map { $0.value.isEmpty ? $0.key : "\($0.key) \($0.value)" })
  }

  /// Text the program wrote whole, such as JSON (whose strings are escaped already) or a
  /// beat file: its own tabs and newlines are kept, any other control character escaped.
  public static func data(_ text: String) {
    write(escaped(text, keepingLayout: true), to: .standardOutput)
  }

  /// One JSON value and a newline on stdout (every `--json`), its strings' control
  /// characters escaped by the writer (`JSONWriter(escapesTerminalControls:)`) and its bytes
  /// checked at the door like any data, then written as they are: no copy as a String (5 MB
  /// for `list --json` of 10,000 songs).
  public static func json(_ value: some JSONOutput) {
    var out = JSONWriter(escapesTerminalControls: true)
    value.write(to: &out)
    out.newline()
    guard !out.bytes.withUnsafeBufferPointer({ mayNeedEscape($0, keepingLayout: true) }) else {
      return data(out.text)
    }
    out.bytes.withUnsafeMutableBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      FileHandle.standardOutput.write(
        Data(bytesNoCopy: base, count: buffer.count, deallocator: .none))
    }
  }

  /// A drawing on stdout, line by line: every run's text escaped like any data; when
  /// `colour` gives an SGR parameter string for a run's style (`1;36`), the run is wrapped
  /// in that escape sequence and a reset, the program's own. Without `colour` (stdout not a
  /// terminal, or NO_COLOR), no escape sequence is written at all.
  static func drawing(_ lines: [[TextRun]], colour: ((TextStyle) -> String?)?) {
    var text = ""
    for line in lines {
      for run in line {
        // The caller escaped the names (to measure them); only what it could not is left.
        let shown = escaped(run.text, keepingLayout: true)
        if let code = colour?(run.style) {
          text += "\u{1B}[\(code)m" + shown + "\u{1B}[0m"
        } else {
          text += shown
        }
      }
      text += "\n"
    }
    write(text, to: .standardOutput)
  }

  /// `line` escaped as the door shows it and cut to fewer than `width` terminal columns
  /// (a wide character takes two, a combining mark none), for `redraw(shown:)`: the status
  /// line compares and cuts what will be seen. The last column stays free, so a terminal
  /// never wraps the line.
  static func shown(_ line: String, width: Int) -> String {
    let text = escaped(line)
    guard DisplayWidth.of(text) >= width else { return text }
    let room = max(1, width - 1)
    var kept = ""
    var used = 0
    for character in text {
      let size = DisplayWidth.of(String(character))
      guard used + size <= room else { break }
      kept.append(character)
      used += size
    }
    return kept
  }

  /// Redraws in place a line `shown` made (already escaped: escaping twice would double
  /// its backslashes).
  static func redraw(shown line: String) {
    write("\r" + line + "\u{1B}[K", to: .standardError)
  }

  /// A frame of the player screen on stderr, in one write(2) (so the terminal never shows
  /// half of it): the screen's own escape sequences around text it escaped already.
  static func screen(_ frame: String) {
    var bytes = Array(frame.utf8)
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeMutableBytes {
        Glibc.write(STDERR_FILENO, $0.baseAddress! + done, $0.count - done)
      }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return }
      done += n
    }
  }

  /// Erases the line on stderr that `redraw` drew.
  static func eraseLine() { write("\r\u{1B}[K", to: .standardError) }

  /// `text` with every C0 control character, DEL and C1 control character escaped (but tab
  /// and newline when `keepingLayout`), and a backslash doubled, `\\`, so that what is
  /// shown is unambiguous: `\x1b` always stands for an ESC, never for the four characters
  /// `\x1b` in a title. Text the program wrote whole (`keepingLayout`: JSON, beat files)
  /// keeps its backslashes, which are its own escapes.
  public static func escaped(_ text: String, keepingLayout: Bool = false) -> String {
    guard mayNeedEscape(text, keepingLayout: keepingLayout) else { return text }
    guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLayout: keepingLayout) })
    else { return text }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      guard needsEscape(scalar, keepingLayout: keepingLayout) else {
        result.append(scalar)
        continue
      }
      if scalar == "\\" {
        result.append(contentsOf: "\\\\".unicodeScalars)
        continue
      }
      if let byte = PathBytes.byte(carriedBy: scalar) {
        // A byte of a file name that is not UTF-8.
        result.append(contentsOf: ("\\x" + String(byte, radix: 16)).unicodeScalars)
        continue
      }
      result.append(contentsOf: TextRule.escape(scalar).unicodeScalars)
    }
    return String(result)
  }

  /// False when no character of `text` needs an escape, read off its UTF-8 bytes (most of
  /// what is printed, and megabytes of `list --json`, which decoding scalar by scalar made
  /// slow); true when one may (a scalar of plane 16 is left to `needsEscape`).
  private static func mayNeedEscape(_ text: String, keepingLayout: Bool) -> Bool {
    var text = text
    return text.withUTF8 { mayNeedEscape($0, keepingLayout: keepingLayout) }
  }

  /// `mayNeedEscape` of whole UTF-8 text.
  private static func mayNeedEscape(_ utf8: UnsafeBufferPointer<UInt8>, keepingLayout: Bool)
    -> Bool
  {
    for index in utf8.indices {
      switch utf8[index] {
      case 0x09, 0x0A, 0x5C, 0xF4: if !keepingLayout { return true }
      case 0x00..<0x20, 0x7F, 0xC2, 0xE2:
        if TextRule.controlBytes(utf8, at: index) > 0 { return true }
      default: break
      }
    }
    return false
  }

  private static func needsEscape(_ scalar: Unicode.Scalar, keepingLayout: Bool) -> Bool {
    switch scalar.value {
    case 0x09, 0x0A: return !keepingLayout
    // A backslash, and a byte of a file name that is not UTF-8: text the program wrote
    // whole (JSON) has its own escapes and holds them as they are.
    case 0x5C, 0x10FD80...0x10FDFF: return !keepingLayout
    default: return TextRule.isControl(scalar)
    }
  }

  private static func write(_ text: String, to handle: FileHandle) {
    handle.write(Data(text.utf8))
  }
}

/// `1 song`, `3 songs`.
public func counted(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}
