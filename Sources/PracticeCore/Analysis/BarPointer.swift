import Foundation

/// Tempo, beats, meter and downbeats inferred together: a bar-pointer model (Whiteley,
/// Cemgil & Godsill 2006), in the efficient state space of Krebs, Böck & Widmer (2015), with
/// the rhythmic-pattern observation model of Krebs, Böck & Widmer (2013).
///
/// A hidden state is a meter (2, 3 or 4 beats, each divided in two or in three: 2/4, 3/4,
/// 4/4, 6/8, 9/8, 12/8), a beat period in frames and a position in the bar, one state per
/// frame of the bar, so the position moves on by one every frame. The period may change
/// only where a beat begins, the more rarely the larger the change (`tempoChange`); the
/// meter never changes within a piece: each is decoded on its own (Viterbi), and the best
/// wins. Each state hears the frame's onset features through the pattern of its meter at
/// its place in the bar (`BarPointerPatterns`: a Gaussian per twelfth of a beat, learned
/// by `models/train_patterns.py` from the pieces its corpus generates), so a kick on 1,
/// a backbeat on 2 and 4, chords changing on the bar line and quieter off-beats each count
/// where a meter expects them. Swing and triplet feel are a property of the beat: the
/// patterns learn where their off-beats fall.
///
/// Works at 50 frames a second (`frameRate`): the beats are placed to within 20 ms here and
/// moved to where their attacks began by the caller.
enum BarPointer {
  /// Frames a second of the observations and of the decoded beats.
  static let frameRate = 50.0
  /// Features each frame is heard through.
  static let dimensions = 4
  /// Pattern cells a beat: twelfths, so both halves and thirds of a beat fall on cells.
  static let cellsPerBeat = 12
  /// A tempo change of ratio r at a beat costs `tempoChange * |r - 1|` (log-probability):
  /// madmom's default transition lambda.
  static let tempoChange = 100.0
  /// How far the beat period may stray from the one a caller holds it near, as a ratio.
  static let nearness = 1.25

  /// A bar the model can decode: its beats, and whether each beat is three (6/8) or one
  /// (n/4). Not `Meter`, the meter of a beat map, which it is turned into.
  struct BarShape: Hashable, Sendable {
    var beats: Int
    var triple: Bool
    static let all: [BarShape] = [2, 3, 4].flatMap {
      [BarShape(beats: $0, triple: false), BarShape(beats: $0, triple: true)]
    }
    var name: String { triple ? "\(3 * beats)/8" : "\(beats)/4" }
  }

  /// One meter's pattern: per cell of the bar, the mean and variance of each feature.
  struct Pattern: Sendable {
    var meter: BarShape
    /// `cellsPerBeat * beats` rows of `dimensions` values.
    var mean: [Double]
    var variance: [Double]
  }

  /// The observations: one feature vector a frame at `frameRate`, frame-major.
  struct Observations {
    var values: [Double]
    var count: Int { values.count / dimensions }
  }

  /// The features each frame is heard through, from the analysis features (100 a second):
  /// the log of the tracking, bass and broadband onset strengths (each the larger of the
  /// frame's two analysis frames), and the harmonic change (`harmonicChange`).
  static func observations(_ features: OnsetFeatures) -> Observations {
    let (broadband, tracking, bass) = BeatTracker.onsetStrengths(features)
    let n = features.count
    let step = max(1, Int((features.frameRate / frameRate).rounded()))
    let frames = (n + step - 1) / step
    let change = harmonicChange(features, step: step, frames: frames)
    var values = [Double](repeating: 0, count: frames * dimensions)
    for t in 0..<frames {
      var a = 0.0
      var b = 0.0
      var c = 0.0
      for i in (t * step)..<min(n, (t + 1) * step) {
        a = max(a, tracking[i])
        b = max(b, bass[i])
        c = max(c, broadband[i])
      }
      values[t * dimensions] = log1p(a)
      values[t * dimensions + 1] = log1p(b)
      values[t * dimensions + 2] = log1p(c)
      values[t * dimensions + 3] = change[t]
    }
    return Observations(values: values)
  }

