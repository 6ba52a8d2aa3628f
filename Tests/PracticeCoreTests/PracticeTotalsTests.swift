import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// `Library.practiceTotals(of:since:)`, what `stats` prints: a temporary library of two
/// songs with logged plays and marked passes, summed per song and selection, for one song or
/// all, whole or from `since` on (a play started at `since` is in, one a second before is out).
@Suite struct PracticeTotalsTests {
  let dir = TemporaryDirectory()
  /// A whole second, as the log stores its times.
  let since = Date(timeIntervalSince1970: 1_800_000_000)

  /// Songs `a` and `b`, and their plays: `a` whole an hour before `since`, its selection
  /// `Riff` a second before `since` (named `riff`) and at `since`; `b` a minute after.
  func library() throws -> (library: Library, a: Song, b: Song) {
    let library = try Library(path: dir.file("lib.sqlite"))
    var songs: [Song] = []
    for name in ["a", "b"] {
      let path = dir.file("\(name).wav")
      try Synth.write(Synth.sine(frequency: 440, seconds: 2), to: path)
      songs.append(try library.resolve(path))
    }
    let (a, b) = (songs[0], songs[1])
    let riff = try library.addSelection(
      to: a, name: "Riff", span: .frames(0..<44100), note: nil, replace: false)
    func play(
      _ song: Song, _ selection: Selection?, name: String?, at offset: TimeInterval,
      seconds: Double, transpose: Double? = nil, _ marks: [(Double, PassMark?)]
    ) throws {
      let started = since.addingTimeInterval(offset)
      let speeds = marks.map { Speed(clamping: $0.0) }
      var entry = PracticeEntry(
        songID: song.id!, selectionID: selection?.id, selectionName: name, bars: nil,
        range: 0..<44100, slowest: speeds.min { $0.rate < $1.rate } ?? .normal,
        fastest: speeds.max { $0.rate < $1.rate } ?? .normal, passes: marks.count,
        startedAt: started, endedAt: started.addingTimeInterval(seconds), duration: seconds,
        outcome: .completed)
      entry.transpose = transpose
      entry.passRecords = marks.enumerated().map {
        PassRecord(pass: $0.offset + 1, speed: Speed(clamping: $0.element.0), mark: $0.element.1)
      }
      try library.log(entry)
    }
    try play(a, nil, name: nil, at: -3600, seconds: 20, [(0.8, .clean), (0.9, .flubbed)])
    try play(a, riff, name: "riff", at: -1, seconds: 5, [(1.2, .clean)])
    try play(
      a, riff, name: "Riff", at: 0, seconds: 10, transpose: -2,
      [(1.0, .clean), (1.1, .clean), (1.5, nil)])
    try play(b, nil, name: nil, at: 60, seconds: 7, [(1.0, .flubbed)])
    return (library, a, b)
  }

  @Test func oneSongsTotalsPerSelectionWithTheCleanCounts() throws {
    let (library, a, _) = try library()
    let totals = try library.practiceTotals(of: a, since: nil)
    // The song's own plays first, then its selections; `riff` and `Riff` are one.
    try #require(totals.count == 2)
    #expect(totals[0].selectionName == nil && totals[1].selectionName?.lowercased() == "riff")
    let whole = totals[0]
    #expect(whole.songID == a.id && whole.plays == 1 && whole.passes == 2 && whole.seconds == 20)
    #expect(whole.cleanPasses == 1 && whole.flubbedPasses == 1 && whole.cleanRatio == 0.5)
    #expect(whole.cleanSpeed == Speed(clamping: 0.8) && whole.fastest == Speed(clamping: 0.9))
    let riff = totals[1]
    #expect(riff.plays == 2 && riff.passes == 4 && riff.seconds == 15)
    // The unmarked pass at 150 % counts as played, not as clean.
    #expect(riff.cleanPasses == 3 && riff.flubbedPasses == 0 && riff.cleanRatio == 1)
    #expect(riff.cleanSpeed == Speed(clamping: 1.2) && riff.fastest == Speed(clamping: 1.5))
    #expect(riff.transposes == [-2])
    #expect(riff.lastPlayed == since)
  }

  @Test func sinceCutsAtItsSecond() throws {
    let (library, a, b) = try library()
    // At `since`: the play started then is in, the one a second before is out.
    let fromSince = try library.practiceTotals(of: a, since: since)
    try #require(fromSince.count == 1)
    #expect(fromSince[0].plays == 1 && fromSince[0].passes == 3 && fromSince[0].seconds == 10)
    #expect(fromSince[0].cleanPasses == 2 && fromSince[0].cleanSpeed == Speed(clamping: 1.1))
    // A second earlier takes that play in too.
    let earlier = try library.practiceTotals(of: a, since: since.addingTimeInterval(-1))
    #expect(earlier.map(\.plays) == [2] && earlier.first?.cleanSpeed == Speed(clamping: 1.2))
    // A second later leaves song a out altogether.
    #expect(try library.practiceTotals(of: a, since: since.addingTimeInterval(1)).isEmpty)
    // Song b alone, and every song.
    let onlyB = try library.practiceTotals(of: b, since: since)
    #expect(onlyB.map(\.songID) == [b.id!])
    #expect(onlyB.first?.cleanPasses == 0 && onlyB.first?.flubbedPasses == 1)
    #expect(onlyB.first?.cleanSpeed == nil && onlyB.first?.cleanRatio == 0)
    let all = try library.practiceTotals(of: nil, since: since)
    #expect(all.map(\.songID) == [a.id!, b.id!])
    #expect(try library.practiceTotals(of: nil, since: nil).count == 3)
    #expect(try library.practiceTotals(of: b, since: since.addingTimeInterval(61)).isEmpty)
  }
}
