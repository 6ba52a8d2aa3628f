import CAubio
import CAubioLoader
import Foundation

/// The small per-frame features beat detection works on, about 100 frames a second:
/// nothing at full spectral resolution is kept.
public struct OnsetFeatures: Sendable {
  /// Frames per second.
  public let frameRate: Double
  /// Source frames per analysis frame.
  public let hop: Int
  /// Analysis window in source frames; frame `i` is centred on source frame
  /// `(i + 1) * hop - window / 2`.
  public let window: Int
  /// Log-magnitude spectral flux summed over all mel bands (onset strength).
  public var flux: [Float] = []
  /// The same over the bands below about 180 Hz (bass and kick onsets).
  public var bassFlux: [Float] = []
  /// RMS level of each hop, its mean (DC) removed.
  public var level: [Float] = []
  /// 12 pitch-class energies per chroma frame (90 Hz-2.1 kHz, from `ChromaAnalyzer`'s long
  /// window, every `chromaHop` source frames), frame-major; `chromaOffset(ofFrame:)`
  /// finds an analysis frame's. Harmony moves slower than onsets: one chroma frame serves
  /// eight analysis frames.
  public var chroma: [Float] = []
  /// Source frames per chroma frame, and the chroma window: chroma frame k is centred on
  /// source frame `(k + 1) * chromaHop - chromaWindow / 2`.
  public var chromaHop = 1
  public var chromaWindow = 0
  /// The largest rise, in dB from the frame before, of any mel band within 40 dB of the
  /// frame's loudest: a note beginning raises some band by several dB at any level; a held
  /// tone (a test tone, a drone) by none, its spectrum the same frame after frame. Level
  /// does not enter, so very quiet music is told from a held sound too.
  public var largestRise: [Float] = []
  /// Log-magnitude flux over 24 bands an octave, each band's rise measured against the
  /// loudest of it and its neighbours a frame before (`SuperFlux`): new notes, not vibrato.
  public var superFlux: [Float] = []
  /// Energy of the mono signal in blocks of `envelopeBlock` source frames (about 1 ms), as
  /// it is (`envelope[0]`: a kick or a bass note rises most here) and above 400 Hz
  /// (`envelope[1]`: attacks over a sustained bass, a hi-hat): where each onset began, to
  /// the millisecond, whatever the analysis window (`attackStart(ofFrame:)`).
  public var envelope: [[Float]] = [[], []]
  public var envelopeBlock = 1
  /// What the beat network hears (`BeatNetwork`): the log magnitude of each analysis frame
  /// on `NetworkBands.count` bands spaced evenly in log frequency from 30 Hz to 16 kHz,
  /// band-major (`networkBands[band][frame]`), so the network's convolutions run along
  /// contiguous rows. Empty unless asked for (`OnsetAnalyzer.init`).
  public var networkBands: [[Float]] = Array(repeating: [], count: NetworkBands.count)
  /// The beat network's beat and downbeat probabilities at every analysis frame, once
  /// `hearNetwork()` has run (empty before).
  public var beatActivation: [Float] = []
  public var downbeatActivation: [Float] = []

  public var count: Int { flux.count }

  /// Runs the shipped beat network over `networkBands` and keeps its two outputs instead:
  /// the 80 bands are the largest features (19 MB for 10 minutes), and dropping them before
  /// the tracker works keeps detection's peak memory down. Does nothing without the bands
  /// or a network.
  public mutating func hearNetwork() {
    guard let network = BeatNetwork.shipped, count > 0, networkBands.first?.count == count
    else { return }
    (beatActivation, downbeatActivation) = network.activations(releasing: &networkBands)
    networkBands = Array(repeating: [], count: NetworkBands.count)
  }

  /// True when the network's probabilities are there for every frame.
  var heardNetwork: Bool { count > 0 && beatActivation.count == count }

  /// Where analysis frame `index`'s chroma starts in `chroma`: the chroma frame centred
  /// nearest it; nil when there is no chroma.
  public func chromaOffset(ofFrame index: Int) -> Int? {
    let available = chroma.count / 12
    guard available > 0 else { return nil }
    let center = (index + 1) * hop - window / 2
    let k = Int((Double(center + chromaWindow / 2) / Double(chromaHop) - 1).rounded())
    return max(0, min(available - 1, k)) * 12
  }

  /// The sample analysis frame `index` is centred on.
  public func centre(ofFrame index: Int) -> Int64 {
    Int64(max(0, (index + 1) * hop - window / 2))
  }

  /// The sample frame `index` is centred on, in seconds.
  public func seconds(ofFrame index: Int, sampleRate: Int) -> Double {
    Double(centre(ofFrame: index)) / Double(sampleRate)
  }

