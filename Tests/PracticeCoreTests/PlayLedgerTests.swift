import Foundation
import Testing

@testable import PracticeCore

/// The log rows of a play whose part was switched at the keyboard: passes belong to the
/// part they ended in (issue 46, scenario 2).
@Suite struct PlayLedgerTests {
  let start = Date(timeIntervalSince1970: 1_800_000_000)
  let solo = Selection(
    id: 7, songID: 1, name: "solo", span: .frames(300_000..<400_000), note: nil, createdAt: "",
    updatedAt: "")

  func record(_ pass: Int, _ mark: PassMark? = nil) -> PassRecord {
    PassRecord(pass: pass, speed: .normal, mark: mark)
  }

  @Test func passesBelongToThePartTheyEndedIn() {
    var ledger = PlayLedger(
      songID: 1, part: PlayedPart(range: 0..<100_000, bars: "17-24"), transpose: 0, started: start)
    // Pass 1 ended in bars 17-24; pass 2 was playing when `3` switched to the solo.
    ledger.switchTo(
      PlayedPart(range: 300_000..<400_000, selection: solo), pass: 2, written: 100_000,
      transpose: -1, at: start.addingTimeInterval(10))
    #expect(ledger.currentFirstPass == 2)
    let rows = ledger.entries(
      records: [record(1), record(2, .flubbed), record(3, .clean)], completed: 3,
      outcome: .completed, heard: 8, written: 400_000, sampleRate: 44100,
      speeds: (.normal, .normal), transpose: 2, ended: start.addingTimeInterval(40))
    try? #require(rows.count == 2)
    #expect(rows[0].bars == "17-24" && rows[0].selectionName == nil && rows[0].passes == 1)
    #expect(rows[0].passRecords == [record(1)] && rows[0].outcome == .stopped)
    #expect(rows[0].duration == 2 && rows[0].transpose == -1)
    #expect(rows[0].endedAt == start.addingTimeInterval(10))
    #expect(rows[1].selectionName == "solo" && rows[1].selectionID == 7 && rows[1].passes == 2)
    #expect(rows[1].passRecords == [record(2, .flubbed), record(3, .clean)])
    #expect(rows[1].duration == 6 && rows[1].outcome == .completed && rows[1].transpose == 2)
    #expect(rows[1].range == 300_000..<400_000)
  }

  /// A pass stopped part-way is counted when it was marked (the musician judged it), and
  /// not otherwise.
  @Test func aMarkedPassStoppedPartWayIsCounted() {
    var ledger = PlayLedger(
      songID: 1, part: PlayedPart(range: 0..<100_000, bars: "17-24"), transpose: 0, started: start)
    ledger.switchTo(
      PlayedPart(range: 300_000..<400_000, selection: solo), pass: 2, written: 100_000,
      transpose: 0, at: start.addingTimeInterval(10))
    let rows = ledger.entries(
      records: [record(1), record(2, .clean), record(3, .flubbed)], completed: 2,
      outcome: .stopped, heard: 8, written: 350_000, sampleRate: 44100,
      speeds: (.normal, .normal), transpose: 0, ended: start.addingTimeInterval(40))
    #expect(rows.map(\.passes) == [1, 2])
    #expect(rows.last?.passRecords == [record(2, .clean), record(3, .flubbed)])
    // Unmarked, pass 3 was only begun: not counted, not logged.
    let unmarked = PlayLedger(
      songID: 1, part: PlayedPart(range: 0..<100_000, bars: "17-24"), transpose: 0, started: start
    ).entries(
      records: [record(1), record(2, .clean)], completed: 2, outcome: .stopped, heard: 8,
      written: 250_000, sampleRate: 44100, speeds: (.normal, .normal), transpose: 0)
    #expect(unmarked.map(\.passes) == [2])
    // A single part stopped in its first pass after `g`: one pass, clean.
    let one = PlayLedger(
      songID: 1, part: PlayedPart(range: 0..<100_000, bars: "17-24"), transpose: 0, started: start
    ).entries(
      records: [record(1, .clean)], completed: 0, outcome: .stopped, heard: 1,
      written: 40_000, sampleRate: 44100, speeds: (.normal, .normal), transpose: 0)
    #expect(one.map(\.passes) == [1])
  }

  @Test func aPartLeftBeforeAnyPassEndedGivesItsTimeToTheNext() {
    var ledger = PlayLedger(
      songID: 1, part: PlayedPart(range: 0..<100_000, bars: "17-24"), transpose: 0, started: start)
    // `3` during pass 1, then `l` (a bar loop) while pass 1 still plays: one row, the bar's.
    ledger.switchTo(PlayedPart(range: 300_000..<400_000, selection: solo), pass: 1, written: 50_000, transpose: 0)
    ledger.switchTo(PlayedPart(range: 300_000..<344_100, bars: "9"), pass: 1, written: 60_000, transpose: 0)
    let rows = ledger.entries(
      records: [record(1, .clean)], completed: 1, outcome: .stopped, heard: 3, written: 90_000,
      sampleRate: 44100, speeds: (.normal, .normal), transpose: 0)
    #expect(rows.count == 1)
    #expect(rows.first?.bars == "9" && rows.first?.selectionName == nil)
    #expect(rows.first?.duration == 3 && rows.first?.startedAt == start && rows.first?.passes == 1)
  }
}
