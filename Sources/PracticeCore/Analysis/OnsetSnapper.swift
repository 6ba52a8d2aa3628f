import Foundation

/// Finds the onset a tap meant: the sharpest rise in the audio within ±40 ms of the tap,
/// when the onset strength there is clearly above its surroundings.
///
/// Two measures, because each is good at one thing. The onset strength (`OnsetAnalyzer`'s
/// spectral flux, about 100 frames a second) says whether there is a clear onset near the
/// tap: its peak must stand well above the median of the 3 s around it, and not be a
/// minor ripple beside the loudest onsets there. The position comes from the waveform at
/// sample resolution: the point where the energy of the next 3 ms (pre-emphasised, so
/// attacks count more than sustained bass) rises most over the 3 ms before it.
public struct OnsetSnapper: Sendable {
  /// How far a tap may be from the onset it is moved to.
  public static let reachSeconds = 0.040
  /// The windows the energy rise is measured over.
  static let riseSeconds = 0.003

  public let sampleRate: Int
  /// The source frame of `samples[0]`.
  let offset: Int64
  /// Mono, pre-emphasised.
  let samples: [Float]
  let features: OnsetFeatures
  /// Prefix sums of the squared samples (energy of any span in O(1)).
  let energy: [Double]

  /// A snapper over mono samples that start at source frame `offset`.
  public init(mono: [Float], offset: Int64 = 0, sampleRate: Int) throws {
    let analyzer = try OnsetAnalyzer(sampleRate: sampleRate)
    mono.withUnsafeBufferPointer { analyzer.process($0) }
    features = analyzer.finish()
    self.sampleRate = sampleRate
    self.offset = offset
    var emphasised = [Float](repeating: 0, count: mono.count)
    for i in mono.indices { emphasised[i] = mono[i] - (i > 0 ? 0.95 * mono[i - 1] : 0) }
    samples = emphasised
    var sums = [Double](repeating: 0, count: mono.count + 1)
    for i in mono.indices { sums[i + 1] = sums[i] + Double(emphasised[i] * emphasised[i]) }
    energy = sums
  }

  /// A snapper over `span` of a sound file (mixed to mono).
  public static func reading(_ file: SoundFile, span: Range<Int64>) throws -> OnsetSnapper {
    let channels = file.info.channels
    let start = max(0, span.lowerBound)
    let end = min(file.info.frames, span.upperBound)
    try file.seek(to: start)
    var mono = [Float]()
    mono.reserveCapacity(Int(max(0, end - start)))
    let block = 8192
    var buffer = [Float](repeating: 0, count: block * channels)
    var remaining = Int(max(0, end - start))
    while remaining > 0 {
      let n = buffer.withUnsafeMutableBufferPointer { file.read(into: $0.baseAddress!, frames: min(block, remaining)) }
      if n <= 0 { break }
      for f in 0..<n {
        var sum: Float = 0
        for c in 0..<channels { sum += buffer[f * channels + c] }
        mono.append(sum / Float(channels))
      }
      remaining -= n
    }
    return try OnsetSnapper(mono: mono, offset: start, sampleRate: file.info.sampleRate)
  }

  /// The onset within ±40 ms of source frame `frame`, or nil when there is no clear one.
  public func snap(_ frame: Int64) -> Int64? {
    let reach = Int(Double(sampleRate) * OnsetSnapper.reachSeconds)
    let w = max(1, Int(Double(sampleRate) * OnsetSnapper.riseSeconds))
    let centre = Int(frame - offset)
    let low = max(w, centre - reach)
    let high = min(samples.count - w, centre + reach)
    guard low <= high else { return nil }
    // The level below which energy counts as silence, from the loudest 3 ms nearby.
    var loudest = 0.0
    for t in stride(from: low - w, through: high, by: w) { loudest = max(loudest, span(t, w)) }
    guard loudest > 1e-9 * Double(w) else { return nil }
    let floor = loudest * 1e-3
    var best = -Double.infinity
    var at = low
    for t in low...high {
      let rise = log((span(t, w) + floor) / (span(t - w, w) + floor))
      if rise > best {
        best = rise
        at = t
      }
    }
    // At least a 6 dB rise, and a clear peak of onset strength where it enters the analysis.
    guard best >= log(4.0), isClearOnset(at: at) else { return nil }
    return Int64(at) + offset
  }

  /// Energy of `count` samples from `start`.
  private func span(_ start: Int, _ count: Int) -> Double { energy[start + count] - energy[start] }

  /// Whether the onset strength has a clear peak for an onset at sample `index`: the
  /// frames whose window takes it in, compared with the 3 s around.
  func isClearOnset(at index: Int) -> Bool {
    let flux = features.flux
    guard !flux.isEmpty else { return false }
    let hop = features.hop
    // Frame i's window ends at sample (i + 1) * hop; it sees the onset from then on.
    let first = max(0, index / hop - 1)
    let last = min(flux.count - 1, (index + features.window) / hop)
    guard first <= last else { return false }
    let peak = flux[first...last].max() ?? 0
    let context = Int(1.5 * features.frameRate)
    let around = flux[max(0, first - context)...min(flux.count - 1, last + context)]
    let median = around.sorted()[around.count / 2]
    let loudest = around.max() ?? 0
    return peak > 0 && peak >= 2 * median + 1e-3 && peak - median >= 0.15 * (loudest - median)
  }
}
