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

  /// The hand-written writer says what JSONEncoder said: the same JSON value, read back
  /// equal, for text that needs escaping, absent optionals and numbers of every kind.
  @Test func theWriterWritesWhatJSONEncoderWrote() throws {
    let beats = (0..<9).map { i in
      Beat(
        frame: Int64(i) * 22050 + 7, bar: 1 + i / 4, beat: 1 + i % 4,
        source: i < 5 ? .detected : .tapped,
        confidence: i == 3 ? nil : [0.5, 0.123, 1, 0.001, 0, 0.999, 0.1, 0.25, 0.07][i])
    }
    let file = PracticeFile(
      format: "practice", version: 1, exportedAt: "2026-11-26T00:00:00Z",
      songs: [
        .init(
          ref: 1, title: "Quote \" back\\slash / tab\t nl\n \u{1} é 日本", artist: nil,
          album: "A", duration: 600.0123456789, frames: 26_460_000, sampleRate: 44100,
          contentHash: "fnv1a64s:0123", key: "Am", bpm: 96.5, note: "capo 2", tags: ["gig", "jazz"],
          beatMap: PracticeFile.SharedBeatMap(beats),
          selections: [
            .init(
              name: "verse", bars: "9-16", startFrame: nil, endFrame: nil, note: nil,
              practice: .init(
                speed: 0.75, rampTo: 1, step: 0.05, every: 2, countIn: 1, click: true, gap: "1bar",
                transpose: -0.5, volume: 0.8, goal: "100%")),
            .init(name: "intro", bars: nil, startFrame: 0, endFrame: 441_000, note: "n", practice: nil),
          ]),
        .init(
          ref: 2, title: "t", artist: "b", album: nil, duration: 1e-7, frames: 0, sampleRate: 8000,
          contentHash: "h", key: nil, bpm: 1.0 / 3, note: nil, tags: [], beatMap: nil, selections: []),
      ],
      setlists: [
        .init(
          name: "gig",
          entries: [
            .init(song: 1, selection: "verse", key: "Bm", transpose: 2, speed: 0.9, repeats: 2, note: nil),
            .init(song: 2, selection: nil, key: nil, transpose: -3, speed: nil, repeats: nil, note: "x"),
          ])
      ])
    let written = try file.encoded()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let reference = try encoder.encode(file)
    let mine = try JSONSerialization.jsonObject(with: written) as? NSDictionary
    let theirs = try JSONSerialization.jsonObject(with: reference) as? NSDictionary
    #expect(mine != nil && mine == theirs)
    #expect(try PracticeFile.decode(written, path: "x") == file)
    #expect(String(decoding: written, as: UTF8.self).contains("\"confidence\":[0.5,0.123,1,null,0,0.999,0.1,0.25,0.07]"))
    var infinite = file
    infinite.songs[1].bpm = .infinity
    #expect(throws: PracticeError.self) { try infinite.encoded() }
  }
}
