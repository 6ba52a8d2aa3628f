/// `<metadata><beats><beat>1.40</beat>…</beats></metadata>`: every `<beat>` directly inside
/// a `<beats>` holds a time in seconds; other elements are ignored.
///
/// Read with a small scanner rather than FoundationXML, to keep libxml2 out of the binary and
/// to know each beat's line. It checks well-formedness (matched tags, quoted attributes,
/// known entities, one root) and refuses DTDs.
enum XMLBeatFormat {
  static func parse(_ text: String, into beats: inout BeatCollector) throws {
    var scanner = XMLScanner(text: text, path: beats.path)
    let found = try scanner.beatTexts()
    guard !found.isEmpty else {
      throw beats.error(
        nil, "no <beat> elements inside a <beats> element",
        advice: "expected <metadata><beats><beat>seconds</beat>…</beats></metadata>")
    }
    for (content, line) in found {
      let tokens = content.split(whereSeparator: \.isWhitespace)
      guard tokens.count <= 1 else {
        throw beats.error(line, "<beat> should hold one time in seconds, not \(quoted(content))")
      }
      let time = try BeatText.number(tokens.first ?? "", what: "time", line: line, path: beats.path)
      try beats.add(BeatMark(time: time), line: line)
    }
  }
}

struct XMLScanner {
  private let bytes: [UInt8]
  private let path: String
  private var pos = 0
  private var line = 1

  init(text: String, path: String) {
    bytes = Array(text.utf8)
    self.path = path
  }

  private func error(_ reason: String, line: Int? = nil) -> DataFileError {
    DataFileError(
      .beat, path: path, line: line ?? self.line, reason: "malformed XML: \(reason)",
      advice: "fix the XML"
    )
  }

  private func at(_ literal: String) -> Bool {
    var i = pos
    for b in literal.utf8 {
      guard i < bytes.count, bytes[i] == b else { return false }
      i += 1
    }
    return true
  }

  private mutating func advance(_ count: Int = 1) {
    for _ in 0..<count where pos < bytes.count {
      if bytes[pos] == UInt8(ascii: "\n") { line += 1 }
      pos += 1
    }
  }

  /// Moves past `terminator`; throws `what` if the text ends first.
  private mutating func skip(past terminator: String, _ what: String) throws {
    let startLine = line
    while pos < bytes.count {
      if at(terminator) {
        advance(terminator.utf8.count)
        return
      }
      advance()
    }
    throw error("\(what) is not closed", line: startLine)
  }

  private static func isSpace(_ b: UInt8) -> Bool {
    b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\n")
      || b == UInt8(ascii: "\r")
  }

  private static func isNameByte(_ b: UInt8) -> Bool {
    !isSpace(b) && b != UInt8(ascii: "/") && b != UInt8(ascii: ">") && b != UInt8(ascii: "=")
      && b != UInt8(ascii: "<") && b != UInt8(ascii: "\"") && b != UInt8(ascii: "'")
  }

  private mutating func skipSpace() {
    while pos < bytes.count, Self.isSpace(bytes[pos]) { advance() }
  }

  private mutating func name() throws -> String {
    let start = pos
    while pos < bytes.count, Self.isNameByte(bytes[pos]) { advance() }
    guard pos > start else {
      throw error(pos < bytes.count ? "expected a name" : "the document ends inside a tag")
    }
    return String(decoding: bytes[start..<pos], as: UTF8.self)
  }

  /// Decodes one `&…;` reference at `pos` into `out`.
  private mutating func entity(into out: inout [UInt8]) throws {
    let startLine = line
    advance()  // &
    let start = pos
    while pos < bytes.count, bytes[pos] != UInt8(ascii: ";"), pos - start < 12 { advance() }
    guard pos < bytes.count, bytes[pos] == UInt8(ascii: ";") else {
      throw error("an '&' does not start an entity (write &amp;)", line: startLine)
    }
    let name = String(decoding: bytes[start..<pos], as: UTF8.self)
    advance()  // ;
    let named: [String: String] = ["lt": "<", "gt": ">", "amp": "&", "quot": "\"", "apos": "'"]
    if let text = named[name] {
      out.append(contentsOf: text.utf8)
      return
    }
    var scalar: Unicode.Scalar?
    if name.hasPrefix("#x") || name.hasPrefix("#X") {
      scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
    } else if name.hasPrefix("#") {
      scalar = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
    }
    guard let scalar, scalar.value != 0 else {
      throw error("unknown entity \(quoted("&" + name + ";"))", line: startLine)
    }
    out.append(contentsOf: String(Character(scalar)).utf8)
  }

