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
      var file = PracticeFile(
        format: PracticeFile.formatName, version: PracticeFile.currentVersion, exportedAt: "",
        songs: [shared], setlists: [])
      var fingerprint = Fingerprint()
      fingerprint.add(try file.encoded())
      let version = fingerprint.hex
      let existing = index.songs.firstIndex { $0.contentHash == shared.contentHash }
      let name: String
      if let existing {
        name = index.songs[existing].file
      } else {
        let stem = RepositoryIndex.safeStem(
          shared.title + (shared.artist.map { " - " + $0 } ?? ""), fallback: "song")
        name = RepositoryFiles.unique("\(stem)-\(String(shared.contentHash.suffix(8)))", &taken)
      }
      let path = RepositoryFiles.join(directory, name)
      var size = existing.map { index.songs[$0].size } ?? 0
      if let existing, index.songs[existing].version == version,
        FileManager.default.fileExists(atPath: path)
      {
        report.unchanged += 1
      } else {
        file.exportedAt = timestamp
        let data = try file.encoded()
        try RepositoryFiles.writeAtomically(data, to: path, durable: false)
        size = Int64(data.count)
        report.written.append(name)
      }
      let entry = RepositoryIndex.SongEntry(
        contentHash: shared.contentHash, title: shared.title, artist: shared.artist,
        duration: shared.duration, version: version, file: name, size: size)
      if let existing { index.songs[existing] = entry } else { index.songs.append(entry) }
      report.songs += 1
    }

    // Setlists: each with its songs.
    for setlist in setlists {
      var file = try export(songs: try self.songs(of: [setlist]), setlists: [setlist], now: now)
      file.exportedAt = ""
      var fingerprint = Fingerprint()
      fingerprint.add(try file.encoded())
      let version = fingerprint.hex
      let existing = index.setlists.firstIndex {
        $0.name.lowercased() == setlist.name.lowercased()
      }
      let name =
        existing.map { index.setlists[$0].file }
        ?? RepositoryFiles.unique(
          "setlist-" + RepositoryIndex.safeStem(setlist.name, fallback: "setlist"), &taken)
      let path = RepositoryFiles.join(directory, name)
      var size = existing.map { index.setlists[$0].size } ?? 0
      if let existing, index.setlists[existing].version == version,
        FileManager.default.fileExists(atPath: path)
      {
        report.unchanged += 1
      } else {
        file.exportedAt = timestamp
        let data = try file.encoded()
        try RepositoryFiles.writeAtomically(data, to: path, durable: false)
        size = Int64(data.count)
        report.written.append(name)
      }
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
      try RepositoryFiles.writeAtomically(data, to: indexPath)
      report.indexWritten = true
    }
    return report
  }
}

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

  /// Writes `data` under a temporary name beside `path`, flushes it, and renames it over
  /// `path`: a reader sees the old file or the new one, never half of one.
  /// `durable` flushes the file before the rename (fsync); entry files are written without
  /// and flushed together by `flush(directory:)` before the index is written.
  static func writeAtomically(_ data: Data, to path: String, durable: Bool = true) throws {
    let directory = (path as NSString).deletingLastPathComponent
    let partial =
      (directory.isEmpty ? "" : directory + "/")
      + ".\((path as NSString).lastPathComponent).\(getpid()).partial"
    let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw PracticeError(
        .cannotCreate,
        "cannot create '\(path)' (\(String(cString: strerror(errno)))); check the folder is writable"
      )
    }
    var failure: String?
    data.withUnsafeBytes { raw in
      var done = 0
      while done < raw.count {
        let n = Foundation.write(fd, raw.baseAddress! + done, raw.count - done)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 {
          failure = String(cString: strerror(errno))
          return
        }
        done += n
      }
    }
    if failure == nil && durable && fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
    close(fd)
    if failure == nil && rename(partial, path) != 0 { failure = String(cString: strerror(errno)) }
    if let failure {
      unlink(partial)
      throw PracticeError(.io, "cannot write '\(path)': \(failure); check the disk")
    }
  }
}
