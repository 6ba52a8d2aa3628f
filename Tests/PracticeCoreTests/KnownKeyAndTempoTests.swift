import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The key and tempo a listing shows (`keysAndTempi`: set, else the chords' key and the beat
/// map's median tempo, each with where it came from), the interval stored beside a map
/// (`song.beat_interval`) through an undo, and what removing a song reports it took.
@Suite struct KnownKeyAndTempoTests {
  let dir = TemporaryDirectory()

  /// A four-second song at 48 kHz.
  func song48k() throws -> (Library, Song) {
    let library = try Library(path: dir.file("lib.sqlite"))
    try Synth.write(
      Synth.sine(frequency: 440, seconds: 4, sampleRate: 48000), to: dir.file("b.wav"),
      sampleRate: 48000)
    return (library, try library.resolve(dir.file("b.wav")))
  }

  /// Beats `interval` frames apart from the start, in 4/4, as many as fit the song.
  func grid(_ song: Song, interval: Int64) throws -> BeatMap {
    let beats = stride(from: Int64(0), to: song.frames, by: Int(interval)).enumerated().map {
      Beat(frame: $1, bar: 1 + $0 / 4, beat: 1 + $0 % 4, source: .grid)
    }
    return try BeatMap(beats: beats, totalFrames: song.frames, sampleRate: song.sampleRate)
  }

  @Test func aSetKeyWinsAndABeatMapsTempoIsReadAtTheSongsRateAndSaysWhereItCameFrom() throws {
    let (library, song) = try song48k()
    // Nothing known: nothing shown, and no source for what is not there.
    let bare = try library.keyAndTempo(of: song)
    #expect(bare.bpm == nil && !bare.bpmFromBeatMap && bare.key == nil && !bare.keyFromChords)
    let bareJSON = SongRecord(song, details: SongDetails(), known: bare).jsonText
    #expect(
      bareJSON.contains("\"bpm\":null,\"bpm_source\":null")
        && bareJSON.contains("\"key\":null,\"key_source\":null"), "\(bareJSON)")
    #expect(try library.detailFields(of: song, details: SongDetails()).first { $0.key == "bpm" }?.value == "")

    // 23,000 frames at 48 kHz: 125.217… BPM (at 44.1 kHz it would read 115.04).
    try library.replaceBeatMap(for: song, with: try grid(song, interval: 23000))
    let mapped = try library.keyAndTempo(of: song)
    #expect(mapped.bpmFromBeatMap && abs((mapped.bpm ?? 0) - 60 * 48000 / 23000) < 1e-9)
    #expect(mapped.bpmText == "125.2")
    let mappedJSON = SongRecord(song, details: SongDetails(), known: mapped).jsonText
    #expect(mappedJSON.contains("\"bpm\":125.22,\"bpm_source\":\"beat map\""), "\(mappedJSON)")

    // The chords' key, then a key set over it: the one set wins and says so.
    try library.replaceChordTrack(
      for: song,
      with: ChordTrack(
        spans: [ChordSpan(start: 0, end: song.frames, chord: try Chord.parseHarte("E:maj"))],
        source: .detected, detectedKey: MusicalKey(parsing: "E")))
    let chords = try library.keyAndTempo(of: song)
    #expect(chords.key == MusicalKey(parsing: "E") && chords.keyFromChords)
    var change = SongDetailsChange()
    change.key = .some(MusicalKey(parsing: "Am"))
    let details = try library.changeDetails(of: song, change)
    let set = try library.keyAndTempo(of: song)
    #expect(set.key == MusicalKey(parsing: "Am") && !set.keyFromChords)
    let setJSON = SongRecord(song, details: details, known: set).jsonText
    #expect(setJSON.contains("\"key\":\"Am\",\"key_source\":\"set\""), "\(setJSON)")
    let chordsJSON = SongRecord(song, details: SongDetails(), known: chords).jsonText
    #expect(chordsJSON.contains("\"key\":\"E\",\"key_source\":\"chords\""), "\(chordsJSON)")
  }

  @Test func undoingASongsFirstMapLeavesItWithoutATempo() throws {
    let (library, song) = try song48k()
    try library.replaceBeatMap(for: song, with: try grid(song, interval: 24000))
    #expect(try library.keyAndTempo(of: song).bpm == 120)
    _ = try library.undoBeatMapChange(for: song)
    #expect(try library.beatMap(for: song) == nil)
    let known = try library.keyAndTempo(of: song)
    #expect(known.bpm == nil && !known.bpmFromBeatMap)
    _ = try library.redoBeatMapChange(for: song)
    #expect(try library.keyAndTempo(of: song).bpm == 120)
  }

  @Test func removingASongCountsItsSelectionsInTimesEachSetlistsEntriesAndNoUndoneMap() throws {
    let (library, song) = try song48k()
    try library.replaceBeatMap(for: song, with: try grid(song, interval: 24000))
    _ = try library.undoBeatMapChange(for: song)  // no map now; the undone one can be redone
    _ = try library.addSelection(
      to: song, name: "intro", span: .frames(0..<48000), note: nil, replace: false)
    for name in ["gig", "rehearsal"] {
      _ = try library.createSetlist(named: name)
      _ = try library.addEntry(SetlistEntry(songID: song.id!), to: name, at: nil)
    }
    _ = try library.addEntry(SetlistEntry(songID: song.id!), to: "gig", at: nil)
    let removed = try library.remove(song)
    #expect(!removed.beatMap)
    #expect(removed.selections == 1)
    #expect(removed.setlistEntries.map(\.name) == ["gig", "rehearsal"])
    #expect(removed.setlistEntries.map(\.entries) == [2, 1])
  }
}
