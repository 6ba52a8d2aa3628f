import Foundation

/// Where a JSON document stopped making sense: the byte offset, the place in the document
/// (`songs[3].beat_map.frames`) and what was expected there, or the key that is missing.
struct JSONReadError: Error {
  var offset: Int
  /// `songs[3].beat_map.frames`; empty at the top.
  var place: String
  /// What should have been at `offset` (`an integer`), or nil when `missingKey` is set.
  var expected: String?
  /// A key the object ending at `offset` lacks.
  var missingKey: String?
  /// What was at `offset` instead (`'x'`, `the end of the file`).
  var found: String

  /// One line naming the file, the byte offset with its line and column, and what was wrong.
  func message(file: String, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
    let end = min(offset, bytes.count)
    var line = 1
    var lineStart = 0
    for i in 0..<end where bytes[i] == 0x0A {
      line += 1
      lineStart = i + 1
    }
    let at = "at byte \(offset) (line \(line), column \(end - lineStart + 1))"
    if let missingKey {
      let key = place.isEmpty ? missingKey : "\(place).\(missingKey)"
      return "'\(file)': \(key) is missing (the object ending \(at)); the file is damaged"
    }
    let inPlace = place.isEmpty ? "" : " in \(place)"
    return "'\(file)': \(at)\(inPlace): expected \(expected ?? "a value"), found \(found); "
      + "the file is damaged"
  }
}

/// A JSON reader over bytes, for documents whose shape the caller knows: the caller asks
/// for an object, a string, an integer, and gets it or a `JSONReadError` saying where and
/// what was expected. Nothing is built for what the caller skips.
struct JSONReader {
  let bytes: UnsafeBufferPointer<UInt8>
  /// The next byte to read.
  private(set) var offset = 0
  /// The keys and indexes leading to the value being read, for messages.
  private var path: [PathItem] = []
  private var depth = 0
  static let depthLimit = 512

  private enum PathItem {
    case key(String)
    case index(Int)
  }

