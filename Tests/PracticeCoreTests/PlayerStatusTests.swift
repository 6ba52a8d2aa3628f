import Foundation
import Testing

@testable import PracticeCore

/// The player's status line as a value (`PlayerStatus`) at the widths of real terminals:
/// the long form where it fits, else the short one, which keeps the transpose (issue 46,
/// scenario 7).
@Suite struct PlayerStatusTests {
  /// Bar 12.3 of 32, pass 2 of an endless loop of bars 9-16 at 75 %, two semitones down,
  /// volume 80 %, clicks on, 0:41 into 3:12.
  func status(filter: PartFilter = PartFilter(), transpose: Double = -2) -> PlayerStatus {
    PlayerStatus(
      paused: false, place: .init(beat: BarPosition(bar: 12, beat: 3), lastBar: 32), pass: 2,
      lastPass: nil, label: "bars 9-16", speed: Speed(parsing: "75%")!, transpose: transpose,
      volume: Volume(parsing: "80%")!, muted: false, click: true, filter: filter, time: 41.7,
      length: 192)
  }

  let filtered = PartFilter(focus: .bass, channel: .left, centreCut: 1)

  @Test func theLongFormWhereItFitsTheShortOneElse() {
    let long =
      "bar 12.3/32 · pass 2/∞ · bars 9-16 · 75% · -2 st · vol 80% · click · focus bass · "
      + "centre cut 100% · left · 0:41/3:12"
    let short = "12.3/32 pass 2/∞ 75% -2 st bass cut L 0:41/3:12"
    #expect(status(filter: filtered).text(width: 120) == long)
    #expect(status(filter: filtered).text(width: 80) == short)
    // Too long even short: the terminal cuts it, the transpose still in its first 40.
    #expect(status(filter: filtered).text(width: 40) == short)
    #expect(short.prefix(40).contains("-2 st"))
    // Without filters the long form is 78 characters: it fits 80, not 78.
    let plain = "bar 12.3/32 · pass 2/∞ · bars 9-16 · 75% · -2 st · vol 80% · click · 0:41/3:12"
    #expect(status().text(width: 120) == plain && status().text(width: 80) == plain)
    #expect(status().text(width: 78) == "12.3/32 pass 2/∞ 75% -2 st 0:41/3:12")
    #expect(status().text(width: 40) == "12.3/32 pass 2/∞ 75% -2 st 0:41/3:12")
  }

  @Test func theShortFormLeavesOutOnlyATransposeOfNothing() {
    #expect(status(transpose: 0).text(width: 40) == "12.3/32 pass 2/∞ 75% 0:41/3:12")
    #expect(status(transpose: 0).text(width: 120).contains(" · +0 st · "))
    #expect(status(transpose: 0.5).text(width: 40) == "12.3/32 pass 2/∞ 75% +0.5 st 0:41/3:12")
  }

  @Test func pausedCountInsBeforeTheFirstBeatAndWithoutABeatMap() {
    var line = status()
    line.paused = true
    line.pass = 0
    line.lastPass = 8
    line.muted = true
    line.click = false
    line.place?.beat = nil
    #expect(
      line.text(width: 120)
        == "paused · bar -/32 · count-in · bars 9-16 · 75% · -2 st · muted · 0:41/3:12")
    #expect(line.text(width: 40) == "paused -/32 count-in 75% -2 st 0:41/3:12")
    line.place = nil
    line.pass = 3
    line.length = 3725
    #expect(line.text(width: 40) == "paused pass 3/8 75% -2 st 0:41/1:02:05")
  }

  /// A setlist's heading comes first; the status gets the columns after it.
  @Test func aHeadingTakesItsColumnsFirst() {
    let heading = "2/7 'Autumn Leaves' — solo"
    #expect(
      status().text(width: 120, heading: heading)
        == heading + " · bar 12.3/32 · pass 2/∞ · bars 9-16 · 75% · -2 st · vol 80% · click · "
        + "0:41/3:12")
    #expect(
      status().text(width: 80, heading: heading)
        == heading + " · 12.3/32 pass 2/∞ 75% -2 st 0:41/3:12")
    #expect(
      status().text(width: 40, heading: heading)
        == heading + " · 12.3/32 pass 2/∞ 75% -2 st 0:41/3:12")
  }
}
