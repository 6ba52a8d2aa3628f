import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The player screen's values: zoom levels and windows, loop edits on the beat grid, and
/// the strip laid out from the overview's parts (the 16-bar fixture of OverviewTests).
@Suite struct PlayerStripTests {
  let dir = TemporaryDirectory()
  let total = Int64(Fixture.seconds) * Int64(Fixture.rate)

  @Test func zoomGoesFromOneBarToTheWholeSongAndStartsWhereTheLoopFits() throws {
    let map = try Fixture.beatMap()
    var zoom = PlayerZoom(
      beatMap: map, totalFrames: total, sampleRate: Fixture.rate, loop: Fixture.bars(9, 10))
    #expect(zoom.spans == [.bars(1), .bars(2), .bars(4), .bars(8), .whole])
    #expect(zoom.span == .bars(2))
    // The loop's window while the cursor is in it; else the page from the cursor's bar.
    #expect(zoom.window(cursor: Fixture.bars(10, 10).lowerBound, loop: Fixture.bars(9, 10)) == Fixture.bars(9, 10))
    #expect(zoom.window(cursor: Fixture.bars(13, 13).lowerBound + 5, loop: Fixture.bars(9, 10)) == Fixture.bars(13, 14))
    #expect(zoom.zoomIn() && zoom.span == .bars(1) && !zoom.zoomIn())
    #expect(zoom.zoomOut() && zoom.zoomOut() && zoom.zoomOut() && zoom.zoomOut())
    #expect(zoom.span == .whole && !zoom.zoomOut())
    #expect(zoom.window(cursor: 0, loop: Fixture.bars(9, 10)) == 0..<total)

    let untimed = PlayerZoom(beatMap: nil, totalFrames: total, sampleRate: Fixture.rate, loop: 0..<total)
    #expect(untimed.spans == [.seconds(2), .seconds(5), .seconds(10), .seconds(20), .whole])
    #expect(untimed.span == .whole)
  }

  @Test func loopEditsStepOnTheBeatsAndBars() throws {
    let edit = LoopEdit(beatMap: try Fixture.beatMap(), sampleRate: Fixture.rate, totalFrames: total)
    let loop = Fixture.bars(9, 10)
    let beat = Int64(Fixture.rate / 2)
    #expect(edit.moved(loop, edge: .start, by: 1, unit: .beat) == (loop.lowerBound + beat)..<loop.upperBound)
    #expect(edit.moved(loop, edge: .start, by: -1, unit: .bar) == Fixture.bars(8, 10))
    #expect(edit.moved(loop, edge: .end, by: 1, unit: .bar) == Fixture.bars(9, 11))
    #expect(edit.moved(loop, edge: .end, by: -2, unit: .bar) == nil)  // would be empty
    // Between two beats, a step goes to the nearer beat that way.
    #expect(edit.moved((loop.lowerBound + 10)..<loop.upperBound, edge: .start, by: -1, unit: .beat) == loop)
    // Without a beat map: a tenth of a second, or a second.
    let untimed = LoopEdit(beatMap: nil, sampleRate: Fixture.rate, totalFrames: total)
    #expect(untimed.moved(loop, edge: .start, by: 1, unit: .beat) == (loop.lowerBound + 800)..<loop.upperBound)
    #expect(untimed.moved(loop, edge: .end, by: 1, unit: .bar) == loop.lowerBound..<(loop.upperBound + 8000))
  }

