import Foundation

/// Text helpers shared by the beat-file readers: decoding, lines, fields, strict numbers.
enum BeatText {
  enum Number: Equatable {
    case value(Double)
    /// `nan`, `inf`, or too large for a Double.
    case notFinite
    case invalid
  }

  /// The lowercased extension of the last path component, or "".
  static func fileExtension(_ path: String) -> String {
    let name = path.split(separator: "/").last ?? ""
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
    return name[name.index(after: dot)...].lowercased()
  }

  /// The text of a UTF-8 file without its byte-order mark, or nil if it is not text.
  static func decodeLeniently(_ data: [UInt8]) -> String? {
    guard !data.contains(0), var text = String(validating: data, as: UTF8.self) else { return nil }
    if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
    return text
  }

  static func decode(_ data: [UInt8], path: String) throws -> String {
    let reason: String
    if data.contains(0) {
      reason = "not a text file (it contains NUL bytes)"
    } else if let text = decodeLeniently(data) {
      return text
    } else {
      reason = "not a text file (it is not valid UTF-8)"
    }
    throw DataFileError(
      .beat, path: path, line: nil, reason: reason,
      advice: "give a text beat file (times, MIREX, Audacity labels, CSV, XML, .xsc or JSON)")
  }

  /// Lines split at `\n`, `\r\n` or `\r`; line k (1-based) is element k-1.
  static func lines(_ text: String) -> [Substring] {
    var result: [Substring] = []
    forEachLine(text) {
      result.append($0)
      return true
    }
    return result
  }

  /// The first line that is neither blank nor a `#` comment, as written.
  static func firstDataLine(_ text: String) -> Substring? {
    var found: Substring?
    forEachLine(text) {
      // `#` as a byte, as `uncommented` finds it: not the first character, which a combining
      // mark after it makes another.
      let content = trim($0)
      if content.isEmpty || content.utf8.first == UInt8(ascii: "#") { return true }
      found = $0
      return false
    }
    return found
  }

