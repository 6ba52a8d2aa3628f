import Foundation
import TestSupport
import Testing

extension CLI {
  /// Runs `practice arguments…` (as `user` when given) and checks what every refusal must
  /// do: exit `status`, print nothing on stdout, one `practice: ` line on stderr containing
  /// `message` (with `usageHint`, argument parser's usage lines may follow it), no Swift
  /// trap, and `library`'s contents (this CLI's own unless given) exactly as they were.
  @discardableResult
  func expectRefusal(
    _ arguments: [String], status: Int32, message: String, usageHint: Bool = false,
    asUser user: String? = nil, leaving library: CLI? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> CommandResult {
    let library = library ?? self
    let before = try library.snapshot()
    let result = try run(arguments, asUser: user)
    #expect(
      result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stdout.isEmpty, "\(result.stdout)", sourceLocation: sourceLocation)
    let first = result.stderrLines.first ?? ""
    #expect(first.contains(message), "\(first)", sourceLocation: sourceLocation)
    if !usageHint {
      #expect(result.stderrLines.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
      #expect(first.hasPrefix("practice: "), "\(first)", sourceLocation: sourceLocation)
    }
    #expect(!result.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
    #expect(try library.snapshot() == before, sourceLocation: sourceLocation)
    return result
  }
}

/// A suite with a library of its own (`cli`); `expectFailure` is the refusal checks
/// (`CLI.expectRefusal`) on it: the one helper every suite of refusals uses.
protocol RefusalSuite {
  var cli: CLI { get }
}

extension RefusalSuite {
  /// Runs `arguments` (through `given`, another environment, when one is given; as `user`
  /// when given) and checks the refusal, this suite's library left exactly as it was.
  @discardableResult
  func expectFailure(
    _ arguments: [String], status: Int32, message: String, usageHint: Bool = false,
    asUser user: String? = nil, cli given: CLI? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> CommandResult {
    try (given ?? cli).expectRefusal(
      arguments, status: status, message: message, usageHint: usageHint, asUser: user,
      leaving: cli, sourceLocation: sourceLocation)
  }
}
