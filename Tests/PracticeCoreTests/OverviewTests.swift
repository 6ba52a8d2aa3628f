import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// A song of 16 bars of 4/4 at 120 BPM (bar k from 2(k-1) s, 32 s in all), 8 kHz mono:
/// quiet (0.05) except bars 9-12 (16-24 s), loud (0.8).
struct Fixture {
  static let rate = 8000
  static let seconds = 32.0

  static func samples() -> [Float] {
    var samples = Synth.sine(frequency: 220, seconds: seconds, sampleRate: rate, amplitude: 0.05)
    let loud = Synth.sine(frequency: 220, seconds: 8, sampleRate: rate, amplitude: 0.8)
    for i in 0..<loud.count { samples[16 * rate + i] = loud[i] }
    return samples
  }

  static func summary(in dir: TemporaryDirectory) throws -> WaveformSummary {
    let path = dir.file("song.wav")
    try Synth.write(samples(), to: path, sampleRate: rate)
    return try WaveformSummary.compute(from: SoundFile(path: path))
  }

  static func beatMap(confidence: ((Int) -> Double?)? = nil) throws -> BeatMap {
    let beats = (0..<64).map { i in
      Beat(
        frame: Int64(i * rate / 2), bar: i / 4 + 1, beat: i % 4 + 1,
        source: confidence == nil ? .grid : .detected, confidence: confidence?(i / 4 + 1))
    }
    return try BeatMap(beats: beats, totalFrames: Int64(seconds) * Int64(rate), sampleRate: rate)
  }

  /// Bars as frames.
  static func bars(_ first: Int, _ last: Int) -> Range<Int64> {
    Int64((first - 1) * 2 * rate)..<Int64(last * 2 * rate)
  }
}

@Suite struct WaveformSummaryTests {
  let dir = TemporaryDirectory()

  @Test func codesKeepAmplitudesWithinThreePercent() {
    #expect(WaveformSummary.code(0) == 0)
    #expect(WaveformSummary.code(0.0001) == 0)  // below -72 dBFS
    #expect(WaveformSummary.code(1) == 255)
    #expect(WaveformSummary.code(2) == 255)
    for amplitude: Float in [0.0003, 0.001, 0.01, 0.05, 0.3, 0.5, 0.8, 0.99] {
      let back = WaveformSummary.amplitude(WaveformSummary.code(amplitude))
      #expect(abs(back / amplitude - 1) < 0.017, "\(amplitude) -> \(back)")
    }
  }

  @Test func binsHoldPeakAndRMSOfEvery50Milliseconds() throws {
    let summary = try Fixture.summary(in: dir)
    #expect(summary.binFrames == 400)
    #expect(summary.binCount == 640)
    #expect(summary.codes.count == 1280)  // 40 bytes a second
    let quiet = summary.bin(10)
    let loud = summary.bin(400)
    let half = Float(0.5).squareRoot()
    #expect(abs(quiet.peak - 0.05) < 0.002 && abs(quiet.rms - 0.05 * half) < 0.002)
    #expect(abs(loud.peak - 0.8) < 0.02 && abs(loud.rms - 0.8 * half) < 0.02)
    // The loud bars begin exactly at bin 320 (16 s).
    #expect(summary.bin(319).peak < 0.06 && summary.bin(320).peak > 0.7)
    #expect(abs(summary.loudestPeak - 0.8) < 0.02)
    let whole = summary.envelope(of: 0..<summary.frames)
    #expect(abs(whole.peak - 0.8) < 0.02)
    // A quarter of the time loud: power mean of the RMS.
    let expected = ((0.25 * 0.32 + 0.75 * 0.00125) as Double).squareRoot()
    #expect(abs(Double(whole.rms) - expected) < 0.01)
  }

  @Test func storedSummaryIsCurrentOnlyForTheSameContent() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = dir.file("song.wav")
    try Synth.write(Fixture.samples(), to: path, sampleRate: Fixture.rate)
    let song = try library.resolve(path)
    #expect(try library.storedWaveformSummary(for: song) == nil)
    let first = try library.waveformSummary(for: song)
    #expect(first.computed)
    let again = try library.waveformSummary(for: song)
    #expect(!again.computed && again.summary == first.summary)
    // New content at the same path: the song is rescanned, its hash changes, the summary
    // is computed again from the new audio.
    try Synth.write(
      Synth.sine(frequency: 220, seconds: 10, sampleRate: Fixture.rate, amplitude: 0.3), to: path,
      sampleRate: Fixture.rate)
    let changed = try library.resolve(path)
    #expect(changed.contentHash != song.contentHash)
    #expect(try library.storedWaveformSummary(for: changed) == nil)
    let fresh = try library.waveformSummary(for: changed)
    #expect(fresh.computed && fresh.summary.binCount == 200)
    #expect(abs(fresh.summary.loudestPeak - 0.3) < 0.01)
    try library.remove(changed)
    #expect(try library.storedWaveformSummary(for: changed) == nil)
  }
}

