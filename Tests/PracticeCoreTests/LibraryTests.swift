import Foundation
import GRDB
import TestSupport
import Testing

@testable import PracticeCore

@Suite struct LibraryTests {
  let dir = TemporaryDirectory()

  /// The layout a library is checked against is built in memory by the migrations; when
  /// that fails (a broken migration, SQLite out of memory) opening a library is an error
  /// that says what to do, not a trap, and the library is left as it was.
  @Test func aReferenceLayoutThatCannotBeBuiltIsAnErrorNotATrap() throws {
    let broken: [(identifier: String, body: @Sendable (Database) throws -> Void)] = [
      ("v1-broken", { db in try db.execute(sql: "CREATE TABLE song (") })
    ]
    let failed = Result { () throws(DatabaseError) in try Migrations.referenceColumns(of: broken) }
    guard case .failure = failed else {
      Issue.record("a broken migration built a layout")
      return
    }
    let path = dir.file("empty.sqlite")
    let db = try DatabaseQueue(path: path)
    var caught: PracticeError?
    do {
      try db.writeWithoutTransaction { db in
        try db.inTransaction(.immediate) {
          try Migrations.bringUpToDate(db, path: path, reference: { failed })
          return .commit
        }
      }
    } catch let error as PracticeError {
      caught = error
    }
    #expect(caught?.category == .other)
    #expect(caught?.message.hasPrefix("cannot check the library '\(path)': ") == true, "\(String(describing: caught))")
    #expect(caught?.message.hasSuffix("reinstall practice") == true)
    let tables = try db.read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table'")
    }
    #expect(tables == 0)
  }

  func makeSong(_ name: String, seconds: Double = 0.5, frequency: Double = 440) throws -> String {
    let path = dir.file(name)
    try Synth.write(Synth.sine(frequency: frequency, seconds: seconds), to: path)
    return path
  }

  @Test func addsOnceAndRefreshesOnReAdd() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = try makeSong("a.wav")
    let first = try library.add([SongScanner.scan(path)])
    let again = try library.add([SongScanner.scan(path)])
    #expect(first[0].id == again[0].id)
    #expect(try library.songs().count == 1)
    #expect(first[0].title == "a")
    #expect(first[0].frames == 22050)
    #expect(first[0].contentHash.hasPrefix("fnv1a64s:"))
  }

  /// Adding files says which songs were already there unchanged: `add`'s tally.
  @Test func addingSaysWhatWasAlreadyThere() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let a = try makeSong("a.wav")
    let b = try makeSong("b.wav", frequency: 330)
    let first = try library.add(SongScanner.targets([a]), refuse: { _, failure in throw failure })
    #expect(first.addedCount == 1 && first.alreadyCount == 0)
    let both = try library.add(SongScanner.targets([a, b]), refuse: { _, failure in throw failure })
    #expect(both.songs.map(\.title) == ["a", "b"])
    #expect(both.alreadyCount == 1 && both.addedCount == 1)
    #expect(both.wasThere(both.songs[0]) && !both.wasThere(both.songs[1]))
    // A file changed since is read again: not "already there".
    try Synth.write(Synth.sine(frequency: 440, seconds: 0.8), to: a)
    let changed = try library.add(SongScanner.targets([a, b]), refuse: { _, failure in throw failure })
    #expect(!changed.wasThere(changed.songs[0]) && changed.wasThere(changed.songs[1]))
  }

  /// The fingerprint stored by earlier versions must come out the same, or moved songs are
  /// not found again: FNV-1a 64 over the size (8 bytes, little-endian), then the whole file,
  /// or for a file over 768 KiB, 256 KiB at the start, the middle and the end.
  @Test func theContentHashIsTheDocumentedFNV1a() throws {
    func reference(_ bytes: [UInt8]) -> String {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      func mix(_ byte: UInt8) {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01b3
      }
      withUnsafeBytes(of: Int64(bytes.count).littleEndian) { $0.forEach(mix) }
      let sample = 256 * 1024
      if bytes.count <= 3 * sample {
        bytes.forEach(mix)
      } else {
        let middle = bytes.count / 2 - sample / 2
        for start in [0, middle, bytes.count - sample] { bytes[start..<(start + sample)].forEach(mix) }
      }
      let hex = String(hash, radix: 16)
      return "fnv1a64s:" + String(repeating: "0", count: 16 - hex.count) + hex
    }
    var state: UInt32 = 1
    for size in [0, 1, 1000, 3 * 256 * 1024, 3 * 256 * 1024 + 1, 2_000_003] {
      let bytes = (0..<size).map { _ -> UInt8 in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
      }
      let path = dir.file("bytes-\(size)")
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      #expect(
        try SongScanner.contentHash(path, size: Int64(size)) == reference(bytes), "\(size) bytes")
    }
  }

  /// `stat` gives the modification time FileManager gave (what older libraries stored), so
  /// an unchanged file is not taken for a changed one.
  @Test func theModificationTimeIsFileManagers() throws {
    let path = try makeSong("t.wav")
    // Times with nanoseconds, which a Double cannot hold exactly.
    let stamps = [
      (1_700_000_000, 123_456_789), (1_750_123_456, 500), (1_234_567_890, 987_654_321),
      (1_764_115_200, 123_456_500), (1_600_000_000, 999_999_999), (1_764_115_200, 0),
    ]
    for (seconds, nanoseconds) in stamps {
      var times = [timespec](
        repeating: timespec(tv_sec: seconds, tv_nsec: nanoseconds), count: 2)
      #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
      let expected = try #require(attributes[.modificationDate] as? Date).timeIntervalSince1970
      let (size, modified) = try SongScanner.stat(path)
      #expect(modified == expected, "\(seconds).\(nanoseconds)")
      #expect(size == (attributes[.size] as? NSNumber)?.int64Value)
    }
  }

  @Test func resolvesPathIdAndTitle() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = try makeSong("Blue Bossa.wav")
    let byPath = try library.resolve(path)
    #expect(try library.resolve("\(byPath.id!)") == byPath)
    #expect(try library.resolve("blue bossa") == byPath)
    #expect(try library.songs().count == 1)
  }

  /// A whole title wins over titles that only hold it; a slip of a few characters is
  /// suggested, a title that only looks a little alike is not.
  @Test func wholeTitlesWinAndNearTitlesAreSuggested() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let intro = try library.resolve(try makeSong("Intro.wav"))
    let reprise = try library.resolve(try makeSong("Intro Reprise.wav", frequency: 220))
    #expect(try library.resolve("intro") == intro)
    #expect(try library.resolve("reprise") == reprise)
    let leaves = try library.resolve(try makeSong("Autumn Leaves.wav", frequency: 330))
    #expect(try library.nearestTitles(to: "autum leaves") == [leaves])
    #expect(try library.nearestTitles(to: "Autumn Lxxxxx").isEmpty)  // 5 of 13 characters
  }

  @Test func ambiguousTitlesAreAUsageError() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    try FileManager.default.createDirectory(
      atPath: dir.file("x"), withIntermediateDirectories: true)
    _ = try library.resolve(try makeSong("Tune.wav"))
    _ = try library.resolve(try makeSong("x/tune.wav", frequency: 220))
    let error = try #require(throws: PracticeError.self) { try library.resolve("TUNE") }
    #expect(error.category == .usage)
    #expect(error.message.contains("matches 2 songs"))
  }

  @Test func aMovedFileIsFoundAgainByContent() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let old = try makeSong("old.wav")
    let song = try library.resolve(old)
    let new = dir.file("new.wav")
    try FileManager.default.moveItem(atPath: old, toPath: new)
    let moved = try library.add([SongScanner.scan(new)])[0]
    #expect(moved.id == song.id)
    #expect(moved.path == new)
    #expect(try library.songs().count == 1)
  }

  @Test func aChangedFileIsRescanned() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = try makeSong("c.wav", seconds: 0.5)
    let before = try library.resolve(path)
    try Synth.write(Synth.sine(frequency: 440, seconds: 1.0), to: path)
    let after = try library.resolve("\(before.id!)")
    #expect(after.frames == 44100)
    #expect(after.id == before.id)
  }

  /// A file rewritten in place with the same size (another take, same length) but a new
  /// modification time is rescanned: its fingerprint and time follow the new content.
  @Test func aSameSizeChangeIsRescanned() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = try makeSong("s.wav", seconds: 0.5, frequency: 440)
    let before = try library.resolve(path)
    let sizeBefore = try SongScanner.stat(path).size
    try Synth.write(Synth.sine(frequency: 660, seconds: 0.5), to: path)
    let later = Date(timeIntervalSince1970: before.modifiedAt + 60)
    try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: path)
    let (size, modified) = try SongScanner.stat(path)
    try #require(size == sizeBefore, "the rewrite must keep the size")
    let newHash = try SongScanner.contentHash(path, size: size)
    try #require(newHash != before.contentHash, "the rewrite must change the content")

    let after = try library.resolve("\(before.id!)")
    #expect(after.id == before.id)
    #expect(after.contentHash == newHash)
    #expect(after.modifiedAt == modified)
    #expect(after.fileSize == size)
    #expect(try library.songs().map(\.contentHash) == [newHash])
  }

  @Test func removeDeletesTheEntryNotTheFile() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = try makeSong("r.wav")
    try library.remove(try library.resolve(path))
    #expect(try library.songs().isEmpty)
    #expect(FileManager.default.fileExists(atPath: path))
  }

  @Test func usesWALAndMigratesOnce() throws {
    let path = dir.file("lib.sqlite")
    _ = try Library(path: path)
    _ = try Library(path: path)  // a second open must not re-run migrations
    let header = try #require(FileHandle(forReadingAtPath: path)).readData(ofLength: 20)
    #expect(header[18] == 2 && header[19] == 2, "WAL mode is recorded in the header")
  }

  @Test func defaultPathFollowsTheEnvironment() {
    #expect(Library.defaultPath(environment: ["PRACTICE_DB": "/x/y.sqlite"]) == "/x/y.sqlite")
    #expect(
      Library.defaultPath(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"])
        == "/d/practice/library.sqlite")
    #expect(
      Library.defaultPath(environment: ["HOME": "/h"]) == "/h/.local/share/practice/library.sqlite")
  }
}
