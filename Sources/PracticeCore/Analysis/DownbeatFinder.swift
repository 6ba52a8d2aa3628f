import Foundation

/// Bar length and downbeats from features at the beats.
///
/// Three cues per beat, each standardised: harmonic change (chroma of the bar from it on
/// against the bar before it, for each bar length tried), bass onset strength and overall
/// accent. A cue's contrast for a meter and phase is its mean at the downbeats minus its
/// mean elsewhere.
/// - Harmony comes first: a beat's downbeat score is three times its harmonic change plus
///   its bass onset plus half its accent (plus three times the beat network's downbeat
///   probability, when it ran: the models `downbeats` and `hybrid`; where the downbeats it
///   helps choose are where the chords change less than elsewhere, the phase is chosen
///   without it).
///   Chords change on downbeats in every style;
///   which beat is loud depends on the style (a samba's surdo on 2, a one-drop's kick on
///   3, a backbeat's snare on 2 and 4). On the evaluation set harmony picks the right
///   phase in 26 of 28 pieces, the bass in 22, the accent in 16 (bench/beats).
/// - Five or seven beats a bar when the cues mark that period more strongly than two, three
///   and four by `longBarMargin` (seven: a 7/8 counted in eighths).
/// - Three beats a bar when the cues mark that period more strongly than two and than
///   four, each cue at its own best phase, so a loud beat 2 (samba) counts for bars of
///   two, not against them. (Against two alone, a 4/4 swing whose walking bass changes
///   note on every beat was counted in threes in two of its five versions.)
/// - The phase is the best-scoring one. Four beats a bar wins over two when the bar's
///   first beat outscores its third by half the two-beat contrast (`fourOverTwo`).
/// - Without a given meter, a bar of another length (two beats dropped or added once) may
///   change the phase where the downbeats after it score higher by more than
///   `oddBarCost`.
enum DownbeatFinder {
  /// The meter's beats per bar, and each beat's place in its bar.
  struct Placement: Equatable {
    /// Beats per bar (a bar of another length may interrupt them: `positions`).
    var beatsPerBar: Int
    /// Each beat's place in its bar, 0 for a downbeat; the beats before the first downbeat
    /// count back from the end of a bar (a pickup).
    var positions: [Int]
  }

  /// What a bar of another length than the meter's costs, in units of the downbeat score
  /// (a clear downbeat scores about 5-8, other beats about -1): a song that drops or adds
  /// beats once (a bar of 2/4 in 4/4) is followed when the bars after it say so for a
  /// few bars, but a stretch that looks a little better shifted is not. At 20 a
  /// held-out piece whose cues mislead already took an odd bar; at 30 none of the 192
  /// evaluation pieces does, and most songs with a bar cut or added are followed
  /// (bench/beats/oddbars.py).
  static let oddBarCost = 30.0

  /// How much more strongly the cues must mark a bar of five beats than one of two, three or
  /// four for 5/4 to be chosen. On the development corpus's tuning half, at 1.25 seven of
  /// its ten 5/4 pieces are counted in fives (downbeat F 0.31 to 0.76) and no piece of
  /// another meter is (bench/beats/README.md); at 1.0 a waltz and a 6/8 are.
  static let longBarMargin = 1.25

  /// Bars of seven are looked for only over at least this many of them: over four or five,
  /// a 4/4 string pad's cues happened to repeat every seven beats (the development corpus's
  /// tuning half, delivered; it has no piece in seven, so that is all it can show).
  static let sevenBars = 8

  /// How far a bar's first beat must outscore its third, as a share of the two-beat
  /// contrast, for bars of four rather than two: 0.5 on the development corpus's tuning
  /// half (downbeat F 0.756 to 0.762; 2/4 0.66 to 0.70, 4/4 0.863 to 0.868), 0.25 before;
  /// at 1.0 12/8 fell to 0.59 (bench/beats/README.md).
  static let fourOverTwo = 0.5

