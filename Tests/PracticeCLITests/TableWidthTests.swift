import Foundation
import TestSupport
import Testing

/// Tables at a terminal (`list`, `stats`, `log`) never wrap: in a pseudo-terminal 80 and 50
/// columns wide, with a title and an artist far wider than that, every line fits the width,
/// each row stays one line, and the columns that say what a row is stay (the rest are cut
/// or left out).
@Suite struct TableWidthTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// `practice args…` with stdout on a pseudo-terminal `width` columns wide (`script(1)`);
  /// its lines as the terminal received them.
  func lines(_ arguments: [String], width: Int) throws -> [String] {
    func quoted(_ word: String) -> String {
      "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
    let command =
      "stty cols \(width) rows 40; " + ([CLI.binary] + arguments).map(quoted).joined(separator: " ")
    let result = try runProgram(
      "/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"], environment: cli.environment,
      directory: dir.path, scratch: dir.path)
    #expect(result.status == 0, "\(arguments): \(result.stderr)")
    return result.stdout.replacingOccurrences(of: "\r\n", with: "\n")
      .split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
  }

  @Test func listStatsAndLogFitTheTerminalWithoutWrapping() throws {
    let song = dir.file("tone.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 2), to: song)
    #expect(try cli.run(["add", song]).status == 0)
    let title = "A Very Long Song Title That Goes On And On Past Any Sensible Width"
    #expect(
      try cli.run([
        "set", song, "--title", title, "--artist", "The Extremely Verbose Orchestra of Elsewhere",
        "--key", "Am", "--bpm", "100", "--tag", "gig",
      ]).status == 0)
    #expect(try cli.run(["select", "add", song, "the long selection name", "--from", "0.2", "--to", "1.2"]).status == 0)
    #expect(
      try cli.run([
        "play", song, "--select", "the long selection name", "--device",
        "file:FILE=\(dir.file("heard.wav")),FORMAT=wav",
      ]).status == 0)

    let tables: [(arguments: [String], keys: [String], rows: Int)] = [
      (["list"], ["ID", "TITLE"], 1),
      (["stats"], ["SONG", "SELECTION"], 1),
      (["log"], ["STARTED", "SONG", "WHAT"], 1),
    ]
    for width in [80, 50] {
      for table in tables {
        let printed = try lines(table.arguments, width: width)
        let shown = "\(table.arguments) at \(width):\n" + printed.joined(separator: "\n")
        // The header and one line a row: nothing wrapped onto a second line.
        #expect(printed.count == 1 + table.rows, "\(shown)")
        for line in printed {
          #expect(line.count <= width, "\(line.count) columns: \(shown)")
        }
        // Columns are left out whole: none is cut at the edge (`SPE…` over `100…`).
        #expect(printed.first?.contains("…") == false, "\(shown)")
        let header = printed.first?.split(separator: " ").map(String.init) ?? []
        for key in table.keys {
          #expect(header.contains(key), "\(key) dropped: \(shown)")
        }
        // The title did not fit: it is cut where it ends, never left out.
        #expect(printed.dropFirst().allSatisfy { $0.contains("A Very") && $0.contains("…") }, "\(shown)")
      }
    }
  }
}
