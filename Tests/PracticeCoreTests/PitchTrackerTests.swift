import Foundation
import PracticeCore
import TestSupport
import Testing

/// Runs `samples` through a tracker; each hop's estimate with the time of the window's end.
func track(_ samples: [Float], sampleRate: Int = 44100) throws -> [(
  time: Double, estimate: PitchEstimate?
)] {
  let tracker = try PitchTracker(sampleRate: sampleRate)
  var out: [(Double, PitchEstimate?)] = []
  samples.withUnsafeBufferPointer { buffer in
    var start = 0
    while start + tracker.hop <= buffer.count {
      let estimate = tracker.process(buffer.baseAddress! + start)
      start += tracker.hop
      out.append((Double(start) / Double(sampleRate), estimate))
    }
  }
  return out
}

func cents(_ frequency: Double, from truth: Double) -> Double { 1200 * log2(frequency / truth) }

/// The tuner's estimator on synthetic buffers, no audio device: ±1 cent from bass E1
/// (41.2 Hz) to 1,400 Hz on steady sines and on decaying plucked tones with harmonics,
/// the fundamental rather than an octave, a new note within 100 ms, silence unpitched.
@Suite struct PitchTrackerTests {
  /// Equal-tempered notes across the range and a few frequencies between them.
  static let frequencies = [
    41.2, 43.65, 55, 61.7, 82.41, 110, 146.83, 196, 246.94, 329.63, 440, 523.25, 659.26, 880,
    1046.5, 1318.5, 1400,
  ]

