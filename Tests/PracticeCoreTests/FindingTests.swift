import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// Issue 23: finding a song by title, selections in song order, file names as bytes.
@Suite struct FindingTests {
  let dir = TemporaryDirectory()

  func song(_ title: String, frequency: Double = 440) throws -> String {
    let path = dir.file("\(UUID().uuidString.prefix(8)).wav")
    try Synth.write(
      Synth.sine(frequency: frequency, seconds: 0.2), to: path,
      tags: (title: title, artist: "", album: ""))
    return path
  }

  @Test func aTitleMatchesWholeThenByAUniqueSubstring() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let soWhat = try library.resolve(try song("So What"))
    let live = try library.resolve(try song("So What (live)", frequency: 220))
    let blue = try library.resolve(try song("Blue in Green", frequency: 330))
    let ete = try library.resolve(try song("Été indien", frequency: 550))
    // The whole title wins over the substring it also is of another title.
    #expect(try library.resolve("so WHAT") == soWhat)
    #expect(try library.resolve("(LIVE)") == live)
    #expect(try library.resolve("in gr") == blue)
    // Case is ignored beyond ASCII too.
    #expect(try library.resolve("ÉTÉ INDIEN") == ete)
    #expect(try library.resolve("été") == ete)
    let several = try #require(throws: PracticeError.self) { try library.resolve("what") }
    #expect(several.category == .usage)
    #expect(
      several.message
        == "'what' matches 2 songs: \(soWhat.id!) 'So What' (wav), \(live.id!) 'So What (live)' (wav); "
        + "give the id, or more of the title")
    let none = try #require(throws: PracticeError.self) { try library.resolve("Naima") }
    #expect(none.category == .missingInput)
    #expect(try library.songs().count == 4)
  }

  @Test func severalMatchesNameTheirArtists() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = dir.file("a.wav")
    try Synth.write(
      Synth.sine(frequency: 440, seconds: 0.2), to: path,
      tags: (title: "Autumn Leaves", artist: "Cannonball Adderley", album: ""))
    _ = try library.resolve(path)
    _ = try library.resolve(try song("Autumn in New York", frequency: 220))
    let error = try #require(throws: PracticeError.self) { try library.resolve("autumn") }
    #expect(
      error.message.contains(
        "1 'Autumn Leaves' by 'Cannonball Adderley' (wav), 2 'Autumn in New York' (wav);"))
  }

  /// Bars of two beats, a beat every 1,000 frames from frame 500: bar k starts at
  /// 500 + 2,000 (k - 1).
  func map() throws -> BeatMap {
    let beats = (0..<16).map { i in
      Beat(frame: 500 + Int64(i) * 1000, bar: i / 2 + 1, beat: i % 2 + 1, source: .grid)
    }
    return try BeatMap(beats: beats, totalFrames: 17_000, sampleRate: 1000)
  }

  func selection(_ name: String, _ span: SelectionSpan) -> Selection {
    Selection(
      id: nil, songID: 1, name: name, span: span, note: nil, createdAt: "", updatedAt: "")
  }

  @Test func selectionsAreInTheOrderTheyStartInTheSong() throws {
    let bars = { (text: String) in SelectionSpan.bars(BarRange(parsing: text)!) }
    let selections = [
      selection("alpha", bars("5-6")),  // frame 8,500
      selection("zeta", bars("1-2")),  // frame 500
      selection("mid", .frames(3000..<4000)),
      selection("beta", bars("1")),  // frame 500, the same as zeta: by name
      selection("late", bars("2.2-3")),  // frame 3,500
      selection("gone", bars("20-21")),  // beyond the map
      selection("early", .frames(0..<100)),
    ]
    let ordered = Selection.inSongOrder(selections, beatMap: try map()).map(\.name)
    #expect(ordered == ["early", "beta", "zeta", "mid", "late", "alpha", "gone"])
    // Without a map, the ones in bars cannot be placed: after the times, by bar.
    let unplaced = Selection.inSongOrder(selections, beatMap: nil).map(\.name)
    #expect(unplaced == ["early", "mid", "beta", "zeta", "late", "alpha", "gone"])
  }

  /// Without a map, selections in bars that start in the same bar go by the beat they
  /// start on before their names (planted bug M210).
  @Test func unplacedSelectionsInOneBarGoByTheirFirstBeat() {
    let bars = { (text: String) in SelectionSpan.bars(BarRange(parsing: text)!) }
    let selections = [
      selection("a", bars("2.3-3")), selection("b", bars("2.2-3")), selection("c", bars("2-3")),
    ]
    #expect(Selection.inSongOrder(selections, beatMap: nil).map(\.name) == ["c", "b", "a"])
  }

  @Test func theLibraryListsSelectionsInSongOrder() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let song = try library.resolve(try song("Drill"))
    let frames = song.frames
    _ = try library.addSelection(
      to: song, name: "a-late", span: .frames((frames / 2)..<frames), note: nil, replace: false)
    _ = try library.addSelection(
      to: song, name: "z-early", span: .frames(0..<(frames / 4)), note: nil, replace: false)
    #expect(try library.selections(of: song).map(\.name) == ["z-early", "a-late"])
    #expect(try library.selections(of: nil).map(\.name) == ["z-early", "a-late"])
  }

  @Test func fileNameBytesGoThereAndBackExactly() {
    let cases: [[UInt8]] = [
      Array("plain.wav".utf8),
      Array("caf".utf8) + [0xE9] + Array(".wav".utf8),  // Latin-1
      [0xFF, 0xFE, 0x80, 0x41],
      [0xE6, 0x97],  // a cut-off UTF-8 sequence
      Array("日本語".utf8),
      Array("\u{10FDE9}".utf8),  // a private-use scalar of the carrying block itself
      [0xED, 0xA0, 0x80],  // an encoded surrogate: not UTF-8
    ]
    for bytes in cases {
      let text = PathBytes.string(bytes)
      #expect(PathBytes.bytes(text) == bytes, "\(bytes)")
    }
    #expect(PathBytes.string(Array("日本語".utf8)) == "日本語")
    #expect(!PathBytes.carriesBytes("日本語"))
    #expect(PathBytes.carriesBytes(PathBytes.string([0x63, 0xE9])))
    #expect(PathBytes.string([0x63, 0xE9]).unicodeScalars.count == 2)
  }
}
