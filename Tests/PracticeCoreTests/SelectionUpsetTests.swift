import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// What a change of a song's beat map does to its selections in bars, as every command that
/// stores, fixes or undoes a map returns it (`SelectionUpset`): those it leaves out, those
/// it makes play other music; and the other values `beats` and `select` commands take from
/// the core (a grid map, the bar table, a goal's text).
@Suite struct SelectionUpsetTests {
  let dir = TemporaryDirectory()

  /// A 20 s song with a 120 BPM grid from 0.5 s (22050 frames a beat, bars 1-9) and
  /// selections in bars 1-2, 3-4 and 8-9, and one of times.
  func setUp() throws -> (Library, Song, BeatMap) {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = dir.file("song.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 20), to: path)
    let song = try library.add([SongScanner.scan(path)])[0]
    let map = try grid(song, beats: 36, from: 22050)
    try library.storeBeatMap(map, for: song, change: BeatMapChange(.replaced, "beats grid"))
    for (name, bars) in [("intro", "1-2"), ("verse", "3-4"), ("end", "8-9")] {
      _ = try library.addSelection(
        to: song, name: name, span: .bars(BarRange(parsing: bars)!), note: nil, replace: false)
    }
    _ = try library.addSelection(
      to: song, name: "times", span: .frames(1000..<90000), note: nil, replace: false)
    return (library, song, map)
  }

  func grid(_ song: Song, beats count: Int, from first: Int64) throws -> BeatMap {
    try BeatMap.placing(
      frames: (0..<count).map { first + Int64($0) * 22050 },
      beatsInBar: Array(repeating: nil, count: count), meter: .common, bar1: 1, source: .grid,
      totalFrames: song.frames, sampleRate: song.sampleRate)
  }

  func names(_ upset: [SelectionUpset]) -> [String] {
    upset.map { item in
      switch item.why {
      case .noLongerFits: return "\(item.selection.name) out"
      case .moved: return "\(item.selection.name) moved"
      }
    }
  }

  /// A selection whose start stays but whose end moves by more than half a beat plays
  /// other music too: it is told.
  @Test func aMovedEndIsToldToo() throws {
    let (library, song, old) = try setUp()
    // Bars 1-2 keep their beats; from bar 3 on, every beat 15,000 frames (0.68 beat) later.
    let frames = (0..<36).map { 22050 + Int64($0) * 22050 + ($0 >= 8 ? 15000 : 0) }
    let new = try BeatMap.placing(
      frames: frames, beatsInBar: Array(repeating: nil, count: 36), meter: .common, bar1: 1,
      source: .grid, totalFrames: song.frames, sampleRate: song.sampleRate)
    let upset = SelectionUpset.under(
      new, before: old, selections: try library.selections(of: song), song: song)
    #expect(Set(names(upset)) == ["intro moved", "verse moved", "end moved"])
  }

  @Test func aReplacedMapTellsWhatMovedAndWhatNoLongerFits() throws {
    let (library, song, old) = try setUp()
    // 0.3 s later (more than half a beat) and only bars 1-7.
    let new = try grid(song, beats: 28, from: 22050 + 13230)
    let stored = try library.storeBeatMap(
      new, for: song, change: BeatMapChange(.replaced, "beats detect"))
    #expect(stored.before == old)
    // Song order on the new map; the one it cannot place comes last.
    #expect(names(stored.selectionsUpset) == ["intro moved", "verse moved", "end out"])
    let verse = try #require(stored.selectionsUpset.first { $0.selection.name == "verse" })
    #expect(verse.range == BarRange(parsing: "3-4")!)
    #expect(
      verse.why
        == .moved(
          old: try old.frames(of: BarRange(parsing: "3-4")!),
          new: try new.frames(of: BarRange(parsing: "3-4")!)))
  }

  @Test func lessThanHalfABeatIsNoMove() throws {
    let (library, song, _) = try setUp()
    let stored = try library.storeBeatMap(
      try grid(song, beats: 36, from: 22050 + 11024), for: song,
      change: BeatMapChange(.replaced, "beats detect"))
    #expect(stored.selectionsUpset.isEmpty)
    let moved = try library.storeBeatMap(
      try grid(song, beats: 36, from: 22050 + 11024 + 11025), for: song,
      change: BeatMapChange(.replaced, "beats detect"))
    #expect(names(moved.selectionsUpset) == ["intro moved", "verse moved", "end moved"])
  }

