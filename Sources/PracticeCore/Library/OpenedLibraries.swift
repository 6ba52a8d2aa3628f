import Foundation

/// The libraries one run of a command opened, so that a command that fails leaves them as
/// they were: the songs it added on first use taken back, a library it made that still holds
/// nothing removed (no file where there was none). Owned by the thread that runs the command.
public final class OpenedLibraries {
  /// The libraries opened, in order.
  public private(set) var libraries: [Library] = []

  public init() {}

  /// Opens (or makes) the library at `path` and keeps it.
  public func open(path: String) throws -> Library {
    let library = try Library(path: path)
    libraries.append(library)
    return library
  }

  /// The command failed: takes back the songs it added on first use, then removes a library
  /// it made that holds nothing (`removeEmptyCreated`). Best effort: the command's own error
  /// is the one reported.
  public func undoFirstUse() {
    for library in libraries { try? library.undoFirstUse() }
    removeEmptyCreated()
  }

  /// A library this run made that holds nothing is let go of and its files removed: after a
  /// command failed, or chose a failing exit status itself.
  public func removeEmptyCreated() {
    let made = libraries.filter { $0.created && (try? $0.isEmpty()) == true }.map(\.path)
    guard !made.isEmpty else { return }
    libraries.removeAll { made.contains($0.path) }  // their connections close here
    for path in made {
      for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }
  }

  /// Lets go of every library, so their connections close before the process exits: closing
  /// the last connection is when SQLite checkpoints the WAL file into the database and
  /// deletes it. Left open, every command leaves a -wal file that the next one must read
  /// back whole before its first query (a growing cost at each start).
  public func closeAll() {
    libraries.removeAll()
  }
}