  /// How much the harmony changes at each frame: one minus the cosine between the
  /// log-compressed chroma of the half second before it and the half second after it,
  /// standardised over the piece (chords change on bar lines far more often than
  /// between them).
  static func harmonicChange(_ features: OnsetFeatures, step: Int, frames: Int) -> [Double] {
    let n = features.count
    guard features.chroma.count >= 12, n > 0 else { return [Double](repeating: 0, count: frames) }
    var energy = 0.0
    for v in features.chroma { energy += Double(v) }
    energy = max(1e-12, energy / Double(features.chroma.count / 12))
    // Prefix sums of each analysis frame's chroma.
    var prefix = [Double](repeating: 0, count: (n + 1) * 12)
    for f in 0..<n {
      let o = features.chromaOffset(ofFrame: f) ?? 0
      for c in 0..<12 {
        prefix[(f + 1) * 12 + c] =
          prefix[f * 12 + c] + log1p(100 * Double(features.chroma[o + c]) / energy)
      }
    }
    let half = max(1, Int(0.5 * features.frameRate))
    var change = [Double](repeating: 0, count: frames)
    for t in 0..<frames {
      let f = min(n, t * step)
      let a = max(0, f - half)
      let b = min(n, f + half)
      guard f > a, b > f else { continue }
      var dot = 0.0
      var before = 0.0
      var after = 0.0
      for c in 0..<12 {
        let x = prefix[f * 12 + c] - prefix[a * 12 + c]
        let y = prefix[b * 12 + c] - prefix[f * 12 + c]
        dot += x * y
        before += x * x
        after += y * y
      }
      change[t] = before > 0 && after > 0 ? 1 - dot / (before * after).squareRoot() : 0
    }
    return DownbeatFinder.standardised(change)
  }

  /// The decoded path: each beat's frame (at `frameRate`), its place in its bar (0 for a
  /// downbeat), and the beat period at each beat, in frames.
  struct Decoded {
    var meter: BarShape
    var beats: [Int]
    var positions: [Int]
    var periods: [Int]
    /// The path's log-probability per frame (for comparing meters).
    var score: Double
  }

  /// The best path over every meter in `meters`, with beat periods between `minBPM` and
  /// `maxBPM` (of the counted beat). Nil when there are too few frames.
  static func decode(
    _ observations: Observations, patterns: [Pattern], meters: [BarShape], minBPM: Double,
    maxBPM: Double, near: [Double]? = nil
  ) -> Decoded? {
    let shortest = max(2, Int((60 * frameRate / maxBPM).rounded(.down)))
    let longest = max(shortest + 1, Int((60 * frameRate / minBPM).rounded(.up)))
    let periods = Array(shortest...longest)
    var best: Decoded? = nil
    for pattern in patterns where meters.contains(pattern.meter) {
      guard let decoded = viterbi(observations, pattern: pattern, periods: periods, near: near)
      else { continue }
      if decoded.score > best?.score ?? -.infinity { best = decoded }
    }
    return best
  }

  /// Log-likelihood of every frame under every cell of `pattern`: frame-major, one row of
  /// cells a frame.
  static func cellLikelihoods(_ observations: Observations, pattern: Pattern) -> [Float] {
    let cells = pattern.mean.count / dimensions
    let frames = observations.count
    var out = [Float](repeating: 0, count: frames * cells)
    var norm = [Double](repeating: 0, count: cells)
    for k in 0..<cells {
      for d in 0..<dimensions {
        norm[k] -= 0.5 * log(2 * Double.pi * pattern.variance[k * dimensions + d])
      }
    }
    observations.values.withUnsafeBufferPointer { x in
      for t in 0..<frames {
        for k in 0..<cells {
          var ll = norm[k]
          for d in 0..<dimensions {
            let diff = x[t * dimensions + d] - pattern.mean[k * dimensions + d]
            ll -= 0.5 * diff * diff / pattern.variance[k * dimensions + d]
          }
          out[t * cells + k] = Float(ll)
        }
      }
    }
    return out
  }

