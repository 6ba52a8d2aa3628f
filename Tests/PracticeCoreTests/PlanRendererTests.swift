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

  /// A count-in is part of what the render writes, and of the total its progress is
  /// measured against: one bar of 4/4 at 120 BPM (88,200 frames) before a 2 s pass.
  @Test func theCountInIsCountedInTheFramesTheRenderWrites() throws {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = dir.file("long.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 4), to: path)
    let song = try library.add([SongScanner.scan(path)])[0]
    let grid = try #require(
      try BeatMap.grid(
        bpm: 120, start: 0, meter: .common, bar1: 1, totalFrames: song.frames,
        sampleRate: song.sampleRate))
    try library.replaceBeatMap(for: song, with: grid)
    var request = PlayRequest(part: .times(from: 0, to: 2))
    request.settings.countIn = 1
    let out = dir.file("counted.wav")
    let renderer = try PlanRenderer.open(
      song: song, library: library, request: request, output: out, missingBeatMap: noMap)
    let bar = Int64(4 * 0.5 * 44100)
    #expect(renderer.totalFrames == bar + 2 * 44100)
    let report = try renderer.run(waiting: .milliseconds(1)) { _ in }
    #expect(report.framesWritten == renderer.totalFrames && !report.interrupted)
    #expect(try SoundFile(path: out).info.frames == renderer.totalFrames)
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
