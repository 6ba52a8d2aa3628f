import Testing

@testable import PracticeCore

@Suite struct BarRangeTests {
  @Test(arguments: [
    ("9-16", BarRange(start: .init(bar: 9), end: .init(bar: 16))),
    ("9", BarRange(start: .init(bar: 9), end: .init(bar: 9))),
    ("9.3-12.2", BarRange(start: .init(bar: 9, beat: 3), end: .init(bar: 12, beat: 2))),
    ("0-1", BarRange(start: .init(bar: 0), end: .init(bar: 1))),
  ])
  func parses(text: String, range: BarRange) {
    #expect(BarRange(parsing: text) == range)
    #expect(BarRange(parsing: text)?.description == text)
  }

  @Test(arguments: [
    "", "-", "9-", "-9", "a-b", "9.0", "9..3", "9-16-20", "9.3.1", " 9", "1e2", "-1-3",
  ])
  func rejects(text: String) {
    #expect(BarRange(parsing: text) == nil)
  }

  /// `69-` runs through the last bar; one past the song stays one bar (its error names
  /// that bar alone, not a range that ends before it starts).
  @Test func anOpenRangeClosesAtTheLastBar() {
    let open = BarRangeText(parsing: "5-")
    #expect(open?.end == nil && open?.description == "5-")
    #expect(open?.closed(lastBar: 8) == BarRange(parsing: "5-8"))
    #expect(BarRangeText(parsing: "69-")?.closed(lastBar: 40) == BarRange(parsing: "69"))
    #expect(BarRangeText(parsing: "2.3-")?.closed(lastBar: 8) == BarRange(parsing: "2.3-8"))
  }

  /// The highest bar number accepted is `maximumBar` itself.
  @Test func acceptsBarsUpToTheMaximum() {
    let top = BarPosition.maximumBar
    #expect(BarRange(parsing: "\(top)")?.start.bar == top)
    #expect(BarRange(parsing: "1.\(top)")?.start.beat == top)
    #expect(BarRange(parsing: "\(top + 1)") == nil)
  }
}

@Suite struct MeterTests {
  @Test func parses() {
    #expect(Meter(parsing: "3/4")?.beats == 3)
    #expect(Meter(parsing: "6/8")?.unit == 8)
    // The ends of the range: a bar of one beat, and of 32.
    #expect(Meter(parsing: "1/4")?.beats == 1)
    #expect(Meter(parsing: "32/32")?.beats == 32)
    for bad in ["4", "0/4", "4/3", "4/0", "x/4", "33/4", "4/4/4", ""] {
      #expect(Meter(parsing: bad) == nil, "\(bad)")
    }
  }
}

@Suite struct BeatMapTests {
  /// 100 frames per beat, first beat at frame 50.
  func grid(_ count: Int, meter: Meter = .common, bar1: Int = 1, total: Int64 = 100_000) throws
    -> BeatMap
  {
    try BeatMap.placing(
      frames: (0..<count).map { 50 + Int64($0) * 100 },
      beatsInBar: Array(repeating: nil, count: count),
      meter: meter, bar1: bar1, source: .grid, totalFrames: total, sampleRate: 1000)
  }

  @Test func barsStartAtTheirDownbeatsExactly() throws {
    let map = try grid(32)
    #expect(map.firstBar == 1 && map.lastBar == 8)
    #expect(try map.frames(of: BarRange(parsing: "2-3")!) == 450..<1250)
    #expect(try map.frames(of: BarRange(parsing: "1")!) == 50..<450)
    #expect(try map.frames(of: BarRange(parsing: "2.3-3.2")!) == 650..<1050)
    #expect(map.tempo(ofBar: 1) == 600)  // 100 frames per beat at 1 kHz
  }

  @Test func theLastBarEndsOneBeatAfterItsLastBeatCappedAtTheAudio() throws {
    #expect(try grid(32).frames(ofBar: 8) == 2850..<3250)
    #expect(try grid(32, total: 3200).frames(ofBar: 8) == 2850..<3200)
  }

