import Foundation
import TestSupport
import Testing

/// Options that exclude each other, or must come in order, in the commands that fix beats,
/// add setlist entries and draw the progress chart: each refusal exits 64 with one line,
/// the library as it was.
@Suite struct OptionPairTests: RefusalSuite {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  init() throws {
    // A song with a beat map and a setlist, so "unchanged" means something.
    _ = try cli.run(["add", CLI.fixture("sine-440.wav")])
    _ = try cli.run(["beats", "grid", "1", "--bpm", "120"])
    _ = try cli.run(["setlist", "new", "gig"])
  }

  @Test func aFixSpanMustRunForwardsAndADownbeatIsOneBeat() throws {
    try expectFailure(
      ["beats", "double", "1", "--from", "1", "--to", "1"], status: 64,
      message: "--to 1.000 is not after --from 1.000", usageHint: true)
    try expectFailure(
      ["beats", "downbeat", "1", "--at", "1", "--bar", "1.2"], status: 64,
      message: "say which beat: --at TIME or --bar BAR.BEAT (one of them)", usageHint: true)
  }

  @Test func anEntryTakesAKeyOrATranspositionAndStatsDrawOneSongWithoutJSON() throws {
    try expectFailure(
      ["setlist", "add", "gig", "1", "--key", "D", "--transpose", "2"], status: 64,
      message: "--key and --transpose cannot be combined; use one", usageHint: true)
    try expectFailure(
      ["stats", "1", "-o", dir.file("p.png"), "--json"], status: 64,
      message: "--json and -o cannot be combined; use one", usageHint: true)
    try expectFailure(
      ["stats", "-o", dir.file("p.png")], status: 64,
      message: "-o draws one song's progress; name the song", usageHint: true)
    #expect(!FileManager.default.fileExists(atPath: dir.file("p.png")))
  }
}