  /// The last pages: two bars from bar 14 end where bar 16 starts (only a page holding the
  /// last bar runs to the end of the song); a cursor at the very end, timed in 2 s pages,
  /// shows the last page (30-32 s), never an empty one.
  @Test func theLastPagesEndWhereTheyShould() throws {
    let zoom = PlayerZoom(
      beatMap: try Fixture.beatMap(), totalFrames: total, sampleRate: Fixture.rate,
      loop: Fixture.bars(9, 10))
    #expect(zoom.span == .bars(2))
    #expect(
      zoom.window(cursor: Fixture.bars(14, 14).lowerBound + 5, loop: Fixture.bars(9, 10))
        == Fixture.bars(14, 15))
    #expect(
      zoom.window(cursor: Fixture.bars(16, 16).lowerBound, loop: Fixture.bars(9, 10))
        == Fixture.bars(16, 16))
    let untimed = PlayerZoom(
      beatMap: nil, totalFrames: total, sampleRate: Fixture.rate, loop: 0..<total)
    #expect(untimed.spans.first == .seconds(2))
    let page = Int64(2 * Fixture.rate)
    #expect(untimed.window(at: 0, cursor: total, loop: 0..<total) == (total - page)..<total)
  }

  /// A chord's symbol keeps a blank column before the next change: at one frame a column,
  /// `Am7` over columns 0-2 has room for two (`A…`), `D` from column 3, `Em` from 8 on.
  @Test func aChordSymbolLeavesAColumnBeforeTheNextChange() {
    let lane = PlayerStrip.chordLane(
      [(0..<3, "Am7"), (3..<8, "D"), (8..<100, "Em")], window: 0..<64, width: 64)
    let text = lane.map(\.text).joined()
    #expect(text.trimmingCharacters(in: .whitespaces) == "A… D    Em")
  }

  /// While an end of the loop is edited, the window follows that end, not the cursor: a
  /// step of the end past the window's edge pages to it.
  @Test func theWindowFollowsTheEndBeingEdited() throws {
    let map = try Fixture.beatMap()
    let zoom = PlayerZoom(
      beatMap: map, totalFrames: total, sampleRate: Fixture.rate, loop: Fixture.bars(9, 10))
    #expect(zoom.span == .bars(2))
    let cursor = Fixture.bars(9, 9).lowerBound + 100
    var loop = StripLoop(frames: Fixture.bars(9, 11), label: "bars 9-11", editing: nil)
    #expect(zoom.window(cursor: loop.focus(cursor: cursor), loop: loop.frames) == Fixture.bars(9, 10))
    loop.editing = .end
    #expect(loop.focus(cursor: cursor) == Fixture.bars(11, 11).upperBound - 1)
    #expect(zoom.window(cursor: loop.focus(cursor: cursor), loop: loop.frames) == Fixture.bars(11, 12))
    loop.editing = .start
    #expect(zoom.window(cursor: loop.focus(cursor: cursor), loop: loop.frames) == Fixture.bars(9, 10))
    loop.editing = nil
    #expect(loop.focus(cursor: nil) == loop.frames.lowerBound)
  }

  /// A selection and a loop that start and end inside a column (window bars 9-12, 8 s on
  /// 64 columns: 17.3125 s is column 10.5, 19.5625 s column 28.5) start in that column.
  @Test func spansStartingMidColumnStartInThatColumn() throws {
    let rate = Int64(Fixture.rate)
    let frames = (rate * 277 / 16)..<(rate * 313 / 16)
    let content = OverviewContent(
      title: "Étude", artist: nil, summary: try Fixture.summary(in: dir), beatMap: try Fixture.beatMap(),
      selections: [.init(name: "mid", frames: frames, colour: 0)], window: Fixture.bars(9, 12))
    let loop = StripLoop(frames: (rate * 265 / 16)..<(rate * 18), label: "l", editing: nil)
    let strip = PlayerStrip(content, loop: loop, width: 64, rows: 11, note: "")
    let text = strip.lines.map { $0.map(\.text).joined() }
    // The loop: 16.5625 s is column 4.5, 18 s column 16.
    #expect(strip.loopColumns == 4..<16)
    #expect(text[strip.markerRow + 1] == String(repeating: " ", count: 4) + "├l" + String(repeating: "─", count: 9) + "┤")
    #expect(
      text[strip.markerRow + 2] == String(repeating: " ", count: 10) + "├mid" + String(repeating: "─", count: 13) + "┤",
      "\(text[strip.markerRow + 2])")
  }

  @Test func theStripIsTheOverviewsPartsWithTheLoopAndTheCursorsRow() throws {
    let content = OverviewContent(
      title: "Étude", artist: nil, summary: try Fixture.summary(in: dir), beatMap: try Fixture.beatMap(),
      selections: [.init(name: "solo", frames: Fixture.bars(9, 12), colour: 1)], window: Fixture.bars(9, 12))
    let loop = StripLoop(frames: Fixture.bars(10, 10), label: "bar 10", editing: .end)
    let strip = PlayerStrip(content, loop: loop, width: 64, rows: 11, note: "zoom 4 bars · z/Z")
    let text = strip.lines.map { $0.map(\.text).joined() }
    #expect(text.count == 11)
    #expect(text[0].hasPrefix("Étude") && text[0].hasSuffix("zoom 4 bars · z/Z"))
    // The ruler and the envelope as `view` draws them for the same window and width.
    let overview = TextOverview(content, width: 64, height: strip.envelopeRows.count)
    #expect(Array(strip.lines[1...3]) == Array(overview.lines[1...3]))
    #expect(Array(strip.lines[strip.envelopeRows]) == Array(overview.lines[3..<(3 + strip.envelopeRows.count)]))
    // The loop, bar 10: columns 16-31, its end being edited.
    #expect(strip.loopColumns == 16..<32)
    #expect(text[strip.markerRow + 1] == String(repeating: " ", count: 16) + "├bar 10" + String(repeating: "─", count: 8) + "]")
    #expect(text[strip.markerRow + 2] == "├solo" + String(repeating: "─", count: 58) + "┤")
    #expect(text[10].hasPrefix("0:16.0") && text[10].hasSuffix("0:24.0"))
    #expect(strip.column(of: Fixture.bars(11, 11).lowerBound) == 32)
    #expect(strip.column(of: 0) == nil)
  }

  /// The chord lane over the ruler (window bars 9-12, 16-24 s on 64 columns: 8 columns a
  /// second): each chord from the column its start falls in, cut to its root or marked `·`
  /// where it does not fit before the next change; N blank. No lane without chords.
  @Test func theChordLaneIsOverTheRulerWhenTheSongHasChords() throws {
    let rate = Int64(Fixture.rate)
    func s(_ sixteenths: Int64) -> Int64 { rate * sixteenths / 16 }
    let chords: [(frames: Range<Int64>, symbol: String)] = [
      (s(14 * 16)..<s(17 * 16), "Am"),  // begun before the window: column 0, to column 8
      (s(17 * 16)..<s(17 * 16 + 8), "Cmaj7"),  // columns 8-11: cut to its root
      // N from 17.5 s to 18.0625 s: blank.
      (s(18 * 16 + 1)..<s(18 * 16 + 4), "G"),  // 18.0625 s is column 16.5: column 16
      (s(18 * 16 + 4)..<s(18 * 16 + 5), "F#m7"),  // less than a column: marked `·` after G
      (s(23 * 16)..<s(30 * 16), "D"),  // on past the window's end
    ]
    let summary = try Fixture.summary(in: dir)
    var content = OverviewContent(
      title: "Étude", artist: nil, summary: summary, beatMap: try Fixture.beatMap(),
      selections: [], window: Fixture.bars(9, 12), chords: chords)
    let loop = StripLoop(frames: Fixture.bars(10, 10), label: "bar 10", editing: nil)
    let strip = PlayerStrip(content, loop: loop, width: 64, rows: 11, note: "")
    let text = strip.lines.map { $0.map(\.text).joined() }
    #expect(text.count == 11)
    let lane = "Am      C…      G ·" + String(repeating: " ", count: 37) + "D"
    #expect(text[1].trimmingCharacters(in: .whitespaces) == lane, "\(text[1])")
    #expect(strip.lines[1].contains(TextRun("C…", .chord)))
    // The ruler under it as `view` draws it; the envelope a row shorter.
    let overview = TextOverview(content, width: 64, height: strip.envelopeRows.count)
    #expect(Array(strip.lines[2...3]) == Array(overview.lines[2...3]))
    #expect(strip.envelopeRows == 4..<8)

    content.chords = []
    let bare = PlayerStrip(content, loop: loop, width: 64, rows: 11, note: "")
    #expect(bare.lines.count == 11 && !bare.lines.contains { $0.contains { $0.style == .chord } })
    #expect(Array(bare.lines[1...2]) == Array(TextOverview(content, width: 64, height: 4).lines[1...2]))
    #expect(bare.envelopeRows == 3..<8)
  }
}
