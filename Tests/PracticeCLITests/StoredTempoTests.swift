import Foundation
import PracticeCore
import TestSupport
import Testing

/// A beat map's median beat interval is stored with it (`song.beat_interval`, schema v17)
/// so that `list` and `show` read one number a song: after every command that writes a map
/// it is the median of the stored beats, and a library from before v17 gets it filled.
@Suite struct StoredTempoTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  func sql(_ statement: String, _ library: CLI? = nil) throws -> String {
    let result = try runProgram(
      "/usr/bin/sqlite3", [(library ?? cli).database, statement], environment: [:],
      directory: dir.path, scratch: dir.path)
    try #require(result.status == 0, "\(statement): \(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// What is stored for song 1, and the median interval of its stored beats computed here.
  func storedAndMedian(_ library: CLI? = nil) throws -> (stored: Double?, median: Double?) {
    let stored = Double(try sql("SELECT beat_interval FROM song WHERE id = 1", library))
    let frames = try sql("SELECT frame FROM beat WHERE song_id = 1 ORDER BY frame", library)
      .split(separator: "\n").compactMap { Double($0) }
    let intervals = zip(frames.dropFirst(), frames).map { $0 - $1 }.sorted()
    guard !intervals.isEmpty else { return (stored, nil) }
    let middle = intervals.count / 2
    return (
      stored,
      intervals.count % 2 == 1 ? intervals[middle] : (intervals[middle - 1] + intervals[middle]) / 2
    )
  }

  @Test func everyCommandThatWritesAMapStoresItsMedianInterval() throws {
    try #require(try cli.run(["add", CLI.fixture("clicks-120.wav")]).status == 0)
    try #require(try cli.run(["export", "--all", "-o", dir.file("none.practice")]).status == 0)
    var seen: Set<Double> = []
    for (step, arguments) in [
      ["beats", "grid", "1", "--bpm", "97", "--start", "0.5"],
      ["beats", "import", "1", CLI.fixture("clicks-120.beats")],
      ["beats", "double", "1"],
      ["beats", "undo", "1"],
      ["beats", "redo", "1"],
      ["beats", "halve", "1"],
      ["beats", "grid", "1", "--bpm", "60", "--start", "0.25"],
      ["export", "--all", "-o", dir.file("at-60.practice")],
      ["beats", "shift", "1", "--by", "0.02"],
      ["beats", "meter", "1", "--meter", "3/4"],
      ["beats", "grid", "1", "--bpm", "90"],
      ["import", "--replace", dir.file("at-60.practice")],
      ["beats", "detect", "1", "--replace"],
    ].enumerated() {
      let result = try cli.run(arguments)
      try #require(result.status == 0, "\(arguments): \(result.stderr)")
      let (stored, median) = try storedAndMedian()
      #expect(
        stored != nil && stored == median,
        "step \(step) \(arguments): \(String(describing: stored)) \(String(describing: median))")
      if let stored { seen.insert(stored) }
      // `show` gives the tempo of what is stored.
      let shown = try cli.run(["show", "1"]).stdout.split(separator: "\n")
        .first { $0.hasPrefix("bpm ") }
      let bpm = median.map { formatNumber((60 * 44100 / $0 * 10).rounded() / 10) }
      #expect(
        shown == bpm.map { "bpm \($0) (beat map)" }, "step \(step): \(String(describing: shown))")
    }
    #expect(seen.count >= 5, "the steps changed the interval: \(seen.sorted())")
    // Back to no map at all: nothing stored, no tempo shown.
    while try cli.run(["beats", "undo", "1"]).status == 0 {}
    #expect(try sql("SELECT count(*) FROM beat") == "0")
    #expect(try storedAndMedian().stored == nil)
    #expect(try cli.run(["show", "1"]).stdout.contains("bpm ") == false)
    // A repository or a file that brings the map back stores it too.
    let other = CLI(database: dir.file("other.sqlite"))
    try #require(try other.run(["add", CLI.fixture("clicks-120.wav")]).status == 0)
    try #require(try other.run(["import", dir.file("at-60.practice")]).status == 0)
    let imported = try storedAndMedian(other)
    #expect(imported.stored != nil && imported.stored == imported.median)
  }

  @Test func aLibraryFromBeforeSchema17GetsItsMapsTempiFilled() throws {
    try #require(try cli.run(["add", CLI.fixture("clicks-120.wav")]).status == 0)
    try #require(try cli.run(["add", CLI.fixture("demo.wav")]).status == 0)
    try #require(try cli.run(["add", CLI.fixture("chord.wav")]).status == 0)
    try #require(
      try cli.run(["beats", "import", "1", CLI.fixture("clicks-120.beats")]).status == 0)
    try #require(try cli.run(["beats", "double", "1", "--from", "0", "--to", "12"]).status == 0)
    try #require(try cli.run(["beats", "import", "2", CLI.fixture("demo.beats")]).status == 0)
    try #require(try cli.run(["set", "2", "--bpm", "100"]).status == 0)
    let listed = try cli.run(["list"]).stdout
    let shown = try cli.run(["show", "1"]).stdout
    let intervals = try sql("SELECT id, beat_interval FROM song ORDER BY id")
    #expect(intervals.split(separator: "\n").count == 3)
    #expect(listed.contains("\t240\t") || listed.contains("\t120\t"), "\(listed)")
    // The library as practice before v17 left it: no column, no record of the migration.
    _ = try sql(
      "ALTER TABLE song DROP COLUMN beat_interval; "
        + "DELETE FROM grdb_migrations WHERE identifier = 'v17-beat-interval'")
    #expect(try cli.run(["list"]).stdout == listed)
    #expect(try sql("SELECT id, beat_interval FROM song ORDER BY id") == intervals)
    #expect(try cli.run(["show", "1"]).stdout == shown)
    let (stored, median) = try storedAndMedian()
    #expect(stored != nil && stored == median)
  }
}