  /// The source frame where the onset that analysis frame `index` rose on began.
  ///
  /// The spectral flux places an onset only to within its window (46 ms), and where in the
  /// window depends on the attack. Here, anywhere that window reaches (from a hop before it
  /// to a hop after), the sharpest rise of the energy — a span against the span before and
  /// against the mean of the 30 ms before, in dB, the smaller — and from there back to
  /// where the rise left the level before it (a swell rises most some milliseconds in):
  /// while the span before is over 3 dB above the quietest span of the 30 ms before. The
  /// rise is looked for in two envelopes, the one where it is sharper counting: above 400 Hz
  /// in 3 ms spans (most attacks, a hi-hat, a note over a sustained bass; the bass filtered
  /// out, as its energy summed over less than half its period would rise and fall with its
  /// phase) and the plain one in 10 ms spans (a kick or a bass note, whose attack has
  /// nothing above 400 Hz). Without a rise of 3 dB in either (a legato change inside a
  /// sustained texture), the window's centre.
  public func attackStart(ofFrame index: Int) -> Int64 {
    let centre = self.centre(ofFrame: index)
    let block = max(1, envelopeBlock)
    let blocksPerSecond = frameRate * Double(hop) / Double(block)
    let low = max(0, (index * hop - window) / block)
    var found: (rise: Double, at: Int, band: Int, span: Int, floor: Double)? = nil
    for (band, seconds) in [(0, 0.010), (1, 0.003)] where band < envelope.count {
      let high = min(envelope[band].count - 1, ((index + 2) * hop) / block)
      guard low <= high else { continue }
      let w = max(1, Int((seconds * blocksPerSecond).rounded()))
      var loudest = 0.0
      for t in (low - w)...(high + w) { loudest = max(loudest, energy(band, t, w)) }
      guard loudest > 0 else { continue }
      let floor = loudest * 1e-3
      let recent = Int((0.03 * blocksPerSecond).rounded())
      for t in low...high {
        // Against the span before, and against the mean of the 30 ms before: a partial
        // that beats against a neighbour (a detuned pair, a chorus, an organ's celeste)
        // rises out of each null as sharply as a note begins, but only back to its level.
        let now = energy(band, t, w) + floor
        let level = energy(band, t - w - recent, recent) * Double(w) / Double(recent)
        let rise = min(
          log10(now / (energy(band, t - w, w) + floor)), log10(now / (level + floor)))
        if rise > found?.rise ?? 0.3 { found = (rise, t, band, w, floor) }
      }
    }
    guard let found else { return centre }
    let (band, w) = (found.band, found.span)
    let back = max(low, found.at - Int((0.03 * blocksPerSecond).rounded()))
    var trough = Double.infinity
    for t in back...found.at { trough = min(trough, energy(band, t - w, w)) }
    var start = found.at
    while start > back, energy(band, start - w, w) > 2 * trough + found.floor { start -= 1 }
    return Int64(start * block)
  }

  /// The energy of `count` envelope blocks of `band` from block `start` (none outside).
  private func energy(_ band: Int, _ start: Int, _ count: Int) -> Double {
    let values = envelope[band]
    // The envelope can end before the flux does (a damaged file decodes short).
    let lower = max(0, start)
    let upper = min(values.count, start + count)
    guard lower < upper else { return 0 }
    var sum = 0.0
    for t in lower..<upper { sum += Double(values[t]) }
    return sum
  }
}

/// A failure inside aubio, with the call that failed.
public struct AubioError: PracticeFailure {
  public let category: FailureCategory = .other
  public let call: String
  public let detail: String

  public var description: String { "aubio failed in \(call) (\(detail)); this is a bug in practice" }
}

