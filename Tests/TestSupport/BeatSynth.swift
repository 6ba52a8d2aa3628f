import Foundation

/// Synthetic music with known beats for beat-detection tests: drum-like bursts and
/// tonal chords with a bass on the downbeats. Deterministic (a fixed-seed generator).
public enum BeatSynth {
  /// A beat of the ground truth: its time and its number in the bar (1 = downbeat).
  public struct TrueBeat: Sendable {
    public let time: Double
    public let beatInBar: Int

    public init(time: Double, beatInBar: Int) {
      self.time = time
      self.beatInBar = beatInBar
    }
  }

  /// The chords' and bass's rhythm.
  public enum Accompaniment: Sendable {
    /// A chord on every beat (louder on the downbeat), the bass on the downbeat.
    case block
    /// Oom-pah: a soft bass note on every beat, a louder chord half-way between the beats.
    case oomPah
    /// Every beat alike: a bass note on the downbeat and the same chord on every beat, with
    /// nothing between the beats (a fast waltz of even crotchets).
    case even
    /// Each beat divided in three (6/8 counted in dotted quarters): a chord on the beat and
    /// softer ones on its thirds, the bass on the downbeat; the hi-hat plays the thirds.
    case triplets
    /// The chord on every beat, changing at the bar; a loud low drum on the second beat
    /// and nothing low on the first (a samba's surdo, a one-drop's kick off the downbeat).
    case loudTwo
    /// Four sixteenths a beat of the broken chord, low-high-middle-high, all alike in
    /// loudness (a classical Alberti bass): every sixteenth an onset, only the pitches
    /// repeating with the beat.
    case alberti
    /// Legato strings: each bar's chord and its bass held through the bar, and a melody (a
    /// dotted quarter, an eighth, a half), all swelling in over `attack`; the chord's
    /// voices tremble together at 5.5 Hz, the melody at 4.6 Hz (a synthesiser's vibrato,
    /// started with each note). Only the melody's soft swells mark beats; the chord changes
    /// mark the bars.
    case bowedPad
    /// One chord and its bass on every beat, alike in loudness, never changing (a vamp):
    /// nothing marks the bar.
    case unmarked
  }

  /// What to play.
  public struct Piece: Sendable {
    public var beatsPerBar = 4
    /// Tempo at the start and at the end; it changes linearly over the second half.
    public var startBPM = 120.0
    public var endBPM = 120.0
    public var bars = 12
    /// Beats before the first downbeat (played by the melody only).
    public var pickup = 0
    public var drums = true
    public var chords = true
    public var sampleRate = 44100
    /// Silence before the music, in seconds.
    public var leadIn = 0.3
    /// How the chords and bass are laid out.
    public var accompaniment = Accompaniment.block
    /// Rise time of the tones in seconds (5 ms is a pluck; 60 ms an organ or a bowed swell).
    public var attack = 0.005
    /// One bar of another length: bar `bar` (0-based, counted after the pickup) has
    /// `beats` beats (a bar of 2/4 in 4/4).
    public var oddBar: (bar: Int, beats: Int)? = nil
    /// A tempo that wavers as a player's without a click: up to this fraction either way,
    /// over an 11 s period (0 = steady, or the linear change above).
    public var waver = 0.0
    /// A melody in running eighths over the chords (a ballad's piano right hand).
    public var eighths = false

    public init() {}
  }

