import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// `import` of a `.practice` file into the core library, at its edges: the same recording
/// twice, ten songs missing, another sample rate, a beat or chord at the song's end, what
/// `--replace` takes, what counts as the same selection or setlist, and the file's limits.
@Suite struct ImportTests {
  let dir = TemporaryDirectory()

  /// A library at `name`.sqlite holding `songs` (name, seconds of sine, sample rate), each
  /// `name.wav` in its own folder `name` (one content per frequency and rate).
  func library(_ name: String, _ songs: [(String, Int)]) throws -> (Library, [Song]) {
    let folder = dir.file(name)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let library = try Library(path: dir.file("\(name).sqlite"))
    let added = try songs.map { song, rate in
      let path = folder + "/\(song).wav"
      try Synth.write(
        Synth.sine(frequency: 440, seconds: 4, sampleRate: rate), to: path, sampleRate: rate)
      return try library.resolve(path)
    }
    return (library, added)
  }

  /// Four bars of 4/4 at 240 BPM from the start.
  func fourBars(_ song: Song, source: BeatSource = .grid) throws -> BeatMap {
    let beat = Int64(song.sampleRate / 4)
    let beats = (0..<16).map {
      Beat(frame: Int64($0) * beat, bar: 1 + $0 / 4, beat: 1 + $0 % 4, source: source)
    }
    return try BeatMap(beats: beats, totalFrames: song.frames, sampleRate: song.sampleRate)
  }

  func message(_ body: () throws -> Void) -> String {
    do {
      try body()
      return "no error"
    } catch let error as PracticeError {
      return error.message
    } catch {
      return "\(error)"
    }
  }

  @Test func aSecondCopyOfARecordingIsReportedNotMergedAndTenMissingAreAllNamed() throws {
    // Two copies of one recording in the band's library (one content hash), one here.
    let (leader, copies) = try library("leader", [("a", 44100), ("b", 44100)])
    #expect(copies[0].contentHash == copies[1].contentHash)
    let file = try leader.export(songs: copies, setlists: [])
    let (member, _) = try library("member", [("a", 44100)])
    let report = try member.importFile(file, path: "f.practice", partial: false, replace: false)
    #expect(report.found.count == 1 && report.duplicates.count == 1)
    #expect(report.duplicates.first?.first.title == "a")

    // Ten songs missing are all named, with no "and 0 more"; an eleventh is counted.
    var ten = file
    ten.songs = (1...10).map { n in
      var song = file.songs[0]
      (song.ref, song.title, song.contentHash) = (n, "s\(n)", "missing\(n)")
      return song
    }
    let (empty, _) = try library("empty", [])
    let tenMessage = message {
      _ = try empty.importFile(ten, path: "f.practice", partial: false, replace: false)
    }
    #expect(tenMessage.hasPrefix("10 of the 10 songs in 'f.practice' are not in the library: 's1'"))
    #expect(tenMessage.contains("'s10' (0:04.0); add their files"), "\(tenMessage)")
    var eleven = ten
    eleven.songs.append(ten.songs[0])
    (eleven.songs[10].ref, eleven.songs[10].contentHash) = (11, "missing11")
    let elevenMessage = message {
      _ = try empty.importFile(eleven, path: "f.practice", partial: false, replace: false)
    }
    #expect(elevenMessage.contains("; and 1 more; add their files"), "\(elevenMessage)")
  }