  /// How the cues are weighed (the developers' knob `PRACTICE_DOWNBEAT_CUES` changes them
  /// for comparison runs).
  struct Settings: Sendable, Equatable {
    /// Harmonic change, bass onset, accent.
    var weights = [3.0, 1.0, 0.5]
    /// The beat network's downbeat probability, when it ran: as much as the harmonic change.
    var networkWeight = 3.0
    /// Where the harmonic change marks no phase of the bar more than the next best by this
    /// much (standardised contrast), the network's downbeat probability alone places the
    /// bars; nil never (the default). Where the chords say nothing, the hand-made cues put
    /// the bar on the loudest beat, on a record often the backbeat. Measured, not kept: at
    /// 0.2 the released tracks' tuning half gained (downbeat F against madmom 0.446 to
    /// 0.522) and their test half lost (0.531 to 0.478); the corpus and the second
    /// generator's set were level (bench/beats/README.md, session 17).
    var networkDecides: Double? = nil
  }

  /// `beatsPerBar` fixes the bar length and the phase (only the phase is chosen); nil
  /// chooses 2, 3, 4, 5 or 7, and allows bars of other lengths where they pay `oddBarCost`.
  static func place(
    beats: [Int], features: OnsetFeatures, period: [Double], beatsPerBar: Int?,
    downbeatActivation: [Float]? = nil, settings: Settings = Settings()
  ) -> Placement {
    let count = beats.count
    guard count >= 2 else {
      let m = beatsPerBar ?? 4
      return Placement(beatsPerBar: m, positions: (0..<count).map { $0 % max(1, m) })
    }
    let cues = Cues(
      beats: beats, features: features, period: period, downbeatActivation: downbeatActivation,
      settings: settings)
    let indices = Array(0..<count)
    var scores: [Int: [Double]] = [:]
    func contrast(_ m: Int, _ phase: Int) -> Double {
      guard let score = scores[m] else { return -.infinity }
      return contrastOf(score, m, phase)
    }
    /// Mean of `score` at the downbeats of bars of `m` from `phase`, minus its mean elsewhere.
    func contrastOf(_ score: [Double], _ m: Int, _ phase: Int) -> Double {
      var on = 0.0
      var onCount = 0
      var off = 0.0
      for i in indices {
        if (i - phase + m) % m == 0 {
          on += score[i]
          onCount += 1
        } else {
          off += score[i]
        }
      }
      let offCount = count - onCount
      guard onCount > 0, offCount > 0 else { return -.infinity }
      return on / Double(onCount) - off / Double(offCount)
    }
    // Scores for bars of m beats: harmonic change is measured over windows a bar long.
    // Harmony first: when the downbeats the network's cue helps choose are where the chords
    // change less than elsewhere (a loud second beat it took for the first), the bars are
    // placed without it (it still counts for their length, `periodicity`).
    for m in beatsPerBar.map({ [max(1, $0)] }) ?? [2, 3, 4, 5, 7] {
      let heard = cues.scores(window: m)
      scores[m] = heard
      guard cues.network != nil, m > 1 else { continue }
      let standardised = cues.standardised(window: m)
      let change = standardised[0]
      if let decides = settings.networkDecides {
        let marks = (0..<m).map { contrastOf(change, m, $0) }.sorted(by: >)
        if marks[0] - marks[1] < decides {
          scores[m] = standardised[3].map { settings.networkWeight * $0 }
          continue
        }
      }
      let phase = (0..<m).max { contrastOf(heard, m, $0) < contrastOf(heard, m, $1) } ?? 0
      if contrastOf(change, m, phase) < 0 { scores[m] = cues.scores(window: m, network: false) }
    }
    func bestPhase(_ m: Int) -> Int {
      (0..<m).max { contrast(m, $0) < contrast(m, $1) } ?? 0
    }
    /// How strongly the cues mark a period of `m` beats: each cue's contrast at its own best
    /// phase, weighted as in the score.
    func periodicity(_ m: Int) -> Double {
      zip(cues.standardised(window: m), cues.weights).reduce(0) { total, cue in
        let best = (0..<m).map { contrastOf(cue.0, m, $0) }.max() ?? 0
        return total + cue.1 * best
      }
    }
    /// Bars of `m` at the best phase, or with odd bars where they pay for themselves.
    func bars(_ m: Int, oddBars: Bool) -> [Int] {
      let phase = m > 1 ? bestPhase(m) : 0
      let fixed = (0..<count).map { (($0 - phase) % m + m) % m }
      guard oddBars, let score = scores[m],
        let withOdd = positionsWithOddBars(score: score, beatsPerBar: m, cost: oddBarCost)
      else { return fixed }
      return withOdd
    }
    /// The mean score (for bars of `m`) at `position` in the bars of `positions`.
    func positionMean(_ m: Int, _ positions: [Int], _ position: Int) -> Double {
      guard let score = scores[m] else { return 0 }
      let values = indices.filter { positions[$0] == position }.map { score[$0] }
      return values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }
    if let beatsPerBar {
      let m = max(1, beatsPerBar)
      return Placement(beatsPerBar: m, positions: bars(m, oddBars: false))
    }
    // Five or seven beats a bar only when the cues mark that period clearly more strongly
    // than any of two, three or four: a 4/4 song's cues repeat every four beats, not five
    // or seven. Of the two, the one marked more strongly.
    let shorter = max(periodicity(2), periodicity(3), periodicity(4))
    let long = [5, 7].filter {
      ($0 < 7 || count >= sevenBars * 7) && periodicity($0) > max(shorter, longBarMargin * shorter)
    }
    .max { periodicity($0) < periodicity($1) }
    if let long {
      return Placement(beatsPerBar: long, positions: bars(long, oddBars: true))
    }
    if periodicity(3) > max(periodicity(2), periodicity(4)) {
      return Placement(beatsPerBar: 3, positions: bars(3, oddBars: true))
    }
    // The bars of four from bar-long windows; whether their first beat outweighs their
    // third from windows of two beats, which treat both alike (four-beat windows compare
    // different chords at the two, as a four-chord loop passes).
    let four = bars(4, oddBars: true)
    let firstOverThird = positionMean(2, four, 0) - positionMean(2, four, 2)
    if firstOverThird > fourOverTwo * contrast(2, bestPhase(2)) {
      return Placement(beatsPerBar: 4, positions: four)
    }
    return Placement(beatsPerBar: 2, positions: bars(2, oddBars: true))
  }

