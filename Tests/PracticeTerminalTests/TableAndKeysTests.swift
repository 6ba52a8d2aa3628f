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

  /// Wrapped at the width, each key's words whole: a line is never wider than the width but
  /// when it holds one item alone that is wider itself (the `e` keys' words, 74 columns,
  /// on a line of 80 at the player's 76).
  @Test func theKeysOverlayFitsTheWidth() {
    for width in [40, 60, 76, 120] {
      for screen in [false, true] {
        let lines = PlayerKeys.overlay(screen: screen, width: width)
        let items = PlayerKeys.table.filter { screen || $0.mode != .screen }.compactMap(\.short)
        #expect(lines.first?.hasPrefix("keys: ") == true)
        for line in lines where DisplayWidth.of(line) > width {
          let alone = line.dropFirst(6)
          #expect(items.contains(String(alone)), "width \(width): \(line)")
        }
        // Every item is there, once, whole on its line, in the table's order.
        let found = lines.map { $0.dropFirst(6) }.joined(separator: " · ")
        #expect(found == items.joined(separator: " · "), "width \(width)")
      }
    }
    // Wide enough for the widest item, every line fits.
    for width in [80, 120] {
      #expect(
        PlayerKeys.overlay(screen: true, width: width).allSatisfy { DisplayWidth.of($0) <= width })
    }
    // The zoom keys only with the player screen.
    #expect(PlayerKeys.overlay(screen: true).joined().contains("z/Z"))
    #expect(!PlayerKeys.overlay(screen: false).joined().contains("z/Z"))
  }
}