/// Streams mono audio through a sliding FFT (`MagnitudeSpectrum`, aubio's FFT) and aubio's
/// mel filterbank (its coefficients, summed sparsely here) and keeps only `OnsetFeatures`.
/// One owner of the aubio objects; use from one thread.
public final class OnsetAnalyzer {
  public let sampleRate: Int
  public let hop: Int
  public let window: Int
  private let bandCount = 32
  private let spectrum: MagnitudeSpectrum
  /// aubio's mel filterbank, each band's weights from its first bin on (the bins
  /// outside a triangle weigh nothing, so summing only the others gives aubio's values
  /// exactly, at a thirtieth of its dense product's cost); the frame's band values.
  private let bandFirstBin: [Int]
  private let bandWeights: [[Float]]
  private var bands: [Float]
  /// Which mel bands count as bass.
  private let bassBands: Int
  private let chroma: ChromaAnalyzer
  private var previous: [Float]
  /// Each mel band's value a frame before, as aubio gives it (not compressed).
  private var previousRaw: [Float]
  private var features: OnsetFeatures
  private var superFlux: SuperFlux
  /// Nil unless the beat network is to hear this audio (`init`'s `networkBands`).
  private let networkBands: NetworkBands?
  /// Source frames per envelope block; the high-pass that makes the attack envelope (a
  /// second-order Butterworth at 400 Hz, RBJ's cookbook: b0 b1 b2 a1 a2) and its state; the
  /// block being summed.
  private let envelopeBlock: Int
  private let highPass: (b0: Float, b1: Float, b2: Float, a1: Float, a2: Float)
  private var highPassState: (x1: Float, x2: Float, y1: Float, y2: Float) = (0, 0, 0, 0)
  private var blockEnergy: (plain: Float, attack: Float) = (0, 0)
  private var blockFill = 0

  /// The lowest sample rate analysed: below it the onsets have too little bandwidth.
  static let lowestRate = 8000

  /// About 100 frames a second and a window of about 46 ms (the power of two nearest it),
  /// whatever the sample rate: 2048 frames at 44.1 and 48 kHz, so the features, and where
  /// in its window an onset shows, do not change with the rate.
  ///
  /// `networkBands`: compute `OnsetFeatures.networkBands` (19 MB for 10 minutes), for the
  /// beat network (`BeatModel.usesNetwork`) or to dump what it hears.
  public init(sampleRate: Int, networkBands: Bool = false) throws {
    if let reason = practice_aubio_load_error() {
      throw PracticeError(
        .other, "beat detection needs aubio, which could not be loaded (\(String(cString: reason))); install it with `make deps`")
    }
    guard sampleRate >= OnsetAnalyzer.lowestRate else {
      throw PracticeError(
        .badData,
        "beat detection needs audio at 8000 Hz or more, and this song is \(sampleRate) Hz; tap the beats (`practice beats tap`) or import them")
    }
    self.sampleRate = sampleRate
    hop = max(1, Int((Double(sampleRate) / 100).rounded()))
    let window = OnsetAnalyzer.powerOfTwo(nearest: Double(sampleRate) * 0.046)
    self.window = window
    envelopeBlock = max(1, Int((Double(sampleRate) / 1000).rounded()))
    let w0 = 2 * Double.pi * 400 / Double(sampleRate)
    let alpha = sin(w0) / (2 * 0.5.squareRoot())
    let a0 = 1 + alpha
    highPass = (
      Float((1 + cos(w0)) / 2 / a0), Float(-(1 + cos(w0)) / a0), Float((1 + cos(w0)) / 2 / a0),
      Float(-2 * cos(w0) / a0), Float((1 - alpha) / a0)
    )
    chroma = try ChromaAnalyzer(sampleRate: sampleRate, hop: 8 * hop)
    spectrum = try MagnitudeSpectrum(window: window, hop: hop)
    guard let bank = new_aubio_filterbank(UInt32(bandCount), UInt32(window)) else {
      throw AubioError(call: "new_aubio_filterbank", detail: "\(bandCount) bands, window \(window)")
    }
    let top = min(11000, Double(sampleRate) / 2 - 1)
    // Unit-height triangles: every band counts alike in the flux, whatever its width.
    guard aubio_filterbank_set_mel_coeffs(bank, Float(sampleRate), 30, Float(top)) == 0,
      aubio_filterbank_set_norm(bank, 0) == 0
    else {
      del_aubio_filterbank(bank)
      throw AubioError(call: "aubio_filterbank_set_mel_coeffs", detail: "30-\(Int(top)) Hz")
    }
    // A band is bass when its peak lies below 180 Hz.
    let bins = window / 2 + 1
    let binHz = Double(sampleRate) / Double(window)
    var bass = 0
    var firstBins = [Int](repeating: 0, count: bandCount)
    var weights = [[Float]](repeating: [], count: bandCount)
    if let coeffs = aubio_filterbank_get_coeffs(bank) {
      for band in 0..<bandCount {
        guard let row = coeffs.pointee.data[band] else { continue }
        var peak = 0
        for bin in 0..<bins where row[bin] > row[peak] { peak = bin }
        if Double(peak) * binHz < 180 { bass = band + 1 }
        guard let first = (0..<bins).first(where: { row[$0] != 0 }),
          let last = (0..<bins).last(where: { row[$0] != 0 })
        else { continue }
        firstBins[band] = first
        weights[band] = (first...last).map { row[$0] }
      }
    }
    del_aubio_filterbank(bank)
    bandFirstBin = firstBins
    bandWeights = weights
    bands = [Float](repeating: 0, count: bandCount)
    bassBands = max(1, bass)
    superFlux = SuperFlux(binHz: binHz, bins: bins, lowest: 30, highest: top)
    self.networkBands = networkBands ? NetworkBands(binHz: binHz, bins: bins) : nil
    previous = [Float](repeating: 0, count: bandCount)
    previousRaw = previous
    features = OnsetFeatures(frameRate: Double(sampleRate) / Double(hop), hop: hop, window: window)
    features.envelopeBlock = envelopeBlock
  }