  /// `play`'s `,` `.` ← →: steps land on beats and bar starts, held to the map, and from
  /// before the first beat the first step on is the first beat or bar.
  @Test func stepsByBeatsAndBarsLandOnTheMap() throws {
    let map = try grid(32)  // beats at 50, 150, ... 3150; bar 2 starts at 450
    #expect(map.frame(steppingBars: 1, from: 0) == 50)
    #expect(map.frame(steppingBars: 3, from: 0) == 850)
    #expect(map.frame(steppingBars: -1, from: 30) == 0)
    #expect(map.frame(steppingBars: 1, from: 700) == 850)
    #expect(map.frame(steppingBars: -1, from: 700) == 50)
    #expect(map.frame(steppingBars: -5, from: 700) == 50)
    #expect(map.frame(steppingBars: 20, from: 700) == 2850)
    #expect(map.frame(steppingBeats: 1, from: 0) == 50)
    #expect(map.frame(steppingBeats: 2, from: 49) == 150)
    #expect(map.frame(steppingBeats: -1, from: 49) == 0)
    #expect(map.frame(steppingBeats: -1, from: 50) == 50)
    #expect(map.frame(steppingBeats: -2, from: 449) == 150)
    #expect(map.frame(steppingBeats: 3, from: 3100) == 3150)
    // A pickup: one bar back from bar 1 is the pickup's first beat (bar 0, beat 4).
    let pickup = try grid(33, bar1: 2)
    #expect(pickup.frame(steppingBars: -1, from: 200) == 50)
    #expect(pickup.frame(steppingBars: 1, from: 0) == 50)
    #expect(pickup.frame(steppingBars: 2, from: 0) == 150)
  }

  /// Beat 1 may be written (`2.1`), and a pickup's first beat is addressed by its own
  /// number (`0.4`), not by 1.
  @Test func beatsAreAddressedByTheirNumbers() throws {
    let map = try grid(32)
    #expect(try map.frames(of: BarRange(parsing: "2.1-3")!) == 450..<1250)
    #expect(try map.frames(of: BarRange(parsing: "2.1-2.1")!) == 450..<550)
    let pickup = try grid(33, bar1: 2)
    #expect(try pickup.frames(of: BarRange(parsing: "0.4-1")!) == 50..<550)
    #expect(throws: RangeError.self) { try pickup.frames(of: BarRange(parsing: "0.1-1")!) }
  }

  @Test func pickupBeatsFormBarZero() throws {
    let map = try grid(33, bar1: 2)
    #expect(map.firstBar == 0)
    #expect(map.beats[0].bar == 0 && map.beats[0].beat == 4)
    #expect(try map.frames(of: BarRange(parsing: "0")!) == 50..<150)
    #expect(try map.frames(of: BarRange(parsing: "1")!) == 150..<550)
    #expect(map.barsDescription == "bars 0-8 (0 is the pickup)")
  }

  @Test func outOfRangeBarsNameTheValidRange() throws {
    let map = try grid(32)
    for spec in ["0", "9", "40-48", "8-9", "3.5", "2-3.5"] {
      let range = try #require(BarRange(parsing: spec), "'\(spec)' must parse to reach the map")
      let error = try #require(throws: RangeError.self) { try map.frames(of: range) }
      #expect(error.category == .usage, "\(spec)")
    }
    // Beat 0 does not exist: refused when parsed, before any map is asked.
    #expect(BarRange(parsing: "2-3.0") == nil)
    let asked = BarRange(parsing: "40-48")!
    #expect(
      throws: RangeError.barNotInSong(bar: 40, range: BarRangeText(asked), bars: "bars 1-8")
    ) {
      try map.frames(of: asked)
    }
    // An open range is refused as it was asked for, not as the range it closes to.
    let open = BarRangeText(parsing: "9-")!
    #expect(throws: RangeError.barNotInSong(bar: 9, range: open, bars: "bars 1-8")) {
      try map.frames(of: open)
    }
    let openBeat = BarRangeText(parsing: "8.5-")!
    #expect(throws: RangeError.beatNotInBar(bar: 8, beats: 1...4, range: openBeat)) {
      try map.frames(of: openBeat)
    }
    let backwards = BarRange(parsing: "5-4")!
    #expect(throws: RangeError.endsBeforeStart(backwards)) { try map.frames(of: backwards) }
  }

  @Test func numberedBeatsPlaceBarsAndMeterChanges() throws {
    // A pickup of two beats (3, 4), two bars of 4/4, then a bar of 3/4.
    let numbers: [Int?] = [3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3]
    let map = try BeatMap.placing(
      frames: (0..<13).map { Int64($0) * 10 }, beatsInBar: numbers, meter: .common, bar1: 1,
      source: .imported, totalFrames: 1000, sampleRate: 100)
    #expect(map.bars.map(\.number) == [0, 1, 2, 3])
    #expect(map.bars.map { $0.beatIndices.count } == [2, 4, 4, 3])
    #expect(map.beats[0].beat == 3)
    #expect(try map.frames(of: BarRange(parsing: "3")!) == 100..<130)
  }

  @Test func inconsistentBeatsAreRejected() {
    #expect(throws: PracticeError.self) {
      try BeatMap(
        beats: [
          Beat(frame: 10, bar: 1, beat: 1, source: .grid),
          Beat(frame: 5, bar: 1, beat: 2, source: .grid),
        ], totalFrames: 100, sampleRate: 10)
    }
    #expect(throws: PracticeError.self) {
      try BeatMap(
        beats: [
          Beat(frame: 10, bar: 1, beat: 1, source: .grid),
          Beat(frame: 20, bar: 3, beat: 1, source: .grid),
        ], totalFrames: 100, sampleRate: 10)
    }
    #expect(throws: PracticeError.self) { try BeatMap(beats: [], totalFrames: 100, sampleRate: 10) }
    #expect(throws: BeatMapEditError.firstDownbeatPastBeats(bar1: 9, beats: 4)) {
      try self.grid(4, bar1: 9)
    }
  }
}

