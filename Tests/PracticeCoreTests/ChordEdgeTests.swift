import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The key and chord edges no other test reached (round eight of the planted bugs): the bass
/// counted toward the key, a short release after the last chord, the tonic chord's family,
/// and a bar far quieter than the rest.
@Suite struct ChordEdgeTests {
  let dir = TemporaryDirectory()

  /// Chords a bar (1000 frames) each; `tail`: a short chord (300 frames) after the last.
  func spans(_ labels: [String], tail: String? = nil) throws -> [ChordSpan] {
    var out = try labels.enumerated().map { i, label in
      ChordSpan(
        start: Int64(i) * 1000, end: Int64(i + 1) * 1000, chord: try Chord.parseHarte(label))
    }
    if let tail {
      let end = out[out.count - 1].end
      out.append(ChordSpan(start: end, end: end + 300, chord: try Chord.parseHarte(tail)))
    }
    return out
  }

  /// F, C/E, Am over and over: the bass line F-E-A leans on E, A minor's dominant; counted
  /// again, the bass makes it A minor (the chords alone are as much F major's).
  @Test func theBassCountsTowardTheKey() throws {
    let loop = ["F:maj", "C:maj/3", "A:min"]
    #expect(KeyEstimator.key(of: try spans(loop + loop))?.description == "Am")
  }

  /// A7, C/E, Dm and a short Am after it (a release heard as another chord): the song rests
  /// on Dm, its key.
  @Test func aShortChordAfterTheLastIsNotWhereTheSongRests() throws {
    let found = KeyEstimator.key(of: try spans(["A:7", "C:maj/3", "D:min"], tail: "A:min"))
    #expect(found?.description == "Dm")
  }

  /// The tonic chord is any chord of the major or minor family on the tonic.
  @Test func theTonicChordIsAnyOfItsFamilyOnTheTonic() throws {
    for label in ["C:maj", "C:maj7", "C:maj6", "C:maj9"] {
      let chord = try #require(try Chord.parseHarte(label))
      #expect(KeyEstimator.isTonic(chord, tonic: 0, minor: false), "\(label)")
      #expect(!KeyEstimator.isTonic(chord, tonic: 0, minor: true), "\(label)")
    }
    for label in ["A:min", "A:min7", "A:min6", "A:min9", "A:minmaj7"] {
      let chord = try #require(try Chord.parseHarte(label))
      #expect(KeyEstimator.isTonic(chord, tonic: 9, minor: true), "\(label)")
      #expect(!KeyEstimator.isTonic(chord, tonic: 9, minor: false), "\(label)")
    }
    for label in ["C:7", "C:sus4", "C:dim", "G:maj"] {
      let chord = try #require(try Chord.parseHarte(label))
      #expect(!KeyEstimator.isTonic(chord, tonic: 0, minor: false), "\(label)")
    }
  }

  /// A bar played 30 dB below the rest (its power a thousandth of the median bar's) is no
  /// chord: quiet is judged against the recording's own loudness, at any level.
  @Test func aBarFarQuieterThanTheRestIsNoChordAtAnyLevel() throws {
    let steps: [ChordSynth.Step] = [
      .chord(60, [0, 4, 7]), .chord(57, [0, 3, 7]), .chord(65, [0, 4, 7]), .chord(67, [0, 4, 7]),
      .chord(60, [0, 4, 7]),
    ]
    var (samples, beats, written) = ChordSynth.render(steps, bpm: 100)
    for i in written[2] { samples[Int(i)] *= 0.03 }
    for (name, gain) in [("loud.wav", Float(1)), ("quiet.wav", Float(0.1))] {
      let path = dir.file(name)
      try Synth.write(samples.map { $0 * gain }, to: path)
      let file = try SoundFile(path: path)
      let map = try BeatMap(
        beats: beats.enumerated().map {
          Beat(frame: $1, bar: $0 / 4 + 1, beat: $0 % 4 + 1, source: .imported)
        }, totalFrames: file.info.frames, sampleRate: 44100)
      let found = try ChordRecognizer.detect(file: file, beats: map)
      let heard = written.map { span in
        let middle = (span.lowerBound + span.upperBound) / 2
        return found.spans.first { $0.start <= middle && middle < $0.end }?.harte() ?? "?"
      }
      #expect(heard == ["C:maj", "A:min", "N", "G:maj", "C:maj"], "\(name)")
    }
  }
}