  /// Calls `body` with each line in turn (split as `lines` does) until it returns false.
  /// Splits on the UTF-8 view: the separators are ASCII, so every cut is on a character
  /// boundary, and this avoids grapheme segmentation (most of an import's time before).
  static func forEachLine(_ text: String, _ body: (Substring) -> Bool) {
    let bytes = text.utf8
    var start = bytes.startIndex
    var index = start
    while index != bytes.endIndex {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
        guard body(text[start..<index]) else { return }
        var next = bytes.index(after: index)
        if byte == UInt8(ascii: "\r"), next != bytes.endIndex, bytes[next] == UInt8(ascii: "\n") {
          next = bytes.index(after: next)
        }
        start = next
        index = next
      } else {
        index = bytes.index(after: index)
      }
    }
    _ = body(text[start..<bytes.endIndex])
  }

  /// Drops spaces and tabs at both ends. On the UTF-8 view: walking a substring's characters
  /// backwards took time quadratic in the blanks (a line of 100,000 spaces took 100 s).
  static func trim(_ text: Substring) -> Substring {
    let bytes = text.utf8
    let isBlankByte = { (b: UInt8) in b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") }
    guard let first = bytes.firstIndex(where: { !isBlankByte($0) }),
      let last = bytes.lastIndex(where: { !isBlankByte($0) })
    else { return text[text.endIndex...] }
    return text[first..<bytes.index(after: last)]
  }

  /// Fields separated by runs of spaces and tabs (split on the UTF-8 view, as `lines`).
  static func fields(_ text: Substring) -> [Substring] {
    var result: [Substring] = []
    let bytes = text.utf8
    var start: Substring.Index?
    var index = bytes.startIndex
    while index != bytes.endIndex {
      let blank = bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t")
      if blank, let begun = start {
        result.append(text[begun..<index])
        start = nil
      } else if !blank && start == nil {
        start = index
      }
      index = bytes.index(after: index)
    }
    if let begun = start { result.append(text[begun..<bytes.endIndex]) }
    return result
  }

  /// The line without a `#` comment.
  static func uncommented(_ line: Substring) -> Substring {
    line.utf8.firstIndex(of: UInt8(ascii: "#")).map { line[..<$0] } ?? line
  }

  /// A decimal number: optional sign, digits with an optional fraction, optional exponent
  /// (`0.5`, `-1`, `5.000000000000000000e-01`). No hex, no `nan`/`inf` (those are
  /// `.notFinite`), no surrounding blanks.
  static func scanNumber(_ text: Substring) -> Number {
    // Words only where a number would start with a letter: no lowercased copy per number.
    let unsigned = text.first == "-" || text.first == "+" ? text.dropFirst() : text
    if let first = unsigned.utf8.first,
      (first | 0x20) == UInt8(ascii: "n") || (first | 0x20) == UInt8(ascii: "i")
    {
      return ["nan", "inf", "infinity"].contains(unsigned.lowercased()) ? .notFinite : .invalid
    }
    var digits = 0
    var seenDot = false
    var seenExponent = false
    var exponentDigits = 0
    var previous: UInt8 = 0
    for (i, c) in text.utf8.enumerated() {
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        if seenExponent { exponentDigits += 1 } else { digits += 1 }
      case UInt8(ascii: "+"), UInt8(ascii: "-"):
        let atStart = i == 0
        let afterE = previous == UInt8(ascii: "e") || previous == UInt8(ascii: "E")
        guard atStart || afterE else { return .invalid }
      case UInt8(ascii: "."):
        guard !seenDot, !seenExponent else { return .invalid }
        seenDot = true
      case UInt8(ascii: "e"), UInt8(ascii: "E"):
        guard !seenExponent, digits > 0 else { return .invalid }
        seenExponent = true
      default:
        return .invalid
      }
      previous = c
    }
    guard digits > 0, !seenExponent || exponentDigits > 0 else { return .invalid }
    guard let value = Double(text) else { return .invalid }
    return value.isFinite ? .value(value) : .notFinite
  }

  /// `field` as a number, or an error naming it; `what` is "time", "end time", ….
  static func number(_ field: Substring, what: String, line: Int, path: String) throws -> Double {
    switch scanNumber(field) {
    case .value(let value): return value
    case .notFinite:
      throw DataFileError(
        .beat, path: path, line: line, reason: "\(what) \(quoted(field)) is not a finite number")
    case .invalid:
      let shown = field.isEmpty ? "is missing" : "\(quoted(field)) is not a number"
      throw DataFileError(.beat, path: path, line: line, reason: "\(what) \(shown)")
    }
  }

  /// `field` as a whole number (`3`, also `3.0` as numpy writes it).
  static func wholeNumber(_ field: Substring, what: String, line: Int, path: String) throws -> Int {
    let value = try number(field, what: what, line: line, path: path)
    guard value.rounded() == value, abs(value) < 1e15 else {
      throw DataFileError(
        .beat, path: path, line: line, reason: "\(what) \(quoted(field)) is not a whole number")
    }
    return Int(value)
  }

  /// Reads a beat label: `3` is beat 3 of its bar, `12.3` is bar 12 beat 3; anything else
  /// (text, empty) says nothing. A number out of range throws: beat-in-bar 0 is a mistake,
  /// not a remark.
  static func barAndBeat(label rawLabel: Substring, line: Int, path: String) throws -> (
    bar: Int?, beat: Int?
  ) {
    let label = trim(rawLabel)
    let negative = label.hasPrefix("-")
    let body = negative ? label.dropFirst() : label
    let parts = body.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count),
      parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } })
    else { return (nil, nil) }
    func error(_ reason: String) -> DataFileError {
      DataFileError(.beat, path: path, line: line, reason: reason)
    }
    guard !negative else { throw error("beat label \(quoted(label)) is negative") }
    guard parts.allSatisfy({ $0.count <= 9 }), let last = parts.last, let beat = Int(last) else {
      throw error("beat label \(quoted(label)) is too large")
    }
    if parts.count == 2 {
      guard let bar = Int(parts[0]) else { throw error("beat label \(quoted(label)) is too large") }
      return (bar, beat)
    }
    return (nil, beat)
  }
}
