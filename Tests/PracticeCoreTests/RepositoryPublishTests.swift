import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// `repo publish` run again, and `repo add` and its names: a setlist renamed in another case
/// keeps its file, two setlists of one file stem get two files, a deleted entry file is
/// written again, an unchanged repository keeps its index; a relative folder is made
/// absolute, a repository is found in any case and only http, https and file URLs are taken.
@Suite struct RepositoryPublishTests {
  let dir = TemporaryDirectory()

  func library() throws -> (Library, Song) { try dir.libraryWithOneSong(seconds: 2) }

  func index(_ folder: String) throws -> RepositoryIndex {
    let path = folder + "/" + RepositoryIndex.fileName
    return try RepositoryIndex.decode(try Data(contentsOf: URL(fileURLWithPath: path)), source: path)
  }

  @Test func publishingAgainKeepsFilesAndTheIndexAndWritesWhatIsMissing() throws {
    let (library, song) = try library()
    let repo = dir.file("repo")
    for name in ["Gig?", "Gig*"] {
      _ = try library.createSetlist(named: name)
      _ = try library.addEntry(SetlistEntry(songID: try #require(song.id)), to: name, at: nil)
    }
    let first = try library.publish(to: repo, songs: [song], setlists: try library.setlists())
    #expect(first.indexWritten && first.written.count == 3)
    let files = try index(repo).setlists.map(\.file)
    #expect(Set(files).count == 2, "\(files)")

    // Nothing changed: nothing written, not even the index.
    let second = try library.publish(to: repo, songs: [song], setlists: try library.setlists())
    #expect(second.written.isEmpty && second.unchanged == 3 && !second.indexWritten)

    // A setlist renamed in another case keeps its file; a deleted entry file is written again.
    try library.renameSetlist("Gig?", to: "GIG?")
    let songFile = try #require(try index(repo).songs.first?.file)
    try FileManager.default.removeItem(atPath: repo + "/" + songFile)
    let third = try library.publish(to: repo, songs: [song], setlists: try library.setlists())
    #expect(third.written.contains(songFile))
    #expect(FileManager.default.fileExists(atPath: repo + "/" + songFile))
    let after = try index(repo).setlists
    #expect(after.count == 2 && Set(after.map(\.file)) == Set(files))
    #expect(after.map(\.name).contains("GIG?"))
  }

  @Test func aRepositoryIsAddedAsAnAbsoluteFolderAndFoundInAnyCase() throws {
    let (library, _) = try library()
    let added = try library.addRepository(name: "band", url: "shared/repo", directory: "/srv/music")
    #expect(added.url == "/srv/music/shared/repo")
    #expect(try library.repository(named: "BAND").id == added.id)
    do {
      _ = try library.addRepository(name: "ftp", url: "ftp://host/repo", directory: "/srv")
      Issue.record("an ftp URL was taken")
    } catch let error as PracticeError {
      #expect(error.category == .usage && error.message.contains("only http, https and file URLs"))
    }
    #expect(try library.repositories().map(\.name) == ["band"])
  }
}
