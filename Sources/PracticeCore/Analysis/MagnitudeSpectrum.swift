import CAubio
import CAubioLoader
import Foundation

/// The magnitude spectrum of a sliding Hann window, every `hop` samples: what aubio's
/// phase vocoder gives, without the phase nobody here reads (its atan2 per bin was 40 % of
/// beat detection's time). aubio's FFT (FFTW underneath) does the transform. One owner;
/// use from one thread.
final class MagnitudeSpectrum {
  let window: Int
  let hop: Int
  /// `window / 2 + 1` magnitudes in `norm` after each `update` (the phases are not set).
  let spectrum: UnsafeMutablePointer<cvec_t>  // owned
  private let fft: OpaquePointer  // owned
  private let windowed: UnsafeMutablePointer<fvec_t>  // owned, window samples
  private let complex: UnsafeMutablePointer<fvec_t>  // owned, window values
  /// The last `window` samples, oldest first.
  private var history: [Float]
  /// Samples of the hop being filled.
  private var pending: [Float] = []
  private let hann: [Float]

  /// `hop` is at most `window`.
  init(window: Int, hop: Int) throws {
    guard hop <= window, let fft = new_aubio_fft(UInt32(window)) else {
      throw AubioError(call: "new_aubio_fft", detail: "size \(window)")
    }
    let windowed = new_fvec(UInt32(window))
    let complex = new_fvec(UInt32(window))
    let spectrum = new_cvec(UInt32(window))
    guard let windowed, let complex, let spectrum else {
      // Free whatever was made before the failure.
      if let spectrum { del_cvec(spectrum) }
      if let complex { del_fvec(complex) }
      if let windowed { del_fvec(windowed) }
      del_aubio_fft(fft)
      throw AubioError(call: "new_fvec", detail: "\(window) values")
    }
    self.window = window
    self.hop = hop
    self.fft = fft
    self.windowed = windowed
    self.complex = complex
    self.spectrum = spectrum
    history = [Float](repeating: 0, count: window)
    pending.reserveCapacity(hop)
    // aubio's default analysis window ("hanningz").
    hann = (0..<window).map { Float(0.5 * (1 - cos(2 * Double.pi * Double($0) / Double(window)))) }
  }

  deinit {
    del_cvec(spectrum)
    del_fvec(complex)
    del_fvec(windowed)
    del_aubio_fft(fft)
  }

  /// Feeds mono samples, any length; after each `hop` of them, computes the magnitudes of
  /// the last `window` and calls `frame` with that hop's samples.
  func feed(_ samples: UnsafeBufferPointer<Float>, frame: (ArraySlice<Float>) -> Void) {
    var rest = samples[...]
    while !rest.isEmpty {
      let n = min(hop - pending.count, rest.count)
      pending.append(contentsOf: rest.prefix(n))
      rest = rest.dropFirst(n)
      if pending.count == hop { update(frame) }
    }
  }

  /// Pads the last partial hop with silence, then runs half a window of silence through so
  /// the last sounds reach the window's centre.
  func flush(frame: (ArraySlice<Float>) -> Void) {
    if !pending.isEmpty {
      pending.append(contentsOf: repeatElement(0, count: hop - pending.count))
      update(frame)
    }
    for _ in 0..<((window / 2 + hop - 1) / hop) {
      pending.append(contentsOf: repeatElement(0, count: hop))
      update(frame)
    }
  }

  private func update(_ frame: (ArraySlice<Float>) -> Void) {
    let keep = window - hop
    history.withUnsafeMutableBufferPointer { h in
      if keep > 0 { h.baseAddress!.update(from: h.baseAddress! + hop, count: keep) }
      for i in 0..<hop { h[keep + i] = pending[i] }
      for i in 0..<window { windowed.pointee.data[i] = h[i] * hann[i] }
    }
    aubio_fft_do_complex(fft, windowed, complex)
    aubio_fft_get_norm(complex, spectrum)
    frame(pending[...])
    pending.removeAll(keepingCapacity: true)
  }
}
