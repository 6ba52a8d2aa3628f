/// What kind of failure an error is; the CLI maps each category to one exit code.
public enum FailureCategory: Sendable, Equatable {
  /// Malformed or impossible arguments (a range, a volume, an ambiguous title).
  case usage
  /// Unreadable or corrupt input data (audio, beat files, a database that is not SQLite).
  case badData
  /// A file, song or other input that does not exist or cannot be read.
  case missingInput
  /// The audio device cannot be opened or was lost.
  case deviceUnavailable
  /// A service cannot be reached: no network, or a repository's server does not answer.
  case unavailable
  /// An output file (render target, database) cannot be created.
  case cannotCreate
  /// Reading or writing failed part-way.
  case io
  /// The database stayed locked by another process beyond the busy timeout.
  case busy
  /// Anything else.
  case other
}

/// An error the CLI can print as one line and map to an exit code.
public protocol PracticeFailure: Error, CustomStringConvertible {
  var category: FailureCategory { get }
}

/// A plain failure with a category and a one-line message that says what to do next.
public struct PracticeError: PracticeFailure, Equatable {
  public let category: FailureCategory
  /// What failed, and what to do when that needs no option of the face's.
  public let message: String
  /// What to do, when it is one of the face's options: the face words it.
  public let remedy: Remedy?

  /// How every failure to get memory ends its line (threads, ALSA, Rubber Band under a
  /// memory limit).
  static let tooLittleMemory = "too little memory; raise the memory limit (ulimit -v) or free memory"

  public init(_ category: FailureCategory, _ message: String, remedy: Remedy? = nil) {
    self.category = category
    self.message = message
    self.remedy = remedy
  }

  /// The message with the remedy in plain words (the CLI says it with its options).
  public var description: String { remedy.map { message + "; " + $0.description } ?? message }
}

/// A path given as an audio file that is not one: nothing is there, or a folder is. The
/// path is kept as it was given; the face words it once for every command that reads audio.
public enum AudioPathError: PracticeFailure, Equatable {
  /// Nothing exists at the path.
  case noSuchFile(path: String)
  /// The path is a folder.
  case folder(path: String)

  public var category: FailureCategory { .missingInput }

  public var description: String {
    switch self {
    case .noSuchFile(let path): return "no such file '\(path)'; check the path"
    case .folder(let path): return "'\(path)' is a folder, not an audio file"
    }
  }
}

/// What the player can do about a failure, when the answer is a setting of the face that
/// made the request (a command-line option, a field of a form): named here, worded there.
public enum Remedy: Sendable, Equatable, CustomStringConvertible {
  /// Replace what is there, or pick another name.
  case replaceOrRename
  /// Import what can be imported and leave the rest.
  case importPartially
  /// Use another library file.
  case anotherLibrary
  /// Use a library file that can be written.
  case writableLibrary
  /// Name the library file.
  case nameTheLibrary
  /// Use the faster stretcher.
  case fasterStretcher

  public var description: String {
    switch self {
    case .replaceOrRename: return "replace it or pick another name"
    case .importPartially: return "or import the others alone (nothing was imported)"
    case .anotherLibrary: return "use another library"
    case .writableLibrary: return "use a library in a writable place"
    case .nameTheLibrary: return "name a library file"
    case .fasterStretcher: return "use the faster stretcher"
    }
  }
}