  @Test func framesAreScaledToTheSongsRateAndWhatFallsAtOrPastItsEndIsCut() throws {
    let (leader, songs) = try library("leader", [("a", 44100)])
    let song = songs[0]
    try leader.replaceBeatMap(for: song, with: try fourBars(song))
    let spans = [
      ChordSpan(start: 0, end: 88200, chord: try Chord.parseHarte("C:maj")),
      ChordSpan(start: 88200, end: song.frames, chord: try Chord.parseHarte("G:maj")),
      // Past the end of the audio (a track may come from a longer copy).
      ChordSpan(start: song.frames, end: song.frames + 900, chord: try Chord.parseHarte("D:maj")),
    ]
    try leader.replaceChordTrack(for: song, with: ChordTrack(spans: spans, source: .imported))
    var file = try leader.export(songs: songs, setlists: [])

    // The same title and length at 22,050 Hz: every frame halved; the chord that starts at
    // the end of the audio is left out.
    let (member, found) = try library("member", [("a", 22050)])
    _ = try member.importFile(file, path: "f.practice", partial: false, replace: false)
    let map = try #require(try member.beatMap(for: found[0]))
    #expect(map.beats.map(\.frame) == (0..<16).map { Int64((Double($0 * 11025) / 2).rounded()) })
    let track = try #require(try member.chordTrack(for: found[0]))
    #expect(track.spans.map(\.start) == [0, 44100] && track.spans.map(\.end) == [44100, 88200])

    // At its own rate: a beat exactly at the end of the audio is cut (a map that does not
    // fit is refused as a whole); a chord running past the end is cut there.
    let (other, same) = try library("other", [("a", 44100)])
    var shared = try #require(file.songs[0].beatMap)
    shared.frames[15] = song.frames
    file.songs[0].beatMap = shared
    file.songs[0].chords = PracticeFile.SharedChords(
      source: "imported", key: nil, starts: [0, 88200], ends: [88200, song.frames + 500],
      labels: ["C:maj", "G:maj"])
    _ = try other.importFile(file, path: "f.practice", partial: false, replace: false)
    #expect(try other.beatMap(for: same[0])?.beats.count == 15)
    let cut = try #require(try other.chordTrack(for: same[0]))
    #expect(cut.spans.map(\.start) == [0, 88200] && cut.spans.map(\.end) == [88200, song.frames])
  }

  @Test func replaceTakesTheKeyTagsAreAddedInAnyCaseAndANewMapForgetsTheRedo() throws {
    let (leader, songs) = try library("leader", [("a", 44100)])
    var change = SongDetailsChange()
    change.key = .some(MusicalKey(parsing: "D"))
    change.addTags = ["Rock", "live"]
    try leader.changeDetails(of: songs[0], change)
    try leader.replaceBeatMap(for: songs[0], with: try fourBars(songs[0]))
    let file = try leader.export(songs: songs, setlists: [])

    let (member, found) = try library("member", [("a", 44100)])
    var mine = SongDetailsChange()
    mine.key = .some(MusicalKey(parsing: "C"))
    mine.addTags = ["rock"]
    try member.changeDetails(of: found[0], mine)
    // A map stored and undone: the song has none, and the undone one waits for a redo.
    try member.replaceBeatMap(for: found[0], with: try fourBars(found[0]))
    _ = try member.undoBeatMapChange(for: found[0])
    #expect(try member.beatMap(for: found[0]) == nil)

    _ = try member.importFile(file, path: "f.practice", partial: false, replace: true)
    let details = try member.details(of: found[0])
    #expect(details.key == MusicalKey(parsing: "D"))
    #expect(details.tags == ["live", "rock"])
    // The imported map is the song's now; the undone one is not brought back over it.
    #expect(try member.beatMap(for: found[0]) != nil)
    #expect(throws: NothingToRedo.self) { _ = try member.redoBeatMapChange(for: found[0]) }
  }

