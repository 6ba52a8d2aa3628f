import Foundation
import TestSupport
import Testing

/// What the commands say at their edges: `rm`'s report of one selection and of several
/// setlists; the length a Matroska track's `DURATION` tag declares, in hours or past any
/// audio; a chained Ogg file's links after one at another rate; a backslash and a DEL in an
/// otherwise plain ASCII title.
@Suite struct CommandWordingTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  func song(_ name: String, seconds: Double = 2) throws -> String {
    let path = dir.file(name)
    try Synth.write(Synth.sine(frequency: 440, seconds: seconds), to: path)
    return path
  }

  /// One selection is told (not only two or more), each setlist that named the song is, and a
  /// map undone to nothing is not.
  @Test func rmTellsOneSelectionEverySetlistAndNoMapAfterItsUndo() throws {
    _ = try cli.run(["add", try song("Eta.wav")])
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120"]).status == 0)
    #expect(try cli.run(["beats", "undo", "1"]).status == 0)
    #expect(try cli.run(["select", "add", "1", "a", "--from", "0", "--to", "0.2"]).status == 0)
    for name in ["gig", "rehearsal"] {
      _ = try cli.run(["setlist", "new", name])
      #expect(try cli.run(["setlist", "add", name, "1"]).status == 0)
    }
    let result = try cli.run(["rm", "1"])
    #expect(result.status == 0)
    #expect(
      result.stderr
        == "removed song 1 'Eta' with 1 selection, its entry in setlist 'gig', its entry in "
        + "setlist 'rehearsal' (the audio file is untouched)\n", "\(result.stderr)")
  }

  /// A tag of one hour on a one-second file is an hour (`1:00:00.0`) in the warning; a tag
  /// of 4e10 hours (past half of Int64's frames) is passed over, as one of 1e300 is.
  @Test func aDurationTagIsReadInHoursAndOnePastAnyLengthIsPassedOver() throws {
    let made = try runProgram(
      "/usr/bin/ffmpeg",
      ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=d=1", "-c:a", "flac", "one.mka"],
      environment: [:], directory: dir.path, scratch: dir.path)
    try #require(made.status == 0, "\(made.stderr)")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.file("one.mka")))
    let tag = Data("00:00:01.000000000".utf8)
    try #require(bytes.range(of: tag) != nil)
    let hour = dir.file("hour.mka")
    try bytes.replacing(tag, with: Data("01:00:00.000000000".utf8))
      .write(to: URL(fileURLWithPath: hour))
    let cut = try cli.run(["render", hour, "-o", dir.file("hour.wav")])
    #expect(cut.status == 65)
    #expect(cut.stderr.contains("the audio ends at 0:01.0 though the file says 1:00:00.0;"), "\(cut.stderr)")
    let huge = dir.file("huge.mka")
    try bytes.replacing(tag, with: Data("40000000000:00:000".utf8))
      .write(to: URL(fileURLWithPath: huge))
    let whole = try cli.run(["render", huge, "-o", dir.file("huge.wav")])
    #expect(whole.status == 0 && !whole.stderr.contains("warning"), "\(whole.stderr)")
  }

  /// Links at 44.1, 48 and 44.1 kHz: the chain ends at the second, and the third (at the
  /// first's rate again) is not played either; the length declared counts all three.
  @Test func aChainedOggStopsAtALinkOfAnotherRateAndPlaysNoneAfterIt() throws {
    var joined = Data()
    for (index, (rate, seconds)) in [(44100, 2), (48000, 3), (44100, 2)].enumerated() {
      let name = "link-\(index).ogg"
      let made = try runProgram(
        "/usr/bin/ffmpeg",
        [
          "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
          "sine=frequency=440:sample_rate=\(rate):duration=\(seconds)", "-c:a", "libvorbis", name,
        ], environment: [:], directory: dir.path, scratch: dir.path)
      try #require(made.status == 0, "\(made.stderr)")
      joined += try Data(contentsOf: URL(fileURLWithPath: dir.file(name)))
    }
    let path = dir.file("three.ogg")
    try joined.write(to: URL(fileURLWithPath: path))
    let result = try cli.run(["render", path, "-o", dir.file("three.wav")])
    #expect(result.status == 65)
    #expect(
      result.stderr.contains("the audio ends at 0:02.0 though the file says 0:07.0 (its stream 2 of 3"),
      "\(result.stderr)")
    #expect(try Synth.read(dir.file("three.wav")).samples.count == 2 * 44100)
  }

  /// Plain ASCII but for a backslash or a DEL: the backslash is doubled and the DEL escaped,
  /// as in any other title (the door's quick pass for printable ASCII lets neither through).
  @Test func aBackslashOrADelInAnASCIITitleIsEscaped() throws {
    let back = try song("back\\slash.wav", seconds: 0.5)
    let del = try song("del\u{7F}.wav", seconds: 0.5)
    let added = try cli.run(["add", back, del])
    #expect(added.stdout == "1\tback\\\\slash\n2\tdel\\x7f\n", "\(added.stdout)")
    #expect(try cli.run(["show", "1"]).stdout.contains("title back\\\\slash\n"))
    #expect(try cli.run(["show", "2"]).stdout.contains("title del\\x7f\n"))
  }

  /// A title whose only control is a bidirectional one (U+202E, U+2069) or a C1 control is
  /// escaped too: the quick check of the bytes looks for them.
  @Test func aBidiOrC1ControlAloneInATitleIsEscaped() throws {
    let rlo = try song("rlo\u{202E}.wav", seconds: 0.5)
    let pdi = try song("pdi\u{2069}.wav", seconds: 0.5)
    let csi = try song("csi\u{9B}.wav", seconds: 0.5)
    let added = try cli.run(["add", rlo, pdi, csi])
    #expect(added.stdout == "1\trlo\\u202e\n2\tpdi\\u2069\n3\tcsi\\u009b\n", "\(added.stdout)")
    #expect(try cli.run(["show", "1"]).stdout.contains("title rlo\\u202e\n"))
    #expect(try cli.run(["list", "--json"]).stdout.contains(#""title":"rlo\u202e""#))
  }
}
