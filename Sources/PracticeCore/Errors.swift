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
  public let message: String

  public init(_ category: FailureCategory, _ message: String) {
    self.category = category
    self.message = message
  }

  public var description: String { message }
}
