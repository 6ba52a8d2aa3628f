/// Transcribe! `.xsc` documents (Seventh String Software), as laid out by the public
/// Transcribe-xsc-file-converter (roryokane, and RyotaUshio's fork that adds loops):
///
/// - line 1 starts `Transcribe!`; then comma-separated lines in blocks from
///   `SectionStart,Name` to `SectionEnd,Name`; inside a field `\C` is a comma, `\\` a backslash;
/// - `Main` holds `SoundFileInfo,type,codec,channels,bytes,sampleRate,frames,seconds`;
/// - `Markers` holds `Howmany,n`, then `kind,position,autoNamed,label,subdivisions,H:MM:SS.sss`
///   where kind is `S` (section), `M` (measure) or `B` (beat) and position is the sample
///   position (`-1` when unknown);
/// - `Loops` holds `L,index,inUse,startSample,lengthSamples,name,colour,?[,H:MM:SS.ssssss start,
///   H:MM:SS.ssssss length]`; unused slots have length 0.
///
/// Sections and measures are downbeats (a section starts a measure); beats count on from
/// the last downbeat. A measure's bar number is the number its label gives: an auto-named
/// label ends in it (`A2`, the second measure as Transcribe! numbers them), a custom label
/// must be only digits; other labels give none.
enum TranscribeFormat {
  /// Reads the markers into `beats` and returns the loops.
  static func parse(_ text: String, into beats: inout BeatCollector) throws -> [NamedRange] {
    let lines = BeatText.lines(text)
    guard let first = lines.first, first.hasPrefix("Transcribe!") else {
      throw beats.error(
        1, "not a Transcribe! document (the first line should start with 'Transcribe!')",
        advice: "give the .xsc file Transcribe! saved")
    }
    var section: (name: String, line: Int)?
    var sampleRate: Double?
    var loops: [NamedRange] = []
    var beatInBar: Int?  // nil until the first downbeat

    for (index, raw) in lines.enumerated() where index > 0 {
      let line = index + 1
      if BeatText.trim(raw).isEmpty { continue }
      let fields = raw.split(separator: ",", omittingEmptySubsequences: false).map(unescape)
      let key = fields[0]
      switch (key, section?.name) {
      case ("SectionStart", let open):
        if let open {
          throw beats.error(line, "a section starts inside section \(quoted(open))")
        }
        section = (fields.count > 1 ? fields[1] : "", line)
      case ("SectionEnd", let open):
        let name = fields.count > 1 ? fields[1] : ""
        guard open == name else {
          throw beats.error(line, "\(quoted("SectionEnd," + name)) does not match the open section")
        }
        section = nil
      case ("SoundFileInfo", "Main"):
        if fields.count > 5, let rate = Double(fields[5]), rate > 0, rate.isFinite {
          sampleRate = rate
        }
      case ("Howmany", _):
        continue
      case ("S", "Markers"), ("M", "Markers"), ("B", "Markers"):
        guard fields.count >= 6 else {
          throw beats.error(
            line, "a marker needs 6 fields (kind,position,auto,label,subdivisions,time)")
        }
        var time = try timestamp(fields[5], what: "marker time", line: line, beats: beats)
        // Older files give times to the millisecond; the sample position is exact.
        if let rate = sampleRate, let position = Double(fields[1]), position >= 0 {
          let exact = position / rate
          if abs(exact - time) <= 0.0011 { time = exact }
        }
        var bar: Int?
        if key == "B" {
          beatInBar = beatInBar.map { $0 + 1 }
        } else {
          beatInBar = 1
          // An auto-named label is Transcribe!'s own numbering; a custom one may be a plain number.
          bar = fields[2] == "1" ? measureNumber(fields[3]) : plainNumber(fields[3])
        }
        try beats.add(BeatMark(time: time, beatInBar: beatInBar, bar: bar), line: line)
      case (_, "Markers"):
        throw beats.error(line, "unknown marker kind \(quoted(key)) (expected S, M or B)")
      case ("L", "Loops"):
        if let loop = try self.loop(fields, sampleRate: sampleRate, line: line, beats: beats) {
          loops.append(loop)
        }
      default:
        continue  // view settings, text blocks and other sections
      }
    }
    if let open = section {
      throw beats.error(
        open.line, "section \(quoted(open.name)) is not closed (the file may be cut short)",
        advice: "save the document again from Transcribe!")
    }
    return loops
  }

