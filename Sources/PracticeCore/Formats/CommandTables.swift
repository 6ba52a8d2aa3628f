import Foundation

extension TextTable {
  /// `beats show`'s table of `lines`: bar, start, beats, BPM; with a detected map the lowest
  /// confidence of the bar's beats (`0.42?` when doubtful, empty for a bar without one);
  /// with a chord track (`chords`) the bar's chords, one a beat, `.` where it stays.
  public static func bars(_ lines: [BarLine], chords: Bool) -> TextTable {
    let confidence = lines.contains { $0.confidence != nil }
    let rows = lines.map { bar -> [String] in
      var row = [
        "\(bar.bar)", formatTime(bar.start), "\(bar.beats)", String(format: "%.1f", bar.bpm),
      ]
      if let value = bar.confidence {
        row.append(String(format: "%.2f", value) + (bar.doubtful ? "?" : ""))
      } else if confidence {
        row.append("")
      }
      if chords { row.append(Chord.beatCells(bar.chords ?? [])) }
      return row
    }
    return bars(rows, confidence: confidence, chords: chords)
  }

  /// `select list`: song id, name, span, note, song title.
  public static func selections(_ records: [SelectionRecord]) -> TextTable {
    selections(
      records.map { record in
        let selection = record.selection
        return [
          "\(selection.songID)", selection.name, record.spanText, selection.note ?? "",
          record.song.title,
        ]
      })
  }

  /// `chords show`: each bar with its chords one a beat, or without a beat map each change
  /// with its start time.
  public static func chords(_ chart: ChordChart) -> TextTable {
    if let bars = chart.barRows {
      return TextTable(
        columns: [Column("BAR", .right), Column("CHORDS")],
        rows: bars.map { ["\($0.bar)", $0.chords] })
    }
    return TextTable(
      columns: [Column("TIME", .right), Column("CHORD")],
      rows: chart.changes.map { [formatTime($0.start), $0.symbol] })
  }
}