  @Test func aRecountTellsOnlyWhatNoLongerFits() throws {
    let (library, song, _) = try setUp()
    // Without the map before (a recount renames bars to keep their music), only what the
    // map leaves out is told: bars 1-7 on the same beats leave out bars 8-9.
    let short = try grid(song, beats: 28, from: 22050)
    let selections = try library.selections(of: song)
    #expect(
      names(SelectionUpset.under(short, before: nil, selections: selections, song: song))
        == ["end out"])
    // Stored as a recount 0.3 s later, nothing is told as moved.
    let later = try library.storeBeatMap(
      try grid(song, beats: 36, from: 22050 + 13230), for: song,
      change: BeatMapChange(.recounted, "beats downbeat"))
    #expect(later.selectionsUpset.allSatisfy { $0.why == .noLongerFits })
    #expect(
      try library.storeBeatMap(
        try grid(song, beats: 36, from: 22050), for: song,
        change: BeatMapChange(.replaced, "beats grid")
      ).selectionsUpset.contains { if case .moved = $0.why { true } else { false } })
  }

  @Test func aFixAndItsUndoTellTheirsToo() throws {
    let (library, song, old) = try setUp()
    let shifted = try library.fixBeatMap(
      of: song, .shift(frames: 13230), summary: "beats shift --by 0.3")
    #expect(shifted.before == old)
    #expect(names(shifted.selectionsUpset) == ["intro moved", "verse moved", "end moved"])
    let undone = try library.undoBeatMapChange(for: song)
    #expect(names(undone.selectionsUpset) == ["intro moved", "verse moved", "end moved"])
    // Back to no map: every selection in bars is out, the one of times is not.
    let none = try library.undoBeatMapChange(for: song)
    #expect(none.restored == nil)
    #expect(names(none.selectionsUpset) == ["intro out", "verse out", "end out"])
  }

  @Test func aGridRunsToTheEndOfTheAudio() throws {
    let map = try #require(
      try BeatMap.grid(
        bpm: 120, start: 0.5, meter: Meter(parsing: "3/4")!, bar1: 2, totalFrames: 3000,
        sampleRate: 1000))
    #expect(map.beats.map(\.frame) == [500, 1000, 1500, 2000, 2500])
    #expect(map.beats.map { "\($0.bar).\($0.beat)" } == ["0.3", "1.1", "1.2", "1.3", "2.1"])
    #expect(map.beats.allSatisfy { $0.source == .grid })
    #expect(
      try BeatMap.grid(
        bpm: 120, start: 3, meter: .common, bar1: 1, totalFrames: 3000, sampleRate: 1000) == nil)
  }

  @Test func theBarTableHasAConfidenceColumnOnlyForDetectedMaps() {
    func line(_ bar: Int, _ confidence: Double?) -> BarLine {
      BarLine(
        bar: bar, beats: 4, bpm: 120.04, chords: ["Am", "."], confidence: confidence,
        doubtful: (confidence ?? 1) < 0.5, start: Double(bar) * 2)
    }
    let detected = TextTable.bars([line(1, 0.3), line(2, nil)], chords: true)
    #expect(detected.columns.count == 6)
    #expect(detected.rows == [["1", "0:02.0", "4", "120.0", "0.30?", "Am ."], ["2", "0:04.0", "4", "120.0", "", "Am ."]])
    let grid = TextTable.bars([line(1, nil)], chords: false)
    #expect(grid.columns.count == 4)
    #expect(grid.rows == [["1", "0:02.0", "4", "120.0"]])
  }

  @Test func aGoalSaysTheSpeedThatReachesATempo() {
    #expect(PracticeGoal.speed(Speed(parsing: "90%")!).text(reachedAt: 0.9) == "90%")
    #expect(PracticeGoal.tempo(120).text(reachedAt: 0.96) == "120bpm (96%)")
    #expect(PracticeGoal.tempo(120).text(reachedAt: nil) == "120bpm")
  }

  @Test func selectionsArePlacedWithTheirSongsMaps() throws {
    let (library, _, map) = try setUp()
    let placed = try library.placedSelections(of: nil)
    #expect(placed.map(\.record.selection.name) == ["times", "intro", "verse", "end"])
    #expect(placed.allSatisfy { $0.map == map && $0.record.fits })
  }

  @Test func aSongWithoutAMapIsRefusedWithoutDetecting() throws {
    let (library, song, _) = try setUp()
    try library.storeBeatMap(
      try grid(song, beats: 36, from: 22050), for: song, change: BeatMapChange(.replaced, "x"))
    _ = try library.undoBeatMapChange(for: song)
    _ = try library.undoBeatMapChange(for: song)
    #expect(try library.beatMap(for: song) == nil)
    #expect(throws: NoBeatMap(song: song)) { try library.beatMap(for: song, detect: false) }
  }

  @Test func tappedBeatsGoIntoAMapOrBecomeOne() throws {
    let (library, song, old) = try setUp()
    // Beats 2 to 5 tapped again, 0.1 s late: the rest of the map is kept, a recount.
    let tapped = try BeatMap.placing(
      frames: (1...4).map { 22050 + Int64($0) * 22050 + 4410 }, beatsInBar: [nil, nil, nil, nil],
      meter: .common, bar1: 1, source: .tapped, totalFrames: song.frames,
      sampleRate: song.sampleRate)
    let result = TappedBeats.Result(
      map: tapped, taps: 4, snapped: 3, filled: 0, barLengths: [4], tempo: 119.96...120.04,
      warnings: [])
    let into = try library.storeTapped(
      result, downbeatsTapped: false, meter: nil, for: song, summary: "beats tap")
    #expect(into.old == old)
    #expect(into.map.beats.count == old.beats.count)
    #expect(into.map.beats[2].frame == old.beats[2].frame + 4410)
    #expect(try library.beatMap(for: song) == into.map)
    #expect(
      result.summary(title: "song")
        == "'song': 4 beats from 4 taps (3 on onsets, 0 filled in), \(tapped.barsDescription), "
        + "4 beats a bar, 120.0 BPM, 0:01.1–0:02.6")
    // Without a map the taps are the map.
    _ = try library.undoBeatMapChange(for: song)
    _ = try library.undoBeatMapChange(for: song)
    let alone = try library.storeTapped(
      result, downbeatsTapped: false, meter: nil, for: song, summary: "beats tap")
    #expect(alone.old == nil && alone.map == tapped)
  }

  @Test func aFixSpanIsBarsTimesOrTheWholeMap() throws {
    let (_, _, map) = try setUp()
    let bars = try BeatMapSpan(bars: BarRangeText(parsing: "8-"), from: nil, to: nil, on: map)
    #expect(bars.label == "bars 8-9")
    #expect(bars.from == (try map.frames(of: BarRange(parsing: "8-9")!)).lowerBound)
    let times = try BeatMapSpan(bars: nil, from: 10, to: nil, on: map)
    #expect(times.from == 441_000 && times.to == nil && times.label == "0:10.0–the end")
    #expect(try BeatMapSpan(bars: nil, from: nil, to: nil, on: map).label == "the whole map")
    #expect(throws: RangeError.self) {
      try BeatMapSpan(bars: BarRangeText(parsing: "12-14"), from: nil, to: nil, on: map)
    }
  }

  @Test func aTempoGoalNeedsAMapAndAReachableSpeed() throws {
    let (library, song, _) = try setUp()
    let verse = try library.selection(named: "verse", of: song)
    // The grid is 120 BPM: 96 BPM is 80 %, 300 BPM 250 %.
    try library.checkGoal(.tempo(96), of: verse, song: song)
    #expect(try library.goalText(.tempo(96), of: verse) == "96bpm (80%)")
    #expect(throws: GoalProblem.speedOutOfRange(2.5)) {
      try library.checkGoal(.tempo(300), of: verse, song: song)
    }
    try library.checkGoal(.speed(Speed(parsing: "100%")!), of: verse, song: song)
    _ = try library.undoBeatMapChange(for: song)
    #expect(throws: NoBeatMap(song: song)) {
      try library.checkGoal(.tempo(96), of: verse, song: song)
    }
  }

  @Test func aRecountByAFixTellsOnlyWhatNoLongerFits() throws {
    let (library, song, _) = try setUp()
    // Beat 1.2 made a downbeat: the bars are counted again one beat later and the selections
    // in bars follow their music, so none of them is told as moved.
    let fixed = try library.fixBeatMap(
      of: song, .downbeat(near: 44100, within: 0.25), summary: "beats downbeat --at 1.0")
    #expect(fixed.after != nil && !fixed.followed.isEmpty)
    #expect(fixed.selectionsUpset.allSatisfy { $0.why == .noLongerFits })
  }
}
