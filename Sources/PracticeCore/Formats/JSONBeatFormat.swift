import Foundation

/// `{"sample_rate":44100,"beats":[{"time":0.5,"frame":22050,"bar":1,"beat":1},…]}`, as
/// `BeatFiles.export` writes it (one beat per line). Import uses `time`, `bar` and `beat`.
///
/// Read with a small parser rather than JSONSerialization, to know each beat's line.
enum JSONBeatFormat {
  static func parse(_ text: String, into beats: inout BeatCollector) throws {
    var parser = JSONParser(text: text, path: beats.path)
    let root = try parser.document()
    let shape = "expected {\"sample_rate\":…,\"beats\":[{\"time\":…},…]}"
    guard case .object(let members) = root.value else {
      throw beats.error(root.line, "the top level is not a JSON object", advice: shape)
    }
    if let rate = members.first(where: { $0.key == "sample_rate" })?.node {
      guard case .number(let value) = rate.value, value >= 1, value.rounded() == value else {
        throw beats.error(rate.line, "\"sample_rate\" is not a positive whole number")
      }
    }
    guard let list = members.first(where: { $0.key == "beats" })?.node else {
      throw beats.error(nil, "no \"beats\" list", advice: shape)
    }
    guard case .array(let items) = list.value else {
      throw beats.error(list.line, "\"beats\" is not a list", advice: shape)
    }
    for item in items {
      guard case .object(let fields) = item.value else {
        throw beats.error(item.line, "a beat is not an object like {\"time\":0.5}")
      }
      func field(_ key: String) -> JSONNode? { fields.first { $0.key == key }?.node }
      guard let timeNode = field("time") else {
        throw beats.error(item.line, "a beat has no \"time\"")
      }
      guard case .number(let time) = timeNode.value else {
        throw beats.error(timeNode.line, "\"time\" is not a number")
      }
      func whole(_ key: String) throws -> Int? {
        guard let node = field(key) else { return nil }
        switch node.value {
        case .null: return nil
        case .number(let value) where value.rounded() == value && abs(value) < 1e15:
          return Int(value)
        default: throw beats.error(node.line, "\"\(key)\" is not a whole number")
        }
      }
      _ = try whole("frame")
      let bar = try whole("bar")
      let beat = try whole("beat")
      try beats.add(BeatMark(time: time, beatInBar: beat, bar: bar), line: item.line)
    }
  }

  static func export(_ beats: [(frame: Int64, bar: Int, beatInBar: Int)], sampleRate: Int) -> String
  {
    var out = "{\"sample_rate\":\(sampleRate),\"beats\":["
    for (i, beat) in beats.enumerated() {
      let time = String(format: "%.9f", Double(beat.frame) / Double(sampleRate))
      out += i == 0 ? "\n" : ",\n"
      out +=
        "{\"time\":\(time),\"frame\":\(beat.frame),\"bar\":\(beat.bar),\"beat\":\(beat.beatInBar)}"
    }
    out += beats.isEmpty ? "]}\n" : "\n]}\n"
    return out
  }
}

struct JSONNode {
  indirect enum Value {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONNode])
    case object([(key: String, node: JSONNode)])
  }
  var value: Value
  /// The line where the value starts.
  var line: Int
}

/// A strict RFC 8259 parser that remembers lines and refuses nesting deeper than 64.
struct JSONParser {
  private let bytes: [UInt8]
  private let path: String
  private var pos = 0
  private var line = 1
  private var depth = 0

  init(text: String, path: String) {
    bytes = Array(text.utf8)
    self.path = path
  }

  private func error(_ reason: String) -> BeatFileError {
    BeatFileError(
      path: path, line: line, reason: "malformed JSON: \(reason)", advice: "fix the JSON")
  }

  private var current: UInt8? { pos < bytes.count ? bytes[pos] : nil }

  private mutating func skipSpace() {
    while let c = current,
      c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\n")
        || c == UInt8(ascii: "\r")
    {
      if c == UInt8(ascii: "\n") { line += 1 }
      pos += 1
    }
  }

  private mutating func expect(_ c: UInt8, _ what: String) throws {
    skipSpace()
    guard current == c else { throw error("expected \(what)") }
    pos += 1
  }

  mutating func document() throws -> JSONNode {
    let node = try value()
    skipSpace()
    guard current == nil else { throw error("unexpected text after the end") }
    return node
  }

  private mutating func value() throws -> JSONNode {
    skipSpace()
    let start = line
    guard let c = current else { throw error("the document ends where a value should be") }
    switch c {
    case UInt8(ascii: "{"):
      depth += 1
      defer { depth -= 1 }
      guard depth <= 64 else { throw error("nested too deeply") }
      pos += 1
      var members: [(key: String, node: JSONNode)] = []
      skipSpace()
      if current == UInt8(ascii: "}") {
        pos += 1
        return JSONNode(value: .object(members), line: start)
      }
      while true {
        skipSpace()
        guard current == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
        let key = try string()
        guard !members.contains(where: { $0.key == key }) else {
          throw error("the key \"\(key)\" appears twice")
        }
        try expect(UInt8(ascii: ":"), "':' after a key")
        members.append((key, try value()))
        skipSpace()
        if current == UInt8(ascii: ",") {
          pos += 1
        } else {
          try expect(UInt8(ascii: "}"), "',' or '}'")
          return JSONNode(value: .object(members), line: start)
        }
      }
    case UInt8(ascii: "["):
      depth += 1
      defer { depth -= 1 }
      guard depth <= 64 else { throw error("nested too deeply") }
      pos += 1
      var items: [JSONNode] = []
      skipSpace()
      if current == UInt8(ascii: "]") {
        pos += 1
        return JSONNode(value: .array(items), line: start)
      }
      while true {
        items.append(try value())
        skipSpace()
        if current == UInt8(ascii: ",") {
          pos += 1
        } else {
          try expect(UInt8(ascii: "]"), "',' or ']'")
          return JSONNode(value: .array(items), line: start)
        }
      }
    case UInt8(ascii: "\""):
      return JSONNode(value: .string(try string()), line: start)
    case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
      for (word, result) in [("true", Value.bool(true)), ("false", .bool(false)), ("null", .null)]
      where bytes[pos...].starts(with: word.utf8) {
        pos += word.utf8.count
        return JSONNode(value: result, line: start)
      }
      throw error("unexpected word")
    default:
      return JSONNode(value: .number(try number()), line: start)
    }
  }

  private typealias Value = JSONNode.Value

  /// A number, or a string with its escapes undone, read from `pos` by the `.practice`
  /// file's `JSONReader` (neither holds a line break, so the line stays).
  private mutating func scalar<T>(_ read: (inout JSONReader) throws -> T) throws -> T {
    let bytes = self.bytes
    let start = pos
    let result = bytes.withUnsafeBufferPointer { buffer in
      var reader = JSONReader(buffer, at: start)
      return Result { (try read(&reader), reader.offset) }
    }
    switch result {
    case .success(let (value, end)):
      pos = end
      return value
    case .failure(let failure as JSONReadError):
      pos = failure.offset
      throw error("expected \(failure.expected ?? "a value")")
    case .failure(let failure):
      throw failure
    }
  }

  private mutating func number() throws -> Double { try scalar { try $0.double() } }

  private mutating func string() throws -> String { try scalar { try $0.string() } }
}
