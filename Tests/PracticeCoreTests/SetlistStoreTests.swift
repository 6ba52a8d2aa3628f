import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// `setlist add --at`, `move`, `remove` and `rename` on a library's setlist: positions count
/// from 1 as `setlist show` numbers them, and a refused edit leaves the entries as they were.
@Suite struct SetlistStoreTests {
  let dir = TemporaryDirectory()

  /// A library with a setlist `Gig` and `count` songs (2 s of sine each), their ids in order.
  func library(songs count: Int) throws -> (Library, [Int64]) {
    let library = try Library(path: dir.file("lib.sqlite"))
    let ids = try (0..<count).map { n -> Int64 in
      let path = dir.file("s\(n).wav")
      try Synth.write(Synth.sine(frequency: 440, seconds: 2), to: path)
      return try #require(try library.resolve(path).id)
    }
    _ = try library.createSetlist(named: "Gig")
    return (library, ids)
  }

  func order(_ library: Library) throws -> [Int64] {
    try library.setlist(named: "gig").entries.map(\.songID)
  }

  @Test func anEntryGoesAtThePositionAskedAndPastTheEndIsAppended() throws {
    let (library, s) = try library(songs: 5)
    #expect(try library.addEntry(SetlistEntry(songID: s[0]), to: "gig", at: nil) == 1)
    #expect(try library.addEntry(SetlistEntry(songID: s[1]), to: "gig", at: nil) == 2)
    // At 1: first, the others one down.
    #expect(try library.addEntry(SetlistEntry(songID: s[2]), to: "gig", at: 1) == 1)
    #expect(try order(library) == [s[2], s[0], s[1]])
    // At 3 of 3: before the one that was third.
    #expect(try library.addEntry(SetlistEntry(songID: s[3]), to: "gig", at: 3) == 3)
    #expect(try order(library) == [s[2], s[0], s[3], s[1]])
    // At 9 of 4: appended, and the position it took is 5.
    #expect(try library.addEntry(SetlistEntry(songID: s[4]), to: "gig", at: 9) == 5)
    #expect(try order(library) == [s[2], s[0], s[3], s[1], s[4]])
    #expect(throws: RangeError.positionFromOne(0)) {
      try library.addEntry(SetlistEntry(songID: s[4]), to: "gig", at: 0)
    }
    #expect(try order(library) == [s[2], s[0], s[3], s[1], s[4]])
  }

  @Test func anEntryMovesToItsNewPlaceAndTheOthersCloseUp() throws {
    let (library, s) = try library(songs: 4)
    for id in s { try library.addEntry(SetlistEntry(songID: id), to: "gig", at: nil) }
    // 1 to 3: the first leaves, the second and third move up, it lands third.
    try library.moveEntry(of: "gig", from: 1, to: 3)
    #expect(try order(library) == [s[1], s[2], s[0], s[3]])
    // 4 to 1: the last comes first, the rest one down.
    try library.moveEntry(of: "gig", from: 4, to: 1)
    #expect(try order(library) == [s[3], s[1], s[2], s[0]])
    // 5 of 4, from or to, and 0: refused, nothing moved or removed.
    #expect(throws: PracticeError.self) { try library.moveEntry(of: "gig", from: 5, to: 1) }
    #expect(throws: PracticeError.self) { try library.moveEntry(of: "gig", from: 1, to: 5) }
    #expect(throws: PracticeError.self) { try library.removeEntry(of: "gig", at: 5) }
    #expect(throws: PracticeError.self) { try library.removeEntry(of: "gig", at: 0) }
    #expect(try order(library) == [s[3], s[1], s[2], s[0]])
    #expect(try library.removeEntry(of: "gig", at: 4).songID == s[0])
    #expect(try order(library) == [s[3], s[1], s[2]])
  }

  /// Names are one in any case: a setlist may be renamed to its own name in another case,
  /// not to another setlist's.
  @Test func aSetlistIsRenamedToItsOwnNameInAnotherCaseButNotToAnothers() throws {
    let (library, _) = try library(songs: 0)
    _ = try library.createSetlist(named: "Rehearsal")
    try library.renameSetlist("gig", to: "GIG")
    #expect(try library.setlists().map(\.name) == ["GIG", "Rehearsal"])
    #expect(throws: PracticeError.self) { try library.renameSetlist("gig", to: "rehearsal") }
    #expect(try library.setlists().map(\.name) == ["GIG", "Rehearsal"])
  }
}
