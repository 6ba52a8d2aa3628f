import Foundation

/// Chord tracks as files: `.lab` (`start<TAB>end<TAB>label`, Harte syntax, seconds: what
/// mir_eval and Sonic Visualiser read), JSON (`{"key": "Bb major", "chords": […]}`), and
/// Chordino's CSV (a chord name at each change, as Sonic Visualiser and sonic-annotator
/// write it) to read.
public enum ChordFiles {
  /// `.lab` text: one span a line, times in seconds with six decimals.
  public static func lab(_ spans: [ChordSpan], sampleRate: Int, flats: Bool? = nil) -> String {
    var out = ""
    for span in spans {
      out +=
        seconds(span.start, sampleRate) + "\t" + seconds(span.end, sampleRate) + "\t"
        + span.harte(flats: flats) + "\n"
    }
    return out
  }

  /// `{"key":"Bb major","chords":[{"start":0,"end":1.5,"label":"Bb:maj"},…]}` and a newline;
  /// `key` null when there is none.
  public static func json(
    _ spans: [ChordSpan], key: MusicalKey?, sampleRate: Int, flats: Bool? = nil
  ) -> String {
    var out = JSONWriter()
    out.object { o in
      o.field("key", key.map(longName))
      o.field("chords") {
        $0.array(spans) { w, span in
          w.object { c in
            c.field("start", FormattedNumber(seconds(span.start, sampleRate)))
            c.field("end", FormattedNumber(seconds(span.end, sampleRate)))
            c.field("label", span.harte(flats: flats))
          }
        }
      }
    }
    return out.text + "\n"
  }

  /// `Bb major`, `A minor`.
  public static func longName(_ key: MusicalKey) -> String {
    key.spelling + (key.minor ? " minor" : " major")
  }

  /// Reads a `.lab` file or Chordino's CSV (told apart by their lines) into spans over
  /// `totalFrames`: gaps become N, the last span is cut at the end of the audio. `path`
  /// names the file in errors.
  public static func read(_ text: String, path: String, sampleRate: Int, totalFrames: Int64) throws
    -> [ChordSpan]
  {
    let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    let isCSV = lines.contains { line in
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      return !trimmed.isEmpty && !trimmed.hasPrefix("#") && trimmed.contains(",")
    }
    var marks: [(start: Double, end: Double?, chord: Chord?, line: Int)] = []
    for (index, raw) in lines.enumerated() {
      let number = index + 1
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") { continue }
      func fail(_ reason: String) -> DataFileError {
        DataFileError(.chord, path: path, line: number, reason: reason)
      }
      if isCSV {
        let fields = csvFields(line)
        let numbers = fields.indices.filter { Double(fields[$0]) != nil && !fields[$0].isEmpty }
        // A header line (no time in it) is skipped.
        if numbers.isEmpty && marks.isEmpty && number == 1 { continue }
        guard let timeIndex = numbers.first, let time = Double(fields[timeIndex]), time.isFinite,
          time >= 0
        else { throw fail("no time in seconds on the line") }
        guard let label = fields[(timeIndex + 1)...].first(where: { !$0.isEmpty }) else {
          throw fail("no chord name after the time")
        }
        let chord: Chord?
        do {
          chord = try Chord.parseSymbol(label)
        } catch {
          do { chord = try Chord.parseHarte(label) } catch let error as ChordLabelError {
            throw fail(error.description)
          }
        }
        marks.append((time, nil, chord, number))
      } else {
        let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
        guard fields.count == 3 else {
          throw fail(
            "a .lab line is start<TAB>end<TAB>label; this one has \(fields.count) "
              + "field\(fields.count == 1 ? "" : "s")")
        }
        guard let start = Double(fields[0]), let end = Double(fields[1]), start.isFinite,
          end.isFinite, start >= 0
        else {
          throw fail("\(quoted(fields[0])) and \(quoted(fields[1])) are not times in seconds")
        }
        guard end > start else {
          throw fail(
            "the chord ends (\(excerpt(fields[1]))) before it starts (\(excerpt(fields[0])))")
        }
        let label = String(fields[2])
        let chord: Chord?
        do {
          chord = label == "X" ? nil : try Chord.parseHarte(label)
        } catch let error as ChordLabelError { throw fail(error.description) }
        marks.append((start, end, chord, number))
      }
    }
    guard !marks.isEmpty else {
      throw DataFileError(
        .chord, path: path, line: nil, reason: "it holds no chords",
        advice: "give a .lab file (start<TAB>end<TAB>label) or Chordino's CSV")
    }
    let rate = Double(sampleRate)
    // A time past the end of the audio counts as its end (which a start may not be): no
    // finite time in the file, however large, overflows a frame count.
    func frame(_ seconds: Double) -> Int64 {
      Int64(min(seconds * rate, Double(totalFrames)).rounded())
    }
    var spans: [ChordSpan] = []
    for (i, mark) in marks.enumerated() {
      let start = frame(mark.start)
      let endTime = mark.end ?? (i + 1 < marks.count ? marks[i + 1].start : nil)
      var end = endTime.map(frame) ?? totalFrames
      // Times a rounding apart are the same time.
      let previousEnd = spans.last?.end ?? 0
      guard start + Int64(rate / 1000) >= previousEnd else {
        throw DataFileError(
          .chord, path: path, line: mark.line,
          reason: "it starts at \(formatSeconds(mark.start)) s, before the chord before it ends"
        )
      }
      guard start < totalFrames else {
        throw DataFileError(
          .chord, path: path, line: mark.line,
          reason:
            "it starts at \(formatSeconds(mark.start)) s, after the end of the audio "
            + "(\(formatSeconds(Double(totalFrames) / rate)) s)",
          advice: "check that the file is for this song")
      }
      end = min(end, totalFrames)
      let from = max(start, previousEnd)
      if from > previousEnd + Int64(rate / 1000) {
        append(&spans, ChordSpan(start: previousEnd, end: from, chord: nil))
      }
      guard end > from else { continue }
      append(
        &spans, ChordSpan(start: spans.last?.end ?? 0, end: end, chord: mark.chord))
    }
    if let last = spans.last, last.end < totalFrames {
      append(&spans, ChordSpan(start: last.end, end: totalFrames, chord: nil))
    }
    return spans
  }

