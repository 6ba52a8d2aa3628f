import Foundation
import Testing
import TestSupport

@testable import PracticeCore

/// The taps → beat map pipeline of `beats tap`, on synthetic taps and audio.
@Suite struct TapTests {
  let rate = 44100

  /// Clicks like fixtures/clicks-120.wav (a 20 ms decaying sine burst) at `times`, over
  /// an optional noise bed.
  func clicks(at times: [Double], seconds: Double, noise: Double = 0) -> [Float] {
    var out = noise > 0 ? BeatSynth.noise(seconds: seconds, sampleRate: rate, gain: noise) : [Float](repeating: 0, count: Int(seconds * Double(rate)))
    if out.count < Int(seconds * Double(rate)) { out += [Float](repeating: 0, count: Int(seconds * Double(rate)) - out.count) }
    let n = Int(0.020 * Double(rate))
    for t in times {
      let start = Int((t * Double(rate)).rounded())
      for i in 0..<n where start + i < out.count {
        out[start + i] += Float(0.5 * exp(-Double(i) / Double(n / 5)) * sin(2 * Double.pi * 1000 * Double(i) / Double(rate)))
      }
    }
    return out
  }

  func frame(_ seconds: Double) -> Int64 { Int64((seconds * Double(rate)).rounded()) }
  func seconds(_ frame: Int64) -> Double { Double(frame) / Double(rate) }

  /// A fixed jitter pattern of a human hand, in seconds (±30 ms).
  let jitter = [0.012, -0.025, 0.030, -0.008, 0.021, -0.030, 0.004, 0.017, -0.019, 0.026, -0.013, 0.009]

  // MARK: Snapping

  @Test func tapsSnapToTheClickWithin40Milliseconds() throws {
    let beats = (0..<8).map { 0.5 + Double($0) * 0.5 }
    let snapper = try OnsetSnapper(mono: clicks(at: beats, seconds: 5), sampleRate: rate)
    for (k, t) in beats.enumerated() {
      let tapped = t + jitter[k]
      let snapped = try #require(snapper.snap(frame(tapped)), "tap at \(tapped)")
      #expect(abs(seconds(snapped) - t) < 0.0005, "\(seconds(snapped)) for a click at \(t)")
    }
    // Too far from any click, or in silence: not moved.
    #expect(snapper.snap(frame(0.5 + 0.055)) == nil)
    #expect(snapper.snap(frame(0.75)) == nil)
  }

  @Test func snappingFindsClicksInNoiseButNotNoiseAlone() throws {
    let beats = (0..<8).map { 0.5 + Double($0) * 0.5 }
    let snapper = try OnsetSnapper(mono: clicks(at: beats, seconds: 5, noise: 0.02), sampleRate: rate)
    for (k, t) in beats.enumerated() {
      let snapped = try #require(snapper.snap(frame(t - jitter[k])))
      #expect(abs(seconds(snapped) - t) < 0.001, "\(seconds(snapped)) for a click at \(t)")
    }
    let noise = try OnsetSnapper(mono: BeatSynth.noise(seconds: 4, sampleRate: rate, gain: 0.3), sampleRate: rate)
    let moved = stride(from: 0.5, to: 3.5, by: 0.25).filter { noise.snap(frame($0)) != nil }
    #expect(moved.isEmpty, "steady noise has no clear onsets, yet taps at \(moved) moved")
  }

  @Test func snappingOnMusicLandsOnTheBeats() throws {
    var piece = BeatSynth.Piece()
    piece.bars = 4
    let (samples, truth) = BeatSynth.render(piece)
    let snapper = try OnsetSnapper(mono: samples, sampleRate: rate)
    var errors: [Double] = []
    for (k, beat) in truth.enumerated() {
      guard let snapped = snapper.snap(frame(beat.time + jitter[k % jitter.count])) else { continue }
      errors.append(abs(seconds(snapped) - beat.time))
    }
    #expect(errors.count >= truth.count * 9 / 10, "\(errors.count) of \(truth.count) snapped")
    #expect(errors.allSatisfy { $0 < 0.003 }, "errors \(errors)")
  }

  // MARK: Smoothing and gaps