  /// Viterbi over one meter's states. Only the states where a beat begins have more than
  /// one predecessor (the last frame of the beat before, at any period); their choices are
  /// kept a frame at a time, so memory grows with the beats' states, not with all states.
  ///
  /// `near`, when given, holds the periods at each frame within `nearness` of it.
  static func viterbi(
    _ observations: Observations, pattern: Pattern, periods: [Int], near: [Double]? = nil
  ) -> Decoded? {
    let m = pattern.meter.beats
    guard observations.count > 2 * m * (periods.last ?? 1), !periods.isEmpty else { return nil }
    return viterbi(
      likelihoods: cellLikelihoods(observations, pattern: pattern), frames: observations.count,
      meter: pattern.meter, periods: periods, near: near)
  }

  /// Viterbi over one meter's states, each frame heard through `likelihoods` (frame-major,
  /// `twelfths.count - 1` cells a beat of the bar: cell c covers the beat's twelfths
  /// `twelfths[c] ..< twelfths[c + 1]`; every twelfth its own cell unless said otherwise).
  ///
  /// Within a beat the position only moves on, one frame at a time: a path chooses only
  /// where a beat begins (its period, from the period of the beat before). So the search
  /// runs over beats, each beat's frames summed at once from running sums of every cell's
  /// log-likelihood (a semi-Markov form of the same model): the same best path as a
  /// frame-by-frame Viterbi over all states, at the cost of the beats' states alone.
  ///
  /// `beatCell`, when given, caps the beat's first cell at that many frames, whatever the
  /// period (`activationBeatFrames`).
  static func viterbi(
    likelihoods: [Float], frames: Int, meter: BarShape, periods: [Int], near: [Double]? = nil,
    twelfths: [Int] = Array(0...cellsPerBeat), beatCell: Int? = nil
  ) -> Decoded? {
    let m = meter.beats
    guard frames > 2 * m * (periods.last ?? 1), !periods.isEmpty, twelfths.count >= 2 else {
      return nil
    }
    let perBeat = twelfths.count - 1
    let cells = perBeat * m
    let p = periods.count
    let longest = periods.max() ?? 1
    // Cell c of a beat with period periods[j] covers the beat's frames
    // edges[j * (perBeat + 1) + c] ..< edges[j * (perBeat + 1) + c + 1].
    var edges = [Int]()
    for tau in periods {
      for c in 0...perBeat {
        let edge = (twelfths[c] * tau + cellsPerBeat - 1) / cellsPerBeat
        edges.append(c == 1 ? min(edge, beatCell ?? edge) : edge)
      }
    }
    // Period changes at a beat: from period i to j, with their log-probabilities, only those
    // within 15 % (beyond it the probability is below e^-15 of staying).
    // Each normalised over where period i may go.
    func change(_ i: Int, _ j: Int) -> Double { abs(Double(periods[j]) / Double(periods[i]) - 1) }
    let logTotal = (0..<p).map { i in
      log(
        (0..<p).filter { change(i, $0) <= 0.15 }.reduce(0) {
          $0 + exp(-tempoChange * change(i, $1))
        })
    }
    var sourceStart = [Int](repeating: 0, count: p + 1)
    var sourceFrom: [Int] = []
    var sourceCost: [Double] = []
    for j in 0..<p {
      for i in 0..<p where change(i, j) <= 0.15 {
        sourceFrom.append(i)
        sourceCost.append(-tempoChange * change(i, j) - logTotal[i])
      }
      sourceStart[j + 1] = sourceFrom.count
    }
    // Running sums of each cell's log-likelihood over frames 0 ..< f, for the last
    // `ring` values of f (a beat reaches back at most `longest` frames; a power of two, so
    // that a frame's slot is a mask, not a division).
    var ring = 1
    while ring < longest + 2 { ring *= 2 }
    let mask = ring - 1
    var sums = [Double](repeating: 0, count: ring * cells)
    // The best score of a path whose beat k (period j) begins at frame s, for the last
    // `ring` frames s; and of one whose beat k ends at the frame now.
    let beatStates = p * m
    var begins = [Double](repeating: -.infinity, count: ring * beatStates)
    var ends = [Double](repeating: -.infinity, count: beatStates)
    var endsBefore = ends
    // Per frame, per period j and beat of the bar beginning there: the period before, as
    // its place among j's sources (those within 15 %: under 256 for any beat shorter than
    // 16 s, and the slowest tempo asked for is 20 BPM, 3 s).
    var back = [UInt8](repeating: 0, count: frames * beatStates)
    // The last frame where each period was out of `near`'s reach.
    var lastBarred = [Int](repeating: -1, count: p)
    // The best state at the last frame: its score, where its beat began, period, beat.
    var best = (value: -Double.infinity, begun: 0, j: 0, k: 0)
    // The beat before each beat of the bar, and the best source found for each so far.
    let before = (0..<m).map { ($0 + m - 1) % m }
    var bestValue = [Double](repeating: -.infinity, count: m)
    var bestSource = [Int](repeating: 0, count: m)
    likelihoods.withUnsafeBufferPointer { ll in
      sums.withUnsafeMutableBufferPointer { sum in
        // The sum over frames 0 ..< f of cell c (nothing before frame 0).
        func total(_ f: Int, _ c: Int) -> Double { f <= 0 ? 0 : sum[(f & mask) * cells + c] }
        for t in 0..<frames {
          let was = (t & mask) * cells
          let now = ((t + 1) & mask) * cells
          for c in 0..<cells {
            sum[now + c] = (t == 0 ? 0 : sum[was + c]) + Double(ll[t * cells + c])
          }
          if let near {
            for j in 0..<p
            where Double(periods[j]) < near[t] / nearness
              || Double(periods[j]) > near[t] * nearness
            {
              lastBarred[j] = t
            }
          }
          let slot = (t & mask) * beatStates
          if t > 0 {
            // Each source's ends for every beat of the bar at once (they lie side by side):
            // beat k begins after beat k - 1 ended.
            for j in 0..<p {
              for k in 0..<m { bestValue[k] = -.infinity }
              for n in sourceStart[j]..<sourceStart[j + 1] {
                let from = sourceFrom[n] * m
                let cost = sourceCost[n]
                for k in 0..<m {
                  let v = endsBefore[from + before[k]] + cost
                  if v > bestValue[k] {
                    bestValue[k] = v
                    bestSource[k] = n - sourceStart[j]
                  }
                }
              }
              for k in 0..<m {
                begins[slot + j * m + k] = bestValue[k]
                back[t * beatStates + j * m + k] = UInt8(bestSource[k])
              }
            }
          }
          for j in 0..<p {
            let tau = periods[j]
            let s = t - tau + 1
            let e = j * (perBeat + 1)
            for k in 0..<m {
              // A beat begun before frame 0 is where a path may start: nothing before it.
              var value = s > 0 ? begins[(s & mask) * beatStates + j * m + k] : 0
              if lastBarred[j] >= max(0, s) { value = -.infinity }
              if value > -.infinity {
                for c in 0..<perBeat {
                  let cell = k * perBeat + c
                  value += total(s + edges[e + c + 1], cell) - total(s + edges[e + c], cell)
                }
              }
              ends[j * m + k] = value
            }
          }
          swap(&ends, &endsBefore)
        }
        // Any period, beat and frame within the beat.
        let last = frames - 1
        for j in 0..<p {
          let tau = periods[j]
          let e = j * (perBeat + 1)
          for k in 0..<m {
            for r in 0..<tau {
              let s = last - r
              var value = begins[(s & mask) * beatStates + j * m + k]
              if lastBarred[j] >= s || value == -.infinity { continue }
              for c in 0..<perBeat where edges[e + c] <= r {
                let cell = k * perBeat + c
                value +=
                  total(s + min(edges[e + c + 1], r + 1), cell) - total(s + edges[e + c], cell)
              }
              if value > best.value { best = (value, s, j, k) }
            }
          }
        }
      }
    }
    guard best.value > -.infinity else { return nil }
    // Trace back, beat by beat, from the beat under way at the last frame.
    var (s, j, k) = (best.begun, best.j, best.k)
    var beats: [Int] = []
    var positions: [Int] = []
    var beatPeriods: [Int] = []
    while true {
      beats.append(s)
      positions.append(k)
      beatPeriods.append(periods[j])
      guard s > 0 else { break }
      let i = sourceFrom[sourceStart[j] + Int(back[s * beatStates + j * m + k])]
      let previous = s - periods[i]
      guard previous >= 0 else { break }
      (s, j, k) = (previous, i, (k + m - 1) % m)
    }
    beats.reverse()
    positions.reverse()
    beatPeriods.reverse()
    return Decoded(
      meter: meter, beats: beats, positions: positions, periods: beatPeriods,
      score: best.value / Double(frames))
  }
}