  /// The power of two nearest `frames` on a log scale (at least 256).
  static func powerOfTwo(nearest frames: Double) -> Int {
    var size = 256
    while Double(size) * 1.4142135623730951 < frames { size *= 2 }
    return size
  }

  /// Feeds mono samples; any length.
  public func process(_ samples: UnsafeBufferPointer<Float>) {
    for x in samples {
      let h = highPass
      let z = highPassState
      let y = h.b0 * x + h.b1 * z.x1 + h.b2 * z.x2 - h.a1 * z.y1 - h.a2 * z.y2
      highPassState = (x, z.x1, y, z.y1)
      blockEnergy.plain += x * x
      blockEnergy.attack += y * y
      blockFill += 1
      if blockFill == envelopeBlock { endBlock() }
    }
    spectrum.feed(samples) { analyseHop($0) }
    chroma.process(samples)
  }

  /// Pads the last partial hop and flushes the window's tail; returns the features.
  public func finish() -> OnsetFeatures {
    if blockFill > 0 { endBlock() }
    spectrum.flush { analyseHop($0) }
    features.chroma = chroma.finish()
    features.chromaHop = chroma.hop
    features.chromaWindow = chroma.window
    return features
  }

  private func endBlock() {
    features.envelope[0].append(blockEnergy.plain)
    features.envelope[1].append(blockEnergy.attack)
    blockEnergy = (0, 0)
    blockFill = 0
  }

  /// A band's energy as the fluxes compare it: log-compressed, so a soft note's rise
  /// counts beside a loud one's (magnitudes relative to a full-scale sine).
  static func compressed(_ energy: Float) -> Float { log10(1 + 1000 * energy) }

  private func analyseHop(_ samples: ArraySlice<Float>) {
    // The level without the hop's mean: a recorder's DC offset is not sound, and would
    // make the silence before the music count as music.
    var sum: Float = 0
    for x in samples { sum += x }
    let mean = sum / Float(max(1, samples.count))
    var sumSquares: Float = 0
    for x in samples { sumSquares += (x - mean) * (x - mean) }
    let norm = spectrum.spectrum.pointee.norm!
    // Magnitudes relative to a full-scale sine, so the log below sees the same scale at
    // every window size.
    let scale = 2 / Float(window)
    let bins = window / 2 + 1
    for bin in 0..<bins { norm[bin] *= scale }
    for band in 0..<bandCount {
      var sum: Float = 0
      let first = bandFirstBin[band]
      for (k, weight) in bandWeights[band].enumerated() { sum += norm[first + k] * weight }
      bands[band] = sum
    }
    var flux: Float = 0
    var bassFlux: Float = 0
    var loudest: Float = 0
    for band in 0..<bandCount { loudest = max(loudest, bands[band]) }
    var largestRise: Float = 0
    for band in 0..<bandCount {
      let raw = bands[band]
      // Band values are magnitudes: 40 dB below the loudest is a hundredth of it.
      if raw > 0.01 * loudest, previousRaw[band] > 0 {
        largestRise = max(largestRise, 20 * log10(raw / previousRaw[band]))
      }
      previousRaw[band] = raw
    }
    features.largestRise.append(features.count > 0 ? largestRise : 0)
    for band in 0..<bandCount {
      let value = OnsetAnalyzer.compressed(bands[band])
      let rise = features.count > 0 ? max(0, value - previous[band]) : 0
      flux += rise
      if band < bassBands { bassFlux += rise }
      previous[band] = value
    }
    features.flux.append(flux)
    features.superFlux.append(superFlux.next(norm))
    networkBands?.append(norm, to: &features.networkBands)
    features.bassFlux.append(bassFlux)
    features.level.append((sumSquares / Float(hop)).squareRoot())
  }
}

/// The beat network's filterbank: `count` triangles (unit height) centred evenly in log
/// frequency from 30 Hz to 16 kHz, each reaching to its neighbours' centres but at least a
/// bin each way, so every band hears the nearest bins and the band count is the same at
/// every sample rate (bands above the Nyquist frequency stay silent). Each band's sum of
/// magnitudes (full-scale sine = 1) is log-compressed as the fluxes' are.
public struct NetworkBands: Sendable {
  public static let count = 80
  public static let lowest = 30.0
  public static let highest = 16000.0
  private let firstBin: [Int]
  private let weights: [[Float]]

