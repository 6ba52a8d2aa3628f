import Foundation

/// `{"sample_rate":44100,"beats":[{"time":0.5,"frame":22050,"bar":1,"beat":1},…]}`, as
/// `BeatFiles.export` writes it (one beat per line). Import uses `time`, `bar` and `beat`.
///
/// Read in one pass by `JSONReader` (nothing is built for a beat but its mark), counting
/// lines as it goes so that every message names the beat's line.
enum JSONBeatFormat {
  static let shape = "expected {\"sample_rate\":…,\"beats\":[{\"time\":…},…]}"

  static func parse(_ text: String, into beats: inout BeatCollector) throws {
    let bytes = Array(text.utf8)
    try bytes.withUnsafeBufferPointer { buffer in
      var lines = LineCounter(bytes: buffer)
      var reader = JSONReader(buffer)
      do {
        try readDocument(&reader, &lines, &beats)
      } catch let failure as JSONReadError {
        throw beats.error(
          lines.line(at: failure.offset),
          "malformed JSON: expected \(failure.expected ?? "a value"), found \(failure.found)",
          advice: "fix the JSON")
      }
    }
  }

  private static func readDocument(
    _ reader: inout JSONReader, _ lines: inout LineCounter, _ beats: inout BeatCollector
  ) throws {
    switch reader.peek() {
    case UInt8(ascii: "{"): break
    case 0 where reader.offset == reader.bytes.count:
      throw beats.error(
        lines.line(at: reader.offset), "malformed JSON: the file holds no JSON value",
        advice: "fix the JSON")
    default:
      throw beats.error(
        lines.line(at: reader.offset), "the top level is not a JSON object", advice: shape)
    }
    // A key given twice is refused by the reader (RFC 8259 leaves it undefined, and a beat
    // with two times is a damaged file).
    var hasBeats = false
    try reader.object { reader, key in
      _ = reader.peek()
      let line = lines.line(at: reader.offset)
      switch key {
      case "sample_rate":
        let rate = try? reader.double()
        guard let rate, rate >= 1, rate.rounded() == rate else {
          throw beats.error(line, "\"sample_rate\" is not a positive whole number")
        }
      case "beats":
        guard reader.peek() == UInt8(ascii: "[") else {
          throw beats.error(line, "\"beats\" is not a list", advice: shape)
        }
        try reader.array { reader, _ in try readBeat(&reader, &lines, &beats) }
        hasBeats = true
      default:
        try reader.skip()
      }
    }
    _ = reader.peek()
    guard reader.offset == reader.bytes.count else {
      throw beats.error(
        lines.line(at: reader.offset), "malformed JSON: unexpected text after the end",
        advice: "fix the JSON")
    }
    guard hasBeats else {
      throw beats.error(nil, "no \"beats\" list", advice: shape)
    }
  }

  /// One `{"time":…,"frame":…,"bar":…,"beat":…}`; other keys are skipped.
  private static func readBeat(
    _ reader: inout JSONReader, _ lines: inout LineCounter, _ beats: inout BeatCollector
  ) throws {
    _ = reader.peek()
    let line = lines.line(at: reader.offset)
    guard reader.peek() == UInt8(ascii: "{") else {
      throw beats.error(line, "a beat is not an object like {\"time\":0.5}")
    }
    var time: Double?
    var bar: Int?
    var beat: Int?
    try reader.object { reader, key in
      _ = reader.peek()
      let valueLine = lines.line(at: reader.offset)
      func whole() throws -> Int? {
        if try reader.null() { return nil }
        let value = reader.peek() == UInt8(ascii: "\"") ? nil : try reader.double()
        guard let value, value.rounded() == value, abs(value) < 1e15 else {
          throw beats.error(valueLine, "\"\(key)\" is not a whole number")
        }
        return Int(value)
      }
      switch key {
      case "time":
        switch reader.peek() {
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): time = try reader.double()
        case UInt8(ascii: "\""), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"),
          UInt8(ascii: "{"), UInt8(ascii: "["):
          throw beats.error(valueLine, "\"time\" is not a number")
        default: time = try reader.double()  // says what it found
        }
      case "frame": _ = try whole()
      case "bar": bar = try whole()
      case "beat": beat = try whole()
      default: try reader.skip()
      }
    }
    guard let time else { throw beats.error(line, "a beat has no \"time\"") }
    try beats.add(BeatMark(time: time, beatInBar: beat, bar: bar), line: line)
  }

  /// The 1-based line of a byte offset, counted forward from the last one asked for.
  private struct LineCounter {
    let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0
    private var line = 1

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func line(at target: Int) -> Int {
      let end = min(max(target, 0), bytes.count)
      if end < offset { (offset, line) = (0, 1) }
      while offset < end {
        if bytes[offset] == 0x0A { line += 1 }
        offset += 1
      }
      return line
    }
  }

  static func export(_ beats: [(frame: Int64, bar: Int, beatInBar: Int)], sampleRate: Int) -> String
  {
    var out = JSONWriter()
    out.bytes.reserveCapacity(beats.count * 64 + 64)
    BeatExportDocument(beats: beats, sampleRate: sampleRate).write(to: &out)
    out.bytes.append(0x0A)
    return out.text
  }
}

/// What `beats export --format json` writes: the sample rate, then one beat a line with its
/// time (nine decimals, so the frame comes back exactly), frame, bar and beat in the bar.
struct BeatExportDocument: JSONOutput {
  var beats: [(frame: Int64, bar: Int, beatInBar: Int)]
  var sampleRate: Int

  func write(to out: inout JSONWriter) {
    let rate = Double(sampleRate)
    out.object { o in
      o.field("sample_rate", sampleRate)
      o.field("beats") {
        $0.array(beats, onePerLine: true) { w, beat in
          w.object { b in
            b.field("time", FormattedNumber(String(format: "%.9f", Double(beat.frame) / rate)))
            b.field("frame", beat.frame)
            b.field("bar", beat.bar)
            b.field("beat", beat.beatInBar)
          }
        }
      }
    }
  }
}