@Suite struct OverviewTests {
  let dir = TemporaryDirectory()

  func content(
    map: BeatMap?, selections: [OverviewContent.Span] = [], window: Range<Int64>? = nil
  ) throws -> OverviewContent {
    let summary = try Fixture.summary(in: dir)
    return OverviewContent(
      title: "Étude", artist: "Anon", summary: summary, beatMap: map, selections: selections,
      window: window ?? 0..<summary.frames)
  }

  /// 64 columns over 32 s: two columns a second, four a bar; bar k starts at column 4(k-1).
  @Test func textOverviewColumnByColumn() throws {
    let spans: [OverviewContent.Span] = [
      .init(name: "verse", frames: Fixture.bars(1, 4), colour: 0),
      .init(name: "solo", frames: Fixture.bars(9, 12), colour: 1),
      .init(name: "overlap", frames: Fixture.bars(11, 14), colour: 2),
    ]
    let overview = TextOverview(
      try content(map: Fixture.beatMap(), selections: spans), width: 64, height: 4)
    let lines = overview.plainText
    #expect(lines.count == 1 + 2 + 4 + 2 + 1)
    #expect(lines[0] == "Étude — Anon")
    // Every bar labelled at its bar line: "1" at 0, "2" at 4, ... "16" at 60.
    var ruler = ""
    for bar in 1...16 {
      let label = String(bar)
      ruler += label + String(repeating: " ", count: 4 - label.count)
    }
    #expect(lines[1] == ruler.trimmingCharacters(in: .whitespaces))
    #expect(lines[2] == String(repeating: "│   ", count: 16).trimmingCharacters(in: .whitespaces))
    let rows = lines[3...6].map { Array($0.padding(toLength: 64, withPad: " ", startingAt: 0)) }
    for column in 0..<64 {
      let loud = (32..<48).contains(column)
      // Top row: the loud bars' peak reaches it; nothing else does.
      #expect(rows[0][column] == (loud ? "░" : " "), "column \(column)")
      // Bottom two rows: solid under the loud RMS (0.71 of the peak: 22.6 of 32 eighths);
      // elsewhere the quiet RMS, an eighth.
      #expect(rows[3][column] == (loud ? "█" : "▁"), "column \(column)")
      #expect(rows[2][column] == (loud ? "█" : " "), "column \(column)")
      #expect(loud ? "▆▇".contains(rows[1][column]) : rows[1][column] == " ", "column \(column)")
    }
    // Selections: verse and solo on the first row, the overlapping one on the second, each
    // label right after the bar line where its span starts.
    let first = Array(lines[7])
    #expect(String(first[0..<16]) == "├verse─────────┤")
    #expect(String(first[16..<32]).trimmingCharacters(in: .whitespaces).isEmpty)
    #expect(String(first[32..<48]) == "├solo──────────┤")
    #expect(lines[8] == String(repeating: " ", count: 40) + "├overlap───────┤")
    #expect(lines[9].hasPrefix("0:00.0") && lines[9].hasSuffix("0:32.0") && lines[9].count == 64)
    // Styles: selections carry their colour, the envelope its own.
    #expect(overview.lines[7].contains(TextRun("├verse─────────┤", .selection(0))))
    #expect(overview.lines[6].allSatisfy { $0.style == .rms })
    #expect(overview.lines[3].contains(TextRun(String(repeating: "░", count: 16), .peak)))
  }

  /// A span that starts and ends inside a column (64 columns over 32 s: 10.25 s is column
  /// 20.5, 14.75 s column 29.5) starts in the column its start falls in and ends in the
  /// one before the column its end falls in, as spans on whole columns do.
  @Test func aSpanStartingMidColumnStartsInThatColumn() throws {
    let rate = Int64(Fixture.rate)
    let frames = (rate * 41 / 4)..<(rate * 59 / 4)
    let spans: [OverviewContent.Span] = [.init(name: "mid", frames: frames, colour: 0)]
    let layout = OverviewLayout(
      try content(map: Fixture.beatMap(), selections: spans), width: 64) { Double($0.count) }
    #expect(layout.spans.map(\.start) == [20.5] && layout.spans.map(\.end) == [29.5])
    let overview = TextOverview(
      try content(map: Fixture.beatMap(), selections: spans), width: 64, height: 4)
    let row = Array(overview.plainText[7])
    #expect(String(row[0..<20]).trimmingCharacters(in: .whitespaces).isEmpty, "\(String(row))")
    #expect(String(row[20..<29]) == "├mid────┤", "\(String(row))")
  }

