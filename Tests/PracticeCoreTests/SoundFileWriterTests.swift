import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// Render's partial file: created exclusively, never through a planted symlink.
@Suite struct SoundFileWriterTests {
  let dir = TemporaryDirectory()

  @Test func thePartialFileNeverFollowsASymlink() throws {
    let victim = dir.file("victim.txt")
    try "keep me".write(toFile: victim, atomically: true, encoding: .utf8)
    let planted = dir.file(".out.wav.partial")
    try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: victim)
    #expect(OutputFile.createExclusively(planted) == -1)
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
    // A dangling link is not followed either (it would create its target).
    let dangling = dir.file(".dangling.partial")
    try FileManager.default.createSymbolicLink(
      atPath: dangling, withDestinationPath: dir.file("made.txt"))
    #expect(OutputFile.createExclusively(dangling) == -1)
    #expect(!FileManager.default.fileExists(atPath: dir.file("made.txt")))
    // An existing plain file is not truncated.
    let existing = dir.file(".existing.partial")
    try "data".write(toFile: existing, atomically: true, encoding: .utf8)
    #expect(OutputFile.createExclusively(existing) == -1)
    #expect(try String(contentsOfFile: existing, encoding: .utf8) == "data")
    let fresh = OutputFile.createExclusively(dir.file(".fresh.partial"))
    #expect(fresh >= 0)
    close(fresh)
  }

  @Test func aRenderLeavesOnlyItsOutputAndReplacesALinkAtTheTarget() throws {
    let victim = dir.file("victim.wav")
    try "not audio".write(toFile: victim, atomically: true, encoding: .utf8)
    let target = dir.file("out.wav")
    try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: victim)
    let format = try #require(OutputFormat(path: target, bitDepth: 16))
    let writer = try SoundFileWriter(
      path: target, format: format, sampleRate: 44100, channels: 1, maxBlockFrames: 16)
    let samples = [Float](repeating: 0.25, count: 16)
    try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frames: 16) }
    try writer.finish()
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "not audio")
    #expect(try Synth.read(target).samples.count == 16)
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    #expect(left == ["out.wav", "victim.wav"])
  }

  /// A write given up leaves nothing behind: no partial file, no target.
  @Test func anAbandonedWriteLeavesNothing() throws {
    let file = try OutputFile(path: dir.file("out.txt"))
    try file.write(Data("half".utf8))
    file.abandon()
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [])
  }

  /// The library in use (with its -wal and -shm files) and any SQLite database are never
  /// written over, whatever the name; the file is left as it was.
  @Test func theLibraryItsSideFilesAndAnyDatabaseAreRefused() throws {
    let library = dir.file("lib.sqlite")
    for suffix in ["", "-wal", "-shm"] {
      try "x".write(toFile: library + suffix, atomically: true, encoding: .utf8)
    }
    OutputFile.protect(library: library)
    for suffix in ["", "-wal", "-shm"] {
      #expect(
        throws: PracticeError(
          .cannotCreate,
          "will not write '\(library + suffix)': it is the library in use ('\(library)'); "
            + "give a new file name")
      ) { try OutputFile.checkTarget(library + suffix) }
    }
    let other = dir.file("other.db")
    let header = Data("SQLite format 3\0".utf8) + Data(repeating: 0, count: 84)
    try header.write(to: URL(fileURLWithPath: other))
    #expect(
      throws: PracticeError(
        .cannotCreate, "will not write '\(other)': it is an SQLite database; give a new file name")
    ) { try OutputFile.checkTarget(other) }
    #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == header)
  }
}
