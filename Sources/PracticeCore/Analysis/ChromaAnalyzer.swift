import CAubio
import Foundation

/// Pitch-class energies from a long window (`MagnitudeSpectrum`), for harmonic change.
///
/// The onset features' 46 ms window has bins 21.5 Hz apart, wider than a semitone below
/// about 360 Hz, so the bass (where a chord's root is) would land in the wrong pitch
/// classes. A window of about 0.19 s (the power of two nearest it: 8192 samples at 44.1
/// and 48 kHz, bins 5.4-5.9 Hz apart) resolves semitones from about 90-100 Hz; it is taken every 80 ms (harmony moves no faster;
/// every 40 ms scored the same on both evaluation sets). One owner; use from one thread.
final class ChromaAnalyzer {
  /// Source frames per chroma frame.
  let hop: Int
  let window: Int
  private let spectrum: MagnitudeSpectrum
  /// Pitch class of each spectrum bin, -1 outside 90 Hz-2.1 kHz.
  private let pitchClass: [Int8]
  /// 12 energies per chroma frame, frame-major.
  private var frames: [Float] = []

  init(sampleRate: Int, hop: Int) throws {
    let window = OnsetAnalyzer.powerOfTwo(nearest: Double(sampleRate) * 0.186)
    spectrum = try MagnitudeSpectrum(window: window, hop: hop)
    self.hop = hop
    self.window = window
    let binHz = Double(sampleRate) / Double(window)
    pitchClass = (0..<(window / 2 + 1)).map { bin in
      let hz = Double(bin) * binHz
      guard hz > 90, hz < 2100 else { return -1 }
      let midi = 69 + 12 * log2(hz / 440)
      return Int8((Int(midi.rounded()) % 12 + 12) % 12)
    }
  }

  /// Feeds mono samples; any length.
  func process(_ samples: UnsafeBufferPointer<Float>) {
    spectrum.feed(samples) { _ in analyse() }
  }

  /// Flushes the window's tail; the chroma frames, 12 energies each, frame-major. Frame k
  /// is centred on source frame `(k + 1) * hop - window / 2`.
  func finish() -> [Float] {
    spectrum.flush { _ in analyse() }
    return frames
  }

  private func analyse() {
    let norm = spectrum.spectrum.pointee.norm!
    var chroma = [Float](repeating: 0, count: 12)
    for bin in pitchClass.indices where pitchClass[bin] >= 0 {
      chroma[Int(pitchClass[bin])] += norm[bin] * norm[bin]
    }
    frames.append(contentsOf: chroma)
  }
}
