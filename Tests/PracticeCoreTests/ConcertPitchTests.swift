import Foundation
import PracticeCore
import TestSupport
import Testing

/// `practice tuning`'s estimator on pieces synthesised at a known concert pitch.
@Suite struct ConcertPitchTests {
  @Test(arguments: [-30.0, 15, 0, -45, 42, 7.5])
  func findsTheTuningWithinThreeCents(cents: Double) throws {
    let dir = TemporaryDirectory()
    let path = dir.file("piece.wav")
    try Synth.write(ToneSynth.piece(cents: cents), to: path)
    let estimate = try ConcertPitchEstimator.estimate(path: path)
    #expect(abs(estimate.cents - cents) <= 3, "estimated \(estimate.cents) cents for \(cents)")
    #expect(abs(estimate.a4 - 440 * pow(2, cents / 1200)) < 0.8)
  }

  @Test func aStereoFileAt48kHz() throws {
    let dir = TemporaryDirectory()
    let path = dir.file("piece.flac")
    let mono = ToneSynth.piece(cents: -20, seconds: 6, sampleRate: 48000)
    try Synth.write(
      ToneSynth.interleaved(mono, channels: 2), to: path, sampleRate: 48000, channels: 2)
    let estimate = try ConcertPitchEstimator.estimate(path: path)
    #expect(abs(estimate.cents + 20) <= 3, "estimated \(estimate.cents) cents")
  }

  @Test func noPitchedContentIsBadData() throws {
    let dir = TemporaryDirectory()
    for (name, samples) in [
      ("silence.wav", [Float](repeating: 0, count: 44100 * 3)),
      ("noise.wav", BeatSynth.noise(seconds: 5, gain: 0.3)),
      ("short.wav", ToneSynth.sine(440, seconds: 0.1)),
    ] {
      let path = dir.file(name)
      try Synth.write(samples, to: path)
      #expect {
        _ = try ConcertPitchEstimator.estimate(path: path)
      } throws: { error in
        (error as? PracticeError)?.category == .badData
      }
    }
  }
}
