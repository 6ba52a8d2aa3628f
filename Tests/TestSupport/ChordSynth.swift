import Foundation

/// Chord progressions with known chords on a known beat grid, for chord-recognition tests:
/// each chord a close-voiced piano-like chord (harmonics 1-8, decaying) struck on every
/// beat, over a bass note (its written bass, two octaves down) on the bar's first beat and
/// held. Deterministic.
public enum ChordSynth {
  /// One chord of a progression: MIDI notes of the voicing, the bass note, and its beats.
  public struct Step: Sendable {
    public let notes: [Int]
    public let bass: Int?
    public let beats: Int

    public init(notes: [Int], bass: Int?, beats: Int = 4) {
      self.notes = notes
      self.bass = bass
      self.beats = beats
    }

    /// A chord from its root (MIDI, e.g. 60 for middle C), intervals above it, and the bass
    /// as an interval above the root (an inversion) or the root.
    public static func chord(_ root: Int, _ intervals: [Int], bass: Int = 0, beats: Int = 4)
      -> Step
    {
      Step(notes: intervals.map { root + $0 }, bass: root - 24 + bass, beats: beats)
    }
  }

  /// Mono samples, the beat frames (every beat, the first of each bar a downbeat) and each
  /// step's span in frames. `leadIn` seconds of silence come first; a second after.
  public static func render(
    _ steps: [Step], bpm: Double = 100, beatsPerBar: Int = 4, cents: Double = 0,
    sampleRate: Int = 44100, leadIn: Double = 0.5, drums: Bool = false
  ) -> (samples: [Float], beats: [Int64], spans: [Range<Int64>]) {
    let rate = Double(sampleRate)
    let period = 60 / bpm
    let totalBeats = steps.reduce(0) { $0 + $1.beats }
    let frames = Int((leadIn + Double(totalBeats) * period + 1) * rate)
    var out = [Float](repeating: 0, count: frames)
    var beats: [Int64] = []
    var spans: [Range<Int64>] = []
    var beat = 0
    func hz(_ midi: Int) -> Double { 440 * pow(2, (Double(midi - 69) + cents / 100) / 12) }
    for step in steps {
      let start = Int64(((leadIn + Double(beat) * period) * rate).rounded())
      let end = Int64(((leadIn + Double(beat + step.beats) * period) * rate).rounded())
      spans.append(start..<end)
      for k in 0..<step.beats {
        let at = Int(((leadIn + Double(beat + k) * period) * rate).rounded())
        beats.append(Int64(at))
        for note in step.notes {
          add(&out, tone(hz(note), seconds: period, rate: rate, gain: k == 0 ? 0.16 : 0.12), at)
        }
        if k == 0, let bass = step.bass {
          add(&out, tone(hz(bass), seconds: period * Double(step.beats), rate: rate, gain: 0.3), at)
        }
      }
      beat += step.beats
    }
    if drums {
      let noise = BeatSynth.noise(seconds: 0.05, sampleRate: sampleRate, gain: 0.3)
      for b in beats {
        add(&out, noise.enumerated().map { $1 * Float(exp(-Double($0) / (0.01 * rate))) }, Int(b))
      }
    }
    return (out, beats, spans)
  }

  /// A decaying tone with harmonics 1-8 at 1/h, 5 ms attack and release.
  static func tone(_ frequency: Double, seconds: Double, rate: Double, gain: Double) -> [Float] {
    let n = Int(seconds * rate)
    var out = [Float](repeating: 0, count: n)
    for h in 1...8 where frequency * Double(h) < rate / 2 - 1000 {
      let w = 2 * Double.pi * frequency * Double(h) / rate
      let a = gain / Double(h)
      let tau = 1.5 / (1 + 0.4 * Double(h - 1))
      for i in 0..<n {
        out[i] += Float(a * exp(-Double(i) / rate / tau) * sin(w * Double(i) + Double(h)))
      }
    }
    let edge = min(n / 2, Int(rate * 0.005))
    for i in 0..<edge {
      let g = Float(i) / Float(edge)
      out[i] *= g
      out[n - 1 - i] *= g
    }
    return out
  }

  static func add(_ out: inout [Float], _ tone: [Float], _ at: Int) {
    for (i, v) in tone.enumerated() where at + i < out.count { out[at + i] += v }
  }
}
