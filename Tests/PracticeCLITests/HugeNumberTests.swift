import Foundation
import TestSupport
import Testing

/// Numbers a user types or a file holds, at the edges of a Double (1e300, a step of 1e-24
/// points): refused in one short line with the documented exit code, never a trap, never
/// echoed back as hundreds of digits.
@Suite struct HugeNumberTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// The longest run of digits in `line` (a number echoed as `%.3f` of 1e300 has 301).
  func digitRun(_ line: String) -> Int {
    line.split(whereSeparator: { !$0.isASCII || !$0.isNumber }).map(\.count).max() ?? 0
  }

  func prepare() throws {
    try #require(try cli.run(["add", CLI.fixture("clicks-120.wav")]).status == 0)
    try #require(
      try cli.run(["beats", "import", "1", CLI.fixture("clicks-120.beats")]).status == 0)
    try #require(try cli.run(["select", "add", "1", "verse", "--bars", "1-2"]).status == 0)
  }

  /// A speed-trainer step so small that counting its passes overflowed Int: play trapped.
  @Test func aStepTooSmallToCountIsRefused() throws {
    try prepare()
    let tiny = "0.000000000000000000000001%"
    for arguments in [
      ["play", "1", "--device", "null", "--speed", "50%", "--ramp-to", "100%", "--step", tiny],
      ["select", "set", "1", "verse", "--speed", "50%", "--ramp-to", "100%", "--step", tiny],
      ["play", "1", "--device", "null", "--ramp-to", "100%", "--step", "0.0001"],
    ] {
      // Worded with the value as typed.
      try cli.expectRefusal(
        arguments, status: 64, message: "--step \(arguments.last ?? ""): not a speed step",
        usageHint: true)
    }
    // A tenth of a point is a step.
    let smallest = try cli.run([
      "select", "set", "1", "verse", "--ramp-to", "100%", "--step", "0.1%",
    ])
    #expect(smallest.status == 0, "\(smallest.stderr)")
    // The same step in a .practice file: bad data, nothing stored.
    try #require(
      try cli.run([
        "select", "set", "1", "verse", "--speed", "50%", "--ramp-to", "100%", "--step", "5%",
      ]).status == 0)
    try #require(try cli.run(["export", "--all", "-o", dir.file("all.practice")]).status == 0)
    let text = try String(contentsOfFile: dir.file("all.practice"), encoding: .utf8)
    try #require(text.contains("\"step\":0.05"))
    try text.replacingOccurrences(of: "\"step\":0.05", with: "\"step\":1e-300")
      .write(toFile: dir.file("tiny.practice"), atomically: true, encoding: .utf8)
    let other = CLI(database: dir.file("other.sqlite"))
    try #require(try other.run(["add", CLI.fixture("clicks-120.wav")]).status == 0)
    let refused = try other.expectRefusal(
      ["import", dir.file("tiny.practice")], status: 65, message: "step 1e-300")
    #expect(digitRun(refused.stderrLines[0]) < 20, "\(refused.stderr)")
  }

  /// Times in beat and chord files far past any audio: the line says so in a few characters
  /// (it printed `%.3f` or `%.9f` of 1e300: over 300 digits).
  @Test func hugeTimesInFilesAreNamedShortly() throws {
    try prepare()
    for (name, body, message) in [
      ("late.txt", "0.5\n1.0\n1e300\n", "time 1e+300 is at or past the end of the audio"),
      ("early.txt", "0.5\n-1e300\n", "time is negative (-1e+300)"),
      (
        "labels.txt", "0.5\t0.5\t1\n1e300\t-1e300\t2\n",
        "label ends (-1e+300) before it starts (1e+300)"
      ),
    ] {
      let file = dir.file(name)
      try body.write(toFile: file, atomically: true, encoding: .utf8)
      let format = name == "labels.txt" ? "audacity" : "times"
      let result = try cli.expectRefusal(
        ["beats", "import", "1", file, "--format", format], status: 65,
        message: message)
      #expect(digitRun(result.stderrLines[0]) < 20, "\(result.stderr)")
    }
    let chords = dir.file("late.lab")
    try "1e300\t1e301\tC:maj\n".write(toFile: chords, atomically: true, encoding: .utf8)
    let result = try cli.expectRefusal(
      ["chords", "import", "1", chords], status: 65,
      message: "it starts at 1e+300 s, after the end of the audio (16.500 s)")
    #expect(digitRun(result.stderrLines[0]) < 20, "\(result.stderr)")
  }

  /// A Matroska track's `DURATION` tag no length can come from (NaN, ±1e300 hours): `add`
  /// trapped converting it to frames; it is passed over and the audio measured, as without.
  @Test func aDurationTagNoLengthComesFromIsPassedOver() throws {
    let made = try runProgram(
      "/usr/bin/ffmpeg",
      [
        "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=d=1", "-c:a", "flac", "one.mka",
      ],
      environment: [:], directory: dir.path, scratch: dir.path)
    try #require(made.status == 0, "\(made.stderr)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file("one.mka")))
    let tag = Data("00:00:01.000000000".utf8)
    try #require(bytes.range(of: tag) != nil)
    for (index, value) in ["1e300:00:00.000000", "nan:00:00.00000000", "-1e300:00:00.00000"]
      .enumerated()
    {
      let file = dir.file("tagged-\(index).mka")
      try bytes.replacing(tag, with: Data(value.utf8)).write(to: URL(fileURLWithPath: file))
      let library = CLI(database: dir.file("tagged-\(index).sqlite"))
      let added = try library.run(["add", file])
      #expect(added.status == 0, "\(value): \(added.stderr)")
      #expect(
        try library.run(["list"]).stdout.split(separator: "\t", omittingEmptySubsequences: false)
          .dropFirst(3).first == "0:01.0",
        "\(value)")
    }
  }
}