  /// Each beat's place in its bar when bars of other lengths than `beatsPerBar` (two to
  /// two more than it) may interrupt them, each costing `cost`: the downbeats whose
  /// scores, less the costs, sum highest (dynamic programming over the beats; the first
  /// bar may be a pickup and the last unfinished). Nil when the best has no odd bar.
  static func positionsWithOddBars(score: [Double], beatsPerBar m: Int, cost: Double) -> [Int]? {
    let count = score.count
    let odd = (2...(m + 2)).filter { $0 != m }
    var best = [Double](repeating: -.infinity, count: count)
    var from = [Int](repeating: -1, count: count)
    for i in 0..<count {
      var base = i < m ? 0.0 : -Double.infinity
      if i >= m, best[i - m] > base {
        base = best[i - m]
        from[i] = i - m
      }
      for length in odd where i >= length && best[i - length] - cost > base {
        base = best[i - length] - cost
        from[i] = i - length
      }
      best[i] = score[i] + base
    }
    guard var last = (max(0, count - m)..<count).max(by: { best[$0] < best[$1] }) else { return nil }
    var downbeats = [last]
    var sawOdd = false
    while from[last] >= 0 {
      sawOdd = sawOdd || last - from[last] != m
      last = from[last]
      downbeats.append(last)
    }
    guard sawOdd else { return nil }
    downbeats.reverse()
    var positions = (0..<count).map { (($0 - downbeats[0]) % m + m) % m }
    for (k, start) in downbeats.enumerated() {
      let end = k + 1 < downbeats.count ? downbeats[k + 1] : count
      for i in start..<end { positions[i] = i - start }
    }
    return positions
  }

  /// What marks a downbeat, per beat: bass onset strength, overall accent, and the chroma
  /// of every span of beats (for harmonic change).
  struct Cues {
    let settings: Settings
    let bass: [Double]
    let accent: [Double]
    /// The beat network's downbeat probability at each beat, when it ran.
    let network: [Double]?
    /// Log-compressed chroma summed beat span by beat span from the first beat, 12 per
    /// bound, so the sum over any run of beats is a difference (12 numbers a beat, not a
    /// frame: an hour of music would need 35 MB for those).
    private let prefix: [Double]
    /// Beat boundaries in analysis frames, with one more a period after the last beat.
    private let bounds: [Int]

