import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The decisions the song, selection, beat and chord commands ask of the core before they
/// act: whether a selection can be reshaped, whether detecting would overwrite a person's work.
@Suite struct CommandChecksTests {
  let dir = TemporaryDirectory()

  /// A library holding one song, 4 s of sine.
  func library() throws -> (Library, Song) { try dir.libraryWithOneSong() }

  /// Four bars of 4/4 at 120 bpm from the start, from `source`.
  func fourBars(_ song: Song, source: BeatSource = .grid, confidence: Double? = nil) throws
    -> BeatMap
  {
    let beats = (0..<16).map {
      Beat(
        frame: Int64($0) * 11025, bar: 1 + $0 / 4, beat: 1 + $0 % 4, source: source,
        confidence: confidence)
    }
    return try BeatMap(beats: beats, totalFrames: song.frames, sampleRate: song.sampleRate)
  }

  func bars(_ text: String) throws -> BarRange { try #require(BarRange(parsing: text)) }

  @Test func aSelectionOfBarsNeedsAMapItStillFits() throws {
    let (_, song) = try library()
    let map = try fourBars(song)
    let gone = SelectionSpan.bars(try bars("9-10"))
    #expect(throws: ReshapeRefusal.noBeatMap) {
      try SelectionReshape.double.apply(to: gone, beatMap: nil, totalFrames: song.frames)
    }
    #expect(throws: ReshapeRefusal.noLongerFits(try bars("9-10"))) {
      try SelectionReshape.move(bars: -7).apply(to: gone, beatMap: map, totalFrames: song.frames)
    }
    // A span of times needs no map.
    let times = SelectionSpan.frames(0..<22050)
    let half = try SelectionReshape.halve(second: true).apply(
      to: times, beatMap: nil, totalFrames: song.frames)
    #expect(half == .frames(11025..<22050))
  }

  @Test func aReshapeThatLeavesTheSongIsRefusedWithTheBarsItNamed() throws {
    let (_, song) = try library()
    let map = try fourBars(song)
    let moved = try SelectionReshape.move(bars: 1).apply(
      to: .bars(try bars("2-3")), beatMap: map, totalFrames: song.frames)
    #expect(moved == .bars(try bars("3-4")))
    do {
      _ = try SelectionReshape.double.apply(
        to: .bars(try bars("3-4")), beatMap: map, totalFrames: song.frames)
      Issue.record("bars 3-6 of a four-bar song were accepted")
    } catch ReshapeRefusal.notInSong(let error) {
      guard case .barNotInSong(let bar, _, _) = error else {
        Issue.record("not a bar outside the song: \(error)")
        return
      }
      #expect(bar > map.lastBar)
    }
  }

  @Test func detectingRefusesAMapAPersonMadeUnlessReplacing() throws {
    let (library, song) = try library()
    try library.checkBeatDetection(of: [song], replace: false)  // no map: nothing to keep
    try library.replaceBeatMap(for: song, with: try fourBars(song))
    do {
      try library.checkBeatDetection(of: [song], replace: false)
      Issue.record("a grid map would have been overwritten")
    } catch DetectionRefusal.beatsMadeByHand(let refused, let beats) {
      #expect(refused == song)
      #expect(beats.first?.source == .grid)
    }
    try library.checkBeatDetection(of: [song], replace: true)
    try library.replaceBeatMap(
      for: song, with: try fourBars(song, source: .detected, confidence: 0.9))
    try library.checkBeatDetection(of: [song], replace: false)
  }

  @Test func detectingRefusesImportedChordsUnlessReplacing() throws {
    let (library, song) = try library()
    let spans = [ChordSpan(start: 0, end: song.frames, chord: nil)]
    try library.checkChordDetection(of: [song], replace: false)
    try library.replaceChordTrack(for: song, with: ChordTrack(spans: spans, source: .detected))
    try library.checkChordDetection(of: [song], replace: false)
    try library.replaceChordTrack(for: song, with: ChordTrack(spans: spans, source: .imported))
    #expect(throws: DetectionRefusal.chordsImported(song: song)) {
      try library.checkChordDetection(of: [song], replace: false)
    }
    try library.checkChordDetection(of: [song], replace: true)
  }

  @Test func aSongsKeyIsTheOneSetElseTheOneItsChordsSuggest() throws {
    let (library, song) = try library()
    #expect(try library.ownKey(of: song) == nil)
    // Am, Dm, E, Am: imported chords suggest a key, and count the chords that are not N.
    let chords = try ["A:min", "D:min", "E:maj", "A:min", "N"].map { try Chord.parseHarte($0) }
    let spans = chords.enumerated().map { index, chord in
      ChordSpan(start: Int64(index) * 17640, end: Int64(index + 1) * 17640, chord: chord)
    }
    let imported = try library.importChords(spans, for: song)
    #expect(imported.chords == chords.compactMap { $0 }.count)
    let stored = try #require(try library.chordTrack(for: song))
    #expect(stored.source == .imported && stored.detectedKey == imported.key)
    #expect(try library.ownKey(of: song) == imported.key)
    var change = SongDetailsChange()
    change.key = .some(try #require(MusicalKey(parsing: "Bb")))
    _ = try library.changeDetails(of: song, change)
    #expect(try library.ownKey(of: song) == MusicalKey(parsing: "Bb"))
  }

  @Test func theBarTableHasChordsOnlyWhenTheSongHasAChordTrack() throws {
    let (library, song) = try library()
    let map = try fourBars(song)
    let plain = try library.barLines(of: song, map: map)
    #expect(!plain.chords && plain.bars.count == map.lastBar - map.firstBar + 1)
    #expect(plain.bars.allSatisfy { $0.chords == nil })
    let spans = [ChordSpan(start: 0, end: song.frames, chord: try Chord.parseHarte("C:maj"))]
    _ = try library.importChords(spans, for: song)
    let withChords = try library.barLines(of: song, map: map)
    #expect(withChords.chords && withChords.bars.allSatisfy { $0.chords != nil })
  }
}
