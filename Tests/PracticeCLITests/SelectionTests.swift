import Foundation
import Testing
import TestSupport

@Suite struct SelectionTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// clicks-120 with a 120 BPM grid from 0.5 s: bars 1-8, bar k starts at 0.5 + 2(k-1) s.
  func prepare() throws {
    _ = try cli.run(["add", CLI.fixture("clicks-120.wav")])
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5"]).status == 0)
  }

  @Test func addListShowEditRemove() throws {
    try prepare()
    #expect(try cli.run(["select", "add", "1", "verse", "--bars", "1-4", "--note", "watch bar 3"]).status == 0)
    #expect(try cli.run(["select", "add", "clicks-120", "intro", "--from", "0", "--to", "0:02.5"]).status == 0)
    let list = try cli.run(["select", "list"])
    #expect(
      list.stdout
        == "1\tintro\t0:00.0–0:02.5\t\tclicks-120\n1\tverse\tbars 1-4 (0:00.5–0:08.5)\twatch bar 3\tclicks-120\n")
    let json = try cli.run(["select", "list", "1", "--json"])
    let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
    #expect(array.count == 2)
    #expect(Set(array[1].keys) == ["bars", "fits", "from", "name", "note", "song", "song_id", "to"])
    #expect(array[1]["song"] as? String == "clicks-120")
    #expect(array[1]["from"] as? Double == 0.5 && array[1]["to"] as? Double == 8.5)
    #expect(try cli.run(["select", "show", "1", "VERSE"]).stdout.contains("span bars 1-4 (0:00.5–0:08.5)\n"))
    #expect(try cli.run(["select", "edit", "1", "verse", "--bars", "2-3", "--rename", "chorus", "--note", ""]).status == 0)
    #expect(try cli.run(["select", "show", "1", "chorus"]).stdout.contains("span bars 2-3"))
    #expect(try cli.run(["select", "rm", "1", "chorus"]).status == 0)
    let gone = try cli.run(["select", "show", "1", "chorus"])
    #expect(gone.status == 66)
    #expect(gone.stderr == "practice: 'clicks-120' has no selection 'chorus'; it has: intro\n")
  }

  /// `select show` says when a selection was made and changed in local time to the minute,
  /// as `setlist list` and `log` do, not as the stored UTC stamp.
  @Test func showSaysTimesInLocalTime() throws {
    let india = CLI(database: dir.file("lib.sqlite"), environment: ["TZ": "Asia/Kolkata"])
    _ = try india.run(["add", CLI.fixture("clicks-120.wav")])
    let before = Date()
    #expect(try india.run(["select", "add", "1", "verse", "--from", "0", "--to", "1"]).status == 0)
    let after = Date()
    let show = try india.run(["select", "show", "1", "verse"]).stdout
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "Asia/Kolkata")
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    let times = Set([before, after].map { formatter.string(from: $0) })
    #expect(times.contains { show.contains("\ncreated_at \($0)\n") }, "\(show)")
    #expect(times.contains { show.contains("\nupdated_at \($0)\n") }, "\(show)")
    #expect(!show.contains("Z\n"), "\(show)")
    // `show SONG` says when the song was added the same way.
    let song = try india.run(["show", "1"]).stdout
    #expect(song.wholeMatch(of: /(?s).*\nadded_at \d{4}-\d\d-\d\d \d\d:\d\d\n.*/) != nil, "\(song)")
  }

  @Test func namesAreUniquePerSongUnlessReplaced() throws {
    try prepare()
    _ = try cli.run(["select", "add", "1", "solo", "--bars", "5-8"])
    let before = try cli.run(["select", "list"]).stdout
    let again = try cli.run(["select", "add", "1", "Solo", "--bars", "1"])
    #expect(again.status == 64)
    #expect(again.stderr.contains("use --replace"))
    #expect(try cli.run(["select", "list"]).stdout == before)
    #expect(try cli.run(["select", "add", "1", "Solo", "--bars", "1", "--replace"]).status == 0)
    #expect(try cli.run(["select", "list"]).stdout == "1\tSolo\tbar 1 (0:00.5–0:02.5)\t\tclicks-120\n")
  }

  /// The `span` line of `select show 1 NAME`.
  func span(of name: String) throws -> String {
    try cli.run(["select", "show", "1", name]).stdout.split(separator: "\n")[2].description
  }

  @Test func movesHalvesAndDoubles() throws {
    try prepare()
    _ = try cli.run(["select", "add", "1", "a", "--bars", "1-4"])
    // Each says what it did, where the selection is now and where it was.
    let halve = try cli.run(["select", "halve", "1", "a", "--second"])
    #expect(
      halve.stderr == "'clicks-120': kept the second half of selection 'a': bars 3-4 "
        + "(0:04.5–0:08.5) (was bars 1-4 (0:00.5–0:08.5))\n")
    #expect(try span(of: "a") == "span bars 3-4 (0:04.5–0:08.5)")
    let double = try cli.run(["select", "double", "1", "a"])
    #expect(
      double.stderr == "'clicks-120': doubled selection 'a' from its start: bars 3-6 "
        + "(0:04.5–0:12.5) (was bars 3-4 (0:04.5–0:08.5))\n")
    #expect(try span(of: "a") == "span bars 3-6 (0:04.5–0:12.5)")
    let move = try cli.run(["select", "move", "1", "a", "--by", "-2"])
    #expect(
      move.stderr == "'clicks-120': moved selection 'a' 2 bars earlier: bars 1-4 "
        + "(0:00.5–0:08.5) (was bars 3-6 (0:04.5–0:12.5))\n")
    #expect(try span(of: "a") == "span bars 1-4 (0:00.5–0:08.5)")
    #expect(try cli.run(["select", "halve", "1", "a"]).status == 0)
    #expect(try span(of: "a") == "span bars 1-2 (0:00.5–0:04.5)")
    let away = try cli.run(["select", "move", "1", "a", "--by", "+7"])
    #expect(away.status == 64)
    #expect(away.stderr.contains("would leave the song's bars 1-8"))
    #expect(try cli.run(["select", "double", "1", "a"]).status == 0)
    #expect(try cli.run(["select", "double", "1", "a"]).status == 0)
    #expect(try cli.run(["select", "double", "1", "a"]).status == 64)
    #expect(try span(of: "a") == "span bars 1-8 (0:00.5–0:16.5)")
  }

  /// A selection that no longer fits the beat map is not moved, halved or doubled: the
  /// refusal says how to fix it.
  @Test func aSelectionThatNoLongerFitsIsNotTransformed() throws {
    try prepare()
    _ = try cli.run(["select", "add", "1", "a", "--bars", "7.3-8.2"])
    // Another map (a grid at 90 BPM: bars 1-6) keeps selections in the bars typed.
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "90", "--start", "0.5"]).status == 0)
    for command in [["halve"], ["double"], ["move", "--by", "-1"]] {
      let result = try cli.run(["select", command[0], "1", "a"] + command.dropFirst())
      #expect(result.status == 64)
      #expect(result.stderrLines == [
        "practice: selection 'a' of 'clicks-120' (bars 7.3-8.2) no longer fits the beat map (bars 1-6); fix it with `practice select edit 1 'a' --bars …` first"
      ], "\(result.stderr)")
    }
    #expect(try cli.run(["select", "show", "1", "a"]).stdout.contains("bars 7.3-8.2"))
  }

  /// One bar, or a span written in beats, halves and doubles in beats.
  @Test func halvesAndDoublesInBeats() throws {
    try prepare()
    _ = try cli.run(["select", "add", "1", "a", "--bars", "2"])
    #expect(try cli.run(["select", "halve", "1", "a", "--second"]).status == 0)
    #expect(try span(of: "a") == "span bars 2.3-2.4 (0:03.5–0:04.5)")
    #expect(try cli.run(["select", "double", "1", "a"]).status == 0)
    #expect(try span(of: "a") == "span bars 2.3-3.2 (0:03.5–0:05.5)")
    #expect(try cli.run(["select", "double", "1", "a"]).status == 0)
    #expect(try span(of: "a") == "span bars 2.3-4.2 (0:03.5–0:07.5)")
    // Eight beats, halved: the first four.
    #expect(try cli.run(["select", "halve", "1", "a"]).status == 0)
    #expect(try span(of: "a") == "span bars 2.3-3.2 (0:03.5–0:05.5)")
    // Three beats: the first half is the one, the second the other two.
    _ = try cli.run(["select", "add", "1", "b", "--bars", "5.2-5.4"])
    #expect(try cli.run(["select", "halve", "1", "b", "--second"]).status == 0)
    #expect(try span(of: "b") == "span bars 5.3-5.4 (0:09.5–0:10.5)")
  }

  @Test func playAndRenderASelection() throws {
    try prepare()
    _ = try cli.run(["select", "add", "1", "two", "--bars", "2-3"])
    let render = try cli.run(["render", "1", "--select", "two", "--repeat", "2", "-o", dir.file("two.wav")])
    #expect(render.status == 0, "\(render.stderr)")
    let (_, out) = try Synth.read(dir.file("two.wav"))
    #expect(out.count == 2 * 4 * 44100)
    #expect(try cli.run(["play", "1", "--select", "two", "--device", "null"]).status == 0)
    let both = try cli.run(["play", "1", "--select", "two", "--bars", "1"])
    #expect(both.status == 64)
    let missing = try cli.run(["play", "1", "--select", "bridge", "--device", "null"])
    #expect(missing.status == 66)
  }

  /// A new map (detected, tapped, imported, a grid) moves a bar selection to other music:
  /// said once, with the edit that keeps the old passage. Counting the same beats again
  /// keeps the selection on its music and renames its bars. A small shift of every beat is
  /// not worth a word.
  @Test func aBarSelectionMovedToOtherMusicIsReported() throws {
    try prepare()
    _ = try cli.run(["select", "add", "1", "b", "--bars", "3-4"])
    let recount = try cli.run(["beats", "meter", "1", "--meter", "3/4"])
    #expect(recount.status == 0)
    #expect(recount.stderrLines == [
      "'clicks-120': bars 1-11 after counting 3/4", "selection 'b' is now bars 3.3-6.1 (was 3-4)",
    ])
    #expect(try cli.run(["beats", "undo", "1"]).status == 0)
    let regrid = try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5", "--meter", "3/4"])
    #expect(regrid.status == 0)
    #expect(regrid.stderrLines.count == 2, "\(regrid.stderr)")
    let warning = try #require(regrid.stderrLines.last)
    #expect(
      warning == "practice: warning: selection 'b' of 'clicks-120' (bars 3-4) now plays 0:03.5–0:06.5, "
        + "not 0:04.5–0:08.5; to keep that passage, `practice select edit 1 'b' --from 4.500 --to 8.500`")
    #expect(try cli.run(["select", "edit", "1", "b", "--from", "4.500", "--to", "8.500"]).status == 0)
    #expect(try cli.run(["select", "list"]).stdout == "1\tb\t0:04.5–0:08.5\t\tclicks-120\n")
    _ = try cli.run(["select", "add", "1", "c", "--bars", "2"])
    let shift = try cli.run(["beats", "shift", "1", "--by", "0.01"])
    #expect(shift.status == 0 && shift.stderrLines.count == 1, "\(shift.stderr)")
  }

  @Test func selectionsFollowTheBeatMapAndWarnWhenTheyNoLongerFit() throws {
    try prepare()
    _ = try cli.run(["select", "add", "1", "end", "--bars", "7-8"])
    _ = try cli.run(["select", "add", "1", "fixed", "--from", "1", "--to", "2"])
    // The same beats counted in 8/4: four bars, so bars 7-8 no longer exist.
    _ = try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5", "--meter", "8/4"])
    let list = try cli.run(["select", "list"])
    // One that no longer fits comes after those that do.
    #expect(list.stdout.hasSuffix("1\tend\tbars 7-8\t\tclicks-120\n"))
    #expect(list.stderrLines.count == 1)
    #expect(list.stderr.contains("selection 'end' of 'clicks-120' (bars 7-8) no longer fits the beat map (bars 1-4)"))
    let play = try cli.run(["play", "1", "--select", "end", "--device", "null"])
    #expect(play.status == 64)
    #expect(play.stderr.contains("cannot be played"))
    // Shifted grid: the bar selection follows, the time selection does not.
    _ = try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.75"])
    #expect(
      try cli.run(["select", "list"]).stdout
        == "1\tfixed\t0:01.0–0:02.0\t\tclicks-120\n1\tend\tbars 7-8 (0:12.8–0:16.5)\t\tclicks-120\n")
    #expect(try cli.run(["select", "list"]).stderr.isEmpty)
  }

  @Test func badSelectionInput() throws {
    try prepare()
    let before = try cli.snapshot()
    #expect(try cli.run(["select", "add", "1", "x"]).status == 64)
    #expect(try cli.run(["select", "add", "1", "x", "--bars", "20"]).status == 64)
    #expect(try cli.run(["select", "add", "1", "x", "--bars", "1", "--from", "2"]).status == 64)
    #expect(try cli.run(["select", "add", "1", "x", "--from", "3", "--to", "2"]).status == 64)
    #expect(try cli.run(["select", "move", "1", "x", "--by", "two"]).status == 64)
    #expect(try cli.run(["select", "move", "1", "x", "--by", "9223372036854775807"]).status == 64)
    #expect(try cli.run(["play", "1", "--from", "99999999999999999999", "--device", "null"]).status == 64)
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "99999999999999999999"]).status == 64)
    #expect(try cli.run(["select", "list", "--json"]).stdout == "[]\n")
    #expect(try cli.snapshot() == before)
  }
}