    init(
      beats: [Int], features: OnsetFeatures, period: [Double], downbeatActivation: [Float]?,
      settings: Settings
    ) {
      self.settings = settings
      let frames = features.count
      let reach = max(1, Int(0.05 * features.frameRate))
      func peak(_ signal: [Float], at frame: Int) -> Double {
        Double(signal[max(0, frame - reach)...min(frames - 1, frame + reach)].max() ?? 0)
      }
      bass = beats.map { peak(features.bassFlux, at: $0) }
      accent = beats.map { peak(features.flux, at: $0) }
      network = downbeatActivation.flatMap { a in
        a.count == frames ? beats.map { peak(a, at: $0) } : nil
      }
      var frameEnergy = 0.0
      for f in 0..<frames {
        guard let o = features.chromaOffset(ofFrame: f) else { break }
        for c in 0..<12 { frameEnergy += Double(features.chroma[o + c]) }
      }
      frameEnergy = max(1e-12, frameEnergy / Double(max(1, frames)))
      let last = beats[beats.count - 1]
      bounds = beats + [min(frames, last + Int(period[last]))]
      var prefix = [Double](repeating: 0, count: bounds.count * 12)
      for k in 1..<bounds.count {
        for c in 0..<12 { prefix[k * 12 + c] = prefix[(k - 1) * 12 + c] }
        for f in stride(from: bounds[k - 1], to: bounds[k], by: 1) {
          guard let o = features.chromaOffset(ofFrame: f) else { break }
          for c in 0..<12 {
            prefix[k * 12 + c] += log1p(100 * Double(features.chroma[o + c]) / frameEnergy)
          }
        }
      }
      self.prefix = prefix
    }

    /// Unit chroma of beats a..<b, nil when the span is empty.
    private func chroma(from a: Int, to b: Int) -> [Double]? {
      let a = max(0, min(a, bounds.count - 1))
      let b = max(0, min(b, bounds.count - 1))
      guard b > a else { return nil }
      let v = (0..<12).map { prefix[b * 12 + $0] - prefix[a * 12 + $0] }
      let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
      return norm > 0 ? v.map { $0 / norm } : v
    }

    /// The weights of `standardised`'s cues.
    var weights: [Double] {
      settings.weights + (network == nil ? [] : [settings.networkWeight])
    }

    /// The weighted sum of the standardised cues, per beat (without the network's when
    /// `network` is false).
    func scores(window: Int, network: Bool = true) -> [Double] {
      let cues = standardised(window: window)
      let weights = network ? self.weights : settings.weights
      return (0..<bass.count).map { i in zip(cues, weights).reduce(0) { $0 + $1.1 * $1.0[i] } }
    }

    /// Standardised harmonic change, bass onset and accent, per beat. Harmonic change
    /// compares the chroma of the `window` beats from a beat on with the `window` before
    /// it: a bar long, so a bass line moving within the bar is not taken for a change of
    /// harmony.
    func standardised(window: Int) -> [[Double]] {
      let count = bass.count
      var change = [Double](repeating: 0, count: count)
      for i in 1..<count {
        guard let before = chroma(from: i - window, to: i), let after = chroma(from: i, to: i + window)
        else { continue }
        change[i] = 1 - zip(before, after).reduce(0) { $0 + $1.0 * $1.1 }
      }
      return ([change, bass, accent] + (network.map { [$0] } ?? [])).map(DownbeatFinder.standardised)
    }
  }

  static func standardised(_ x: [Double]) -> [Double] {
    let mean = x.reduce(0, +) / Double(max(1, x.count))
    let sd = (x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(1, x.count))).squareRoot()
    // A cue that does not change (the same chord throughout) has an sd of rounding error:
    // it marks nothing, rather than rounding noise standardised to full strength.
    return x.map { sd > 1e-9 ? ($0 - mean) / sd : 0 }
  }
}
