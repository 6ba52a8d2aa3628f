import PracticeCore
import Testing

@testable import PracticeTerminal

/// A table as `print` lays it out at a terminal, and the player's `?` overlay: never wider
/// than the terminal.
@Suite struct TableAndKeysTests {
  private let table = TextTable.songs([
    ["1", "Autumn Leaves (live at the Village Vanguard, 1961, second set, take two)",
      "Bill Evans Trio", "4:32", "/home/someone/music/jazz/standards/autumn-leaves.flac"],
    ["22", "枯葉 \u{1B}[31m", "Quartet", "12:01", "/tmp/a\u{7}.wav"],
    ["333", "Blue Bossa", "", "3:10", "/music/blue bossa.m4a"],
  ])

  @Test func aTableFitsWidths40_80_120() {
    for width in [40, 80, 120] {
      let lines = table.lines(width: width)
      #expect(lines.count == 4, "width \(width)")
      for line in lines {
        #expect(DisplayWidth.of(Terminal.escaped(line)) <= width, "width \(width): \(line)")
      }
    }
    // At 120 the ids and times are all there; the escape is shown, not sent.
    let wide = table.lines(width: 120).map { Terminal.escaped($0) }
    #expect(wide.contains { $0.contains("12:01") && $0.contains("\\x1b[31m") })
  }

  /// Wrapped at the width: an item wider than a line (the `e` keys' words, 74 columns) goes
  /// on at its spaces, and every word is there in order.
  @Test func theKeysOverlayFitsTheWidth() {
    for width in [40, 60, 76, 79, 120] {
      for screen in [false, true] {
        let lines = PlayerKeys.overlay(screen: screen, width: width)
        let items = PlayerKeys.table.filter { screen || $0.mode != .screen }.compactMap(\.short)
        #expect(lines.first?.hasPrefix("keys: ") == true)
        // Every line fits, the `e` item (74 columns) too, on its spaces; only a word wider
        // than a line (`bass/guitar/vocal/drums/treble/off` at 40) stands alone past it.
        for line in lines where DisplayWidth.of(line) > width {
          #expect(
            width < 60 && line.split(separator: " ").count == 1, "width \(width): \(line)")
        }
        // Every word is there, once, in the table's order.
        let words = lines.joined(separator: " ").split(separator: " ").filter { $0 != "·" }
        let wanted = items.joined(separator: " ").split(separator: " ").filter { $0 != "·" }
        #expect(words.dropFirst() == wanted[...], "width \(width)")
      }
    }
    // Wide enough, each item stays whole on its line.
    let wide = PlayerKeys.overlay(screen: true, width: 120).joined(separator: " · ")
    for item in PlayerKeys.table.compactMap(\.short) { #expect(wide.contains(item)) }
  }
}
