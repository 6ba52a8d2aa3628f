import PracticeCore
import Testing

/// The chord lanes' labels: every change marked, shortened to fit before the next.
@Suite struct ChordLabelsTests {
  func fit(_ chords: [(x: Double, symbol: String)], right: Double = 40) -> [String] {
    ChordLabels.fit(chords, right: right, gap: 1) { Double($0.count) }.map {
      "\(Int($0.x)):\($0.text)"
    }
  }

  @Test func shorteningsGoFromTheSymbolToTheMark() {
    #expect(ChordLabels.shortenings(of: "Gmaj7") == ["Gmaj7", "G…", "G", "·"])
    #expect(ChordLabels.shortenings(of: "F#m7") == ["F#m7", "F#…", "F#", "·"])
    #expect(ChordLabels.shortenings(of: "C") == ["C", "·"])
  }

  @Test func aChordWithoutRoomIsShortenedNeverLeftOut() {
    // Room for the whole symbol, for root and …, for the root, for nothing but the mark.
    #expect(fit([(0, "Gmaj7"), (6, "Am")]) == ["0:Gmaj7", "6:Am"])
    #expect(fit([(0, "Gmaj7"), (3, "Am")]) == ["0:G…", "3:Am"])
    #expect(fit([(0, "Gmaj7"), (2, "Am"), (3, "Em")]) == ["0:G", "2:·", "3:Em"])
    // The last chord runs to the right edge.
    #expect(fit([(36, "Gmaj7")]) == ["36:G…"])
    // Two changes in one place: the later one's label marks it; past the edge, none.
    #expect(fit([(0, "C"), (0, "D"), (41, "E")]) == ["0:D"])
  }
}