  /// Mono samples and the beats they were built on.
  public static func render(_ piece: Piece) -> (samples: [Float], beats: [TrueBeat]) {
    let rate = Double(piece.sampleRate)
    // Each beat's bar (-1 in the pickup) and number in it.
    var places: [(bar: Int, inBar: Int)] = (0..<piece.pickup).map {
      (-1, piece.beatsPerBar - piece.pickup + $0 + 1)
    }
    for bar in 0..<piece.bars {
      let length = piece.oddBar.flatMap { $0.bar == bar ? $0.beats : nil } ?? piece.beatsPerBar
      places += (1...length).map { (bar, $0) }
    }
    let count = places.count
    var beats: [TrueBeat] = []
    var t = piece.leadIn
    for i in 0..<count {
      let x = Double(i) / Double(max(1, count - 1))
      let bpm =
        (piece.startBPM + (piece.endBPM - piece.startBPM) * max(0, (x - 0.5) / 0.5))
        * (1 + piece.waver * sin(2 * .pi * (t - piece.leadIn) / 11))
      beats.append(TrueBeat(time: t, beatInBar: places[i].inBar))
      t += 60 / bpm
    }
    let total = Int((t + 1.5) * rate)
    var out = [Float](repeating: 0, count: total)
    var random = SeededRandom(seed: 42)
    // Chord roots of a four-bar progression (semitones above A2), one chord per bar.
    let roots = [0, 5, 7, 3]
    for (i, beat) in beats.enumerated() {
      let start = Int(beat.time * rate)
      let next = i + 1 < beats.count ? beats[i + 1].time : beat.time + 0.5
      let length = next - beat.time
      let bar = places[i].bar
      if bar < 0 {
        // Pickup: one melody note.
        addTone(&out, at: start, hz: 440 * pow(2, Double(7 + i) / 12), seconds: length * 0.9, gain: 0.25, rate: rate)
        continue
      }
      let root = 110 * pow(2, Double(roots[bar % roots.count]) / 12)
      if piece.chords && piece.accompaniment == .oomPah {
        addTone(&out, at: start, hz: root / 2, seconds: length * 0.45, gain: 0.3, rate: rate, attack: piece.attack)
        let half = start + Int(length / 2 * rate)
        for ratio in [2.0, 2.52, 3.0] {
          addTone(&out, at: half, hz: root * ratio, seconds: length * 0.45, gain: 0.22, rate: rate, attack: piece.attack)
        }
      } else if piece.chords && piece.accompaniment == .triplets {
        for k in 0..<3 {
          let at = start + Int(length * Double(k) / 3 * rate)
          for ratio in [2.0, 2.52, 3.0] {
            addTone(&out, at: at, hz: root * ratio, seconds: length * 0.3, gain: k == 0 ? 0.16 : 0.08, rate: rate, attack: piece.attack)
          }
        }
        if beat.beatInBar == 1 {
          addTone(&out, at: start, hz: root / 2, seconds: length * 2, gain: 0.35, rate: rate, attack: piece.attack)
        }
      } else if piece.chords && piece.accompaniment == .loudTwo {
        for ratio in [2.0, 2.52, 3.0] {
          addTone(&out, at: start, hz: root * ratio, seconds: length * 0.9, gain: 0.15, rate: rate, attack: piece.attack)
        }
        if beat.beatInBar == 2 {
          addKick(&out, at: start, rate: rate)
          addTone(&out, at: start, hz: root / 2, seconds: length * 0.9, gain: 0.3, rate: rate, attack: piece.attack)
        }
      } else if piece.chords && piece.accompaniment == .alberti {
        for (k, ratio) in [1.0, 3.0, 2.52, 3.0].enumerated() {
          let at = start + Int(length * Double(k) / 4 * rate)
          addTone(&out, at: at, hz: root * ratio, seconds: length * 0.25, gain: 0.15, rate: rate, attack: piece.attack)
        }
      } else if piece.chords && piece.accompaniment == .bowedPad {
        if beat.beatInBar == 1 {
          // Held to the next bar line.
          var end = i + 1
          while end < beats.count && places[end].bar == bar { end += 1 }
          let held = (end < beats.count ? beats[end].time : beat.time + length * Double(piece.beatsPerBar)) - beat.time
          for ratio in [0.5, 2.0, 2.52, 3.0] {
            addTone(
              &out, at: start, hz: root * ratio, seconds: held, gain: ratio < 1 ? 0.25 : 0.12, rate: rate,
              attack: piece.attack, decay: 0.2, tremolo: 0.6, tremoloHz: 5.5)
          }
        }
        // A bowed melody over it, trembling too: a dotted quarter, an eighth and a half.
        if beat.beatInBar == 1 || beat.beatInBar == 3 {
          let dotted = beat.beatInBar == 1
          let pitch = 440 * pow(2, Double([0, 4, 7, 5, 2, 9, 7][i % 7]) / 12)
          addTone(
            &out, at: start, hz: pitch, seconds: length * (dotted ? 1.45 : 1.9), gain: 0.12,
            rate: rate, attack: piece.attack, decay: 0.2, tremolo: 0.6, tremoloHz: 4.6)
          if dotted {
            addTone(
              &out, at: start + Int(1.5 * length * rate), hz: pitch * 9 / 8, seconds: length * 0.45,
              gain: 0.12, rate: rate, attack: piece.attack, decay: 0.2, tremolo: 0.6, tremoloHz: 4.6)
          }
        }
      } else if piece.chords && piece.accompaniment == .unmarked {
        for ratio in [0.5, 2.0, 2.52, 3.0] {
          addTone(&out, at: start, hz: 110 * ratio, seconds: length * 0.9, gain: 0.15, rate: rate, attack: piece.attack)
        }
      } else if piece.chords && piece.accompaniment == .even {
        for ratio in [2.0, 2.52, 3.0] {
          addTone(&out, at: start, hz: root * ratio, seconds: length * 0.9, gain: 0.15, rate: rate, attack: piece.attack)
        }
        if beat.beatInBar == 1 {
          addTone(&out, at: start, hz: root / 2, seconds: length * 0.9, gain: 0.2, rate: rate, attack: piece.attack)
        }
      } else if piece.chords {
        let gain = beat.beatInBar == 1 ? 0.18 : 0.1
        for ratio in [2.0, 2.52, 3.0] {
          addTone(&out, at: start, hz: root * ratio, seconds: length * 0.95, gain: gain, rate: rate, attack: piece.attack)
        }
        if beat.beatInBar == 1 {
          addTone(&out, at: start, hz: root / 2, seconds: length * 2, gain: 0.35, rate: rate, attack: piece.attack)
        }
      }
      if piece.eighths {
        // Up and down a pentatonic scale, two notes a beat, alike in loudness.
        let scale = [0, 2, 4, 7, 9, 12, 9, 7, 4, 2]
        for half in 0..<2 {
          let step = scale[(2 * i + half) % scale.count]
          addTone(
            &out, at: start + Int(length / 2 * Double(half) * rate), hz: 440 * pow(2, Double(step) / 12),
            seconds: length * 0.45, gain: 0.15, rate: rate, attack: piece.attack)
        }
      }
      if piece.drums {
        if beat.beatInBar == 1 || (piece.beatsPerBar == 4 && beat.beatInBar == 3) {
          addKick(&out, at: start, rate: rate)
        } else {
          addNoise(&out, at: start, seconds: 0.12, gain: 0.3, random: &random, rate: rate)
        }
        // A softer hi-hat between the beats: half-way, or on the thirds of a divided beat.
        let between: [Double] = piece.accompaniment == .triplets ? [1.0 / 3, 2.0 / 3] : [0.5]
        for fraction in between {
          addNoise(&out, at: start + Int(length * fraction * rate), seconds: 0.03, gain: 0.08, random: &random, rate: rate)
        }
      }
    }
    return (out, beats)
  }