  /// A reader of `bytes` from `offset`.
  init(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  // MARK: Errors

  private var place: String {
    var text = ""
    for item in path {
      switch item {
      case .key(let key): text += (text.isEmpty ? "" : ".") + excerpt(key)
      case .index(let index): text += "[\(index)]"
      }
    }
    return text
  }

  private var found: String {
    guard offset < bytes.count else { return "the end of the file" }
    let byte = bytes[offset]
    return (0x21...0x7E).contains(byte)
      ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
  }

  func failure(_ expected: String) -> JSONReadError {
    JSONReadError(offset: offset, place: place, expected: expected, found: found)
  }

  /// The value of a key the object just read must have.
  func required<T>(_ value: T?, _ key: String) throws -> T {
    guard let value else {
      throw JSONReadError(offset: max(0, offset - 1), place: place, missingKey: key, found: found)
    }
    return value
  }

  // MARK: Structure

  private mutating func skipSpace() {
    while offset < bytes.count {
      switch bytes[offset] {
      case 0x20, 0x0A, 0x0D, 0x09: offset += 1
      default: return
      }
    }
  }

  /// The next byte that is not white space (0 at the end), not consumed.
  mutating func peek() -> UInt8 {
    skipSpace()
    return offset < bytes.count ? bytes[offset] : 0
  }

  private mutating func consume(_ byte: UInt8, _ expected: String) throws {
    guard peek() == byte else { throw failure(expected) }
    offset += 1
  }

  private mutating func enter() throws {
    guard depth < JSONReader.depthLimit else {
      throw failure("at most \(JSONReader.depthLimit) arrays and objects inside each other")
    }
    depth += 1
  }

  /// An object: `field` gets each key with the reader at its value, and reads or skips it.
  mutating func object(_ field: (inout JSONReader, String) throws -> Void) throws {
    try consume(UInt8(ascii: "{"), "an object ('{')")
    try enter()
    defer { depth -= 1 }
    if peek() == UInt8(ascii: "}") {
      offset += 1
      return
    }
    // A set: a list, quicker for a few keys, took time quadratic in many (20,000: 16 s).
    var keys: Set<String> = []
    while true {
      guard peek() == UInt8(ascii: "\"") else { throw failure("a key in double quotes") }
      let key = try string()
      // A repeated key would leave which value counts to the reader: refused.
      guard keys.insert(key).inserted else {
        throw failure("a key not given before (\(quoted(key)) repeats)")
      }
      try consume(UInt8(ascii: ":"), "':' after the key")
      path.append(.key(key))
      try field(&self, key)
      path.removeLast()
      switch peek() {
      case UInt8(ascii: ","): offset += 1
      case UInt8(ascii: "}"):
        offset += 1
        return
      default: throw failure("',' or '}'")
      }
    }
  }

  /// An array: `element` reads each element, given its index.
  mutating func array(_ element: (inout JSONReader, Int) throws -> Void) throws {
    try consume(UInt8(ascii: "["), "an array ('[')")
    try enter()
    defer { depth -= 1 }
    if peek() == UInt8(ascii: "]") {
      offset += 1
      return
    }
    var index = 0
    while true {
      path.append(.index(index))
      try element(&self, index)
      path.removeLast()
      index += 1
      switch peek() {
      case UInt8(ascii: ","): offset += 1
      case UInt8(ascii: "]"):
        offset += 1
        return
      default: throw failure("',' or ']'")
      }
    }
  }

  /// An array of values of one kind, with their indexes in messages.
  mutating func list<T>(_ read: (inout JSONReader) throws -> T) throws -> [T] {
    var values: [T] = []
    try array { reader, _ in values.append(try read(&reader)) }
    return values
  }

  /// An array of values of one kind, read without keeping the index for messages (the
  /// offset says which): the columns of a beat map hold millions.
  mutating func column<T>(_ read: (inout JSONReader) throws -> T) throws -> [T] {
    var values: [T] = []
    try consume(UInt8(ascii: "["), "an array ('[')")
    if peek() == UInt8(ascii: "]") {
      offset += 1
      return values
    }
    while true {
      values.append(try read(&self))
      switch peek() {
      case UInt8(ascii: ","): offset += 1
      case UInt8(ascii: "]"):
        offset += 1
        return values
      default: throw failure("',' or ']'")
      }
    }
  }

  /// Any value, read and dropped (a key this version does not know).
  mutating func skip() throws {
    switch peek() {
    case UInt8(ascii: "{"): try object { reader, _ in try reader.skip() }
    case UInt8(ascii: "["): try array { reader, _ in try reader.skip() }
    case UInt8(ascii: "\""): _ = try string()
    case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
    case UInt8(ascii: "n"): try literal("null")
    default: _ = try double()
    }
  }

  private mutating func literal(_ word: StaticString) throws {
    let start = offset
    let count = word.utf8CodeUnitCount
    guard bytes.count - offset >= count,
      word.withUTF8Buffer({ $0.elementsEqual(bytes[offset..<(offset + count)]) })
    else {
      offset = start
      throw failure("\(word)")
    }
    offset += count
  }

  /// Consumes `null` if it is next: true when it was.
  mutating func null() throws -> Bool {
    guard peek() == UInt8(ascii: "n") else { return false }
    try literal("null")
    return true
  }

  /// `read`'s value, or nil for `null`.
  mutating func nullable<T>(_ read: (inout JSONReader) throws -> T) throws -> T? {
    try null() ? nil : read(&self)
  }

  // MARK: Values

  mutating func bool() throws -> Bool {
    switch peek() {
    case UInt8(ascii: "t"):
      try literal("true")
      return true
    case UInt8(ascii: "f"):
      try literal("false")
      return false
    default: throw failure("true or false")
    }
  }

  mutating func string() throws -> String {
    try consume(UInt8(ascii: "\""), "a string in double quotes")
    let start = offset
    var i = start
    // Most strings have no escapes: validated and made in one go.
    while i < bytes.count {
      let byte = bytes[i]
      if byte == UInt8(ascii: "\"") {
        guard let text = String(validating: bytes[start..<i], as: UTF8.self) else {
          throw failure("text in UTF-8")
        }
        offset = i + 1
        return text
      }
      if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
      i += 1
    }
    var text = Array(bytes[start..<i])
    while true {
      offset = i
      guard i < bytes.count else { throw failure("the end of the string ('\"')") }
      let byte = bytes[i]
      if byte == UInt8(ascii: "\"") { break }
      guard byte >= 0x20 else { throw failure("a control character written as an escape") }
      guard byte == UInt8(ascii: "\\") else {
        text.append(byte)
        i += 1
        continue
      }
      i += 1
      offset = i
      guard i < bytes.count else { throw failure("an escape") }
      switch bytes[i] {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(bytes[i])
      case UInt8(ascii: "b"): text.append(0x08)
      case UInt8(ascii: "f"): text.append(0x0C)
      case UInt8(ascii: "n"): text.append(0x0A)
      case UInt8(ascii: "r"): text.append(0x0D)
      case UInt8(ascii: "t"): text.append(0x09)
      case UInt8(ascii: "u"):
        var unit = try hex4(at: i + 1)
        i += 4
        if (0xD800..<0xDC00).contains(unit) {
          // A high surrogate and its low one, `\ud83c\udfb8`.
          offset = i + 1
          guard bytes.count - i > 6, bytes[i + 1] == UInt8(ascii: "\\"),
            bytes[i + 2] == UInt8(ascii: "u")
          else { throw failure("the second half of a \\u surrogate pair") }
          let low = try hex4(at: i + 3)
          guard (0xDC00..<0xE000).contains(low) else {
            throw failure("the second half of a \\u surrogate pair")
          }
          unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
          i += 6
        }
        guard let scalar = Unicode.Scalar(unit) else { throw failure("a \\u escape of a character") }
        text.append(contentsOf: String(scalar).utf8)
      default: throw failure("an escape (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u)")
      }
      i += 1
    }
    guard let decoded = String(validating: text, as: UTF8.self) else {
      throw failure("text in UTF-8")
    }
    offset = i + 1
    return decoded
  }

  private mutating func hex4(at start: Int) throws -> UInt32 {
    var value: UInt32 = 0
    for i in start..<(start + 4) {
      offset = i
      guard i < bytes.count else { throw failure("four hex digits") }
      let byte = bytes[i]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw failure("four hex digits")
      }
      value = value << 4 | UInt32(digit)
    }
    return value
  }