extension BarPointer {
  /// Beats, their period and the bars, in analysis frames, as `BeatTracker` continues from.
  struct Tracked {
    var beats: [Int]
    /// The beat period at every analysis frame.
    var period: [Double]
    var meter: BarShape
    /// The analysis frame of the first downbeat: every beat's place in its bar follows.
    var downbeat: Int
  }

  /// Decodes the features with the learned patterns, the beats moved to the strongest
  /// onset of their 20 ms and none after `end`. An experiment, used only with the models
  /// `bar` (periods held within `nearness` of `around`, the tracker's) and `free`: on the
  /// development corpus's tuning half it lost to the tracker and `DownbeatFinder`
  /// (bench/beats/README.md, "The bar pointer"). Nil for other models, without patterns or
  /// without music enough to decode.
  ///
  /// The model `network` decodes the beat network's activations instead
  /// (`trackActivations`): it lost on downbeats and on pieces with drums
  /// (bench/beats/README.md, "A learned beat activation").
  ///
  /// With `settings.observationDump` the observations are written there, one frame a line
  /// (what `models/train_patterns.py` learns from).
  static func track(
    _ features: OnsetFeatures, novelty: [Double], settings: BeatTracker.Settings, end: Int,
    around: [Double]? = nil
  ) -> Tracked? {
    let mode = settings.model
    let dump = settings.observationDump.flatMap { $0.isEmpty ? nil : $0 }
    if mode == .network {
      return trackActivations(features, novelty: novelty, settings: settings, end: end)
    }
    guard mode == .bar || mode == .free || dump != nil else { return nil }
    let observed = observations(features)
    if let path = dump {
      var text = ""
      for t in 0..<observed.count {
        text +=
          (0..<dimensions).map { String(format: "%.5f", observed.values[t * dimensions + $0]) }
          .joined(separator: "\t") + "\n"
      }
      try? text.write(toFile: path, atomically: true, encoding: .utf8)
    }
    guard mode == .bar || mode == .free, !BarPointerPatterns.all.isEmpty else { return nil }
    var meters = BarShape.all
    if let beats = settings.beatsPerBar { meters = meters.filter { $0.beats == beats } }
    if let compound = settings.compound { meters = meters.filter { $0.triple == compound } }
    let n = novelty.count
    let step = max(1, Int((features.frameRate / frameRate).rounded()))
    // The tempo the caller found, per frame of ours, when the bar pointer is held near it.
    var near: [Double]? = nil
    if let around, mode == .bar {
      near = (0..<observed.count).map { around[min(around.count - 1, $0 * step)] / Double(step) }
    }
    guard
      let decoded = decode(
        observed, patterns: BarPointerPatterns.all, meters: meters, minBPM: settings.trackerMinBPM,
        maxBPM: settings.maxBPM, near: near)
    else { return nil }
    var beats: [Int] = []
    var downbeat: Int? = nil
    var periods: [Double] = []
    for (k, t) in decoded.beats.enumerated() {
      let lo = max(0, t * step - 1)
      let hi = min(n - 1, t * step + step)
      guard lo <= hi, lo <= end else { break }
      var best = lo
      for f in lo...hi where novelty[f] > novelty[best] { best = f }
      guard best > (beats.last ?? -1) else { continue }
      beats.append(best)
      periods.append(Double(decoded.periods[k] * step))
      if downbeat == nil, decoded.positions[k] == 0 { downbeat = best }
    }
    guard beats.count >= 2, let downbeat else { return nil }
    // The period between beats, held before the first and after the last.
    var period = [Double](repeating: periods[0], count: n)
    var k = 0
    for f in 0..<n {
      while k + 1 < beats.count, beats[k + 1] <= f { k += 1 }
      period[f] = periods[k]
    }
    return Tracked(beats: beats, period: period, meter: decoded.meter, downbeat: downbeat)
  }
}

