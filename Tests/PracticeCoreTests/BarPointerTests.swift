import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The bar pointer (an experiment beside the tracker: `BarPointer`) decodes tempo, beats and
/// bars together.
@Suite struct BarPointerTests {
  func observations(_ piece: BeatSynth.Piece) throws -> (
    BarPointer.Observations, [BeatSynth.TrueBeat]
  ) {
    let (samples, truth) = BeatSynth.render(piece)
    let analyzer = try OnsetAnalyzer(sampleRate: 44100)
    samples.withUnsafeBufferPointer { analyzer.process($0) }
    return (BarPointer.observations(analyzer.finish()), truth)
  }

  /// A pattern with a strong onset at each beat's first cell and a chord change at the bar's.
  func pattern(_ beats: Int) -> BarPointer.Pattern {
    let cells = BarPointer.cellsPerBeat * beats
    var mean = [Double](repeating: 0, count: cells * BarPointer.dimensions)
    let variance = [Double](repeating: 0.5, count: cells * BarPointer.dimensions)
    for k in 0..<cells where k % BarPointer.cellsPerBeat == 0 {
      for d in 0..<3 { mean[k * BarPointer.dimensions + d] = 1.5 }
      mean[k * BarPointer.dimensions + 3] = k == 0 ? 1.5 : -0.3
    }
    return BarPointer.Pattern(
      meter: .init(beats: beats, triple: false), mean: mean, variance: variance)
  }

  @Test func aSteadyPieceIsDecodedOnItsBeatsAndBars() throws {
    var piece = BeatSynth.Piece()
    piece.startBPM = 112
    piece.endBPM = 112
    let (observed, truth) = try observations(piece)
    let decoded = try #require(
      BarPointer.decode(
        observed, patterns: [pattern(3), pattern(4)], meters: BarPointer.Meter.all, minBPM: 50,
        maxBPM: 220))
    #expect(decoded.meter == .init(beats: 4, triple: false))
    let times = decoded.beats.map { Double($0) / BarPointer.frameRate }
    let inside = truth.filter { $0.time > 1 && $0.time < min(truth.last!.time, times.last!) - 1 }
    // Every true beat has a decoded one within two frames (40 ms: the decoding's grid; the
    // detector moves each to its attack), and every downbeat is decoded as one.
    for beat in inside {
      let k = try #require(
        times.indices.min { abs(times[$0] - beat.time) < abs(times[$1] - beat.time) })
      #expect(abs(times[k] - beat.time) <= 0.04, "beat at \(beat.time) s decoded at \(times[k]) s")
      #expect(
        (decoded.positions[k] == 0) == (beat.beatInBar == 1),
        "beat \(beat.beatInBar) at \(beat.time) s")
    }
    // Within the music the period stays at the tempo's (50 * 60 / 112 = 26.8 frames):
    // whole frames that alternate around it. (After the last note nothing holds it.)
    let end = truth.last!.time
    let periods = decoded.periods.indices.filter { times[$0] > 1 && times[$0] < end - 1 }
      .map { decoded.periods[$0] }
    #expect(periods.allSatisfy { abs(Double($0) - 26.8) <= 1.8 }, "periods \(periods)")
    let mean = Double(periods.reduce(0, +)) / Double(max(1, periods.count))
    #expect(abs(mean - 26.8) < 0.3, "mean period \(mean)")
  }

  @Test func heldNearATempoTheDecodingStaysThere() throws {
    var piece = BeatSynth.Piece()
    piece.startBPM = 112
    piece.endBPM = 112
    let (observed, _) = try observations(piece)
    // Held near twice the period, it counts half notes.
    let near = [Double](repeating: 2 * 50 * 60 / 112.0, count: observed.count)
    let decoded = try #require(
      BarPointer.decode(
        observed, patterns: [pattern(2)], meters: BarPointer.Meter.all, minBPM: 30, maxBPM: 220,
        near: near))
    #expect(decoded.periods.allSatisfy { abs(Double($0) / near[0] - 1) <= 0.25 })
  }
}