  /// Every reading of the tone's steady part (from 0.15 s on) is within a cent, and there
  /// is one for every hop.
  func expectSteady(
    _ samples: [Float], _ frequency: Double, sampleRate: Int = 44100, _ what: String
  ) throws {
    let seconds = Double(samples.count) / Double(sampleRate)
    let steady = try track(samples, sampleRate: sampleRate).filter {
      $0.time >= 0.15 && $0.time <= seconds - 0.05
    }
    let errors = steady.compactMap { $0.estimate.map { cents($0.frequency, from: frequency) } }
    #expect(
      errors.count == steady.count,
      "\(what) \(frequency) Hz: \(steady.count - errors.count) of \(steady.count) hops unpitched")
    let worst = errors.map(abs).max() ?? .infinity
    #expect(worst <= 1, "\(what) \(frequency) Hz: a reading \(worst) cents off")
  }

  @Test(arguments: frequencies)
  func steadySinesWithinACent(frequency: Double) throws {
    try expectSteady(ToneSynth.sine(frequency, seconds: 1.2), frequency, "sine")
  }

  @Test(arguments: frequencies)
  func pluckedTonesWithinACentOnTheFundamental(frequency: Double) throws {
    try expectSteady(ToneSynth.pluck(frequency, seconds: 1.5), frequency, "pluck")
    // A bass string whose second harmonic is louder than its fundamental.
    try expectSteady(
      ToneSynth.pluck(frequency, seconds: 1.5, weakFundamental: true), frequency, "weak fundamental"
    )
  }

  @Test func detunedTonesAndAnotherRate() throws {
    for frequency in [41.2 * 1.007, 98.3, 233.1, 1234.5] {
      try expectSteady(
        ToneSynth.sine(frequency, seconds: 1, sampleRate: 48000), frequency, sampleRate: 48000,
        "48 kHz sine")
      try expectSteady(
        ToneSynth.pluck(frequency, seconds: 1, sampleRate: 48000), frequency, sampleRate: 48000,
        "48 kHz pluck")
    }
  }

  @Test func aQuietToneInNoise() throws {
    // -20 dBFS tone, noise 40 dB below it.
    let noise = BeatSynth.noise(seconds: 1.2, gain: 0.001)
    let tone = ToneSynth.sine(110, seconds: 1.2, amplitude: 0.14)
    try expectSteady(zip(tone, noise).map { $0 + $1 }, 110, "noisy sine")
  }

  /// A note's first reading within a cent comes less than 100 ms after it starts, from
  /// silence or from another note, low or high.
  @Test(arguments: [
    (0.0, 41.2), (0.0, 329.63), (82.41, 41.2), (41.2, 55), (329.63, 82.41), (440, 466.16),
    (220, 440), (1400, 700), (110, 146.83),
  ])
  func aNewNoteWithin100Milliseconds(from: Double, to: Double) throws {
    let readings = try track(ToneSynth.sequence([.init(from, 1), .init(to, 1)]))
    let first = try #require(
      readings.first {
        $0.time > 1 && ($0.estimate.map { abs(cents($0.frequency, from: to)) <= 1 } ?? false)
      },
      "\(from) → \(to) Hz: never read")
    #expect(
      first.time - 1 <= 0.1,
      "\(from) → \(to) Hz: first read \(Int((first.time - 1) * 1000)) ms after the change")
    // And it stays: no reading of another note after it.
    let later = readings.filter { $0.time > first.time && $0.time < 1.95 }
    #expect(later.count >= 50, "\(from) → \(to) Hz: \(later.count) readings after the first")
    #expect(
      later.allSatisfy { $0.estimate.map { abs(cents($0.frequency, from: to)) <= 1 } ?? false })
  }

  /// A note starting from silence reads as that note from its first reading (not an
  /// octave below, as YIN reads a window that reaches back into the silence).
  @Test(arguments: [41.2, 55, 82.41, 98, 146.83, 440, 1318.5])
  func noWrongReadingAtANoteStart(frequency: Double) throws {
    // `practice tone`'s sound: harmonics 2 and 3 at a quarter and a tenth, a 10 ms fade in.
    let reference = (0..<26460).map { i -> Float in
      let phase = 2 * Double.pi * frequency * Double(i) / 44100
      let fade = i < 441 ? 0.5 - 0.5 * cos(Double.pi * Double(i) / 441) : 1
      return Float(0.25 * fade * (sin(phase) + 0.25 * sin(2 * phase) + 0.1 * sin(3 * phase)))
    }
    for (kind, tone) in [
      ("sine", ToneSynth.sine(frequency, seconds: 0.6)),
      ("pluck", ToneSynth.pluck(frequency, seconds: 0.6)), ("tone", reference),
    ] {
      for offset in [0, 100, 300] {
        let samples = [Float](repeating: 0, count: 22050 + offset) + tone
        let pitched = try track(samples).compactMap { reading in
          reading.estimate.map { (reading.time, $0.frequency) }
        }
        #expect(
          pitched.first.map { $0.0 - 0.5 <= 0.1 } ?? false,
          "\(kind) \(frequency) Hz: first read at \(pitched.first?.0 ?? -1) s, 0.5 s after the start"
        )
        for (time, hz) in pitched {
          #expect(
            abs(cents(hz, from: frequency)) < 50,
            "\(kind) \(frequency) Hz offset \(offset): read \(hz) Hz at \(time) s")
        }
      }
    }
  }

  /// A dropout (a player that ran dry: a few ms of zeros, the tone resuming out of phase)
  /// gives no reading off the note while the window spans it.
  @Test(arguments: [55.0, 98, 440, 1046.5])
  func aDropoutGivesNoFalseReading(frequency: Double) throws {
    var samples = ToneSynth.sine(frequency, seconds: 1.5)
    for i in 33000..<33150 { samples[i] = 0 }
    let readings = try track(samples).filter { $0.time >= 0.15 && $0.time <= 1.45 }
    let worst =
      readings.compactMap { $0.estimate.map { abs(cents($0.frequency, from: frequency)) } }.max()
      ?? 0
    #expect(worst <= 1, "\(frequency) Hz: a reading \(worst) cents off around the dropout")
    #expect(readings.filter { $0.estimate == nil }.count <= 9)
  }

  @Test func silenceAndNoiseHaveNoPitch() throws {
    let silence = try track([Float](repeating: 0, count: 44100))
    #expect(silence.count >= 80, "\(silence.count) readings of a second")
    #expect(silence.allSatisfy { $0.estimate == nil })
    // Below the -60 dBFS gate.
    let quiet = try track(ToneSynth.sine(220, seconds: 1, amplitude: 0.0005))
    #expect(quiet.count >= 80, "\(quiet.count) readings of a second")
    #expect(quiet.allSatisfy { $0.estimate == nil })
    // White noise: no periodicity to speak of.
    let noisy = try track(BeatSynth.noise(seconds: 2, gain: 0.3))
    let pitched = noisy.filter { $0.estimate != nil }.count
    #expect(
      pitched <= noisy.count / 20, "\(pitched) of \(noisy.count) noise hops were given a pitch")
  }
}

@Suite struct PitchNameTests {
  @Test(arguments: [
    ("A4", 69), ("a4", 69), ("E2", 40), ("F#3", 54), ("Bb2", 46), ("bb2", 46), ("C4", 60),
    ("B3", 59),
    ("Cb4", 59), ("E#4", 65), ("C♯5", 73), ("D♭3", 49), ("C-1", 0), ("G9", 127), ("E1", 28),
    (" A4 ", 69),
  ])
  func parsesNotes(text: String, midi: Int) throws {
    #expect(try #require(Note.parse(text)).midi == midi)
  }