  @Test func unsnappedTapsAreSmoothedOntoTheTempo() throws {
    let truth = (0..<16).map { 1.0 + Double($0) * 0.5 }
    let taps = truth.enumerated().map { Tap(frame: frame($1 + jitter[$0 % jitter.count]), downbeat: $0 % 4 == 0) }
    let result = try TappedBeats.assemble(taps: taps, snapper: nil, meter: nil, totalFrames: frame(10), sampleRate: rate)
    #expect(result.map.beats.count == 16)
    let errors = zip(result.map.beats, truth).map { abs(seconds($0.frame) - $1) }
    let meanError: Double = errors.reduce(0, +) / Double(errors.count)
    let meanJitter: Double = jitter.map(abs).reduce(0, +) / Double(jitter.count)
    #expect(meanError < meanJitter / 2, "\(errors)")
    // The first and last beats are extrapolated from one side and keep more of the jitter.
    #expect(errors.dropFirst().dropLast().allSatisfy { $0 < 0.015 }, "\(errors)")
    #expect(errors.max()! < 0.025, "\(errors)")
    #expect(result.snapped == 0)
    #expect(result.map.beats.allSatisfy { $0.source == .tapped })
    #expect(abs(result.tempo.lowerBound - 120) < 6 && abs(result.tempo.upperBound - 120) < 6, "\(result.tempo)")
  }

  @Test func gapsOfWholeBeatsAreFilledAndSnapped() throws {
    let truth = (0..<20).map { 0.5 + Double($0) * 0.5 }
    let audio = clicks(at: truth, seconds: 11)
    let snapper = try OnsetSnapper(mono: audio, sampleRate: rate)
    // Beats 6-8 and 14 not tapped.
    let tapped = truth.indices.filter { !(6...8).contains($0) && $0 != 14 }
    let taps = tapped.map { Tap(frame: frame(truth[$0] + jitter[$0 % jitter.count]), downbeat: $0 % 4 == 0) }
    let result = try TappedBeats.assemble(taps: taps, snapper: snapper, meter: nil, totalFrames: Int64(audio.count), sampleRate: rate)
    #expect(result.filled == 4)
    #expect(result.snapped == tapped.count)
    #expect(result.map.beats.count == 20)
    let errors = zip(result.map.beats, truth).map { abs(seconds($0.frame) - $1) }
    #expect(errors.max()! < 0.001, "\(errors)")
    #expect(result.map.beats.map(\.beat) == truth.indices.map { $0 % 4 + 1 })
  }

  @Test func aTapTooFarFromItsClickIsPlacedByItsNeighbours() throws {
    let truth = (0..<12).map { 0.5 + Double($0) * 0.5 }
    let audio = clicks(at: truth, seconds: 7)
    let snapper = try OnsetSnapper(mono: audio, sampleRate: rate)
    // The first tap 80 ms early and the sixth 60 ms late: out of the snapping's reach.
    let offsets = truth.indices.map { $0 == 0 ? -0.080 : $0 == 5 ? 0.060 : jitter[$0] }
    let taps = truth.indices.map { Tap(frame: frame(truth[$0] + offsets[$0]), downbeat: $0 % 4 == 0) }
    let result = try TappedBeats.assemble(taps: taps, snapper: snapper, meter: nil, totalFrames: Int64(audio.count), sampleRate: rate)
    #expect(result.snapped == 10)
    let errors = zip(result.map.beats, truth).map { abs(seconds($0.frame) - $1) }
    #expect(errors.max()! < 0.001, "\(errors)")
  }

  @Test func aTempoChangeIsFollowedAndDoubleTapsAreOne() throws {
    // 100 BPM speeding up to 140 BPM; space and d pressed together on downbeats.
    var truth: [Double] = [1]
    for k in 1..<24 { truth.append(truth[k - 1] + 60 / (100 + 40 * Double(k) / 23)) }
    var taps: [Tap] = []
    for (k, t) in truth.enumerated() {
      taps.append(Tap(frame: frame(t), downbeat: false))
      if k % 4 == 0 { taps.append(Tap(frame: frame(t + 0.02), downbeat: true)) }
    }
    let result = try TappedBeats.assemble(taps: taps, snapper: nil, meter: nil, totalFrames: frame(30), sampleRate: rate)
    #expect(result.map.beats.count == 24)
    #expect(result.filled == 0)
    let errors = zip(result.map.beats, truth).map { abs(seconds($0.frame) - $1) }
    #expect(errors.max()! < 0.012, "\(errors)")
    #expect(result.map.bars.count == 6)
    #expect(result.tempo.lowerBound < 110 && result.tempo.upperBound > 130, "\(result.tempo)")
  }