extension BarPointer {
  /// True when the beat network's activations drive the bar pointer (the model `network`
  /// and a network built in).
  static func followsNetwork(_ settings: BeatTracker.Settings) -> Bool {
    settings.model == .network && BeatNetwork.shipped != nil
  }

  /// The cells of a beat in the beat network's observation model: its first twelfth, and
  /// the rest, which hears the same in every twelfth (so the Viterbi sums it once, not
  /// eleven times).
  static let activationTwelfths = [0, 1, cellsPerBeat]

  /// The longest a beat's first cell is in the network's observation model: 2 frames, 40 ms.
  /// The network's peak at a beat is 20-40 ms wide whatever the tempo, so a cell of a twelfth
  /// of the beat (140 ms at 40 BPM) heard the silence around a slow beat's peak as a missing
  /// beat, and slow music was counted twice as fast (bench/beats/README.md, session 10).
  static let activationBeatFrames = 2

  /// The factor the network's activations are scaled by before the bar pointer hears them
  /// as probabilities: their 99th percentile (the height the clearest beats reach) brought
  /// to 0.9, never scaled down, and left alone where the network hears next to nothing
  /// (below 0.05). The network hears some recordings less loudly than the ones it was
  /// trained on (TiMidity++'s samples: 0.55 at the beats against 0.72, the medians), and the
  /// balance between metrical levels followed that loudness (session 10).
  static func activationGain(_ beat: [Float]) -> Float {
    guard !beat.isEmpty else { return 1 }
    let sorted = beat.sorted()
    let top = sorted[Int(Double(sorted.count - 1) * 0.99)]
    return top > 0.05 ? max(1, 0.9 / top) : 1
  }

