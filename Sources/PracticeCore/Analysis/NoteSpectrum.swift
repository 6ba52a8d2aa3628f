import CAubio
import Foundation

/// A semitone spectrum on the recording's own tuning: for every frame, the magnitude of
/// each equal-tempered note from C1 to B7 (`NoteSpectrum.notes`), read from a long
/// window (`MagnitudeSpectrum`, about 0.37 s: bins 2.7 Hz apart, which resolve semitones
/// from about 45 Hz). One owner; use from one thread.
final class NoteSpectrum {
  /// MIDI numbers of the notes, C1 (24) ..< C8 (108).
  static let notes = 24..<108
  static var count: Int { notes.count }

  let hop: Int
  let window: Int
  private let spectrum: MagnitudeSpectrum
  /// For each note, the spectrum bins it gathers and their weights.
  private let kernels: [(first: Int, weights: [Float])]
  /// `count` magnitudes per frame, frame-major.
  private(set) var frames: [Float] = []

  /// `a4`: the recording's A4 in Hz (`ConcertPitchEstimator`).
  init(sampleRate: Int, a4: Double) throws {
    window = OnsetAnalyzer.powerOfTwo(nearest: Double(sampleRate) * 0.37)
    hop = window / 8
    spectrum = try MagnitudeSpectrum(window: window, hop: hop)
    let binHz = Double(sampleRate) / Double(window)
    let bins = window / 2 + 1
    // A triangle in semitones around each note, half a semitone wide either side, or a
    // bin and a half where bins are wider than that (the lowest octaves).
    kernels = NoteSpectrum.notes.map { midi in
      let hz = a4 * pow(2, Double(midi - 69) / 12)
      let binInSemitones = binHz / (hz * (pow(2, 1.0 / 12) - 1))
      let half = max(0.5, 1.5 * binInSemitones)
      let low = max(1, Int((hz * pow(2, -half / 12) / binHz).rounded(.down)))
      let high = min(bins - 1, Int((hz * pow(2, half / 12) / binHz).rounded(.up)))
      guard low <= high else { return (0, []) }
      let weights = (low...high).map { k -> Float in
        let d = abs(12 * log2(max(1e-9, Double(k) * binHz) / hz))
        return Float(max(0, 1 - d / half))
      }
      return (low, weights)
    }
    frames.reserveCapacity(1 << 16)
  }

  /// Feeds mono samples; any length.
  func process(_ samples: UnsafeBufferPointer<Float>) {
    spectrum.feed(samples) { _ in analyse() }
  }

  /// Flushes the window's tail. Frame k is centred on sample `(k + 1) * hop - window / 2`
  /// of those fed.
  func finish() -> [Float] {
    spectrum.flush { _ in analyse() }
    return frames
  }

  private func analyse() {
    let norm = spectrum.spectrum.pointee.norm!
    for kernel in kernels {
      var sum: Float = 0
      for (i, w) in kernel.weights.enumerated() {
        let m = norm[kernel.first + i]
        sum += w * m * m
      }
      frames.append(sum.squareRoot())
    }
  }
}