  /// Appends, merging with the span before when the chord is the same.
  private static func append(_ spans: inout [ChordSpan], _ span: ChordSpan) {
    if let last = spans.last, last.chord == span.chord, last.end >= span.start {
      spans[spans.count - 1].end = span.end
    } else {
      spans.append(span)
    }
  }

  /// The fields of a CSV line, quotes removed (`"a,b"` is one field).
  static func csvFields(_ line: String) -> [String] {
    var fields: [String] = []
    var current = ""
    var quoted = false
    var chars = line.makeIterator()
    while let c = chars.next() {
      if c == "\"" {
        quoted.toggle()
      } else if c == "," && !quoted {
        fields.append(current.trimmingCharacters(in: .whitespaces))
        current = ""
      } else {
        current.append(c)
      }
    }
    fields.append(current.trimmingCharacters(in: .whitespaces))
    return fields
  }

  /// Seconds with six decimals, no trailing zeros beyond three (`1.5`, `0.123457`).
  static func seconds(_ frame: Int64, _ rate: Int) -> String {
    let micro = (Double(frame) / Double(rate) * 1_000_000).rounded()
    var text = String(format: "%.6f", micro / 1_000_000)
    while text.hasSuffix("0") && !text.hasSuffix(".0") { text.removeLast() }
    if text.hasSuffix(".0") { text.removeLast(2) }
    return text
  }
}

extension ChordFiles {
  /// Reads the chord file at `path` (see `read(_:path:sampleRate:totalFrames:)`).
  public static func read(path: String, sampleRate: Int, totalFrames: Int64) throws -> [ChordSpan] {
    let data: Data
    do {
      try SoundFile.checkReadable(path, wanted: "a chord file")
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch let error as SoundFileError {
      throw PracticeError(
        error.category, "cannot read chord file '\(path)': \(error.reason); \(error.advice)")
    } catch {
      throw PracticeError(
        .missingInput, "cannot read chord file '\(path)': \(error.localizedDescription)")
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw DataFileError(
        .chord, path: path, line: nil, reason: "it is not UTF-8 text",
        advice: "give a .lab file (start<TAB>end<TAB>label) or Chordino's CSV")
    }
    return try read(text, path: path, sampleRate: sampleRate, totalFrames: totalFrames)
  }
}

/// The files `chords export` writes.
public enum ChordFileFormat: String, CaseIterable, Sendable {
  /// `start<TAB>end<TAB>Harte label` lines (mir_eval, Sonic Visualiser).
  case lab
  /// `{"key": …, "chords": [{"start": …, "end": …, "label": …}]}`.
  case json
}

extension ChordFiles {
  /// `track` written as `format`, its chords spelled for `key` (the song's: set, else
  /// detected).
  public static func export(
    _ track: ChordTrack, as format: ChordFileFormat, key: MusicalKey?, sampleRate: Int
  ) -> String {
    let flats = Chord.prefersFlats(key: key)
    switch format {
    case .lab: return lab(track.spans, sampleRate: sampleRate, flats: flats)
    case .json: return json(track.spans, key: key, sampleRate: sampleRate, flats: flats)
    }
  }
}
