import Testing

@testable import PracticeCore

/// `select move|halve|double` as values: the spans a selection becomes.
@Suite struct SelectionMoveTests {
  /// Eight bars of 4/4, 100 frames per beat, first beat at frame 50.
  func eightBars() throws -> BeatMap {
    try BeatMap.placing(
      frames: (0..<32).map { 50 + Int64($0) * 100 }, beatsInBar: Array(repeating: nil, count: 32),
      meter: .common, bar1: 1, source: .grid, totalFrames: 10_000, sampleRate: 1000)
  }

  func bars(_ text: String) -> SelectionSpan { .bars(BarRange(parsing: text)!) }

  /// An odd number of bars: the first half takes the smaller share.
  @Test func halvingOddBarsGivesTheFirstHalfTheSmallerShare() throws {
    let map = try eightBars()
    #expect(try SelectionMove.halve(bars("3-7"), second: false, beatMap: map) == bars("3-4"))
    #expect(try SelectionMove.halve(bars("3-7"), second: true, beatMap: map) == bars("5-7"))
    #expect(try SelectionMove.halve(bars("3-6"), second: false, beatMap: map) == bars("3-4"))
  }

  /// Times halve at the middle frame; an odd count gives the second half the extra frame.
  @Test func halvingTimesSplitsAtTheMiddleFrame() throws {
    let span = SelectionSpan.frames(100..<201)
    #expect(try SelectionMove.halve(span, second: false, beatMap: nil) == .frames(100..<150))
    #expect(try SelectionMove.halve(span, second: true, beatMap: nil) == .frames(150..<201))
  }

  /// A move that would take the last bar past the map's is refused in the selection's
  /// words, however far past.
  @Test func movingPastTheLastBarIsRefused() throws {
    let map = try eightBars()
    #expect(try SelectionMove.move(bars("6-7"), byBars: 1, beatMap: map) == bars("7-8"))
    for by in [2, 3] {
      let error = try #require(throws: PracticeError.self) {
        try SelectionMove.move(bars("6-7"), byBars: by, beatMap: map)
      }
      #expect(error.message.contains("would leave the song's bars 1-8"), "\(by)")
    }
  }
}
