/// The line-per-beat formats: plain times, MIREX, Audacity labels, Sonic Visualiser CSV.
enum TextBeatFormats {
  /// One time per line; `#` starts a comment; blank lines are skipped.
  static func parseTimes(_ text: String, into beats: inout BeatCollector) throws {
    for (index, raw) in BeatText.lines(text).enumerated() {
      let line = index + 1
      let fields = BeatText.fields(BeatText.uncommented(raw))
      if fields.isEmpty { continue }
      guard fields.count == 1 else {
        throw beats.error(line, "expected one time per line, found \(fields.count) fields")
      }
      let time = try BeatText.number(fields[0], what: "time", line: line, path: beats.path)
      try beats.add(BeatMark(time: time), line: line)
    }
  }

  /// `time<TAB>beat-in-bar` per line (spaces also separate); `#` comments allowed.
  static func parseMirex(_ text: String, into beats: inout BeatCollector) throws {
    for (index, raw) in BeatText.lines(text).enumerated() {
      let line = index + 1
      let fields = BeatText.fields(BeatText.uncommented(raw))
      if fields.isEmpty { continue }
      guard fields.count == 2 else {
        throw beats.error(
          line,
          "expected 'time<TAB>beat-in-bar', found \(fields.count) field\(fields.count == 1 ? "" : "s")"
        )
      }
      let time = try BeatText.number(fields[0], what: "time", line: line, path: beats.path)
      let beat = try BeatText.wholeNumber(
        fields[1], what: "beat-in-bar", line: line, path: beats.path)
      try beats.add(BeatMark(time: time, beatInBar: beat), line: line)
    }
  }

  /// Audacity label track: `start<TAB>end<TAB>label`; the beat is at `start`. A numeric
  /// label is beat-in-bar (`3`) or bar and beat (`12.3`). Lines starting with `\` hold a
  /// spectral label's frequencies and are skipped.
  static func parseAudacity(_ text: String, into beats: inout BeatCollector) throws {
    for (index, raw) in BeatText.lines(text).enumerated() {
      let line = index + 1
      if BeatText.trim(raw).isEmpty || raw.hasPrefix("\\") { continue }
      let fields = raw.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
      guard fields.count >= 2 else {
        throw beats.error(line, "expected 'start<TAB>end<TAB>label'")
      }
      let start = try BeatText.number(
        BeatText.trim(fields[0]), what: "start time", line: line, path: beats.path)
      let end = try BeatText.number(
        BeatText.trim(fields[1]), what: "end time", line: line, path: beats.path)
      guard end >= start else {
        throw beats.error(
          line,
          "label ends (\(formatSeconds(end))) before it starts (\(formatSeconds(start)))")
      }
      let label = fields.count == 3 ? fields[2] : ""
      let (bar, beat) = try BeatText.barAndBeat(label: label, line: line, path: beats.path)
      try beats.add(BeatMark(time: start, beatInBar: beat, bar: bar), line: line)
    }
  }

  /// Sonic Visualiser time instants: `time`, `time,label` or `time,value,label`; the label
  /// may be quoted. A header line (`TIME,LABEL`) is allowed first.
  static func parseCSV(_ text: String, into beats: inout BeatCollector) throws {
    var sawData = false
    for (index, raw) in BeatText.lines(text).enumerated() {
      let line = index + 1
      if BeatText.trim(raw).isEmpty { continue }
      guard let fields = splitCSV(raw) else {
        throw beats.error(line, "a quoted field is not closed")
      }
      if !sawData && isHeader(fields[0]) {
        sawData = true
        continue
      }
      sawData = true
      guard fields.count <= 3 else {
        throw beats.error(
          line, "expected 'time,label' or 'time,value,label', found \(fields.count) fields")
      }
      let time = try BeatText.number(
        BeatText.trim(fields[0]), what: "time", line: line, path: beats.path)
      let label = fields.count >= 2 ? fields[fields.count - 1] : ""
      let (bar, beat) = try BeatText.barAndBeat(label: label, line: line, path: beats.path)
      try beats.add(BeatMark(time: time, beatInBar: beat, bar: bar), line: line)
    }
  }

  /// A first field made of letters only (`TIME`, `Timestamp`), not `nan`/`inf`.
  static func isHeader(_ field: Substring) -> Bool {
    let name = BeatText.trim(field).lowercased()
    return !name.isEmpty && name.allSatisfy { $0.isLetter || $0 == " " || $0 == "_" }
      && !["nan", "inf", "infinity"].contains(name)
  }

  /// Splits one CSV line; a field in double quotes may hold commas and `""` for a quote.
  /// Nil if a quote is not closed.
  static func splitCSV(_ line: Substring) -> [Substring]? {
    var fields: [Substring] = []
    var rest = line[...]
    while true {
      let field = BeatText.trim(rest.prefix { $0 != "," })
      if field.hasPrefix("\"") {
        // Quoted: read to the closing quote, then up to the next comma.
        guard let open = rest.firstIndex(of: "\"") else { return nil }
        var text = ""
        var i = rest.index(after: open)
        var closed = false
        while i < rest.endIndex {
          let c = rest[i]
          i = rest.index(after: i)
          if c == "\"" {
            if i < rest.endIndex && rest[i] == "\"" {
              text.append("\"")
              i = rest.index(after: i)
            } else {
              closed = true
              break
            }
          } else {
            text.append(c)
          }
        }
        guard closed else { return nil }
        let after = rest[i...]
        guard BeatText.trim(after.prefix { $0 != "," }).isEmpty else { return nil }
        fields.append(Substring(text))
        guard let comma = after.firstIndex(of: ",") else { return fields }
        rest = after[after.index(after: comma)...]
      } else {
        fields.append(field)
        guard let comma = rest.firstIndex(of: ",") else { return fields }
        rest = rest[rest.index(after: comma)...]
      }
    }
  }
}