  @Test(arguments: [
    "", "H4", "A", "4", "A10", "A-2", "G#9", "Cb-1", "A4.5", "A 4", "#4", "A+4", "A-0", "Ab", "440",
  ])
  func rejectsOtherNotes(text: String) {
    #expect(Note.parse(text) == nil)
  }

  @Test func namesNotes() {
    #expect(Note(midi: 69).description == "A4")
    #expect(Note(midi: 40).description == "E2")
    #expect(Note(midi: 54).description == "F#3")
    #expect(Note(midi: 0).description == "C-1")
    #expect(Note(midi: 59).description == "B3")
    #expect(abs(Note(midi: 28).frequency() - 41.2034) < 0.0001)
    #expect(abs(Note(midi: 69).frequency(a4: 432) - 432) < 1e-9)
  }

  @Test func readsFrequenciesAsNotesAndCents() throws {
    let e2 = try #require(PitchReading(frequency: 82.41 * pow(2, -12.1 / 1200)))
    #expect(e2.note.description == "E2")
    #expect(abs(e2.cents - (-12.1 + 1200 * log2(82.41 / Note(midi: 40).frequency()))) < 1e-9)
    // Just under the half-way point goes down, at or over it up.
    #expect(
      try #require(PitchReading(frequency: 440 * pow(2, 49.9 / 1200))).note.description == "A4")
    #expect(
      try #require(PitchReading(frequency: 440 * pow(2, 50.1 / 1200))).note.description == "A#4")
    // Another A4: 432 Hz is A4 at 432, 31.8 cents flat at 440.
    let at432 = try #require(PitchReading(frequency: 432, a4: 432))
    #expect(at432.note.description == "A4" && abs(at432.cents) < 1e-9)
    #expect(abs(try #require(PitchReading(frequency: 432)).cents - (-31.77)) < 0.01)
    #expect(PitchReading(frequency: 0) == nil)
    #expect(PitchReading(frequency: .nan) == nil)
    #expect(PitchReading(frequency: -5) == nil)
    #expect(PitchReading(frequency: .infinity) == nil)
  }

  @Test func drawsANeedle() throws {
    let inTune = try #require(PitchReading(frequency: 440))
    #expect(inTune.needle(width: 11) == "─────●─────")
    let flat = try #require(PitchReading(frequency: 440 * pow(2, -20 / 1200)))
    #expect(flat.needle(width: 11) == "───●─|─────")
    let sharp = try #require(PitchReading(frequency: 440 * pow(2, 49 / 1200)))
    #expect(sharp.needle(width: 11) == "─────|────●")
  }

  @Test func parsesToneFrequencies() {
    #expect(parseToneFrequency("440") == 440)
    #expect(parseToneFrequency("440Hz") == 440)
    #expect(parseToneFrequency("82.41 Hz") == 82.41)
    #expect(parseToneFrequency("440hz") == 440)
    #expect(abs((parseToneFrequency("A4", a4: 442) ?? 0) - 442) < 1e-9)
    #expect(abs((parseToneFrequency("E2") ?? 0) - 82.4069) < 0.0001)
    for bad in [
      "", "Hz", "-440", "1e3", "nan", "inf", "0", "10", "9000", "440 Hz Hz", "A4x", "C-1",
    ] {
      #expect(parseToneFrequency(bad) == nil, "\(bad)")
    }
  }

  @Test func concertPitchRange() {
    #expect(ConcertPitch(hertz: 400) != nil)
    #expect(ConcertPitch(hertz: 480) != nil)
    #expect(ConcertPitch(hertz: 399.9) == nil)
    #expect(ConcertPitch(hertz: 480.1) == nil)
    #expect(ConcertPitch(hertz: .nan) == nil)
    #expect(abs(ConcertPitch.offset(cents: -30) - 432.44) < 0.01)
    #expect(
      formatHertz(436.2) == "436.2" && formatHertz(440) == "440" && formatHertz(82.406) == "82.41")
    #expect(
      formatCents(-30.2) == "-30 ¢" && formatCents(15) == "+15 ¢" && formatCents(0.3) == "0 ¢")
    // Rounded to the nearest cent, not cut toward zero (planted bug M176).
    #expect(formatCents(-12.6) == "-13 ¢" && formatCents(0.7) == "+1 ¢")
  }
}
