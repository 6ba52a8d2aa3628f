import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// A failed command leaves the libraries as they were: songs added on first use taken
/// back, a library it made and left empty removed with its WAL files, one that was there
/// before kept.
@Suite struct OpenedLibrariesTests {
  let dir = TemporaryDirectory()

  func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

  func song(_ name: String) throws -> String {
    let path = dir.file("\(name).wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: path)
    return path
  }

  @Test func aLibraryMadeAndLeftEmptyIsRemoved() throws {
    let opened = OpenedLibraries()
    let path = dir.file("new.sqlite")
    let library = try opened.open(path: path)
    #expect(library.created)
    #expect(exists(path))
    opened.removeEmptyCreated()
    #expect(opened.libraries.isEmpty)
    for suffix in ["", "-wal", "-shm"] { #expect(!exists(path + suffix), "\(suffix)") }
  }

  @Test func undoingTakesBackSongsAddedOnFirstUseThenTheEmptyLibrary() throws {
    let opened = OpenedLibraries()
    let path = dir.file("new.sqlite")
    let library = try opened.open(path: path)
    _ = try library.resolve(try song("a"))
    #expect(try !library.isEmpty())
    // Holding a song, it is not removed…
    opened.removeEmptyCreated()
    #expect(exists(path))
    // …until the failed command's first-use song is taken back.
    opened.undoFirstUse()
    #expect(!exists(path))
    #expect(opened.libraries.isEmpty)
  }

  @Test func aLibraryThatWasThereIsKeptEmptyOrNot() throws {
    let path = dir.file("old.sqlite")
    _ = try Library(path: path)
    let opened = OpenedLibraries()
    let library = try opened.open(path: path)
    #expect(!library.created)
    let songPath = try song("b")
    _ = try library.resolve(songPath)
    opened.undoFirstUse()
    #expect(exists(path))
    #expect(opened.libraries.count == 1)
    #expect(try library.isEmpty())
    opened.closeAll()
    #expect(opened.libraries.isEmpty)
    #expect(exists(path))
  }
}