@Suite struct BeatEditCLITests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  @Test func shiftAndMeterEditTheStoredMap() throws {
    _ = try cli.run(["add", CLI.fixture("clicks-120.wav")])
    _ = try cli.run(["beats", "grid", "1", "--bpm", "120", "--start", "0.5"])
    #expect(try cli.run(["beats", "shift", "1", "--by", "-0.25"]).status == 0)
    #expect(try cli.run(["beats", "show", "1"]).stdout.hasPrefix("1\t0:00.3\t4\t120.0\n"))
    let before = try cli.run(["beats", "show", "1"]).stdout
    let tooFar = try cli.run(["beats", "shift", "1", "--by", "-1"])
    #expect(tooFar.status == 64)
    #expect(tooFar.stderr.contains("outside the audio"))
    #expect(try cli.run(["beats", "show", "1"]).stdout == before)
    #expect(try cli.run(["beats", "meter", "1", "--meter", "3/4", "--from-bar", "3"]).status == 0)
    let show = try cli.run(["beats", "show", "1"]).stdout.split(separator: "\n")
    #expect(show.count == 10)  // 2 bars of 4, then 24 beats in bars of 3
    #expect(show[2].hasPrefix("3\t0:04.3\t3\t"))
    #expect(try cli.run(["beats", "meter", "1", "--meter", "4/4", "--bar1", "2"]).status == 0)
    #expect(try cli.run(["beats", "show", "1"]).stdout.hasPrefix("0\t0:00.3\t1\t"))
    #expect(try cli.run(["beats", "meter", "1", "--meter", "4/4", "--bar1", "2", "--from-bar", "2"]).status == 64)
  }
}
