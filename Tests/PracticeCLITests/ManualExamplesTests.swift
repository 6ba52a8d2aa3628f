import Foundation
import TestSupport
import Testing

/// practice(1)'s EXAMPLES are a new user's first hour: each command, as the page prints it,
/// runs and succeeds, in order, on a recording of 26 bars (played to the `null` device, the
/// loop played once, the render written to a scratch folder).
@Suite struct ManualExamplesTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// The commands of the page's EXAMPLES, each split into its words, in order.
  func examples() throws -> [[String]] {
    let page = try cli.run(["--manual-sections"]).stdout
    let section = try #require(page.range(of: ".Sh EXAMPLES\n"))
    var commands: [[String]] = []
    var literal = false
    for line in page[section.upperBound...].split(separator: "\n") {
      if line.hasPrefix(".Sh ") { break }
      if line.hasPrefix(".Bd -literal") { literal = true } else if line == ".Ed" {
        literal = false
      } else if literal {
        commands.append(line.replacingOccurrences(of: "\\&", with: "").split(separator: " ").map(String.init))
      }
    }
    return commands
  }

  @Test func everyExampleRunsInOrder() throws {
    var piece = BeatSynth.Piece()
    piece.bars = 26
    let song = dir.file("song.wav")
    try Synth.write(BeatSynth.render(piece).samples, to: song)
    let commands = try examples()
    #expect(commands.count >= 10)
    for command in commands {
      try #require(command.first == "practice", "\(command)")
      var arguments = command.dropFirst().map { word -> String in
        switch word {
        case "song.m4a": return song
        case "drill.flac": return dir.file("drill.flac")
        case "--loop": return "--repeat=1"
        default: return word
        }
      }
      if arguments.first == "play" { arguments += ["--device", "null", "--no-keys"] }
      let result = try cli.run(arguments)
      #expect(result.status == 0, "\(command.joined(separator: " ")): \(result.stderr)")
    }
    #expect(FileManager.default.fileExists(atPath: dir.file("drill.flac")))
    // The drill was played and logged with its selection; the log and stats show it.
    #expect(try cli.run(["log"]).stdout.contains("'solo'"))
  }
}
