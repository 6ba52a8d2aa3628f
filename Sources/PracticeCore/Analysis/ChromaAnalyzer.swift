import CAubio
import Foundation

/// Pitch-class energies from a long window (`MagnitudeSpectrum`), for harmonic change.
///
/// The onset features' 46 ms window has bins 21.5 Hz apart, wider than a semitone below
/// about 360 Hz, so the bass (where a chord's root is) would land in the wrong pitch
/// classes. A window of at least 0.18 s (8192 samples at 44.1 kHz, bins 5.4 Hz apart)
/// resolves semitones from about 90 Hz; it is taken every 80 ms (harmony moves no faster;
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
    var window = 1024
    while Double(window) < Double(sampleRate) * 0.18 { window *= 2 }
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

  /// Chroma at each of `count` frames centred on `center(i)` source frames: the chroma
  /// frame centred nearest. Flushes the window's tail first.
  func finish(frames count: Int, center: (Int) -> Int) -> [Float] {
    spectrum.flush { _ in analyse() }
    let available = frames.count / 12
    var out = [Float](repeating: 0, count: count * 12)
    guard available > 0 else { return out }
    for i in 0..<count {
      // Chroma frame k is centred on (k + 1) * hop - window / 2.
      let k = Int((Double(center(i) + window / 2) / Double(hop) - 1).rounded())
      let source = max(0, min(available - 1, k))
      for c in 0..<12 { out[i * 12 + c] = frames[source * 12 + c] }
    }
    return out
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
