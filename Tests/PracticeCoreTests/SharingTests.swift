import Foundation
import Testing

@testable import PracticeCore

@Suite struct SharingTests {
  @Test func keysParseAndTransposeTheNearestWay() throws {
    let am = try #require(MusicalKey(parsing: "Am"))
    #expect(am.minor && am.tonic == 9 && am.description == "Am")
    #expect(MusicalKey(parsing: "A minor") == am && MusicalKey(parsing: "amin") == am)
    #expect(MusicalKey(parsing: "Bb")?.tonic == 10 && MusicalKey(parsing: "Bb")?.minor == false)
    #expect(MusicalKey(parsing: "C#m")?.tonic == 1 && MusicalKey(parsing: "Db")?.tonic == 1)
    #expect(MusicalKey(parsing: "AM")?.minor == false)
    #expect(MusicalKey(parsing: "E♭maj")?.description == "Eb")
    for bad in ["", "H", "Amx", "A###", "m", "1"] { #expect(MusicalKey(parsing: bad) == nil, "\(bad)") }
    let bm = try #require(MusicalKey(parsing: "Bm"))
    #expect(am.semitones(to: bm) == 2)
    #expect(bm.semitones(to: am) == -2)
    #expect(am.semitones(to: try #require(MusicalKey(parsing: "Em"))) == -5)
    #expect(am.semitones(to: try #require(MusicalKey(parsing: "D#m"))) == 6)
    #expect(am.semitones(to: try #require(MusicalKey(parsing: "C"))) == nil)
  }

  /// Pickup, a meter change, an incomplete last bar and confidences survive the columns;
  /// a numbering the runs cannot say is written out per beat.
  @Test func beatMapsRoundTripThroughColumns() throws {
    var beats: [Beat] = []
    var frame: Int64 = 1000
    func add(_ bar: Int, _ beat: Int, _ source: BeatSource = .detected, _ confidence: Double? = 0.8123) {
      beats.append(Beat(frame: frame, bar: bar, beat: beat, source: source, confidence: confidence))
      frame += 22050
    }
    add(0, 3); add(0, 4)
    for bar in 1...3 { for beat in 1...4 { add(bar, beat) } }
    for bar in 4...5 { for beat in 1...3 { add(bar, beat, .tapped, nil) } }
    add(6, 1); add(6, 2)
    let shared = PracticeFile.SharedBeatMap(beats)
    #expect(shared.positions == nil)
    #expect(shared.barLengths == [[4, 4], [2, 3], [1, 2]])
    let back = try shared.beats()
    #expect(back.map(\.frame) == beats.map(\.frame))
    #expect(back.map(\.bar) == beats.map(\.bar) && back.map(\.beat) == beats.map(\.beat))
    #expect(back.map(\.source) == beats.map(\.source))
    #expect(back[0].confidence == 0.812 && back[15].confidence == nil)
    // A bar that skips a beat number.
    var skipping = beats
    skipping[3].beat = 3
    let written = PracticeFile.SharedBeatMap(skipping)
    #expect(written.positions != nil && written.barLengths == nil)
    #expect(try written.beats().map(\.beat) == skipping.map(\.beat))
    // Through JSON and back.
    let file = PracticeFile(
      format: "practice", version: 1, exportedAt: "2026-11-26T00:00:00Z",
      songs: [
        .init(
          ref: 1, title: "t", artist: nil, album: nil, duration: 1, frames: 10_000_000,
          sampleRate: 44100, contentHash: "h", key: "Am", bpm: 96, note: nil, tags: [],
          beatMap: shared, selections: [])
      ], setlists: [])
    #expect(try PracticeFile.decode(try file.encoded(), path: "x") == file)
  }

  @Test func inconsistentColumnsAreBadData() throws {
    var map = PracticeFile.SharedBeatMap([Beat(frame: 0, bar: 1, beat: 1, source: .grid)])
    map.frames = []
    #expect(throws: PracticeError.self) { try map.beats() }
    map.frames = [0, 10]
    #expect(throws: PracticeError.self) { try map.beats() }  // sources say 1 beat
    map.sources = [.init(source: "grid", count: 2)]
    map.barLengths = [[1, 0]]
    #expect(throws: PracticeError.self) { try map.beats() }
    map.barLengths = nil
    #expect(throws: PracticeError.self) { try map.beats() }
  }
}
