import CSndFile

/// A libsndfile failure: its error code and message, the file, and what was being done.
public struct SoundFileError: PracticeFailure {
  public let category: FailureCategory
  /// libsndfile's error number (`sf_error`), 0 when the failure was found before calling it.
  public let code: Int32
  public let reason: String
  public let path: String
  public let operation: String
  /// What the user can do about it.
  public let advice: String

  public init(
    category: FailureCategory, code: Int32 = 0, reason: String, path: String,
    operation: String, advice: String
  ) {
    self.category = category
    self.code = code
    self.reason = reason
    self.path = path
    self.operation = operation
    self.advice = advice
  }

  /// Builds an error from libsndfile's last error for `handle` (nil: the last failed open).
  init(
    handle: OpaquePointer?, path: String, operation: String, category: FailureCategory,
    advice: String
  ) {
    let code = sf_error(handle)
    let message = String(cString: sf_strerror(handle))
    self.init(
      category: category, code: code, reason: message, path: path, operation: operation,
      advice: advice)
  }

  public var description: String {
    let library = code != 0 ? " (libsndfile error \(code))" : ""
    return "cannot \(operation) '\(path)': \(reason)\(library); \(advice)"
  }
}
