import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The repository index, safe file names, and pull's rule of who wins, without a server.
@Suite struct RepositoryCoreTests {
  let dir = TemporaryDirectory()

  @Test func fileNamesCannotLeaveTheRepository() {
    for bad in [
      "", "../x.practice", "a/b.practice", "/etc/x.practice", ".hidden.practice", "a\\b.practice",
      "x.json", "a\u{1}b.practice", "a..b.practice",
      String(repeating: "x", count: 200) + ".practice",
    ] {
      #expect(!RepositoryIndex.isSafeFileName(bad), "\(bad)")
    }
    #expect(RepositoryIndex.isSafeFileName("Blue_-_The_Band-81391932.practice"))
    #expect(RepositoryIndex.isSafeFileName("Grüße-1.practice"))
    // At most 120 bytes, `.practice` (9) included.
    #expect(RepositoryIndex.isSafeFileName(String(repeating: "x", count: 111) + ".practice"))
    #expect(!RepositoryIndex.isSafeFileName(String(repeating: "x", count: 112) + ".practice"))
    #expect(RepositoryIndex.safeStem("../../etc/passwd", fallback: "s") == "etc_passwd")
    #expect(RepositoryIndex.safeStem("a\u{7}\u{1B}[31m b", fallback: "s") == "a_[31m_b")
    #expect(RepositoryIndex.safeStem("...", fallback: "song") == "song")
    #expect(
      RepositoryIndex.safeStem(String(repeating: "é", count: 100), fallback: "s").utf8.count <= 60)
  }

  @Test func indexRoundTripsAndANewerOneIsRefused() throws {
    let index = RepositoryIndex(
      songs: [
        .init(
          contentHash: "fnv1a64s:1", title: "Blue \"live\"", artist: nil, duration: 187.25,
          version: "fnv1a64:2", file: "Blue.practice", size: 1200)
      ],
      setlists: [.init(name: "Gig", version: "v", file: "setlist-Gig.practice", size: 10)])
    #expect(try RepositoryIndex.decode(index.encoded(), source: "x") == index)
    #expect(index.encoded() == index.encoded())
    let newer = Data(#"{"format":"practice-repository","version":9,"songs":[]}"#.utf8)
    #expect(throws: PracticeError.self) { try RepositoryIndex.decode(newer, source: "x") }
    let foreign = Data(#"{"format":"other","version":1,"songs":[]}"#.utf8)
    #expect(throws: PracticeError.self) { try RepositoryIndex.decode(foreign, source: "x") }
  }

  @Test func localFilesAreCappedAndAnsweredNotModified() throws {
    let path = dir.file("index.json")
    try Data(count: 2000).write(to: URL(fileURLWithPath: path))
    let fetcher = HTTPFetcher()
    guard
      case .fetched(let data, let validators) = try fetcher.get(
        path, validators: nil, maxBytes: 4096)
    else {
      Issue.record("not fetched")
      return
    }
    #expect(data.count == 2000)
    #expect(
      try fetcher.get("file://" + path, validators: validators, maxBytes: 4096) == .notModified)
    // A file exactly at the cap is read.
    guard case .fetched(let whole, _) = try fetcher.get(path, validators: nil, maxBytes: 2000)
    else {
      Issue.record("a file at the cap not fetched")
      return
    }
    #expect(whole.count == 2000)
    #expect(throws: FetchError(.tooLarge(limit: 1000), location: path)) {
      try fetcher.get(path, validators: nil, maxBytes: 1000)
    }
    #expect(fetcher.requests == 0)
  }

  /// A detected map is replaced by the repository's; a tapped one made here is kept.
  @Test func aDetectorsMapIsReplacedAndAPersonsIsKept() throws {
    let audio = dir.file("song.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 6, amplitude: 0.3), to: audio)
    let leader = try Library(path: dir.file("leader.sqlite"))
    let member = try Library(path: dir.file("member.sqlite"))
    let song = try #require(try leader.add([SongScanner.scan(audio)]).first)
    let mine = try #require(try member.add([SongScanner.scan(audio)]).first)
    func map(_ spacing: Int64, _ source: BeatSource) throws -> BeatMap {
      let beats = (0..<8).map {
        Beat(frame: Int64($0) * spacing, bar: 1 + $0 / 4, beat: 1 + $0 % 4, source: source)
      }
      return try BeatMap(beats: beats, totalFrames: song.frames, sampleRate: song.sampleRate)
    }
    try leader.replaceBeatMap(for: song, with: try map(22050, .grid))
    _ = try leader.publish(to: dir.file("repo"), songs: [song], setlists: [])
    let repository = try member.addRepository(name: "band", url: dir.file("repo"))

    try member.replaceBeatMap(for: mine, with: try map(20000, .detected))
    var report = try member.pull(repository, fetcher: HTTPFetcher())
    #expect(report.applied.count == 1 && report.kept.isEmpty)
    #expect(try member.storedBeats(for: mine)?.first?.source == .grid)

    // Changed here by a person (tapped), then by the leader: kept, then --replace.
    try member.replaceBeatMap(for: mine, with: try map(21000, .tapped))
    try leader.replaceBeatMap(for: song, with: try map(23000, .grid))
    _ = try leader.publish(to: dir.file("repo"), songs: [song], setlists: [])
    report = try member.pull(repository, fetcher: HTTPFetcher())
    #expect(report.kept.map(\.what) == ["beat map"])
    #expect(try member.storedBeats(for: mine)?[1].frame == 21000)
    report = try member.pull(repository, fetcher: HTTPFetcher(), replace: true)
    #expect(report.kept.isEmpty && report.applied.count == 1)
    #expect(try member.storedBeats(for: mine)?[1].frame == 23000)
    // Not edited since: the next change of the leader's applies without --replace.
    try leader.replaceBeatMap(for: song, with: try map(24000, .grid))
    _ = try leader.publish(to: dir.file("repo"), songs: [song], setlists: [])
    report = try member.pull(repository, fetcher: HTTPFetcher())
    #expect(report.kept.isEmpty && report.applied.count == 1)
    #expect(try member.storedBeats(for: mine)?[1].frame == 24000)
  }

  /// A first pull: selections and a setlist a member already had are theirs and kept; a
  /// chord track a detector made is replaced by the band's. A song that has the title but
  /// not the length (8 s, the band's is 6 s) is another recording and takes nothing.
  @Test func whatAMemberMadeIsKeptADetectorsChordsAreNotAndALengthMustMatch() throws {
    let audio = dir.file("song.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 6, amplitude: 0.3), to: audio)
    let leader = try Library(path: dir.file("leader.sqlite"))
    let member = try Library(path: dir.file("member.sqlite"))
    let song = try #require(try leader.add([SongScanner.scan(audio)]).first)
    let mine = try #require(try member.add([SongScanner.scan(audio)]).first)
    func track(_ root: Int, _ source: ChordTrack.Source) -> ChordTrack {
      ChordTrack(
        spans: [ChordSpan(start: 0, end: song.frames, chord: Chord(root: root, quality: .maj))],
        source: source)
    }
    try leader.replaceChordTrack(for: song, with: track(0, .imported))
    _ = try leader.addSelection(
      to: song, name: "verse", span: .frames(0..<44100), note: nil, replace: false)
    _ = try leader.createSetlist(named: "Gig")
    try leader.addEntry(SetlistEntry(songID: try #require(song.id), speed: 0.5), to: "Gig", at: nil)
    _ = try leader.publish(
      to: dir.file("repo"), songs: [song], setlists: [try leader.setlist(named: "Gig")])

    try member.replaceChordTrack(for: mine, with: track(9, .detected))
    _ = try member.addSelection(
      to: mine, name: "verse", span: .frames(0..<22050), note: nil, replace: false)
    _ = try member.createSetlist(named: "Gig")
    try member.addEntry(SetlistEntry(songID: try #require(mine.id)), to: "Gig", at: nil)
    let repository = try member.addRepository(name: "band", url: dir.file("repo"))
    let report = try member.pull(repository, fetcher: HTTPFetcher())
    #expect(report.applied.count == 1)
    #expect(try member.chordTrack(for: mine)?.spans.map(\.chord) == [Chord(root: 0, quality: .maj)])
    #expect(try member.selections(of: mine).map(\.span) == [.frames(0..<22050)])
    #expect(report.kept.map(\.what).sorted() == ["selections", "setlist"])
    #expect(
      try member.setlist(named: "Gig").entries == [SetlistEntry(songID: try #require(mine.id))])

    let longer = dir.file("other/song.wav")
    try FileManager.default.createDirectory(
      atPath: dir.file("other"), withIntermediateDirectories: true)
    try Synth.write(Synth.sine(frequency: 440, seconds: 8, amplitude: 0.3), to: longer)
    let stranger = try Library(path: dir.file("stranger.sqlite"))
    let theirs = try #require(try stranger.add([SongScanner.scan(longer)]).first)
    #expect(theirs.title == song.title)
    let elsewhere = try stranger.addRepository(name: "band", url: dir.file("repo"))
    let none = try stranger.pull(elsewhere, fetcher: HTTPFetcher())
    #expect(none.matched == 0 && none.applied.isEmpty)
    #expect(try stranger.chordTrack(for: theirs) == nil)
    #expect(try stranger.selections(of: theirs).isEmpty)
  }
}
