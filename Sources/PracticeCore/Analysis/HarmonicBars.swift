import Foundation

/// Bars from the chord changes, for music whose onsets carry no steady beat.
enum HarmonicBars {
  /// How much the harmony changes at each analysis frame: the cosine distance between the
  /// mean log-compressed chroma of the `span` seconds before the frame and after it.
  static func change(_ features: OnsetFeatures, span: Double = 0.4) -> [Double] {
    let n = features.count
    let chromaFrames = features.chroma.count / 12
    guard n > 0, chromaFrames > 1 else { return [Double](repeating: 0, count: n) }
    let chromaRate = features.frameRate * Double(features.hop) / Double(features.chromaHop)
    let w = max(1, Int((span * chromaRate).rounded()))
    var energy = 0.0
    for x in features.chroma { energy += Double(x) }
    energy = max(1e-12, energy / Double(chromaFrames))
    // Prefix sums of the log chroma, so any run's mean is a difference.
    var prefix = [Double](repeating: 0, count: (chromaFrames + 1) * 12)
    for k in 0..<chromaFrames {
      for c in 0..<12 {
        prefix[(k + 1) * 12 + c] =
          prefix[k * 12 + c] + log1p(100 * Double(features.chroma[k * 12 + c]) / energy)
      }
    }
    // Analysis frame f (centred at t) compares the w chroma windows that end before t
    // with the w that start after it: at a chord change both runs hear one chord each.
    // Chroma frame k's window is source frames (k + 1) * chromaHop - chromaWindow ..<
    // (k + 1) * chromaHop.
    let hop = Double(features.chromaHop)
    return (0..<n).map { f in
      let t = Double((f + 1) * features.hop) - Double(features.window) / 2
      // The last chroma window ending by t, and the first starting at t or later.
      let before = Int((t / hop - 1).rounded(.down))
      let after = Int(((t + Double(features.chromaWindow)) / hop - 1).rounded(.up))
      guard before - w + 1 >= 0, after + w <= chromaFrames else { return 0 }
      var dot = 0.0
      var a2 = 0.0
      var b2 = 0.0
      for c in 0..<12 {
        let a = prefix[(before + 1) * 12 + c] - prefix[(before + 1 - w) * 12 + c]
        let b = prefix[(after + w) * 12 + c] - prefix[after * 12 + c]
        dot += a * b
        a2 += a * a
        b2 += b * b
      }
      return a2 > 0 && b2 > 0 ? 1 - dot / (a2 * b2).squareRoot() : 0
    }
  }
}