  /// The text of every `<beat>` directly inside a `<beats>`, with the line of its start tag.
  mutating func beatTexts() throws -> [(text: String, line: Int)] {
    var found: [(text: String, line: Int)] = []
    var stack: [(name: String, line: Int)] = []
    var rootClosed = false
    var beatText: [UInt8]? = nil  // inside a wanted <beat>
    var beatLine = 0

    func inBeat(_ stack: [(name: String, line: Int)]) -> Bool {
      stack.count >= 2 && stack[stack.count - 1].name == "beat"
        && stack[stack.count - 2].name == "beats"
    }

    while pos < bytes.count {
      if at("<!--") {
        try skip(past: "-->", "a comment")
      } else if at("<?") {
        try skip(past: "?>", "a processing instruction")
      } else if at("<![CDATA[") {
        guard !stack.isEmpty else { throw error("CDATA outside the root element") }
        advance(9)
        let start = pos
        try skip(past: "]]>", "a CDATA section")
        beatText?.append(contentsOf: bytes[start..<(pos - 3)])
      } else if at("<!") {
        throw error("DTDs and declarations are not supported")
      } else if at("</") {
        let tagLine = line
        advance(2)
        let closing = try name()
        skipSpace()
        guard pos < bytes.count, bytes[pos] == UInt8(ascii: ">") else {
          throw error("expected '>' after \(quoted("</" + closing))")
        }
        advance()
        guard let open = stack.last else {
          throw error("\(quoted("</" + closing + ">")) closes nothing", line: tagLine)
        }
        guard open.name == closing else {
          throw error(
            "</\(closing)> closes <\(open.name)> from line \(open.line)", line: tagLine)
        }
        if let text = beatText, inBeat(stack) {
          found.append((String(decoding: text, as: UTF8.self), beatLine))
          beatText = nil
        }
        stack.removeLast()
        if stack.isEmpty { rootClosed = true }
      } else if at("<") {
        let tagLine = line
        advance()
        let element = try name()
        guard !rootClosed else {
          throw error("a second root element \(quoted("<" + element + ">"))", line: tagLine)
        }
        if inBeat(stack) {
          throw error(
            "<beat> holds an element <\(element)>; it should hold only seconds", line: tagLine)
        }
        // Attributes are checked for form and otherwise ignored.
        var selfClosing = false
        while true {
          skipSpace()
          guard pos < bytes.count else {
            throw error("the document ends inside \(quoted("<" + element + ">"))")
          }
          if at("/>") {
            advance(2)
            selfClosing = true
            break
          }
          if at(">") {
            advance()
            break
          }
          let attribute = try name()
          skipSpace()
          guard at("=") else { throw error("attribute \(quoted(attribute)) has no value") }
          advance()
          skipSpace()
          guard pos < bytes.count,
            bytes[pos] == UInt8(ascii: "\"") || bytes[pos] == UInt8(ascii: "'")
          else { throw error("attribute \(quoted(attribute)) value is not quoted") }
          let quote = bytes[pos]
          advance()
          while pos < bytes.count, bytes[pos] != quote {
            guard bytes[pos] != UInt8(ascii: "<") else {
              throw error("'<' inside attribute \(quoted(attribute))")
            }
            advance()
          }
          guard pos < bytes.count else {
            throw error("attribute \(quoted(attribute)) value is not closed")
          }
          advance()
        }
        stack.append((element, tagLine))
        if inBeat(stack) {
          if selfClosing {
            found.append(("", tagLine))
          } else {
            beatText = []
            beatLine = tagLine
          }
        }
        if selfClosing {
          stack.removeLast()
          if stack.isEmpty { rootClosed = true }
        }
      } else if bytes[pos] == UInt8(ascii: "&") {
        guard !stack.isEmpty else { throw error("text outside the root element") }
        var decoded: [UInt8] = []
        try entity(into: &decoded)
        beatText?.append(contentsOf: decoded)
      } else {
        if stack.isEmpty && !Self.isSpace(bytes[pos]) {
          throw error("text outside the root element")
        }
        if bytes[pos] == UInt8(ascii: ">") && stack.isEmpty {
          throw error("a stray '>'")
        }
        beatText?.append(bytes[pos])
        advance()
      }
    }
    if let open = stack.last {
      throw error("\(quoted("<" + open.name + ">")) is not closed", line: open.line)
    }
    guard rootClosed else {
      throw DataFileError(
        .beat, path: path, line: nil, reason: "malformed XML: no root element",
        advice: "fix the XML")
    }
    return found
  }
}
