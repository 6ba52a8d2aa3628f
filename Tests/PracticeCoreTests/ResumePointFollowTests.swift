import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The resume point through a change of its song's map: one in a selection keeps the
/// selection's name through a recount (and is not told as renamed: the selection's own line
/// says where it went); one moved with its bars stays inside them where the audio ends.
@Suite struct ResumePointFollowTests {
  let dir = TemporaryDirectory()

  func setUp() throws -> (Library, Song) { try dir.libraryWithOneSong(seconds: 20) }

  /// 120 BPM at 44.1 kHz from 0.5 s, `count` beats in 4/4.
  func grid(_ song: Song, count: Int) throws -> BeatMap {
    try BeatMap.placing(
      frames: (0..<count).map { 22050 + Int64($0) * 22050 },
      beatsInBar: Array(repeating: nil, count: count), meter: .common, bar1: 1, source: .grid,
      totalFrames: song.frames, sampleRate: song.sampleRate)
  }

  func point(_ song: Song, frame: Int64, range: Range<Int64>, label: String, bars: String, selection: String?)
    -> ResumePoint
  {
    ResumePoint(
      songID: song.id!, frame: frame, range: range, label: label, bars: bars,
      selectionName: selection, passesLeft: nil, speed: .normal, transpose: 0, volume: .unity,
      finished: false, stoppedAt: Date())
  }

  @Test func aResumePointInASelectionKeepsItsNameThroughARecount() throws {
    let (library, song) = try setUp()
    let first = try grid(song, count: 36)
    try library.replaceBeatMap(for: song, with: first)
    _ = try library.addSelection(
      to: song, name: "solo", span: .bars(BarRange(parsing: "5-6")!), note: nil, replace: false)
    let frames = try first.frames(of: BarRange(parsing: "5-6")!)
    try library.remember(
      point(song, frame: frames.lowerBound + 5, range: frames, label: "solo", bars: "5-6", selection: "solo"))
    let doubled = try first.doubled(beats: first.beatIndices(of: BarRange(parsing: "2-3")!))
    let stored = try library.storeBeatMap(
      doubled, for: song, change: BeatMapChange(.recounted, "beats double"))
    #expect(stored.followed.map(\.owner) == [.selection("solo")])
    let resumed = try #require(try library.resumePoint(of: song))
    #expect(resumed.bars == "7-8" && resumed.label == "solo" && resumed.range == frames)
  }

  /// The last bar ends at the audio's end before and after a shift later: the point at its
  /// last frame stays on that frame, inside the bar, not on its end.
  @Test func aResumePointMovedWithTheLastBarStaysInsideIt() throws {
    let (library, song) = try setUp()
    let first = try grid(song, count: 39)
    let last = BarRange(parsing: "10")!
    let was = try first.frames(of: last)
    try #require(was.upperBound == song.frames)
    try library.replaceBeatMap(for: song, with: first)
    try library.remember(
      point(song, frame: was.upperBound - 1, range: was, label: "bar 10", bars: "10", selection: nil))
    try library.storeBeatMap(
      try first.shifted(byFrames: 441), for: song, change: BeatMapChange(.moved, "beats shift"))
    let resumed = try #require(try library.resumePoint(of: song))
    #expect(resumed.range == (was.lowerBound + 441)..<song.frames)
    #expect(resumed.frame == song.frames - 1)
  }
}