extension HarmonicBars {
  /// Beats between bar lines found where the harmony changes, for music whose onsets mark
  /// no steady beat (legato strings whose vibrato swamps their soft attacks) but whose
  /// chords move with the bar:
  /// 1. the bar period: the strongest period of the harmonic change (`change`) from two
  ///    beats at the fastest tempo to four at the slowest (within 1-6 s), heard in 16 s
  ///    windows each allowed its own period within 4 %, then followed through the piece
  ///    (`BeatTracker.tempoCurve` over 16 s windows);
  /// 2. the bar lines: dynamic programming over the harmonic change at that period
  ///    (`BeatTracker.dynamicProgramming`), each moved to the start of the strongest onset
  ///    within `snap` seconds (the change itself is heard through 0.19 s windows and a slow
  ///    attack, so it is blurred by about a tenth of a second);
  /// 3. the beats: each bar divided evenly into the 2, 3 or 4 beats whose tempo a musician
  ///    is likeliest to count (`BeatTracker.tempoPrior`, within the tempo range), or as
  ///    many as the `tracked` beats' period gives when the bar divides into it; the first
  ///    and last bars' beats continued over `music` (the first and last tracked beats).
  ///
  /// Nil when the harmony has no clear period (`minimumStrength`), when there are too few
  /// bars, or when the `tracked` beats fit the bars (`fits`): they are kept then.
  static func beats(
    features: OnsetFeatures, novelty: [Double], music: ClosedRange<Int>,
    settings: BeatTracker.Settings, tracked: [Int]
  ) -> (frames: [Int], period: [Double])? {
    let fr = features.frameRate
    let n = features.count
    let change = DownbeatFinder.standardised(HarmonicBars.change(features))
    let shortestBeat = 60 * fr / settings.maxBPM
    let longestBeat = 60 * fr / settings.trackerMinBPM
    let lo = max(2, Int(max(1.0 * fr, 2 * shortestBeat)))
    let hi = Int(min(6 * fr, 4 * longestBeat))
    guard hi > lo else { return nil }
    let local = BeatTracker.localPeriodicity(change, frameRate: fr, maxLag: hi + 2, seconds: 16)
    var barLag = lo
    var best = -Double.infinity
    for lag in lo...hi {
      guard let strength = BeatTracker.periodStrength(local, lag: Double(lag)) else { return nil }
      if strength > best {
        best = strength
        barLag = lag
      }
    }
    guard best >= minimumStrength else { return nil }
    let period = BeatTracker.tempoCurve(
      change, frameRate: fr, around: Double(barLag),
      lags: max(lo, Int(Double(barLag) / 1.6))...Int(Double(barLag) * 1.6), seconds: 16)
    let end = min(n - 1, music.upperBound)
    var bars = BeatTracker.dynamicProgramming(change.map { max(0, $0) }, period: period, end: end)
    let reach = max(1, Int(snap * fr))
    var snapped: [Int] = []
    for b in bars {
      let a = max(0, b - reach)
      let c = min(n - 1, b + reach)
      var peak = a
      for f in a...c where novelty[f] > novelty[peak] { peak = f }
      let start = BeatTracker.riseStart(
        of: peak, after: max(a - 1, snapped.last ?? -1), novelty: novelty, period: period[b],
        frameRate: fr)
      if start > (snapped.last ?? -1) { snapped.append(start) }
    }
    bars = snapped
    guard bars.count >= 3, !fits(tracked, bars: bars) else { return nil }
    // Beats a bar: as many as the tracked beats' own period gives, if the bar divides into
    // it (their tempo may be right where their phase wanders); otherwise the count whose
    // tempo a musician is likeliest to count, within the range.
    let typical = medianInterval(bars)
    let counts = [2, 3, 4].filter {
      let beat = typical / Double($0)
      return beat >= shortestBeat && beat <= longestBeat
    }
    let trackedPeriod = medianInterval(tracked)
    let compound = settings.compound ?? false
    func prior(_ k: Int) -> Double {
      BeatTracker.tempoPrior(lag: typical / Double(k), frameRate: fr, compound: compound)
    }
    guard
      let k = counts.first(where: {
        trackedPeriod > 0 && abs(typical / (Double($0) * trackedPeriod) - 1) < 0.1
      })
        ?? counts.max(by: { prior($0) < prior($1) })
    else { return nil }
    var frames: [Int] = []
    var beatPeriod = [Double](repeating: typical / Double(k), count: n)
    // Before the first bar line, at the first bar's beat, back to the first sound.
    let first = Double(bars[1] - bars[0]) / Double(k)
    var t = Double(bars[0]) - first
    var pickup: [Int] = []
    while t >= Double(music.lowerBound) - 0.25 * first {
      pickup.append(max(0, Int(t.rounded())))
      t -= first
    }
    frames.append(contentsOf: pickup.reversed())
    for i in 0..<(bars.count - 1) {
      let step = Double(bars[i + 1] - bars[i]) / Double(k)
      for j in 0..<k { frames.append(bars[i] + Int((Double(j) * step).rounded())) }
      for f in bars[i]..<bars[i + 1] { beatPeriod[f] = step }
    }
    // After the last bar line, at the last bar's beat, to the last onset.
    let last = Double(bars[bars.count - 1] - bars[bars.count - 2]) / Double(k)
    t = Double(bars[bars.count - 1])
    while t <= Double(end) + 0.25 * last {
      frames.append(Int(t.rounded()))
      t += last
    }
    for f in bars[bars.count - 1]..<n { beatPeriod[f] = last }
    for f in 0..<min(n, bars[0]) { beatPeriod[f] = first }
    // Strictly increasing, inside the file.
    var result: [Int] = []
    for f in frames where f > (result.last ?? -1) && f < n { result.append(f) }
    return (result, beatPeriod)
  }

  /// The median interval between consecutive `frames`, 0 when there are fewer than two.
  static func medianInterval(_ frames: [Int]) -> Double {
    TappedBeats.median(frames.indices.dropFirst().map { Double(frames[$0] - frames[$0 - 1]) })
  }

  /// Whether `beats` fit the bars: at least `fitShare` of them hold the same number of
  /// beats, one of `barCounts` (a ritardando slows bars and beats alike). Each bar is
  /// counted from half a beat before its line, so a beat on the line is in it however the
  /// two are jittered.
  static func fits(_ beats: [Int], bars: [Int]) -> Bool {
    guard bars.count >= 2, beats.count >= 2 else { return false }
    let half = Int(medianInterval(beats) / 2)
    var counts: [Int: Int] = [:]
    var j = 0
    for i in 0..<(bars.count - 1) {
      while j < beats.count && beats[j] < bars[i] - half { j += 1 }
      var k = j
      while k < beats.count && beats[k] < bars[i + 1] - half { k += 1 }
      counts[k - j, default: 0] += 1
    }
    guard let mode = counts.max(by: { ($0.value, $0.key) < ($1.value, $1.key) }) else { return false }
    return barCounts.contains(mode.key) && Double(mode.value) >= fitShare * Double(bars.count - 1)
  }

  /// See `fits`.
  static let fitShare = 0.75
  /// The beats a bar, or a pair of bars, holds at a level a musician counts: 2, 3 or 4,
  /// twice that (eighths, or chords that change every other bar), 12 or 16. Not 9: a 4/4
  /// tracked at 9/4 of its tempo, on a tremolo, would fit its bars.
  static let barCounts: Set<Int> = [2, 3, 4, 6, 8, 12, 16]

  /// The least periodicity of the harmonic change (normalised autocorrelation at the bar
  /// period, mean over 16 s windows) that bars are taken from.
  static let minimumStrength = 0.2
  /// How far a bar line may move to the onset nearest the change, in seconds.
  static let snap = 0.12
}
