import Foundation
import TestSupport
import Testing

/// Issue 23, "Reliability and security": each bad input gets its documented exit code, one
/// line on stderr, and leaves the library exactly as it was.
@Suite struct HardeningTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  init() throws {
    // A library with one song in it, so "unchanged" means something.
    _ = try cli.run(["add", CLI.fixture("sine-440.wav")])
  }

  /// Runs the command and checks the exit code, that stderr is one `practice: ` line
  /// containing `message`, that stdout is empty, and that the library did not change.
  @discardableResult
  func expectFailure(
    _ arguments: [String], status: Int32, message: String, cli given: CLI? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> CommandResult {
    let cli = given ?? self.cli
    let before = try self.cli.snapshot()
    let result = try cli.run(arguments)
    #expect(
      result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stdout.isEmpty, "\(result.stdout)", sourceLocation: sourceLocation)
    #expect(result.stderrLines.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
    let first = result.stderrLines.first ?? ""
    #expect(first.hasPrefix("practice: "), "\(first)", sourceLocation: sourceLocation)
    #expect(first.contains(message), "\(first)", sourceLocation: sourceLocation)
    #expect(!result.stderr.contains("Fatal error"), sourceLocation: sourceLocation)
    #expect(try self.cli.snapshot() == before, sourceLocation: sourceLocation)
    return result
  }

  // MARK: 1. Numbers are range-checked before arithmetic

  @Test(arguments: [
    "1000000000000000d", "1e308d", "9223372036854775807m", "999999999999999999w", "-1d", "0x10d",
    "36501d",
  ])
  func hugeSinceIsRefused(since: String) throws {
    for command in ["log", "stats"] {
      try expectFailure([command, "--since", since], status: 64, message: "up to 100 years")
    }
  }

  @Test func sinceAtTheLimitWorks() throws {
    for command in ["log", "stats"] {
      let result = try cli.run([command, "--since", "36500d"])
      #expect(result.status == 0, "\(result.stderr)")
    }
  }

  @Test func speedsAndTimesOutOfRange() throws {
    let song = CLI.fixture("sine-440.wav")
    let out = dir.file("x.wav")
    try expectFailure(
      ["render", song, "--speed", "0x1", "-o", out], status: 64, message: "25% to 200%")
    try expectFailure(
      ["render", song, "--speed", "-50%", "-o", out], status: 64, message: "25% to 200%")
    try expectFailure(
      ["render", song, "--speed", "1e0", "-o", out], status: 64, message: "25% to 200%")
    try expectFailure(
      ["render", song, "--ramp-to", "inf", "--step", "5%", "-o", out], status: 64,
      message: "25% to 200%")
    try expectFailure(
      ["render", song, "--volume", "0x1", "-o", out], status: 64, message: "0% to 200%")
    try expectFailure(
      ["render", song, "--from", "-1", "-o", out], status: 64,
      message: "--from -1 is before the start")
    try expectFailure(
      ["render", song, "--to", "-0.5", "-o", out], status: 64,
      message: "--to -0.5 is before the start")
    try expectFailure(
      ["render", song, "--repeat", "-1", "-o", out], status: 64, message: "use 1 to 9999")
    try expectFailure(
      ["render", song, "--every", "-1", "--ramp-to", "1", "--step", "5%", "-o", out], status: 64,
      message: "use 1 to 9999")
    try expectFailure(
      ["render", song, "--count-in", "-2", "-o", out], status: 64, message: "use 0 to 16")
    try expectFailure(
      ["render", song, "--gap", "0x1s", "-o", out], status: 64, message: "is not a duration")
    try expectFailure(
      ["render", song, "--step", "1e-2", "--ramp-to", "1", "-o", out], status: 64,
      message: "is not a speed step")
    try expectFailure(
      ["render", song, "--bars", "1-9223372036854775807", "-o", out], status: 64,
      message: "is not a bar range")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  // MARK: 3. First use under concurrency

  @Test func twentyProcessesCreateOneLibrary() throws {
    let fresh = CLI(database: dir.file("new/fresh.sqlite"))
    var songs: [String] = []
    for i in 0..<20 {
      let path = dir.file("song-\(i).wav")
      try FileManager.default.copyItem(atPath: CLI.fixture("sine-440.wav"), toPath: path)
      songs.append(path)
    }
    let running = try songs.map { try fresh.start(["add", $0]) }
    let results = running.map { $0.finish() }
    for result in results {
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stderr.isEmpty, "\(result.stderr)")
    }
    let listed = try fresh.run(["list"]).stdout.split(separator: "\n")
    #expect(listed.count == 20)
    for song in songs { #expect(listed.contains { $0.hasSuffix("\t" + song) }, "\(song)") }
  }

  // MARK: 4. Someone else's database

  /// Makes an SQLite file with `sql` through the practice library's own SQLite (GRDB), by
  /// running the sqlite3 shell if there is one, else Python's.
  func makeDatabase(_ path: String, _ sql: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [
      "-c",
      "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()",
      path, sql,
    ]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
  }

  @Test func foreignDatabaseIsRefusedUntouched() throws {
    let other = dir.file("other.sqlite")
    try makeDatabase(other, "CREATE TABLE notes (x); INSERT INTO notes VALUES (1);")
    let before = try Data(contentsOf: URL(fileURLWithPath: other))
    try expectFailure(["list", "--db", other], status: 65, message: "is not a practice library")
    try expectFailure(
      ["add", "--db", other, CLI.fixture("sine-440.wav")], status: 65,
      message: "tables practice does not know: notes")
    #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == before)
    #expect(!FileManager.default.fileExists(atPath: other + "-wal"))

    // Tables named like ours but no record of practice's migrations: not ours either.
    let lookalike = dir.file("lookalike.sqlite")
    try makeDatabase(lookalike, "CREATE TABLE song (x);")
    try expectFailure(
      ["list", "--db", lookalike], status: 65, message: "is not a practice library")
  }

  @Test func newerLibraryIsRefusedNamingTheVersions() throws {
    let newer = dir.file("newer.sqlite")
    #expect(try CLI(database: newer).run(["list"]).status == 0)
    try makeDatabase(newer, "INSERT INTO grdb_migrations VALUES ('v9-setlists');")
    try expectFailure(
      ["list", "--db", newer], status: 65, message: "newer practice (schema v9-setlists)")
    let result = try CLI(database: newer).run(["list"])
    #expect(result.stderr.contains("v5-beat-confidence"), "\(result.stderr)")
  }

  @Test func emptyDatabasePathIsRefused() throws {
    try expectFailure(["list", "--db", ""], status: 64, message: "the library path is empty")
    #expect(!FileManager.default.fileExists(atPath: CLI.packageRoot + "/-wal"))
  }

  // MARK: 5. A failing command leaves the library as it was

  /// A 16-bit mono WAV holding `frames` frames of silence.
  func writeWAV(_ path: String, frames: Int) throws {
    try Synth.write([Float](repeating: 0, count: frames), to: path)
  }

  @Test func failingCommandsDoNotAddTheSong() throws {
    let zero = dir.file("zero.wav")
    try writeWAV(zero, frames: 0)
    let one = dir.file("one.wav")
    try writeWAV(one, frames: 1)
    let song = dir.file("song.wav")
    try FileManager.default.copyItem(atPath: CLI.fixture("sine-440.wav"), toPath: song)
    try expectFailure(
      ["render", zero, "-o", dir.file("o.wav")], status: 65, message: "holds no audio")
    try expectFailure(["play", zero, "--device", "null"], status: 65, message: "holds no audio")
    try expectFailure(["beats", "detect", one], status: 65, message: "too short")
    try expectFailure(["render", song, "-o", song], status: 64, message: "is the song itself")
    try expectFailure(
      ["render", song, "--bars", "1-2", "--no-detect", "-o", dir.file("b.wav")], status: 66,
      message: "beat map")
  }

  @Test func damagedFlacFailsWithoutAddingIt() throws {
    let whole = dir.file("whole.flac")
    try Synth.write(Synth.sine(frequency: 440, seconds: 30, amplitude: 0.5), to: whole)
    var data = try Data(contentsOf: URL(fileURLWithPath: whole))
    var generator = SystemRandomNumberGenerator()
    for i in (data.count / 4)..<data.count {
      data[i] = UInt8.random(in: 0...255, using: &generator)
    }
    let damaged = dir.file("damaged.flac")
    try data.write(to: URL(fileURLWithPath: damaged))
    // A seek into the damaged part is bad data (65), not an I/O error (74).
    try expectFailure(
      ["render", damaged, "--from", "20", "-o", dir.file("d.wav")], status: 65, message: "damaged")
    #expect(!FileManager.default.fileExists(atPath: dir.file("d.wav")))
  }
}
