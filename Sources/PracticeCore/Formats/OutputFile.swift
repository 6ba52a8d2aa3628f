import Foundation

/// A file every command writes the same way (exports, setlist sheets, pictures, renders):
/// into a hidden partial file beside the target, created exclusively and never through a
/// link (`open` with O_CREAT | O_EXCL | O_NOFOLLOW) under a name no one can guess ahead,
/// then flushed to the disk (`fsync`) and renamed over the target. A reader never sees half
/// a file; a failed or abandoned write leaves nothing behind and what was at the target
/// as it was.
///
/// The target may be absent, a regular file, or a link, which is replaced, never followed.
/// Refused before anything is created: a directory, a device or another special file (or a
/// link to one), the open library or its -wal and -shm files (by device and inode, through
/// links), and any SQLite database.
public final class OutputFile {
  /// The file the caller asked for.
  public let path: String
  /// The hidden file written until `commit()`.
  public let partialPath: String
  /// The partial file's descriptor, open for writing until `commit()` or `abandon()`.
  public private(set) var descriptor: Int32  // owned
  private var done = false

  /// Checks the target and creates the partial file (73 when it cannot be made).
  public init(path: String) throws {
    try OutputFile.checkTarget(path)
    let name = (path as NSString).lastPathComponent
    let directory = (path as NSString).deletingLastPathComponent
    let prefix = (directory.isEmpty ? "" : directory + "/") + "." + name + ".\(getpid())-"
    var partial = ""
    var descriptor: Int32 = -1
    for _ in 0..<8 where descriptor < 0 {
      partial = prefix + String(UInt64.random(in: 0...UInt64.max), radix: 36) + ".partial"
      descriptor = OutputFile.createExclusively(partial)
      if descriptor < 0 && errno != EEXIST { break }
    }
    guard descriptor >= 0 else {
      let reason = errno == EACCES ? "permission denied" : String(cString: strerror(errno))
      throw PracticeError(
        .cannotCreate,
        "cannot create '\(path)' (\(reason)); check that its folder exists and can be written")
    }
    self.path = path
    self.partialPath = partial
    self.descriptor = descriptor
  }

  deinit { abandon() }

  /// Creates `path` for writing only if nothing (no file, no link) is there yet; the
  /// descriptor, or -1 with `errno` set.
  static func createExclusively(_ path: String) -> Int32 {
    open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
  }

  /// Appends `bytes` (74 on a full disk or another write error).
  public func write(_ bytes: UnsafeRawBufferPointer) throws {
    var offset = 0
    while offset < bytes.count {
      let n = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        throw writeError(errno)
      }
      offset += n
    }
  }

  public func write(_ data: Data) throws {
    try data.withUnsafeBytes { try write($0) }
  }

  /// The error for a failed write, worded for the target.
  public func writeError(_ code: Int32) -> PracticeError {
    let reason = code == ENOSPC ? "the disk is full" : String(cString: strerror(code))
    return PracticeError(
      .io, "cannot write '\(path)' (\(reason)); nothing was written, check the free space")
  }

  /// Flushes the partial file to the disk, closes it and renames it over the target (74
  /// when any of that fails; the partial file is removed). `durable` false leaves the flush
  /// to the caller, who writes many files and flushes them together (`syncfs`) before the
  /// one that names them (a repository's index).
  public func commit(durable: Bool = true) throws {
    guard !done else { return }
    if durable, fsync(descriptor) != 0 {
      let code = errno
      abandon()
      throw writeError(code)
    }
    let closed = close(descriptor)
    let closeCode = errno
    descriptor = -1
    if closed != 0 {
      abandon()
      throw writeError(closeCode)
    }
    // Checked again: the target may have changed while the file was written.
    do { try OutputFile.checkTarget(path) } catch {
      abandon()
      throw error
    }
    guard rename(partialPath, path) == 0 else {
      let reason = String(cString: strerror(errno))
      abandon()
      throw PracticeError(.io, "cannot rename the new file to '\(path)' (\(reason)); nothing was written")
    }
    done = true
  }

  /// Closes and removes the partial file; the target is left as it was.
  public func abandon() {
    guard !done else { return }
    done = true
    if descriptor >= 0 { close(descriptor) }
    descriptor = -1
    unlink(partialPath)
  }

  /// Writes `data` to `path` through an `OutputFile`.
  public static func write(_ data: Data, to path: String, durable: Bool = true) throws {
    let file = try OutputFile(path: path)
    try file.write(data)
    try file.commit(durable: durable)
  }

  // MARK: What is never written over

  private static let protectedLock = NSLock()
  nonisolated(unsafe) private static var protectedPaths: [String] = []  // under protectedLock

  /// Marks a library this process opened: no output is written over it or its -wal and
  /// -shm files.
  public static func protect(library path: String) {
    protectedLock.withLock {
      if !protectedPaths.contains(path) { protectedPaths.append(path) }
    }
  }

  /// Refuses (73) a target that must not be replaced; see the type's summary.
  public static func checkTarget(_ path: String) throws {
    func refuse(_ why: String) -> PracticeError {
      PracticeError(.cannotCreate, "will not write '\(path)': \(why); give a new file name")
    }
    guard !path.isEmpty else { throw PracticeError(.usage, "the output file name is empty") }
    var link = stat()
    guard lstat(path, &link) == 0 else { return }  // nothing there
    var target = stat()
    let kind = link.st_mode & S_IFMT
    if kind == S_IFLNK {
      // A dangling link is replaced like any link; one to something is judged by it.
      guard stat(path, &target) == 0 else { return }
    } else {
      target = link
    }
    switch target.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw refuse("it is a directory")
    default: throw refuse("it is not a regular file")
    }
    let protected = protectedLock.withLock { protectedPaths }
    for library in protected {
      for suffix in ["", "-wal", "-shm"] {
        var status = stat()
        if stat(library + suffix, &status) == 0, status.st_dev == target.st_dev,
          status.st_ino == target.st_ino
        {
          throw refuse("it is the library in use ('\(library)')")
        }
      }
    }
    if isSQLiteDatabase(path) { throw refuse("it is an SQLite database") }
  }

  /// Whether the file at `path` starts as an SQLite database does.
  static func isSQLiteDatabase(_ path: String) -> Bool {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var header = [UInt8](repeating: 0, count: 16)
    let n = read(descriptor, &header, 16)
    return n == 16 && header == Array("SQLite format 3\0".utf8)
  }
}

extension OutputFile {
  /// Refuses (73) a picture whose folder is not there or cannot be written, before the
  /// song is read.
  public static func checkFolder(of output: String) throws {
    let folder = (SongScanner.absolutePath(output) as NSString).deletingLastPathComponent
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory),
      isDirectory.boolValue, access(folder, W_OK) == 0
    else {
      throw PracticeError(
        .cannotCreate,
        "cannot write '\(output)': its folder '\(folder)' does not exist or cannot be written; "
          + "pick another path")
    }
  }
}
