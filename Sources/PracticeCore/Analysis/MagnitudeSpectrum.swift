import CAubio
import CAubioLoader
import Foundation

/// The magnitude spectrum of a sliding Hann window, `hop` samples at a time: what aubio's
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
  private let hann: [Float]

  init(window: Int, hop: Int) throws {
    guard let fft = new_aubio_fft(UInt32(window)) else {
      throw AubioError(call: "new_aubio_fft", detail: "size \(window)")
    }
    guard let windowed = new_fvec(UInt32(window)), let complex = new_fvec(UInt32(window)),
      let spectrum = new_cvec(UInt32(window))
    else {
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
    // aubio's default analysis window ("hanningz").
    hann = (0..<window).map { Float(0.5 * (1 - cos(2 * Double.pi * Double($0) / Double(window)))) }
  }

  deinit {
    del_cvec(spectrum)
    del_fvec(complex)
    del_fvec(windowed)
    del_aubio_fft(fft)
  }

  /// Takes in the next `hop` samples and computes the magnitudes of the last `window`.
  func update(_ samples: UnsafeBufferPointer<Float>) {
    let keep = window - hop
    history.withUnsafeMutableBufferPointer { h in
      if keep > 0 { h.baseAddress!.update(from: h.baseAddress! + hop, count: keep) }
      for i in 0..<hop { h[keep + i] = i < samples.count ? samples[i] : 0 }
      for i in 0..<window { windowed.pointee.data[i] = h[i] * hann[i] }
    }
    aubio_fft_do_complex(fft, windowed, complex)
    aubio_fft_get_norm(complex, spectrum)
  }
}
