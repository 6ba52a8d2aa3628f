import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// A plan rendered to a file by the core (`render`'s whole work but the words): the file
/// holds the passes asked for, tagged; an endless plan and the song's own file are refused
/// before anything is written.
@Suite struct PlanRendererTests {
  let dir = TemporaryDirectory()

  func setUp() throws -> (Library, Song) {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = dir.file("song.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 0.5), to: path)
    return (library, try library.add([SongScanner.scan(path)])[0])
  }

  func noMap(_ song: Song) throws -> BeatMap { throw PracticeError(.missingInput, "no map") }

  @Test func twoPassesOfARangeAreTwiceItsFramesInTheFile() throws {
    let (library, song) = try setUp()
    var request = PlayRequest(part: .times(from: 0.1, to: 0.3))
    request.settings.passes = .count(2)
    let out = dir.file("out.flac")
    let renderer = try PlanRenderer.open(
      song: song, library: library, request: request, output: out, missingBeatMap: noMap)
    #expect(renderer.totalFrames == 2 * 8820)
    var shares: [Double] = []
    let report = try renderer.run(waiting: .milliseconds(1)) { shares.append($0) }
    #expect(report.framesWritten == 2 * 8820 && !report.interrupted)
    #expect(shares.allSatisfy { (0...1).contains($0) })
    let file = try SoundFile(path: out)
    #expect(file.info.frames == 2 * 8820 && file.info.sampleRate == 44100)
    // Each pass is the source's frames 4410..<13230 (their ends blended into the seam).
    let (_, original) = try Synth.read(song.path)
    let (_, rendered) = try Synth.read(out)
    for pass in 0..<2 {
      let start = pass * 8820
      #expect(Array(rendered[(start + 1000)..<(start + 7000)]) == Array(original[5410..<11410]))
    }
  }

  @Test func anEndlessPlanAndTheSongItselfAreRefusedAndNothingIsWritten() throws {
    let (library, song) = try setUp()
    var loop = PlayRequest()
    loop.settings.passes = .endless
    let out = dir.file("loop.wav")
    #expect(throws: PlanRenderer.Refusal.endless(label: nil)) {
      try PlanRenderer.open(
        song: song, library: library, request: loop, output: out, missingBeatMap: noMap)
    }
    #expect(!FileManager.default.fileExists(atPath: out))
    #expect(throws: PlanRenderer.Refusal.outputIsSource) {
      try PlanRenderer.open(
        song: song, library: library, request: PlayRequest(), output: song.path,
        missingBeatMap: noMap)
    }
    // The same file named another way (`/./` in it) is the song too.
    let dot = (song.path as NSString).deletingLastPathComponent + "/./"
      + (song.path as NSString).lastPathComponent
    #expect(throws: PlanRenderer.Refusal.outputIsSource) {
      try PlanRenderer.open(
        song: song, library: library, request: PlayRequest(), output: dot, missingBeatMap: noMap)
    }
    #expect(try SoundFile(path: song.path).info.frames == 22050)
  }
}