  /// A sine tone: a swell of `attack` seconds, a decay of `decay` per second (exponential,
  /// 3: a struck or plucked note), a 20 ms release (a tone cut off in one sample clicks
  /// across the spectrum, which no instrument does), and a tremolo of depth `tremolo`
  /// (0-1) at `tremoloHz` from its start.
  private static func addTone(
    _ out: inout [Float], at start: Int, hz: Double, seconds: Double, gain: Double, rate: Double,
    attack: Double = 0.005, decay: Double = 3, tremolo: Double = 0, tremoloHz: Double = 5
  ) {
    let n = min(out.count - start, Int(seconds * rate))
    guard n > 0 else { return }
    for k in 0..<n {
      let s = Double(k) / rate
      let release = min(1, Double(n - k) / (0.02 * rate))
      let tremble = 1 - tremolo * 0.5 * (1 - cos(2 * .pi * tremoloHz * s))
      let envelope = min(1, s / attack) * exp(-decay * max(0, s - attack)) * release * tremble
      out[start + k] += Float(gain * envelope * sin(2 * .pi * hz * s))
    }
  }

  private static func addKick(_ out: inout [Float], at start: Int, rate: Double) {
    let n = min(out.count - start, Int(0.25 * rate))
    guard n > 0 else { return }
    var phase = 0.0
    for k in 0..<n {
      let s = Double(k) / rate
      phase += 2 * .pi * (50 + 100 * exp(-s * 30)) / rate
      out[start + k] += Float(0.6 * exp(-s * 12) * sin(phase))
    }
  }

  private static func addNoise(
    _ out: inout [Float], at start: Int, seconds: Double, gain: Double, random: inout SeededRandom, rate: Double
  ) {
    let n = min(out.count - start, Int(seconds * rate))
    guard n > 0 else { return }
    for k in 0..<n {
      let s = Double(k) / rate
      out[start + k] += Float(gain * exp(-s * 4 / seconds) * random.nextSigned())
    }
  }

  /// White noise at `gain` peak, deterministic.
  public static func noise(seconds: Double, sampleRate: Int = 44100, gain: Double = 0.3) -> [Float] {
    var random = SeededRandom(seed: 7)
    return (0..<Int(seconds * Double(sampleRate))).map { _ in Float(gain * random.nextSigned()) }
  }

  /// Fraction of `truth` matched one-to-one by a detected time within `tolerance` seconds.
  public static func recall(_ detected: [Double], _ truth: [Double], tolerance: Double) -> Double {
    guard !truth.isEmpty else { return 0 }
    var used = Set<Int>()
    var hits = 0
    for t in truth {
      var best: Int?
      for (j, d) in detected.enumerated() where !used.contains(j) && abs(d - t) <= tolerance {
        if best == nil || abs(d - t) < abs(detected[best!] - t) { best = j }
      }
      if let best {
        used.insert(best)
        hits += 1
      }
    }
    return Double(hits) / Double(truth.count)
  }
}