@Suite struct BeatMapEditTests {
  func grid(_ count: Int) throws -> BeatMap {
    try BeatMap.placing(
      frames: (0..<count).map { 50 + Int64($0) * 100 },
      beatsInBar: Array(repeating: nil, count: count),
      meter: .common, bar1: 1, source: .grid, totalFrames: 10_000, sampleRate: 1000)
  }

  @Test func shiftMovesEveryBeatAndKeepsBars() throws {
    let map = try grid(16).shifted(byFrames: 25)
    #expect(map.frame(bar: 2) == 475)
    #expect(map.lastBar == 4)
    #expect(throws: PracticeError.self) { try self.grid(16).shifted(byFrames: -51) }
  }

  @Test func meterChangeFromABar() throws {
    // Bars 1-2 stay in 4/4; from bar 3 on, 3/4.
    let map = try grid(20).rebarred(meter: Meter(parsing: "3/4")!, fromBar: 3, bar1: nil)
    #expect(map.bars.map { $0.beatIndices.count } == [4, 4, 3, 3, 3, 3])
    #expect(map.frame(bar: 4) == Int64(1150))
    #expect(map.lastBar == 6)
  }

  /// `beats meter 3/4` without `--from` counts again from bar 1: a pickup stays bar 0.
  @Test func meterChangeKeepsThePickup() throws {
    let map = try BeatMap.placing(
      frames: (0..<13).map { 50 + Int64($0) * 100 }, beatsInBar: Array(repeating: nil, count: 13),
      meter: .common, bar1: 2, source: .grid, totalFrames: 10_000, sampleRate: 1000)
    let waltz = try map.rebarred(meter: Meter(parsing: "3/4")!, fromBar: nil, bar1: nil)
    #expect(waltz.firstBar == 0 && waltz.beats[0].beat == 4)
    #expect(waltz.bars.map { $0.beatIndices.count } == [1, 3, 3, 3, 3])
    #expect(waltz.frame(bar: 1) == 150)
  }

  /// A shift that puts a beat on the end of the audio (one frame past the last) is the
  /// player's to change (usage), not a broken map.
  @Test func shiftOntoTheEndIsRefusedAsUsage() throws {
    let map = try grid(16)  // last beat at 1550 of 10,000 frames
    let error = try #require(throws: PracticeError.self) {
      try map.shifted(byFrames: 10_000 - 1550)
    }
    #expect(error.category == .usage)
    #expect(try map.shifted(byFrames: 10_000 - 1551).beats.last?.frame == 9999)
  }

  @Test func bar1RecountsWithAPickup() throws {
    let map = try grid(13).rebarred(meter: .common, fromBar: nil, bar1: 2)
    #expect(map.firstBar == 0 && map.lastBar == 3)
    #expect(map.frame(bar: 1) == 150)
  }
}
