import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The unclear-beat warning's model (`MapDoubt`): a map the detector heard clearly is not
/// warned of, a poor one is, and the words say what to check.
@Suite struct MapDoubtTests {
  /// A map as a clear groove gives it: the network hears its beats and not between them,
  /// its downbeats stand out, the tempo is steady, no beat is doubtful.
  static let clear = MapDoubt.Features(
    networkListens: 1, heardAtBeats: 0.8, heardBetween: 0.03, downbeatContrast: 0.5,
    tempoWobble: 0.01, doubtfulShare: 0, meanConfidence: 0.9, halfwayOnsets: 0.3,
    pulseClarity: 0.6, heldShare: 0, tempoOctave: 0.1)
  /// A poor map: the network hears its beats weakly and as much between them, no downbeat
  /// stands out, the beats wobble, half of them are doubtful and the onsets half-way
  /// between are as strong as on them.
  static let poor = MapDoubt.Features(
    networkListens: 1, heardAtBeats: 0.15, heardBetween: 0.2, downbeatContrast: 0,
    tempoWobble: 0.12, doubtfulShare: 0.5, meanConfidence: 0.45, halfwayOnsets: 1.0,
    pulseClarity: 0.1, heldShare: 0, tempoOctave: -0.7)

  @Test func aClearMapIsNotWarnedOfAndAPoorOneIs() {
    #expect(MapDoubtModel.threshold > 0 && MapDoubtModel.threshold < 1)
    #expect(!MapDoubtModel.terms.isEmpty)
    #expect(MapDoubt.probability(Self.clear) < MapDoubtModel.threshold)
    #expect(MapDoubt.warning(Self.clear, doubtful: 0, beats: 120) == nil)
    #expect(MapDoubt.probability(Self.poor) >= MapDoubtModel.threshold)
    #expect(MapDoubt.probability(Self.poor) > MapDoubt.probability(Self.clear) + 0.3)
  }

  /// Bars are a guess where the network's downbeat probability marks the map's downbeats
  /// hardly more than its other beats (below `MapDoubt.guessedBars`), and only where the
  /// network heard the music.
  @Test func barsAreAGuessWhereNoDownbeatStandsOut() {
    #expect(!MapDoubt.barsAreAGuess(Self.clear))
    var flat = Self.clear
    flat.downbeatContrast = MapDoubt.guessedBars - 0.01
    #expect(MapDoubt.barsAreAGuess(flat))
    flat.downbeatContrast = MapDoubt.guessedBars
    #expect(!MapDoubt.barsAreAGuess(flat))
    flat.downbeatContrast = -0.2
    #expect(MapDoubt.barsAreAGuess(flat))
    flat.networkListens = 0
    #expect(!MapDoubt.barsAreAGuess(flat))
  }

  /// A map the network hears faintly (a reading it decoded on its own few peaks) is warned
  /// of whatever else looks clear; one it does not hear at all is left to the model.
  @Test func aMapTheNetworkHearsFaintlyIsWarnedOf() {
    var faint = Self.clear
    faint.heardAtBeats = MapDoubtModel.faintHearing / 2
    #expect(MapDoubt.warns(faint))
    faint.networkListens = 0
    #expect(!MapDoubt.warns(faint))
  }

  /// The words name what to check, not the model: the bars marked ? when beats are
  /// doubtful, and twice or half the tempo.
  @Test func theWarningSaysWhatToCheck() throws {
    let words = try #require(MapDoubt.warning(Self.poor, doubtful: 12, beats: 60))
    #expect(
      words
        == "the beat is unclear; check the map by ear, the bars marked ? in `beats show` first "
        + "(12 of 60 beats doubtful); if it counts twice or half the tempo, detect again with "
        + BeatDetector.tempoLimitsWords)
    let none = try #require(MapDoubt.warning(Self.poor, doubtful: 0, beats: 60))
    #expect(
      none
        == "the beat is unclear; check the map by ear; if it counts twice or half the tempo, "
        + "detect again with " + BeatDetector.tempoLimitsWords)
  }

  /// Every feature the model reads is one the detector measures (a misspelt name would
  /// read as 0 for ever).
  @Test func theModelReadsMeasuredFeatures() {
    let names = Set(Self.clear.named.map { "\($0.0)" })
    for term in MapDoubtModel.terms {
      #expect(names.contains(term.name), "\(term.name)")
      #expect(term.scale > 0)
    }
  }

  /// The measures of a detected map: on a steady drum groove the network hears the beats
  /// far more than half-way between them, no beat is doubtful, the tempo does not wobble,
  /// and the dump (`PRACTICE_BEAT_DOUBT`) appends one JSON line a detection.
  @Test func aDetectedGrooveMeasuresClear() throws {
    var piece = BeatSynth.Piece()
    piece.startBPM = 110
    piece.endBPM = 110
    piece.bars = 12
    let (samples, _) = BeatSynth.render(piece)
    let dir = try TemporaryDirectory()
    let dump = dir.file("doubt.jsonl")
    var options = BeatDetectionOptions()
    options.doubtDump = dump
    for _ in 0..<2 {
      let analyzer = try OnsetAnalyzer(sampleRate: 44100, networkBands: true)
      samples.withUnsafeBufferPointer { analyzer.process($0) }
      let found = try BeatDetector.detect(
        features: analyzer.finish(), sampleRate: 44100, totalFrames: Int64(samples.count),
        path: "groove.wav", options: options)
      #expect(found.warning == nil, "\(found.warning ?? "")")
    }
    let lines = try String(contentsOfFile: dump, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 2)
    let row = try #require(
      JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    #expect(row["name"] as? String == "groove.wav")
    let at = try #require(row["heard_at_beats"] as? Double)
    let between = try #require(row["heard_between"] as? Double)
    #expect(at > 0.4 && between < at / 3, "\(row)")
    #expect((row["doubtful_share"] as? Double) == 0, "\(row)")
    #expect((row["tempo_wobble"] as? Double ?? 1) < 0.05, "\(row)")
    // 110 BPM is log2(110 / 100) octaves over 100 BPM, to a frame's rounding (planted bug M194).
    #expect(abs((row["tempo_octave"] as? Double ?? 9) - log2(1.1)) < 0.03, "\(row)")
    let p = try #require(row["probability"] as? Double)
    #expect(p < MapDoubtModel.threshold, "\(row)")
  }
}
