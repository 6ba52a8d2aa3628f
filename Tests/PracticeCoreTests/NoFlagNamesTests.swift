import Foundation
import Testing

/// The core names no command-line option: its errors carry what was wrong, and the CLI
/// words them with the option the player typed (STYLE 17, issue 46). Every string literal
/// in `Sources/PracticeCore` is searched for `--` and a letter.
@Suite struct NoFlagNamesTests {
  /// Literals that hold `--x` and are not an option of ours (none so far).
  static let allowed: Set<String> = []

  @Test func noStringInTheCoreNamesAnOption() throws {
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    let core = root.appendingPathComponent("Sources/PracticeCore")
    let files = try #require(FileManager.default.enumerator(atPath: core.path))
      .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
    #expect(files.count > 50, "read \(files.count) files under \(core.path)")
    let literal = #/"(?:[^"\\]|\\.)*"/#
    let option = #/--[a-z]/#
    var found: [String] = []
    for file in files.sorted() {
      let text = try String(contentsOf: core.appendingPathComponent(file), encoding: .utf8)
      var inBlock = false
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
        .enumerated()
      {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("//") { continue }
        // A multi-line literal: its every line is text.
        let quotes = line.components(separatedBy: "\"\"\"").count - 1
        if inBlock || quotes > 0 {
          if line.contains(option) { found.append("\(file):\(number + 1): \(trimmed)") }
          if quotes % 2 == 1 { inBlock.toggle() }
          continue
        }
        for match in line.matches(of: literal) where match.output.contains(option) {
          let text = String(match.output)
          if !NoFlagNamesTests.allowed.contains(text) {
            found.append("\(file):\(number + 1): \(text)")
          }
        }
      }
    }
    #expect(found.isEmpty, "option names in the core:\n\(found.joined(separator: "\n"))")
  }
}