  /// An integer that fits in 64 bits; `2.0` and `1e3` are whole numbers too.
  mutating func int64() throws -> Int64 {
    skipSpace()
    let start = offset
    var i = offset
    let negative = i < bytes.count && bytes[i] == UInt8(ascii: "-")
    if negative { i += 1 }
    guard i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) else {
      throw failure("an integer")
    }
    var magnitude: UInt64 = 0
    var overflow = false
    if bytes[i] == UInt8(ascii: "0") {
      i += 1
    } else {
      while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) {
        let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[i] - UInt8(ascii: "0")))
        magnitude = sum
        overflow = overflow || o1 || o2
        i += 1
      }
    }
    if i < bytes.count,
      [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[i])
    {
      let value = try double()
      guard let whole = Int64(exactly: value) else {
        offset = start
        throw failure("an integer")
      }
      return whole
    }
    let limit = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
    guard !overflow, magnitude <= limit else { throw failure("an integer of at most 64 bits") }
    offset = i
    return negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
  }

  mutating func int() throws -> Int {
    let start = offset
    guard let value = Int(exactly: try int64()) else {
      offset = start
      throw failure("an integer of at most \(Int.bitWidth) bits")
    }
    return value
  }

  /// Exact powers of ten: a mantissa below 2^53 divided or multiplied by one of them is
  /// rounded once, so the fast path gives the nearest double (Clinger's fast path).
  private static let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]

  /// A number as the nearest double; one too large for a double is refused.
  mutating func double() throws -> Double {
    skipSpace()
    let start = offset
    var i = offset
    func isDigit(_ i: Int) -> Bool {
      i < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i])
    }
    let negative = i < bytes.count && bytes[i] == UInt8(ascii: "-")
    if negative { i += 1 }
    guard isDigit(i) else { throw failure("a number") }
    var mantissa: UInt64 = 0
    var exponent = 0
    var exact = true
    func add(_ digit: UInt8) -> Bool {
      guard mantissa < (1 << 53) / 10 else {
        exact = exact && digit == UInt8(ascii: "0")
        return false
      }
      mantissa = mantissa * 10 + UInt64(digit - UInt8(ascii: "0"))
      return true
    }
    if bytes[i] == UInt8(ascii: "0") {
      i += 1
    } else {
      while isDigit(i) {
        if !add(bytes[i]) { exponent += 1 }
        i += 1
      }
    }
    if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
      i += 1
      guard isDigit(i) else {
        offset = i
        throw failure("a digit after the decimal point")
      }
      while isDigit(i) {
        if add(bytes[i]) { exponent -= 1 }
        i += 1
      }
    }
    if i < bytes.count && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
      i += 1
      var negativeExponent = false
      if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
        negativeExponent = bytes[i] == UInt8(ascii: "-")
        i += 1
      }
      guard isDigit(i) else {
        offset = i
        throw failure("a digit in the exponent")
      }
      var written = 0
      while isDigit(i) {
        written = min(written * 10 + Int(bytes[i] - UInt8(ascii: "0")), 100_000)
        i += 1
      }
      exponent += negativeExponent ? -written : written
    }
    var value: Double
    if exact && mantissa < 1 << 53 && abs(exponent) <= 22 {
      value = Double(mantissa)
      value = exponent < 0 ? value / Self.powersOfTen[-exponent] : value * Self.powersOfTen[exponent]
      if negative { value = -value }
    } else {
      // Many digits or a large exponent: the standard library rounds the text.
      guard let parsed = Double(String(decoding: bytes[start..<i], as: UTF8.self)) else {
        throw failure("a number")
      }
      value = parsed
    }
    guard value.isFinite else { throw failure("a number a double can hold") }
    offset = i
    return value
  }
}