  init(binHz: Double, bins: Int) {
    let n = NetworkBands.count
    let ratio = pow(NetworkBands.highest / NetworkBands.lowest, 1 / Double(n - 1))
    let centre = (0..<n).map { NetworkBands.lowest * pow(ratio, Double($0)) }
    var firstBin: [Int] = []
    var weights: [[Float]] = []
    for k in 0..<n {
      let below = max(centre[k] - (k > 0 ? centre[k - 1] : centre[k] / ratio), binHz)
      let above = max((k < n - 1 ? centre[k + 1] : centre[k] * ratio) - centre[k], binHz)
      let lo = max(0, Int(((centre[k] - below) / binHz).rounded(.up)))
      let hi = min(bins - 1, Int(((centre[k] + above) / binHz).rounded(.down)))
      var row: [Float] = []
      if lo <= hi {
        for bin in lo...hi {
          let f = Double(bin) * binHz
          row.append(Float(max(0, f <= centre[k] ? 1 - (centre[k] - f) / below : 1 - (f - centre[k]) / above)))
        }
      }
      firstBin.append(lo)
      weights.append(row)
    }
    self.firstBin = firstBin
    self.weights = weights
  }

  /// Appends one frame's bands, from its magnitudes, to `rows`.
  func append(_ magnitudes: UnsafeMutablePointer<Float>, to rows: inout [[Float]]) {
    for k in 0..<NetworkBands.count {
      var sum: Float = 0
      let first = firstBin[k]
      weights[k].withUnsafeBufferPointer { w in
        for i in 0..<w.count { sum += w[i] * magnitudes[first + i] }
      }
      rows[k].append(OnsetAnalyzer.compressed(sum))
    }
  }
}

/// Spectral flux with vibrato suppression (Böck & Widmer 2013, "Maximum filter vibrato
/// suppression for onset detection"): the magnitude spectrum on triangular bands 24 an
/// octave, log-compressed, and each band's rise taken over the loudest of itself and its
/// two neighbours a frame before. A vibrato or a glide moves energy between neighbouring
/// bands and so rises little; a new note, even a soft bowed or sung one, rises in bands
/// that were quiet. The bands are a quarter tone apart, so melody and harmony changes
/// show that the 32 mel bands (a third of an octave and more apart) blur.
struct SuperFlux {
  private struct Band {
    var firstBin: Int
    var weights: [Float]
  }
  private let bands: [Band]
  private var previous: [Float]
  private var current: [Float]
  private var primed = false

  /// Bands from `lowest` to `highest` Hz over a spectrum of `bins` bins `binHz` apart;
  /// band centres closer than a bin (at the bottom) are merged.
  init(binHz: Double, bins: Int, lowest: Double, highest: Double) {
    var centres: [Int] = []
    var step = 0.0
    while lowest * pow(2, step / 24) <= highest {
      let bin = min(bins - 1, Int((lowest * pow(2, step / 24) / binHz).rounded()))
      if bin != centres.last { centres.append(bin) }
      step += 1
    }
    var bands: [Band] = []
    if centres.count >= 3 {
      for k in 1..<(centres.count - 1) {
        let (low, centre, high) = (centres[k - 1], centres[k], centres[k + 1])
        let weights = (low...high).map { bin in
          Float(bin <= centre
            ? Double(bin - low) / Double(centre - low)
            : Double(high - bin) / Double(high - centre))
        }
        bands.append(Band(firstBin: low, weights: weights))
      }
    }
    self.bands = bands
    previous = [Float](repeating: 0, count: bands.count)
    current = previous
  }

  /// The flux of the next frame from its magnitudes (full-scale sine = 1); 0 for the first.
  mutating func next(_ magnitudes: UnsafeMutablePointer<Float>) -> Float {
    for k in bands.indices {
      var sum: Float = 0
      let band = bands[k]
      for i in band.weights.indices { sum += band.weights[i] * magnitudes[band.firstBin + i] }
      current[k] = OnsetAnalyzer.compressed(sum)
    }
    var rise: Float = 0
    if primed, !bands.isEmpty {
      let last = bands.count - 1
      for k in 0...last {
        let reference = max(previous[max(0, k - 1)], previous[k], previous[min(last, k + 1)])
        rise += max(0, current[k] - reference)
      }
    }
    primed = true
    swap(&previous, &current)
    return rise
  }
}
