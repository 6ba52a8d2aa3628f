import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The player screen's picture as a value (`PlayerPicture`) at 40, 80 and 120 columns: the
/// strip's rows, the envelope's cells with the loop's columns marked, the overlay's rows, and
/// the cells the cursor puts over a column and leaves behind (the 16-bar fixture of
/// OverviewTests: bars of 2 s, loud from bar 9 to bar 12).
@Suite struct PlayerPictureTests {
  let dir = TemporaryDirectory()

  func picture(
    width: Int, overlayLines: Int? = nil, cursor: Int64? = Fixture.bars(11, 11).lowerBound
  ) throws -> PlayerPicture {
    let content = OverviewContent(
      title: "Étude", artist: "Anon", summary: try Fixture.summary(in: dir),
      beatMap: try Fixture.beatMap(), selections: [], window: 0..<1)
    return PlayerPicture(
      content, window: Fixture.bars(9, 12), chords: nil, transpose: 0,
      loop: StripLoop(frames: Fixture.bars(10, 10), label: "bar 10", editing: nil), width: width,
      rows: 11, note: "zoom 4 bars · z/Z", overlayLines: overlayLines, cursor: cursor)
  }

  /// The envelope's cells of `picture`, row by row.
  func envelope(_ picture: PlayerPicture) -> [[PlayerPicture.Cell]] {
    picture.rows.compactMap { if case .envelope(let cells) = $0 { cells } else { nil } }
  }

  @Test(arguments: [40, 80, 120])
  func theRowsAreTheStripsWithTheLoopsColumnsMarked(width: Int) throws {
    let picture = try picture(width: width)
    #expect(picture.strip.width == width && picture.rows.count == 11)
    // The window is four bars, the loop the second of them, the cursor at the third.
    let loop = (width / 4)..<(width / 2)
    #expect(picture.strip.loopColumns == loop)
    #expect(picture.cursorColumn == width / 2)
    let rows = envelope(picture)
    #expect(rows.count == picture.strip.envelopeRows.count && rows.count >= 4)
    for (offset, cells) in rows.enumerated() {
      #expect(cells.count == width)
      #expect(cells.indices.filter { cells[$0].inLoop } == Array(loop))
      #expect(!cells.contains { $0.reversed })
      // The strip's own row, cell for cell.
      let row = picture.strip.envelopeRows.lowerBound + offset
      let strip = picture.strip.lines[row].flatMap { run in run.text.map { ($0, run.style) } }
      #expect(strip.map(\.0) == Array(cells.prefix(strip.count).map(\.character)))
      #expect(strip.map(\.1) == Array(cells.prefix(strip.count).map(\.style)))
    }
    // The loud bars fill the bottom row; the rest of the strip is its runs.
    #expect(!rows.last!.contains { $0.character == " " })
    guard case .runs(let heading) = picture.rows[0] else {
      Issue.record("the heading is not runs")
      return
    }
    #expect(heading == picture.strip.lines[0])
    #expect(heading.map(\.text).joined().hasSuffix("zoom 4 bars · z/Z"))
  }

  @Test(arguments: [40, 80, 120])
  func theCursorReversesItsColumnAndPutsItBack(width: Int) throws {
    let picture = try picture(width: width)
    let column = try #require(picture.cursorColumn)
    let rows = envelope(picture)
    let on = picture.cursorCells(at: column, on: true)
    let off = picture.cursorCells(at: column, on: false)
    #expect(on.map(\.row) == Array(picture.strip.envelopeRows) + [picture.strip.markerRow])
    #expect(off.map(\.row) == on.map(\.row))
    for (index, cells) in rows.enumerated() {
      let under = cells[column]
      #expect(off[index].cell == under)
      if under.character == " " {
        #expect(on[index].cell == PlayerPicture.Cell("│", .cursor, inLoop: under.inLoop))
      } else {
        #expect(on[index].cell.character == under.character && on[index].cell.reversed)
      }
    }
    #expect(on.last?.cell == PlayerPicture.Cell(PlayerStrip.cursorMark, .cursor, inLoop: false))
    #expect(off.last?.cell.character == " ")
    #expect(picture.cursorCells(at: width, on: true).isEmpty)
    // Before the first frame is heard, or outside the window: no cursor.
    #expect(try self.picture(width: width, cursor: nil).cursorColumn == nil)
    #expect(try self.picture(width: width, cursor: 0).cursorColumn == nil)
  }

  /// The `?` overlay covers the rows from the second down; the cursor is drawn only on the
  /// rows it leaves.
  @Test(arguments: [40, 80, 120])
  func theOverlayCoversRowsTheCursorLeavesAlone(width: Int) throws {
    let picture = try picture(width: width, overlayLines: 4)
    #expect(Array(picture.rows[1...4]) == (0..<4).map { .overlay($0) })
    #expect(picture.rows[0] != .overlay(0) && picture.rows[5] != .overlay(4))
    #expect(picture.cursorColumn == width / 2)
    let rows = picture.cursorCells(at: width / 2, on: true).map(\.row)
    #expect(!rows.isEmpty && rows.allSatisfy { $0 > 4 })
    #expect(rows.last == picture.strip.markerRow)
  }

  /// The window on screen is kept while it holds the cursor (or the edited end); else the
  /// page that does.
  @Test func theWindowShownIsKeptWhileItHoldsTheFocus() throws {
    let total = Int64(Fixture.seconds) * Int64(Fixture.rate)
    let zoom = PlayerZoom(
      beatMap: try Fixture.beatMap(), totalFrames: total, sampleRate: Fixture.rate,
      loop: Fixture.bars(9, 10))
    let shown = Fixture.bars(10, 11)
    let loop = Fixture.bars(9, 10)
    let inShown = Fixture.bars(11, 11).lowerBound
    #expect(zoom.window(keeping: shown, focus: inShown, loop: loop) == shown)
    #expect(
      zoom.window(keeping: shown, focus: Fixture.bars(13, 13).lowerBound, loop: loop)
        == Fixture.bars(13, 14))
    #expect(
      zoom.window(keeping: nil, focus: Fixture.bars(10, 10).lowerBound, loop: loop)
        == Fixture.bars(9, 10))
  }
}