  /// The beat network's observation model, as madmom's `DBNDownBeatTrackingProcessor`'s:
  /// the first twelfth of the bar hears the downbeat probability, the first twelfth of each
  /// other beat the beat probability less the downbeat's, every other twelfth the
  /// probability of no beat shared among the beat's other eleven. Two cells a beat
  /// (`activationTwelfths`), the first at most `activationBeatFrames` long (`viterbi`'s
  /// `beatCell`). `beat` and `downbeat` are per analysis frame, scaled by `gain`
  /// (`activationGain`) up to 1; each frame here takes the largest of its `step`.
  static func activationLikelihoods(
    beat: [Float], downbeat: [Float], beats m: Int, step: Int, gain: Float = 1
  ) -> (values: [Float], frames: Int) {
    let n = beat.count
    let frames = (n + step - 1) / step
    let perBeat = activationTwelfths.count - 1
    let cells = perBeat * m
    let floor: Float = 1e-4
    var out = [Float](repeating: 0, count: frames * cells)
    for t in 0..<frames {
      var b: Float = 0
      var d: Float = 0
      for i in (t * step)..<min(n, (t + 1) * step) {
        b = max(b, min(1, gain * beat[i]))
        d = max(d, min(1, gain * downbeat[i]))
      }
      let none = log(max(floor, 1 - b) / Float(cellsPerBeat - 1))
      let onBeat = log(max(floor, b - d))
      for k in 0..<cells { out[t * cells + k] = k % perBeat == 0 ? onBeat : none }
      out[t * cells] = log(max(floor, d))
    }
    return (out, frames)
  }