  @Test func barLabelsThinOutAsSpaceAllows() throws {
    let map = try Fixture.beatMap()
    // 16 bars in 20 columns: 1.25 columns a bar; labels every 2 bars collide ("11" needs 3
    // columns, "13" is 2.5 on), every 4 fit.
    let layout = OverviewLayout(try content(map: map), width: 20) { Double($0.count + 1) }
    #expect(layout.barStep == 4)
    #expect(layout.ticks.compactMap(\.label) == ["1", "5", "9", "13"])
    let text = TextOverview(try content(map: map), width: 20, height: 2).plainText
    #expect(text[1] == "1    5    9    13")
    #expect(text[2] == "│    │    │    │")
    // Bars 9-10 across 64 columns: every bar labelled, the view from 16 s to 20 s.
    let zoomed = TextOverview(
      try content(map: map, window: Fixture.bars(9, 10)), width: 64, height: 4
    ).plainText
    #expect(zoomed[1] == "9" + String(repeating: " ", count: 31) + "10")
    // Beats 8 columns apart: a dot at each beat that does not start a bar. Over the whole
    // song (one column a beat) there are none.
    let beats = "│" + String(repeating: String(repeating: " ", count: 7) + "·", count: 3)
    #expect(zoomed[2] == beats + String(repeating: " ", count: 7) + beats)
    #expect(!TextOverview(try content(map: map), width: 64, height: 4).plainText[2].contains("·"))
    #expect(zoomed.last!.hasPrefix("0:16.0") && zoomed.last!.hasSuffix("0:20.0"))
    // All of it loud: the top row is peak shade across.
    #expect(zoomed[3] == String(repeating: "░", count: 64))
  }

  @Test func doubtfulBarsAreMarked() throws {
    let map = try Fixture.beatMap { bar in bar == 3 || bar == 10 ? 0.2 : 0.9 }
    let layout = OverviewLayout(try content(map: map), width: 64) { Double($0.count + 1) }
    #expect(layout.ticks.filter(\.doubtful).map(\.bar) == [3, 10])
    let marks = Array(TextOverview(try content(map: map), width: 64, height: 4).plainText[2])
    #expect(marks[8] == "?" && marks[36] == "?" && marks[4] == "│")
  }

  @Test func withoutABeatMapTheRulerIsInTime() throws {
    let layout = OverviewLayout(try content(map: nil), width: 64) { Double($0.count + 1) }
    #expect(layout.barStep == nil && layout.timeStep == 5)
    #expect(
      layout.ticks.compactMap(\.label) == ["0:00", "0:05", "0:10", "0:15", "0:20", "0:25", "0:30"])
    let text = TextOverview(try content(map: nil), width: 64, height: 4).plainText
    #expect(text[1].hasPrefix("0:00 ") && text[1].contains("0:05"))
    // The last label ends in the last column (0:30 at column 60 of 64): it is shown.
    let labels = ["0:00", "0:05", "0:10", "0:15", "0:20", "0:25", "0:30"]
    #expect(text[1] == labels.joined(separator: "      "))
  }

  /// A one-bar selection is four columns: its two-letter name fits between its ends whole.
  @Test func aNameThatJustFitsIsNotCut() throws {
    let spans: [OverviewContent.Span] = [.init(name: "ab", frames: Fixture.bars(1, 1), colour: 0)]
    let text = TextOverview(
      try content(map: Fixture.beatMap(), selections: spans), width: 64, height: 4
    ).plainText
    #expect(text[7] == "├ab┤", "\(text[7])")
  }

  @Test func aSelectionReachingOutOfViewIsClipped() throws {
    let spans: [OverviewContent.Span] = [
      .init(name: "solo", frames: Fixture.bars(8, 13), colour: 0)
    ]
    let text = TextOverview(
      try content(map: Fixture.beatMap(), selections: spans, window: Fixture.bars(9, 12)),
      width: 32, height: 1
    ).plainText
    #expect(text[4] == "◂solo" + String(repeating: "─", count: 26) + "▸")
  }
}
