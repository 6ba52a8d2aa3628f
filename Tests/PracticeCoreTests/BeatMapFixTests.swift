import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The fixes `beats double`, `halve`, `downbeat` and a tapped span, each exact to the frame
/// on grid maps with known frames: 100 frames a beat from frame 50, at 1 kHz.
@Suite struct BeatMapFixTests {
  func grid(_ count: Int, meter: Meter = .common, bar1: Int = 1, total: Int64 = 100_000) throws
    -> BeatMap
  {
    try BeatMap.placing(
      frames: (0..<count).map { 50 + Int64($0) * 100 },
      beatsInBar: Array(repeating: nil, count: count),
      meter: meter, bar1: bar1, source: .grid, totalFrames: total, sampleRate: 1000)
  }

  /// `bar.beat` of every beat.
  func labels(_ map: BeatMap) -> [String] { map.beats.map { "\($0.bar).\($0.beat)" } }
  /// The labels of `count` beats counted in bars of `n` from bar `first`, after `pickup`
  /// beats of bar 0.
  func counted(_ count: Int, n: Int = 4, pickup: Int = 0, first: Int = 1) -> [String] {
    (0..<count).map { k in
      k < pickup ? "0.\(n - pickup + k + 1)" : "\((k - pickup) / n + first).\((k - pickup) % n + 1)"
    }
  }
  func frames(from start: Int64, step: Int64, count: Int) -> [Int64] {
    (0..<count).map { start + Int64($0) * step }
  }

  /// `beats downbeat --bar 2.3` takes that beat exactly; `--at` the beat within a quarter
  /// of a beat of the time; a beat the map does not have is no fix.
  @Test func aDownbeatIsNamedByItsBarOrByItsTime() throws {
    let map = try grid(16)
    let fix = try #require(BeatMapFix.downbeat(at: BarPosition(bar: 2, beat: 3), on: map))
    #expect(fix == .downbeat(near: 650, within: 0) && fix.downbeatFrame == 650)
    #expect(BeatMapFix.downbeat(at: BarPosition(bar: 2), on: map)?.downbeatFrame == 450)
    #expect(BeatMapFix.downbeat(at: BarPosition(bar: 5, beat: 1), on: map) == nil)
    #expect(BeatMapFix.downbeat(at: BarPosition(bar: 4, beat: 5), on: map) == nil)
    let heard = BeatMapFix.downbeat(atSeconds: 0.6504, sampleRate: 1000)
    #expect(heard == .downbeat(near: 650, within: 0.25))
    #expect(BeatMapFix.shift(frames: 5).downbeatFrame == nil)
    #expect(BeatMapFix.shift(seconds: -0.0126, sampleRate: 1000) == .shift(frames: -13))
    let fixed = try #require(try heard.applied(to: map))
    #expect(fixed.beats.first { $0.frame == 650 }?.beat == 1)
  }

  // MARK: Double

  @Test func doublingTheWholeMapPutsABeatHalfWayAndTwiceTheBars() throws {
    let map = try grid(32).doubled(beats: 0...31)
    // The last beat's half beat after it, 3200, is inside the audio.
    #expect(map.beats.map(\.frame) == frames(from: 50, step: 50, count: 64))
    #expect(labels(map) == counted(64))
    #expect(map.barsDescription == "bars 1-16")
    #expect(map.beats.allSatisfy { $0.source == .grid && $0.confidence == nil })
  }