  @Test func aSelectionDifferingInItsNoteIsKeptAndAnUnchangedSetlistOrTagIsNotStoredAgain() throws {
    let (leader, songs) = try library("leader", [("a", 44100)])
    let bars = try #require(BarRange(parsing: "1-2"))
    _ = try leader.addSelection(to: songs[0], name: "verse", span: .bars(bars), note: "theirs", replace: false)
    var tags = SongDetailsChange()
    tags.addTags = ["Rock"]
    try leader.changeDetails(of: songs[0], tags)
    _ = try leader.createSetlist(named: "gig")
    _ = try leader.addEntry(SetlistEntry(songID: try #require(songs[0].id)), to: "gig", at: nil)
    let file = try leader.export(songs: songs, setlists: try [leader.setlist(named: "gig")])

    let (member, found) = try library("member", [("a", 44100)])
    _ = try member.addSelection(to: found[0], name: "verse", span: .bars(bars), note: "mine", replace: false)
    tags.addTags = ["rock"]
    try member.changeDetails(of: found[0], tags)
    let first = try member.importFile(file, path: "f.practice", partial: false, replace: false)
    // The band's tag is one the song has, in another case: the details are as they were.
    #expect(first.detailsChanged == 0)
    #expect(first.selectionsKept == ["'verse' of 'a'"] && first.selectionsStored == 0)
    #expect(first.setlistsStored == ["gig"])
    let again = try member.importFile(file, path: "f.practice", partial: false, replace: false)
    #expect(again.setlistsStored.isEmpty && again.setlistsKept.isEmpty && again.changedNothing)
  }

  @Test func theFilesLimitsHoldAtTheirEdges() throws {
    let (leader, songs) = try library("leader", [("a", 44100)])
    let file = try leader.export(songs: songs, setlists: [])

    // Another recording of the same title exactly a second longer is the same song.
    let (member, found) = try library("member", [("a", 44100)])
    var longer = file
    (longer.songs[0].contentHash, longer.songs[0].duration) = ("other", found[0].duration + 1)
    #expect(try member.importFile(longer, path: "f.practice", partial: false, replace: false).found.count == 1)

    // A selection of one beat (`2.3-2.3`) is a span; one of no frames is not.
    var oneBeat = file
    oneBeat.songs[0].selections = [PracticeFile.SharedSelection(name: "hit", bars: "2.3-2.3")]
    #expect(try Library.check(oneBeat, path: "f.practice").count == 1)
    var noFrames = file
    noFrames.songs[0].selections = [
      PracticeFile.SharedSelection(name: "none", startFrame: 100, endFrame: 100)
    ]
    #expect(message { _ = try Library.check(noFrames, path: "f.practice") }.contains("has no valid span"))

    // A setlist entry may transpose by an octave, not more.
    for (transpose, accepted) in [(12, true), (-12, true), (13, false)] {
      var entry = file
      entry.setlists = [
        PracticeFile.SharedSetlist(
          name: "gig", entries: [PracticeFile.SharedEntry(song: 1, transpose: transpose)])
      ]
      #expect(message { _ = try Library.check(entry, path: "f.practice") }.contains("transposes") != accepted)
    }
  }

  @Test func anExportCarriesEachSongsOwnBeatsAndTheirSource() throws {
    let (leader, songs) = try library("leader", [("a", 44100)])
    try FileManager.default.createDirectory(atPath: dir.file("b"), withIntermediateDirectories: true)
    try Synth.write(Synth.sine(frequency: 330, seconds: 2), to: dir.file("b/b.wav"))
    let other = try leader.resolve(dir.file("b/b.wav"))
    try leader.replaceBeatMap(for: songs[0], with: try fourBars(songs[0], source: .tapped))
    let twoBars = try BeatMap(
      beats: (0..<8).map { Beat(frame: Int64($0) * 10000, bar: 1 + $0 / 4, beat: 1 + $0 % 4, source: .detected, confidence: 0.5) },
      totalFrames: other.frames, sampleRate: other.sampleRate)
    try leader.replaceBeatMap(for: other, with: twoBars)
    let file = try leader.export(songs: [songs[0], other], setlists: [])
    #expect(file.songs[0].beatMap?.sources == [PracticeFile.SourceRun(source: "tapped", count: 16)])
    #expect(file.songs[1].beatMap?.frames == (0..<8).map { Int64($0) * 10000 })
  }
}