  @Test func tooFewTapsSayHowManyAreNeeded() {
    let taps = [Tap(frame: 1000, downbeat: true), Tap(frame: 23000, downbeat: false)]
    #expect(throws: PracticeError(.missingInput, "only 2 taps: a beat map needs at least 4 (space on every beat, d on downbeats); the beat map was left as it was")) {
      try TappedBeats.assemble(taps: taps, snapper: nil, meter: nil, totalFrames: 100_000, sampleRate: rate)
    }
  }

  // MARK: Bars

  func labels(_ downbeats: [Int], count: Int, meter: Meter? = nil) -> [String] {
    TappedBeats.placeBars(downbeats: (0..<count).map { downbeats.contains($0) }, meter: meter)
      .labels.map { "\($0.bar).\($0.beat)" }
  }

  @Test func barsFollowTheDownbeatTaps() {
    // Every downbeat tapped, with a one-beat pickup.
    #expect(labels([1, 5, 9], count: 11) == ["0.4", "1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3", "2.4", "3.1", "3.2"])
    // Bar 3's downbeat not tapped: a spacing of 8 is two bars of 4.
    #expect(labels([0, 4, 12, 16], count: 20).filter { $0.hasSuffix(".1") }.count == 5)
    // A 2-beat bar among 4-beat bars: a meter change.
    #expect(labels([0, 4, 8, 10, 14], count: 18) == [
      "1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3", "2.4", "3.1", "3.2",
      "4.1", "4.2", "4.3", "4.4", "5.1", "5.2", "5.3", "5.4",
    ])
    // 3/4 inferred; beats before the first downbeat counted back in whole bars.
    #expect(labels([5, 8, 11], count: 13) == [
      "0.2", "0.3", "1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "3.1", "3.2", "3.3", "4.1", "4.2",
    ])
  }

  @Test func aGivenMeterCountsFromTheFirstDownbeat() {
    let placed = TappedBeats.placeBars(
      downbeats: (0..<10).map { [2, 5, 9].contains($0) }, meter: Meter(parsing: "3/4")!)
    #expect(placed.labels.map { "\($0.bar).\($0.beat)" } == ["0.2", "0.3", "1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "3.1", "3.2"])
    #expect(placed.warnings.count == 1 && placed.warnings[0].contains("1 downbeat tap(s) fell off"), "\(placed.warnings)")
    // No downbeat at all: bar 1 from the first tap, with a warning.
    let none = TappedBeats.placeBars(downbeats: Array(repeating: false, count: 6), meter: nil)
    #expect(none.labels.map { "\($0.bar).\($0.beat)" } == ["1.1", "1.2", "1.3", "1.4", "2.1", "2.2"])
    #expect(none.warnings.contains { $0.contains("no downbeat was tapped") })
  }

  @Test func aWholeBarBeforeTheFirstDownbeatIsBarOneAndTiesGoToTheShorterBar() {
    // Four beats before the first downbeat tapped, in 4/4: bar 1, not a pickup.
    #expect(labels([4, 8], count: 10) == ["1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3", "2.4", "3.1", "3.2"])
    // Downbeats 3 and then 4 beats apart: a tie, bars of 3 (the last mark counts on in them).
    #expect(labels([0, 3, 7], count: 12) == [
      "1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "2.4", "3.1", "3.2", "3.3", "4.1", "4.2",
    ])
  }

  /// The summary's beats a bar leave out the last bar, which the taps may stop inside.
  @Test func theLastBarCutShortIsNotABarLength() throws {
    let taps = (0..<10).map { Tap(frame: frame(0.5 + 0.5 * Double($0)), downbeat: $0 % 4 == 0) }
    let result = try TappedBeats.assemble(taps: taps, snapper: nil, meter: nil, totalFrames: frame(10), sampleRate: rate)
    #expect(result.barLengths == [4, 4])
    let summary = result.summary(title: "t")
    #expect(summary.contains(", 4 beats a bar, 120.0 BPM, "), "\(summary)")
  }

  // MARK: The audible position

  @Test func theAudibleClockFollowsTheDeviceDelayAndTheSpeed() {
    var clock = AudibleClock(sampleRate: 1000, totalFrames: 1_000_000)
    func event(output: Int64, delay: Int, at ms: UInt64, source: Int64, speed: Double) -> PlaybackEvent {
      PlaybackEvent(
        outputFrame: output, delayFrames: delay, nanoseconds: ms * 1_000_000, sourceFrame: source, speed: speed,
        pass: 1, passesCompleted: 0, generation: 0, inGap: false, paused: false, ended: false)
    }
    func ms(_ value: UInt64) -> UInt64 { value * 1_000_000 }
    #expect(clock.audible(at: ms(0)) == nil)
    clock.append(event(output: 1000, delay: 100, at: 1000, source: 500, speed: 0.5))
    clock.append(event(output: 1100, delay: 100, at: 1100, source: 550, speed: 0.5))
    // At 1100 ms output 1000 is audible (100 frames still queued): source 500.
    #expect(clock.audible(at: ms(1100))?.frame == 500)
    // 40 ms later, 40 output frames on, at half speed 20 source frames on.
    #expect(clock.audible(at: ms(1140))?.frame == 520)
    // A key read at 1050 ms, taken after the 1100 ms report, is placed from the 1000 ms one.
    #expect(clock.audible(at: ms(1050))?.frame == 475)
  }
}