  @Test func doublingBarsKeepsTheMeterAndTheBarsAfterFollowOn() throws {
    let old = try grid(32)
    let map = try old.doubled(beats: old.beatIndices(of: BarRange(parsing: "3-4")!))
    #expect(
      map.beats.map(\.frame)
        == frames(from: 50, step: 100, count: 8) + frames(from: 850, step: 50, count: 16)
        + frames(from: 1650, step: 100, count: 16))
    #expect(labels(map) == counted(40))
    // Old bar 5 is bar 7 now, at its old frame.
    #expect(map.frames(ofBar: 7) == 1650..<2050)
    #expect(map.frames(ofBar: 3) == 850..<1050)
  }

  @Test func doublingASpanThatIsNotWholeBarsCountsOnAcrossTheBarLines() throws {
    // 1.3 to 2.2: four beats put in, so the bars stay whole.
    let map = try grid(32).doubled(beats: 2...5)
    #expect(
      map.beats.prefix(13).map(\.frame) == [
        50, 150, 250, 300, 350, 400, 450, 500, 550, 600, 650, 750, 850,
      ])
    #expect(labels(map) == counted(36))
    // Three beats (1.4 to 2.2): bar 3 is a bar of three before old bar 3.
    let odd = try grid(32).doubled(beats: 3...5)
    #expect(
      odd.beats.prefix(11).map(\.frame) == [50, 150, 250, 350, 400, 450, 500, 550, 600, 650, 750])
    #expect(Array(labels(odd).prefix(12)) == counted(8) + ["3.1", "3.2", "3.3", "4.1"])
    #expect(odd.frames(ofBar: 4)?.lowerBound == 850)
  }

  @Test func doublingThePickupMakesItAWholeBarAndRenumbersTheRest() throws {
    // Two beats of pickup (0.3, 0.4) then bars of four.
    let old = try grid(34, bar1: 3)
    let map = try old.doubled(beats: 0...1)
    #expect(map.beats.prefix(6).map(\.frame) == [50, 100, 150, 200, 250, 350])
    #expect(labels(map) == counted(36))
    #expect(map.frames(ofBar: 2)?.lowerBound == 250)
  }

  @Test func doublingTheLastBeatStopsAtTheEndOfTheAudio() throws {
    let map = try grid(8, total: 820).doubled(beats: 7...7)
    // 750 + 50 = 800 < 820: put in.
    #expect(map.beats.map(\.frame).suffix(2) == [750, 800])
    let capped = try grid(8, total: 790).doubled(beats: 7...7)
    #expect(capped.beats.count == 8)
  }

  // MARK: Halve

  @Test func halvingTheWholeMapKeepsTheDownbeats() throws {
    let map = try grid(32).halved(beats: 0...31)
    #expect(map.beats.map(\.frame) == frames(from: 50, step: 200, count: 16))
    #expect(labels(map) == counted(16))
    #expect(map.frames(ofBar: 2) == 850..<1650)
  }

  @Test func halvingBarsMakesEachPairOneBarAndTheBarsAfterFollowOn() throws {
    let old = try grid(32)
    let map = try old.halved(beats: old.beatIndices(of: BarRange(parsing: "3-6")!))
    #expect(
      map.beats.map(\.frame)
        == frames(from: 50, step: 100, count: 8) + frames(from: 850, step: 200, count: 8)
        + frames(from: 2450, step: 100, count: 8))
    #expect(labels(map) == counted(24))
    #expect(map.frames(ofBar: 5)?.lowerBound == 2450)
  }

  @Test func halvingBarsOfThreeKeepsEveryOtherDownbeat() throws {
    let map = try grid(12, meter: Meter(parsing: "3/4")!).halved(beats: 0...11)
    #expect(map.beats.map(\.frame) == [50, 250, 450, 650, 850, 1050])
    #expect(labels(map) == counted(6, n: 3))
  }

  @Test func halvingFromTheMiddleOfABarKeepsItsDownbeat() throws {
    // From 1.3: 1.3 kept, 1.4 out, 2.1 kept …: bar 1 is 1.1 1.2 1.3 2.1.
    let map = try grid(32).halved(beats: 2...13)
    #expect(map.beats.prefix(9).map(\.frame) == [50, 150, 250, 450, 650, 850, 1050, 1250, 1450])
    // Twelve beats halved leave six: a bar of two before old bar 5.
    #expect(Array(labels(map).prefix(11)) == counted(8) + ["3.1", "3.2", "4.1"])
    #expect(map.frames(ofBar: 4)?.lowerBound == 1650)
  }

  @Test func halvingAPickupCountsFromBarOne() throws {
    // 0.2 0.3 0.4, then bar 1 at 350: 1.1 kept, so 0.3 is kept and 0.2, 0.4 go.
    let map = try grid(35, bar1: 4).halved(beats: 0...34)
    #expect(map.beats.prefix(3).map(\.frame) == [150, 350, 550])
    #expect(labels(map).prefix(3) == ["0.4", "1.1", "1.2"])
  }

  @Test func halvingOneBeatOrDownToOneBeatIsRefused() throws {
    #expect(throws: PracticeError.self) { try grid(8).halved(beats: 3...3) }
    #expect(throws: PracticeError.self) { try grid(2).halved(beats: 0...1) }
    #expect(throws: PracticeError.self) { try grid(8).halved(beats: 6...8) }
    #expect(throws: PracticeError.self) { try grid(8).doubled(beats: 8...9) }
  }

  // MARK: Downbeat

  @Test func aDownbeatMovesEveryBarLineAndMakesAPickup() throws {
    let old = try grid(32)
    let map = try #require(try old.withDownbeat(atBeat: 2))
    #expect(map.beats.map(\.frame) == old.beats.map(\.frame))
    // 1.1 1.2 become the pickup 0.3 0.4; the last bar has two beats.
    #expect(labels(map) == counted(32, pickup: 2))
    #expect(map.frames(ofBar: 1)?.lowerBound == 250)
    #expect(map.barsDescription == "bars 0-8 (0 is the pickup)")
    let one = try #require(try old.withDownbeat(atBeat: 5))
    #expect(labels(one) == counted(32, pickup: 1))
    #expect(try old.withDownbeat(atBeat: 4) == nil)
  }

  @Test func aDownbeatInThePickupCanEndThePickup() throws {
    // One beat of pickup (0.4 at 50): it becomes bar 1's downbeat.
    let old = try grid(33, bar1: 2)
    let map = try #require(try old.withDownbeat(atBeat: 0))
    #expect(labels(map) == counted(33))
    // Two beats of pickup; the second is the downbeat: a one-beat pickup.
    let two = try #require(try grid(34, bar1: 3).withDownbeat(atBeat: 1))
    #expect(labels(two) == counted(34, pickup: 1))
  }

  @Test func aDownbeatKeepsTheBarLengthsOfAMeterChange() throws {
    // Bars 1-2 of 4, bar 3 of 2, then 4: every line one beat later.
    let old = try grid(16).rebarred(meter: Meter(parsing: "2/4")!, fromBar: 3, bar1: nil)
      .rebarred(meter: .common, fromBar: 4, bar1: nil)
    #expect(old.bars.map(\.beatIndices.count) == [4, 4, 2, 4, 2])
    let map = try #require(try old.withDownbeat(atBeat: 1))
    #expect(map.bars.map(\.beatIndices.count) == [1, 4, 4, 2, 4, 1])
    #expect(map.firstBar == 0)
  }

  // MARK: A tapped span

  func tapped(_ frames: [Int64], downbeats: [Bool]? = nil) throws -> BeatMap {
    let placement = TappedBeats.placeBars(
      downbeats: downbeats ?? Array(repeating: false, count: frames.count), meter: nil)
    return try BeatMap(
      beats: zip(frames, placement.labels).map {
        Beat(frame: $0, bar: $1.bar, beat: $1.beat, source: .tapped)
      }, totalFrames: 100_000, sampleRate: 1000)
  }

  @Test func aTappedSpanReplacesOnlyItsBeatsAndTheCountGoesOn() throws {
    let old = try grid(32)
    // Eight taps 20 frames before old beats 12-19 (bars 4-5).
    let taps = try tapped(frames(from: 1230, step: 100, count: 8))
    let map = try old.replacingSpan(withTapped: taps, downbeatsTapped: false, meter: nil)
    #expect(
      map.beats.map(\.frame)
        == frames(from: 50, step: 100, count: 12) + frames(from: 1230, step: 100, count: 8)
        + frames(from: 2050, step: 100, count: 12))
    #expect(labels(map) == counted(32))
    #expect(map.beats[12].source == .tapped && map.beats[0].source == .grid)
  }

  @Test func aTappedSpanWithDownbeatsTakesItsBarsFromThem() throws {
    let old = try grid(32)
    // Downbeats tapped on the second and sixth taps: bar lines there.
    var marks = Array(repeating: false, count: 8)
    marks[1] = true
    marks[5] = true
    let taps = try tapped(frames(from: 1230, step: 100, count: 8), downbeats: marks)
    let map = try old.replacingSpan(withTapped: taps, downbeatsTapped: true, meter: nil)
    #expect(map.beats.count == 32)
    // Bar 3 runs from 850 to the first downbeat tap (1330): five beats; then 4, then 3, then
    // old bar 6 at 2050 as bar 6.
    #expect(map.bars.map(\.beatIndices.count) == [4, 4, 5, 4, 3, 4, 4, 4])
    #expect(map.frames(ofBar: 4)?.lowerBound == 1330)
    #expect(map.frames(ofBar: 6)?.lowerBound == 2050)
  }

  @Test func aTappedSpanAtTheStartCountsBackFromTheBarAfter() throws {
    let old = try grid(32)
    // Taps over the first six beats and a little before: the old beats up to 600 go.
    let taps = try tapped(frames(from: 40, step: 100, count: 6))
    let map = try old.replacingSpan(withTapped: taps, downbeatsTapped: false, meter: nil)
    // Old beats from 650 (2.3) on are kept; bar lines back from old bar 3 (850).
    #expect(
      map.beats.map(\.frame) == frames(from: 40, step: 100, count: 6)
        + frames(from: 650, step: 100, count: 26))
    #expect(labels(map) == counted(32))
  }

  /// A tapped span in a song in 3/4, no meter given: the count goes on in the bars around it.
  @Test func aTappedSpanCountsOnInTheBarsAroundIt() throws {
    let old = try grid(24, meter: Meter(parsing: "3/4")!)
    // Six taps 20 frames before old beats 9-14 (bars 4-5).
    let taps = try tapped(frames(from: 930, step: 100, count: 6))
    let map = try old.replacingSpan(withTapped: taps, downbeatsTapped: false, meter: nil)
    #expect(labels(map) == counted(24, n: 3))
  }

  // MARK: Finding beats

  /// Half-way between two beats, the earlier is the nearest.
  @Test func theNearestOfTwoBeatsAsNearIsTheEarlier() throws {
    let map = try grid(8)
    #expect(map.nearestBeat(to: 100) == 0)
    #expect(map.nearestBeat(to: 101) == 1)
    #expect(map.nearestBeat(to: 0) == 0)
  }

  /// `beats downbeat TIME` takes a time within `within` of a beat-length of a beat; farther,
  /// it names no beat and is refused.
  @Test func aDownbeatTimeFarFromAnyBeatIsRefused() throws {
    let map = try grid(16)
    // 20 frames after beat 2 (150): a fifth of a beat.
    #expect(try BeatMapFix.downbeat(near: 170, within: 0.25).applied(to: map)?.frame(bar: 1) == 150)
    // 40 frames after it: 0.4 of a beat.
    let error = try #require(throws: PracticeError.self) {
      try BeatMapFix.downbeat(near: 190, within: 0.25).applied(to: map)
    }
    #expect(error.category == .usage)
  }

  // MARK: Renaming bars

  @Test func rangesFollowARecountOnTheirMusic() throws {
    let old = try grid(32)
    let doubled = try old.doubled(beats: old.beatIndices(of: BarRange(parsing: "3-4")!))
    func follow(_ text: String, _ map: BeatMap) -> String? {
      BarRange(parsing: text)!.following(from: old, to: map, kind: .recounted)?.description
    }
    #expect(follow("5-6", doubled) == "7-8")
    #expect(follow("3-4", doubled) == "3-6")
    #expect(follow("1-2", doubled) == nil)
    #expect(follow("2.3-3.2", doubled) == "2.3-3.4")
    #expect(follow("4", doubled) == "5-6")
    #expect(BarRange(parsing: "5-6")!.following(from: old, to: doubled, kind: .moved) == nil)
    let shifted = try #require(try old.withDownbeat(atBeat: 2))
    // Bars 3-4 start on 3.1, which is 2.3 now; they end on the last beat of 4, now 4.2.
    #expect(follow("3-4", shifted) == "2.3-4.2")
    #expect(follow("3.3-4.2", shifted) == "3")
    #expect(follow("2.3-3.2", shifted) == "2")
    let halved = try old.halved(beats: 0...31)
    #expect(follow("3-4", halved) == "2")
    #expect(follow("8", halved) == "4.3-4.4")
  }
}

