import Foundation

/// What `publish` did, for its report.
public struct PublishReport: Sendable {
  /// Entry files written (new or changed), by name.
  public var written: [String] = []
  /// Entries whose content had not changed (their files were left alone).
  public var unchanged = 0
  /// Whether `index.json` was written (false when it would have been the same bytes).
  public var indexWritten = false
  public var songs = 0
  public var setlists = 0
}

extension Library {
  /// Writes (or updates) the repository in `directory`: one `.practice` file per song of
  /// `songs` and per setlist of `setlists`, then `index.json`. Each file is written under a
  /// temporary name and renamed, the index last, so a reader sees the old repository or the
  /// new one. An entry whose content did not change is not written again; the index keeps
  /// the entries it had for songs and setlists not published this time.
  public func publish(
    to directory: String, songs: [Song], setlists: [Setlist], now: Date = Date()
  ) throws -> PublishReport {
    try RepositoryFiles.makeDirectory(directory)
    let indexPath = RepositoryFiles.join(directory, RepositoryIndex.fileName)
    var index = RepositoryIndex()
    if FileManager.default.fileExists(atPath: indexPath) {
      let data: Data
      do { data = try Data(contentsOf: URL(fileURLWithPath: indexPath)) } catch {
        throw PracticeError(.io, "cannot read '\(indexPath)': \(error.localizedDescription)")
      }
      index = try RepositoryIndex.decode(data, source: indexPath)
    }
    var report = PublishReport()
    let timestamp = Library.timestamp(now)
    var taken = Set(index.songs.map(\.file) + index.setlists.map(\.file))

    // Songs: one export of them all, cut into one file per song.
    let all = try export(songs: songs, setlists: [], now: now)
    for var shared in all.songs {
      shared.ref = 1
      let file = PracticeFile(
        format: PracticeFile.formatName, version: PracticeFile.currentVersion, exportedAt: "",
        songs: [shared], setlists: [])
      let existing = index.songs.firstIndex { $0.contentHash == shared.contentHash }
      let stem = RepositoryIndex.safeStem(
        shared.title + (shared.artist.map { " - " + $0 } ?? ""), fallback: "song")
      let name =
        existing.map { index.songs[$0].file }
        ?? RepositoryFiles.unique("\(stem)-\(String(shared.contentHash.suffix(8)))", &taken)
      let (version, size) = try RepositoryFiles.writeEntry(
        file, named: name, in: directory, was: existing.map { index.songs[$0] }, stamp: timestamp,
        report: &report)
      let entry = RepositoryIndex.SongEntry(
        contentHash: shared.contentHash, title: shared.title, artist: shared.artist,
        duration: shared.duration, version: version, file: name, size: size)
      if let existing { index.songs[existing] = entry } else { index.songs.append(entry) }
      report.songs += 1
    }

    // Setlists: each with its songs.
    for setlist in setlists {
      let file = try export(songs: try self.songs(of: [setlist]), setlists: [setlist], now: now)
      let existing = index.setlists.firstIndex {
        $0.name.lowercased() == setlist.name.lowercased()
      }
      let name =
        existing.map { index.setlists[$0].file }
        ?? RepositoryFiles.unique(
          "setlist-" + RepositoryIndex.safeStem(setlist.name, fallback: "setlist"), &taken)
      let (version, size) = try RepositoryFiles.writeEntry(
        file, named: name, in: directory, was: existing.map { index.setlists[$0] },
        stamp: timestamp, report: &report)
      let entry = RepositoryIndex.SetlistEntry(
        name: setlist.name, version: version, file: name, size: size)
      if let existing { index.setlists[existing] = entry } else { index.setlists.append(entry) }
      report.setlists += 1
    }

    // The index last, and only when it changed: its bytes (and a server's ETag) stay the
    // same for an unchanged repository.
    let data = index.encoded()
    if !report.written.isEmpty { RepositoryFiles.flush(directory: directory) }
    if (try? Data(contentsOf: URL(fileURLWithPath: indexPath))) != data {
      try OutputFile.write(data, to: indexPath)
      report.indexWritten = true
    }
    return report
  }
}

extension RepositoryFiles {
  /// Writes one entry file unless the index says it is there with the same content: the
  /// version is the fingerprint of the file without its export time, so a republished,
  /// unchanged entry keeps its bytes (and a server's ETag). Returns the version and size.
  static func writeEntry(
    _ file: PracticeFile, named name: String, in directory: String,
    was: (some RepositoryEntryFile)?, stamp: String, report: inout PublishReport
  ) throws -> (version: String, size: Int64) {
    var file = file
    file.exportedAt = ""
    var fingerprint = Fingerprint()
    fingerprint.add(try file.encoded())
    let version = fingerprint.hex
    let path = RepositoryFiles.join(directory, name)
    if let was, was.version == version, FileManager.default.fileExists(atPath: path) {
      report.unchanged += 1
      return (version, was.size)
    }
    file.exportedAt = stamp
    let data = try file.encoded()
    try OutputFile.write(data, to: path, durable: false)
    report.written.append(name)
    return (version, Int64(data.count))
  }
}

/// What `writeEntry` reads of an index entry: its content version and file size.
protocol RepositoryEntryFile {
  var version: String { get }
  var size: Int64 { get }
}
extension RepositoryIndex.SongEntry: RepositoryEntryFile {}
extension RepositoryIndex.SetlistEntry: RepositoryEntryFile {}

/// File operations of a repository folder.
enum RepositoryFiles {
  /// Flushes the file system holding `directory` (syncfs(2), found at run time: Glibc's
  /// Swift overlay does not declare it; sync(2) without it). One flush for all the entry
  /// files: an fsync each took ~5 ms, 5 s for 1,000 songs (bench/repo.py).
  static func flush(directory: String) {
    typealias SyncFS = @convention(c) (Int32) -> Int32
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    defer { if fd >= 0 { close(fd) } }
    if fd >= 0, let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") {
      _ = unsafeBitCast(symbol, to: SyncFS.self)(fd)
    } else {
      sync()
    }
  }

  static func join(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
  }

  /// `stem.practice`, or `stem-2.practice`… when taken; recorded as taken.
  static func unique(_ stem: String, _ taken: inout Set<String>) -> String {
    var name = stem + ".practice"
    var n = 2
    while taken.contains(name) || !RepositoryIndex.isSafeFileName(name) {
      name = "\(stem)-\(n).practice"
      n += 1
      if n > 10_000 { name = "entry-\(UUID().uuidString.prefix(8)).practice" }
    }
    taken.insert(name)
    return name
  }

  static func makeDirectory(_ directory: String) throws {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw PracticeError(
          .cannotCreate, "'\(directory)' is not a folder; give a folder for the repository")
      }
      return
    }
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw PracticeError(
        .cannotCreate,
        "cannot create the folder '\(directory)'; check its parent exists and is writable")
    }
  }
}
