import Testing

@testable import PracticeCore

/// A setlist's entries become play requests directly, and the runner keeps the place.
@Suite struct SetlistRunnerTests {
  let setlist = Setlist(
    id: 1, name: "gig", createdAt: "", updatedAt: "",
    entries: [
      SetlistEntry(songID: 1, selection: "solo", transpose: -2, speed: 0.8, repeats: 3),
      SetlistEntry(songID: 2),
      SetlistEntry(songID: 3),
    ])

  @Test func anEntryIsARequest() throws {
    let runner = try SetlistRunner(setlist, countIn: 1)
    let request = runner.request(for: setlist.entries[0])
    #expect(request.part == .selection("solo"))
    #expect(
      request.settings
        == PracticeSettings(
          speed: Speed(parsing: "80%"), countIn: 1, transpose: -2, passes: .count(3)))
    let whole = runner.request(for: setlist.entries[1])
    #expect(whole.part == .times(from: nil, to: nil) && !whole.givesPart)
    #expect(whole.settings == PracticeSettings(countIn: 1))
  }

  /// `setlist add` says the entry it stored on one line: what it changes for the song.
  @Test func anEntrySaysWhatItChanges() throws {
    #expect(
      setlist.entries[0].summary(title: "Blue")
        == "'Blue' (selection 'solo', -2 semitones, 80%, 3 times)")
    #expect(setlist.entries[1].summary(title: "Red") == "'Red'")
    let inKey = SetlistEntry(
      songID: 4, key: try #require(MusicalKey(parsing: "Bm")), transpose: 2, repeats: 1)
    #expect(inKey.summary(title: "Green") == "'Green' (in Bm: +2 semitones, once)")
    #expect(SetlistEntry(songID: 5, transpose: 0).summary(title: "Z") == "'Z' (0 semitones)")
  }

  /// How a play ended moves the setlist on: stopped with no key ends it, a key's move is
  /// taken, audio cut short is a failure played all the same; the pause is due only after
  /// an entry that ran its course with entries left.
  @Test func aPlaysEndingMovesTheSetlist() throws {
    var runner = try SetlistRunner(setlist)
    var due: Bool
    due = runner.played(.completed, move: nil, cutShort: nil)
    #expect(due)
    #expect(runner.position == 2)
    due = runner.played(.stopped, move: .previous, cutShort: nil)
    #expect(!due)
    #expect(runner.position == 1)
    let cut = PracticeError(.badData, "its audio ends early")
    due = runner.played(.completed, move: nil, cutShort: cut)
    #expect(due)
    #expect(runner.position == 2 && runner.cutShort == [1] && runner.skipped.isEmpty)
    runner.failed(PracticeError(.missingInput, "gone"), move: nil)
    #expect(runner.skipped == [2] && runner.position == 3)
    // The last entry: nothing left to pause before.
    due = runner.played(.completed, move: nil, cutShort: nil)
    #expect(!due)
    #expect(runner.isDone && runner.played == 4)
    var stopped = try SetlistRunner(setlist)
    due = stopped.played(.stopped, move: nil, cutShort: nil)
    #expect(!due)
    #expect(stopped.isDone && stopped.played == 1)
  }

  @Test func movesFailuresAndRefusals() throws {
    var runner = try SetlistRunner(setlist, from: 2)
    #expect(runner.position == 2 && runner.current?.songID == 2)
    runner.played(move: .previous)
    #expect(runner.position == 1)
    runner.failed(PracticeError(.missingInput, "gone"), move: nil)
    #expect(runner.position == 2 && runner.failures.map(\.position) == [1])
    runner.played(move: nil)
    runner.afterPause(.previous)
    #expect(runner.position == 2 && runner.played == 2)
    runner.played(move: nil, despite: PracticeError(.badData, "cut short"))
    #expect(runner.position == 3 && runner.played == 3)
    #expect(runner.failures.map(\.position) == [1, 2] && runner.failures.map(\.played) == [false, true])
    runner.played(move: .quit)
    #expect(runner.isDone && runner.current == nil)
    #expect(throws: SetlistRunner.Refusal.noSuchPosition(4, entries: 3)) {
      try SetlistRunner(setlist, from: 4)
    }
    var empty = setlist
    empty.entries = []
    #expect(throws: SetlistRunner.Refusal.empty) { try SetlistRunner(empty) }
  }
}
