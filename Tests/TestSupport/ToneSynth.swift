import Foundation

/// Tones for the tuner's tests, synthesised here: steady sines, plucked-string-like
/// decaying tones with harmonics, and sequences of them. Mono unless said otherwise.
public enum ToneSynth {
  /// One note of a sequence: `frequency` Hz for `seconds` (0 Hz is silence).
  public struct Segment: Sendable {
    public let frequency: Double
    public let seconds: Double
    public init(_ frequency: Double, _ seconds: Double) {
      self.frequency = frequency
      self.seconds = seconds
    }
  }

  /// A steady sine with 5 ms raised-cosine fades at both ends.
  public static func sine(
    _ frequency: Double, seconds: Double, sampleRate: Int = 44100, amplitude: Double = 0.4
  ) -> [Float] {
    let frames = Int(seconds * Double(sampleRate))
    let fade = Double(sampleRate) * 0.005
    return (0..<frames).map { i in
      let t = Double(i)
      let edge = min(t, Double(frames - 1 - i))
      let gain = edge >= fade ? 1 : 0.5 - 0.5 * cos(Double.pi * edge / fade)
      return Float(amplitude * gain * sin(2 * Double.pi * frequency * t / Double(sampleRate)))
    }
  }

  /// A plucked-string-like tone: harmonics 1…8 whose amplitudes follow `weights` (default
  /// 1/n, with the second harmonic louder than the fundamental when `weakFundamental`),
  /// each decaying exponentially, the higher ones faster (`decay` is the fundamental's time
  /// constant in seconds), after a 2 ms attack.
  public static func pluck(
    _ frequency: Double, seconds: Double, sampleRate: Int = 44100, amplitude: Double = 0.4,
    decay: Double = 1.2, weakFundamental: Bool = false
  ) -> [Float] {
    let frames = Int(seconds * Double(sampleRate))
    let rate = Double(sampleRate)
    var weights = (1...8).map { 1 / Double($0) }
    if weakFundamental {
      weights[0] = 0.35
      weights[1] = 0.8
      weights[2] = 0.6
    }
    let total = weights.reduce(0, +)
    var out = [Float](repeating: 0, count: frames)
    for (index, weight) in weights.enumerated() {
      let n = Double(index + 1)
      guard frequency * n < rate / 2 - 1000 else { continue }
      let tau = decay / (1 + 0.6 * (n - 1))
      let w = 2 * Double.pi * frequency * n / rate
      for i in 0..<frames {
        let t = Double(i) / rate
        let attack = min(1, t / 0.002)
        out[i] += Float(
          amplitude * weight / total * attack * exp(-t / tau) * sin(w * Double(i) + n))
      }
    }
    // A 5 ms fade at the end, so a cut-off tone does not click.
    let fade = Int(rate * 0.005)
    for i in 0..<min(fade, frames) { out[frames - 1 - i] *= Float(Double(i) / Double(fade)) }
    return out
  }

  /// Segments one after another, phase-continuous sines (no click at a change of note).
  public static func sequence(
    _ segments: [Segment], sampleRate: Int = 44100, amplitude: Double = 0.4
  )
    -> [Float]
  {
    var out: [Float] = []
    var phase = 0.0
    for segment in segments {
      let frames = Int(segment.seconds * Double(sampleRate))
      for _ in 0..<frames {
        out.append(segment.frequency > 0 ? Float(amplitude * sin(phase)) : 0)
        phase += 2 * Double.pi * segment.frequency / Double(sampleRate)
        if phase > 2 * Double.pi { phase -= 2 * Double.pi }
      }
      if segment.frequency == 0 { phase = 0 }
    }
    return out
  }

  /// Every sample repeated for `channels` channels.
  public static func interleaved(_ mono: [Float], channels: Int) -> [Float] {
    var out = [Float](repeating: 0, count: mono.count * channels)
    for (i, value) in mono.enumerated() { for c in 0..<channels { out[i * channels + c] = value } }
    return out
  }

  /// A short piece tuned `cents` away from A = 440: a bass line, three-note chords and a
  /// melody, all plucked harmonic tones of equal-tempered notes from that grid, with a
  /// little noise. Deterministic.
  public static func piece(cents: Double, seconds: Double = 8, sampleRate: Int = 44100) -> [Float] {
    let a4 = 440 * pow(2, cents / 1200)
    func hz(_ midi: Int) -> Double { a4 * pow(2, Double(midi - 69) / 12) }
    var out = [Float](repeating: 0, count: Int(seconds * Double(sampleRate)))
    func add(_ tone: [Float], at time: Double, gain: Float) {
      let start = Int(time * Double(sampleRate))
      for (i, v) in tone.enumerated() where start + i < out.count { out[start + i] += gain * v }
    }
    // I - vi - IV - V in C, one chord a second.
    let chords = [[48, 60, 64, 67], [45, 57, 60, 64], [41, 57, 60, 65], [43, 55, 59, 62]]
    let melody = [72, 74, 76, 79, 77, 76, 74, 72, 71, 72, 74, 67, 69, 71, 72, 76]
    var time = 0.0
    var bar = 0
    while time < seconds - 1 {
      let chord = chords[bar % chords.count]
      add(pluck(hz(chord[0]), seconds: 1, sampleRate: sampleRate, decay: 0.8), at: time, gain: 0.5)
      for note in chord.dropFirst() {
        add(pluck(hz(note), seconds: 1, sampleRate: sampleRate, decay: 0.6), at: time, gain: 0.25)
      }
      for step in 0..<2 {
        let note = melody[(bar * 2 + step) % melody.count]
        add(
          pluck(hz(note), seconds: 0.5, sampleRate: sampleRate, decay: 0.4),
          at: time + 0.5 * Double(step), gain: 0.3)
      }
      time += 1
      bar += 1
    }
    let noise = BeatSynth.noise(seconds: seconds, sampleRate: sampleRate, gain: 0.003)
    for i in 0..<min(out.count, noise.count) { out[i] += noise[i] }
    return out
  }
}
