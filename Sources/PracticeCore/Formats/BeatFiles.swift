/// Reading and writing beat files: format detection, parsing with validation, export.
/// Pure code: bytes in, values out; the caller reads and writes the files.
public enum BeatFiles {
  /// Picks the format from the content and the extension: a Transcribe! header is `xsc`,
  /// a leading `{` is `json`, a leading `<` is `xml`; then `.xsc`, `.xml`, `.json` and `.csv`
  /// by name; `.txt`, `.beats`, `.lab` (and unknown names) by the first data line's columns:
  /// one is `times`, two are `mirex`, three tab-separated are `audacity`, commas are `csv`.
  /// Returns nil if it cannot tell.
  public static func detect(path: String, data: [UInt8]) -> BeatFileFormat? {
    let ext = BeatText.fileExtension(path)
    let text = BeatText.decodeLeniently(data)
    if let text {
      let start = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
      if start.hasPrefix("Transcribe!") { return .xsc }
      if start.hasPrefix("{") { return .json }
      if start.hasPrefix("<") { return .xml }
    }
    switch ext {
    case "xsc": return .xsc
    case "xml": return .xml
    case "json": return .json
    case "csv": return .csv
    default: break
    }
    if let text, let format = sniffColumns(text, ext: ext) { return format }
    // A `.txt` or `.beats` file that is binary or holds no data line: let `parse` say so.
    let hasDataLine = text.map { BeatText.firstDataLine($0) != nil } ?? false
    return (ext == "txt" || ext == "beats") && !hasDataLine ? .times : nil
  }

  /// Parses and validates a beat file. Times must be finite, not negative, strictly
  /// increasing and before `audioDuration` (seconds); beat-in-bar, where given, is 1 or more.
  /// Throws `DataFileError` naming the line at fault.
  public static func parse(
    _ data: [UInt8], format: BeatFileFormat, path: String, audioDuration: Double
  ) throws -> BeatFile {
    let text = try BeatText.decode(data, path: path)
    var beats = BeatCollector(path: path, audioDuration: audioDuration)
    var loops: [NamedRange] = []
    switch format {
    case .times: try TextBeatFormats.parseTimes(text, into: &beats)
    case .mirex: try TextBeatFormats.parseMirex(text, into: &beats)
    case .audacity: try TextBeatFormats.parseAudacity(text, into: &beats)
    case .csv: try TextBeatFormats.parseCSV(text, into: &beats)
    case .xml: try XMLBeatFormat.parse(text, into: &beats)
    case .json: try JSONBeatFormat.parse(text, into: &beats)
    case .xsc: loops = try TranscribeFormat.parse(text, into: &beats)
    }
    return BeatFile(beats: try beats.finish(), loops: loops)
  }

  /// Looks at the first data line (not blank, not a `#` comment) of a text file: one column
  /// is `times`, two are `mirex` (`audacity` in a `.lab`, whose empty label an editor may have
  /// trimmed), three tab-separated are `audacity`, commas are `csv`. Nil unless the line
  /// starts with a number.
  static func sniffColumns(_ text: String, ext: String) -> BeatFileFormat? {
    if let line = BeatText.firstDataLine(text) {
      // Trailing tabs count (Audacity writes `start\tend\t` for an empty label), unless
      // they only lead up to a comment.
      let uncommented = BeatText.uncommented(line)
      var content = uncommented.drop { $0 == " " }
      if uncommented.count < line.count {
        content = BeatText.trim(content)
      }
      let end = content.utf8.lastIndex { $0 != UInt8(ascii: " ") }
      content = content[..<(end.map { content.utf8.index(after: $0) } ?? content.startIndex)]
      let tabbed = content.contains("\t")
      let fields: [Substring]
      if tabbed {
        fields = content.split(separator: "\t", omittingEmptySubsequences: false).map(BeatText.trim)
      } else if content.contains(",") {
        fields = content.split(separator: ",", omittingEmptySubsequences: false).map(BeatText.trim)
        guard case .value = BeatText.scanNumber(fields[0]) else { return nil }
        return .csv
      } else {
        fields = BeatText.fields(content)
      }
      guard let first = fields.first, case .value = BeatText.scanNumber(first) else { return nil }
      switch fields.count {
      case 1: return .times
      case 2: return ext == "lab" ? .audacity : .mirex
      case 3 where tabbed: return .audacity
      default: return nil
      }
    }
    return nil
  }
}

/// Collects beats in file order and checks each as it arrives, so the first bad line is
/// the one reported.
struct BeatCollector {
  let path: String
  let audioDuration: Double
  private(set) var beats: [BeatMark] = []
  private var lastLine: Int?

  init(path: String, audioDuration: Double) {
    self.path = path
    self.audioDuration = audioDuration
  }

  func error(_ line: Int?, _ reason: String, advice: String = "fix or remove the line")
    -> DataFileError
  {
    DataFileError(.beat, path: path, line: line, reason: reason, advice: advice)
  }

  mutating func add(_ mark: BeatMark, line: Int?) throws {
    let time = mark.time
    guard time.isFinite else { throw error(line, "time is not a finite number") }
    guard time >= 0 else {
      throw error(line, "time is negative (\(formatSeconds(time)))")
    }
    if let beat = mark.beatInBar, beat < 1 {
      throw error(line, "beat-in-bar must be 1 or more (got \(beat))")
    }
    if let bar = mark.bar, bar < 0 {
      throw error(line, "bar number must be 0 or more (got \(bar))")
    }
    if let previous = beats.last {
      if time == previous.time {
        let also = lastLine.map { " (also on line \($0))" } ?? ""
        throw error(line, "duplicate time \(formatSeconds(time))\(also)")
      }
      if time < previous.time {
        throw error(
          line,
          "times must increase (\(formatSeconds(time)) after \(formatSeconds(previous.time)))"
        )
      }
    }
    // A beat at the very end would lie on the frame after the last one.
    guard time < audioDuration else {
      throw error(
        line,
        "time \(formatSeconds(time)) is at or past the end of the audio "
          + "(\(formatSeconds(audioDuration)))",
        advice: "check that the beat file belongs to this song, or remove the line")
    }
    beats.append(mark)
    lastLine = line
  }

  func finish() throws -> [BeatMark] {
    guard !beats.isEmpty else {
      throw error(nil, "no beats found", advice: "check that this is a beat file and its format")
    }
    return beats
  }
}