/// The history of a song's maps: every change keeps the one before, `undo` brings it back,
/// and selections and the resume point follow both ways.
@Suite struct BeatMapHistoryTests {
  let dir = TemporaryDirectory()

  func setUp() throws -> (Library, Song) {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = dir.file("song.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 20), to: path)
    let song = try library.add([SongScanner.scan(path)])[0]
    return (library, song)
  }

  func grid(_ song: Song) throws -> BeatMap {
    // 120 BPM at 44.1 kHz from 0.5 s: 22050 frames a beat.
    let count = 36
    return try BeatMap.placing(
      frames: (0..<count).map { 22050 + Int64($0) * 22050 },
      beatsInBar: Array(repeating: nil, count: count), meter: .common, bar1: 1, source: .grid,
      totalFrames: song.frames, sampleRate: song.sampleRate)
  }

  @Test func undoBringsBackEachEarlierMapExactly() throws {
    let (library, song) = try setUp()
    let first = try grid(song)
    try library.replaceBeatMap(
      for: song, with: first, change: BeatMapChange(.replaced, "beats grid"))
    let doubled = try first.doubled(beats: 0...7)
    try library.storeBeatMap(doubled, for: song, change: BeatMapChange(.recounted, "beats double"))
    #expect(try library.beatMap(for: song) == doubled)
    #expect(try library.beatMapHistoryCount(for: song) == 2)
    let undone = try library.undoBeatMapChange(for: song)
    #expect(undone.change == BeatMapChange(.recounted, "beats double"))
    #expect(undone.restored == first)
    #expect(try library.beatMap(for: song) == first)
    // Before the grid the song had no map: undo takes it away.
    let none = try library.undoBeatMapChange(for: song)
    #expect(none.restored == nil && none.remaining == 0)
    #expect(try library.beatMap(for: song) == nil)
    #expect(throws: PracticeError.self) { try library.undoBeatMapChange(for: song) }
  }

  @Test func theHistoryKeepsTenMaps() throws {
    let (library, song) = try setUp()
    var map = try grid(song)
    try library.replaceBeatMap(for: song, with: map)
    for _ in 0..<12 {
      map = try map.shifted(byFrames: 10)
      try library.storeBeatMap(map, for: song, change: BeatMapChange(.moved, "beats shift"))
    }
    #expect(try library.beatMapHistoryCount(for: song) == Library.beatMapHistoryDepth)
    for _ in 0..<10 { _ = try library.undoBeatMapChange(for: song) }
    // Ten back from 12 shifts: 2 shifts of 10 frames.
    #expect(try library.beatMap(for: song)?.beats[0].frame == 22050 + 20)
    #expect(throws: PracticeError.self) { try library.undoBeatMapChange(for: song) }
  }

  @Test func selectionsKeepTheirMusicThroughARecountAndItsUndo() throws {
    let (library, song) = try setUp()
    let first = try grid(song)
    try library.replaceBeatMap(for: song, with: first)
    _ = try library.addSelection(
      to: song, name: "solo", span: .bars(BarRange(parsing: "5-6")!), note: nil, replace: false)
    _ = try library.addSelection(
      to: song, name: "intro", span: .bars(BarRange(parsing: "1")!), note: nil, replace: false)
    _ = try library.addSelection(
      to: song, name: "times", span: .frames(1000..<90000), note: nil, replace: false)
    let soloFrames = try first.frames(of: BarRange(parsing: "5-6")!)
    try library.remember(
      ResumePoint(
        songID: song.id!, frame: soloFrames.lowerBound + 5, range: soloFrames, label: "bars 5-6",
        bars: "5-6", selectionName: nil, passesLeft: nil, speed: .normal, transpose: 0,
        volume: .unity, finished: false, stoppedAt: Date()))
    let doubled = try first.doubled(beats: first.beatIndices(of: BarRange(parsing: "2-3")!))
    let stored = try library.storeBeatMap(
      doubled, for: song, change: BeatMapChange(.recounted, "beats double"))
    #expect(
      stored.followed == [
        BarsFollowed(
          owner: .selection("solo"), old: BarRange(parsing: "5-6")!, new: BarRange(parsing: "7-8")!),
        BarsFollowed(
          owner: .resumePoint, old: BarRange(parsing: "5-6")!, new: BarRange(parsing: "7-8")!),
      ])
    let solo = try library.selection(named: "solo", of: song)
    #expect(solo.span == .bars(BarRange(parsing: "7-8")!))
    #expect(try solo.span.frames(beatMap: doubled) == soloFrames)
    let point = try #require(try library.resumePoint(of: song))
    #expect(point.bars == "7-8" && point.label == "bars 7-8" && point.range == soloFrames)
    // Undo renames them back.
    let undone = try library.undoBeatMapChange(for: song)
    #expect(undone.followed.map(\.new) == [BarRange(parsing: "5-6")!, BarRange(parsing: "5-6")!])
    #expect(try library.selection(named: "solo", of: song).span == .bars(BarRange(parsing: "5-6")!))
    #expect(try library.selection(named: "times", of: song).span == .frames(1000..<90000))
  }

  @Test func aMoveTakesTheResumePointWithItsBars() throws {
    let (library, song) = try setUp()
    let first = try grid(song)
    try library.replaceBeatMap(for: song, with: first)
    let range = try first.frames(of: BarRange(parsing: "2")!)
    try library.remember(
      ResumePoint(
        songID: song.id!, frame: range.lowerBound + 100, range: range, label: "bar 2",
        bars: "2", selectionName: nil, passesLeft: nil, speed: .normal, transpose: 0,
        volume: .unity, finished: false, stoppedAt: Date()))
    let stored = try library.storeBeatMap(
      try first.shifted(byFrames: 441), for: song, change: BeatMapChange(.moved, "beats shift"))
    #expect(stored.followed.isEmpty)
    let point = try #require(try library.resumePoint(of: song))
    #expect(point.range == (range.lowerBound + 441)..<(range.upperBound + 441))
    #expect(point.frame == range.lowerBound + 541)
  }
}