  /// `L,index,inUse,startSample,lengthSamples,name,colour,?[,start,length]`; nil for an unused slot.
  static func loop(
    _ fields: [String], sampleRate: Double?, line: Int, beats: BeatCollector
  ) throws -> NamedRange? {
    guard fields.count >= 6 else {
      throw beats.error(line, "a loop needs at least 6 fields (L,index,used,start,length,name)")
    }
    var start: Double
    var length: Double
    if fields.count >= 10, !fields[8].isEmpty, !fields[9].isEmpty {
      start = try timestamp(fields[8], what: "loop start", line: line, beats: beats)
      length = try timestamp(fields[9], what: "loop length", line: line, beats: beats)
    } else {
      let startSample = try BeatText.wholeNumber(
        Substring(fields[3]), what: "loop start", line: line, path: beats.path)
      let lengthSamples = try BeatText.wholeNumber(
        Substring(fields[4]), what: "loop length", line: line, path: beats.path)
      if lengthSamples == 0 { return nil }
      guard let rate = sampleRate else {
        throw beats.error(line, "the loop is in samples but the file gives no sample rate")
      }
      start = Double(startSample) / rate
      length = Double(lengthSamples) / rate
    }
    if length == 0 { return nil }
    let end = start + length
    let index = fields[1]
    let name = fields[5].trimmingBlanks.isEmpty ? "loop \(index)" : fields[5].trimmingBlanks
    guard start >= 0, length > 0 else {
      throw beats.error(line, "loop \(quoted(name)) has a negative start or length")
    }
    guard end <= beats.audioDuration else {
      throw beats.error(
        line,
        "loop \(quoted(name)) ends at \(formatSeconds(end)), past the end of the audio "
          + "(\(formatSeconds(beats.audioDuration)))",
        advice: "check that the .xsc file belongs to this song")
    }
    return NamedRange(name: name, start: start, end: end)
  }

  /// `H:MM:SS.sss` (also `M:SS.sss` or seconds) as seconds.
  static func timestamp(_ field: String, what: String, line: Int, beats: BeatCollector) throws
    -> Double
  {
    guard let seconds = parseTime(field.trimmingBlanks) else {
      throw beats.error(line, "\(what) \(quoted(field)) is not a time like 0:01:23.456")
    }
    return seconds
  }

  /// The number a measure label ends in after optional letters: `12` → 12, `A2` → 2.
  static func measureNumber(_ label: String) -> Int? {
    let text = label.trimmingBlanks
    let digits = text.drop { $0.isASCII && $0.isLetter }
    guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber })
    else { return nil }
    return Int(digits)
  }

  /// A label that is only digits, as a number.
  static func plainNumber(_ label: String) -> Int? {
    let text = label.trimmingBlanks
    guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else {
      return nil
    }
    return Int(text)
  }

  /// Undoes Transcribe!'s escapes: `\C` is a comma, `\\` a backslash; others stay as written.
  static func unescape(_ field: Substring) -> String {
    guard field.contains("\\") else { return String(field) }
    var out = ""
    var escaped = false
    for c in field {
      if escaped {
        switch c {
        case "C": out.append(",")
        case "\\": out.append("\\")
        default:
          out.append("\\")
          out.append(c)
        }
        escaped = false
      } else if c == "\\" {
        escaped = true
      } else {
        out.append(c)
      }
    }
    if escaped { out.append("\\") }
    return out
  }
}

extension String {
  fileprivate var trimmingBlanks: String { String(BeatText.trim(self[...])) }
}