  /// The bar pointer over the beat network's activations (`activationLikelihoods`), 2, 3,
  /// 4 and 5 beats a bar (or the meter given), the best decoding winning; each beat moved to
  /// the largest beat activation of its 20 ms. The beats divide in three (a compound meter)
  /// as `BeatTracker.dividesInThree` finds, unless the meter is given.
  ///
  /// `near`, when given, holds the beat period within `nearness` of it (per analysis frame,
  /// in analysis frames): `MetricalLevel.hold`'s decoding at one level.
  static func trackActivations(
    _ features: OnsetFeatures, novelty: [Double], settings: BeatTracker.Settings, end: Int,
    near: [Double]? = nil
  ) -> Tracked? {
    guard features.heardNetwork else { return nil }
    let (beat, downbeat) = (features.beatActivation, features.downbeatActivation)
    let n = beat.count
    let step = max(1, Int((features.frameRate / frameRate).rounded()))
    let held = near.map { near in
      (0..<((n + step - 1) / step)).map { near[min(near.count - 1, $0 * step)] / Double(step) }
    }
    let shortest = max(2, Int((60 * frameRate / settings.maxBPM).rounded(.down)))
    let longest = max(shortest + 1, Int((60 * frameRate / settings.networkMinBPM).rounded(.up)))
    let periods = Array(shortest...longest)
    let gain = activationGain(beat)
    var best: Decoded? = nil
    for m in [2, 3, 4, 5] where settings.beatsPerBar == nil || settings.beatsPerBar == m {
      let (values, frames) = activationLikelihoods(
        beat: beat, downbeat: downbeat, beats: m, step: step, gain: gain)
      guard
        let decoded = viterbi(
          likelihoods: values, frames: frames, meter: BarShape(beats: m, triple: false),
          periods: periods, near: held, twelfths: activationTwelfths,
          beatCell: activationBeatFrames)
      else { continue }
      if decoded.score > best?.score ?? -.infinity { best = decoded }
    }
    guard let decoded = best else { return nil }
    var beats: [Int] = []
    var downbeatAt: Int? = nil
    var periodsAt: [Double] = []
    for (k, t) in decoded.beats.enumerated() {
      let lo = max(0, t * step - 1)
      let hi = min(n - 1, t * step + step)
      guard lo <= hi, lo <= end else { break }
      var top = lo
      for f in lo...hi where beat[f] > beat[top] { top = f }
      guard top > (beats.last ?? -1) else { continue }
      beats.append(top)
      periodsAt.append(Double(decoded.periods[k] * step))
      if downbeatAt == nil, decoded.positions[k] == 0 { downbeatAt = top }
    }
    guard beats.count >= 2, let downbeatAt else { return nil }
    var period = [Double](repeating: periodsAt[0], count: n)
    var k = 0
    for f in 0..<n {
      while k + 1 < beats.count, beats[k + 1] <= f { k += 1 }
      period[f] = periodsAt[k]
    }
    let triple =
      settings.compound ?? BeatTracker.dividesInThree(beats, novelty: novelty)
    return Tracked(
      beats: beats, period: period, meter: BarShape(beats: decoded.meter.beats, triple: triple),
      downbeat: downbeatAt)
  }
}
