import Foundation

/// Beats found in an onset-strength envelope, in analysis frames.
struct TrackedBeats {
  /// Analysis frame of each beat, increasing.
  var frames: [Int]
  /// Confidence of each beat, 0-1.
  var confidence: [Double]
  /// The beat period (in analysis frames) at every analysis frame: the tempo curve.
  var period: [Double]
  /// Height of the strongest periodicity in the onset strength (normalised
  /// autocorrelation, 0-1): low for noise and for music without a steady beat.
  var pulseClarity: Double
  /// True when the beats are dotted quarters (6/8, 9/8, 12/8): asked for, or found to
  /// divide in three.
  var compound: Bool
  /// True when the onsets marked no steady beat and the beats divide bars found where the
  /// chords change (`HarmonicBars.beats`).
  var fromHarmony = false
  /// True when the sound has no onsets, only noise (`isNoise`).
  var soundsLikeNoise = false
  /// The bar pointer's meter and the index in `frames` of one of its downbeats, when it
  /// found the beats: every beat's place in its bar follows from them.
  var bars: (meter: BarPointer.BarShape, downbeat: Int)? = nil
  /// The beat network's downbeat probability at every analysis frame (the model `hybrid`),
  /// a cue for `DownbeatFinder`.
  var downbeatActivation: [Float]? = nil
  /// The beat network's mean beat probability at these beats (`BeatTracker.heard`), when
  /// it hears the music at all (its own reading at least `BeatTracker.networkHearing`).
  var networkHeard: Double? = nil
  /// The frames where the reading switched metrical level on weak evidence, and the song's
  /// level was kept (`MetricalLevel.hold`): their beats are doubtful.
  var heldLevel: [ClosedRange<Int>] = []
  /// What the song's level choice measured and did (`LevelChoice.choose`), where it ran: for
  /// `PRACTICE_BEAT_DOUBT`'s dump.
  var levelChoice: LevelChoice.Outcome? = nil
}

/// Tempo and beat tracking on `OnsetFeatures` (Ellis 2007, "Beat tracking by dynamic
/// programming", with a tempo curve instead of one tempo so gradual changes are followed):
///
/// 1. onset strength: spectral flux minus its 1 s moving average, half-wave rectified;
///    broadband (the 32 mel bands, plus half again the bass bands so bass and kick mark
///    the beat rather than off-beat chords) for the level; for following the beats,
///    SuperFlux on 24 bands an octave (note changes, vibrato ignored) plus half the mel
///    bands' and three quarters the bass bands';
/// 2. the metrical level: autocorrelation of the broadband onset strength in 8 s windows,
///    each window's peak taken within 4 % of the period scored (a tempo that wavers as a
///    player's does smears the whole piece's peaks at the beat more than at the eighths),
///    each beat period scored by its own peak plus half its support at twice the period
///    and at the half or third subdivision, weighted by a log-Gaussian prior (0.8 octave:
///    wide, so a slow ballad's eighth notes do not outweigh its beat) around 125 BPM
///    (95 BPM, and a ternary subdivision, for compound meters counted in dotted quarters);
/// 3. the tempo curve: an 8 s windowed autocorrelation every 0.5 s over periods from 1/1.6
///    to 1.6 times the level's, weighted by the same prior (dotted quarters: unweighted,
///    within 1/1.45 to 1.45), smoothed by a Viterbi pass that penalises jumps;
/// 4. the beats: dynamic programming over beat times, each beat scored by its onset
///    strength minus a penalty on the log ratio of its interval to the local period;
///    traced back from the end of the music (its last clear onset, one that stands out
///    from any noise floor under it);
/// 5. checks of the level and phase against the onsets half-way between the beats: nearly
///    as much onset and bass there (together) as on the beats means the tempo was halved
///    (followed again at twice the tempo, except in compound meters); far more bass there,
///    with notes, means the beats are the off-beats (moved half a beat);
/// 6. the chain extended to the first sound and trimmed to the first beat with an onset
///    (noise before the music has none; a file that starts in the middle of the music is
///    not trimmed, and has a beat on its first sample when one is due in its first
///    frames), and each beat moved back to where its onset began: the
///    start of its burst of onset strength after a quiet moment, or of its steep rise
///    (soft attacks peak late);
/// 7. many doubtful beats (`harmonyShare`) that do not fit the bars the chords change in:
///    the onsets carry no steady beat (legato strings whose vibrato swamps their swells),
///    and the beats divide those bars instead (`HarmonicBars.beats`);
/// 8. without a given meter, beats whose onsets fall on their thirds rather than their
///    half are dotted quarters: the meter is compound (6/8, 9/8, 12/8).
///
/// The default model (`downbeats`) also decodes the beat network's activations with the bar
/// pointer and keeps that reading instead (before 6) where the network hears its beats
/// more than the tracker's (`networkHearsMore`); such beats skip 7.
enum BeatTracker {
  struct Settings {
    /// The slowest beat of the tracker's metrical level.
    var trackerMinBPM: Double = 50
    /// The slowest beat the bar pointer decodes the network's activations at.
    var networkMinBPM: Double = 40
    var maxBPM: Double = 220
    /// Count dotted quarters (6/8, 9/8, 12/8): prefer a beat divided in three. Nil: decide
    /// from the music (a beat whose onsets fall on its thirds rather than its half).
    var compound: Bool? = false
    /// Beats a bar, when a meter is given (the bar pointer decodes only that meter).
    var beatsPerBar: Int? = nil
    var model: BeatModel = .tracker
    /// Where the bar pointer writes its observations (`BarPointer.track`).
    var observationDump: String? = nil
    /// Whether and how the song's metrical level is questioned (`LevelChoice`).
    var levelChoice: LevelChoice.Settings = .standard
  }

  /// Nil when there is no sound at all.
  static func track(_ features: OnsetFeatures, settings: Settings) -> TrackedBeats? {
    // Without a given meter the beats are tracked as simple ones, then called dotted
    // quarters when each divides in three.
    let compound = settings.compound ?? false
    let fr = features.frameRate
    let n = features.count
    guard n > 0, let loudest = features.level.max(), loudest > 1e-4 else { return nil }
    // Where the music is: from the first to the last frame above -34 dB of the loudest.
    let threshold = loudest * 0.02
    let firstActive = features.level.firstIndex { $0 > threshold } ?? 0
    let lastActive = features.level.lastIndex { $0 > threshold } ?? (n - 1)

    var (broadband, novelty, bassNovelty) = onsetStrengths(features)
    // Noise is judged on the hand-made onsets alone: the network's activation is never noise.
    let heardOnsets = novelty
    // The beat network's downbeat probability is a cue for `DownbeatFinder` (the models
    // `downbeats` and `hybrid`). In `hybrid` its beat probability, made an onset strength
    // as the fluxes are, counts as much as the hand-made onset strengths, in both (the
    // level and the beats).
    var downbeatActivation: [Float]? = nil
    if settings.model == .downbeats || settings.model == .hybrid, features.heardNetwork {
      if settings.model == .hybrid {
        let heard = onsetStrength(features.beatActivation, frameRate: fr)
        for i in hiddenFrames(features)..<n {
          novelty[i] += heard[i]
          broadband[i] += heard[i]
        }
      }
      downbeatActivation = features.downbeatActivation
    }
    let padded = hiddenFrames(features)
    // The music ends at its last clear onset: a final chord ringing on has no more beats.
    // A clear onset stands out from any noise under the music (hiss, room tone): it is at
    // least 1 (a standard deviation) and a quarter of the strong onsets (the top 1 %).
    let strong = novelty[firstActive...lastActive].sorted()
    let clear = max(1, 0.25 * strong[Int(Double(strong.count - 1) * 0.99)])
    let lastOnset = (firstActive...lastActive).last { novelty[$0] >= clear } ?? lastActive
    let shortest = max(2, Int((60 * fr / settings.maxBPM).rounded(.down)))
    let longest = max(shortest + 1, Int((60 * fr / settings.trackerMinBPM).rounded(.up)))

    // Global periodicity and the metrical level.
    let ac = autocorrelation(broadband, maxLag: 4 * longest + 2)
    func acAt(_ lag: Double) -> Double {
      let i = Int(lag)
      guard i >= 0, i + 1 < ac.count else { return 0 }
      let f = lag - Double(i)
      return ac[i] * (1 - f) + ac[i + 1] * f
    }
    // Each period's strength as the piece's 8 s windows hear it, each window allowed its
    // own period within 4 % (`localPeriodicity`): played without a click, a slow ballad's
    // tempo wavers by a few per cent, which smears the whole piece's autocorrelation peaks
    // at the beat and the bar more than those at the eighths.
    let local = localPeriodicity(broadband, frameRate: fr, maxLag: 2 * longest + 2)
    func strength(_ lag: Double) -> Double { periodStrength(local, lag: lag) ?? acAt(lag) }
    var bestLag = shortest
    var bestScore = -Double.infinity
    var clarity = 0.0
    for lag in shortest...longest {
      let l = Double(lag)
      clarity = max(clarity, ac[lag])
      let prior = tempoPrior(lag: l, frameRate: fr, compound: compound)
      var comb = strength(l) + 0.5 * strength(2 * l) + 0.5 * max(strength(l / 2), strength(l / 3))
      if compound { comb = 0.5 * comb + 0.25 * (strength(l / 3) + strength(2 * l / 3)) }
      let score = prior * max(comb, 0)
      if score > bestScore {
        bestScore = score
        bestLag = lag
      }
    }

    // Follow the beat at a level; `lag` is its period in frames. Simple beats: the tempo
    // curve's windows are weighted by the tempo prior, which keeps the curve off 3/2 of
    // the beat, so it may range to 1.6 times the level either way (an accelerando from 80
    // to 126 BPM whose level is 125). Dotted quarters keep unweighted windows within 1.45:
    // their 3/2 sibling, the quarter, is always in the music, and the prior (95 BPM) would
    // pull a barcarolle slowing to 44 BPM toward it.
    let span = compound ? 1.45 : 1.6
    let prior: ((Double) -> Double)? =
      compound ? nil : { tempoPrior(lag: $0, frameRate: fr, compound: false) }
    func follow(_ lag: Double) -> (beats: [Int], period: [Double]) {
      let period = tempoCurve(
        novelty, frameRate: fr, around: lag,
        lags: max(shortest, Int(lag / span))...min(longest, Int(lag * span)), prior: prior)
      return (dynamicProgramming(novelty, period: period, end: min(n - 1, lastOnset + 2)), period)
    }
    var (beats, period) = follow(Double(bestLag))
    // Half-way between the beats: nearly as much onset and bass, together, as on them means
    // the beats are every other one of the music's (an oom-pah-pah waltz counted in twos,
    // rock's backbeat), so follow twice the tempo. Compound meters are counted in dotted
    // quarters on purpose.
    if !compound, Double(bestLag) / 2 >= Double(shortest) {
      let on = support(
        at: beats, halfway: false, novelty: novelty, bass: bassNovelty, frameRate: fr)
      let off = support(
        at: beats, halfway: true, novelty: novelty, bass: bassNovelty, frameRate: fr)
      if off.onset + off.bass >= 0.7 * (on.onset + on.bass) {
        (beats, period) = follow(Double(bestLag) / 2)
      }
    }
    // Off-beat lock (`areOffBeats`): move each beat to the strongest onset near the
    // half-way point.
    let on = support(at: beats, halfway: false, novelty: novelty, bass: bassNovelty, frameRate: fr)
    let off = support(at: beats, halfway: true, novelty: novelty, bass: bassNovelty, frameRate: fr)
    if beats.count >= 4, areOffBeats(on: on, halfway: off) {
      var shifted: [Int] = []
      for i in 0..<beats.count {
        let p = period[beats[i]]
        let mid =
          i + 1 < beats.count ? Double(beats[i] + beats[i + 1]) / 2 : Double(beats[i]) + p / 2
        guard mid <= Double(min(n - 1, lastOnset + 2)) else { break }
        let lo = max(0, Int(mid - 0.1 * p))
        let hi = min(n - 1, max(lo, Int(mid + 0.1 * p)))
        var best = lo
        for f in lo...hi where novelty[f] > novelty[best] { best = f }
        if best > (shifted.last ?? -1) { shifted.append(best) }
      }
      beats = shifted
    }
    // The bar pointer decodes beats, meter and bars together: over the network's
    // activations (`network`), or over learned patterns near the tempo found here or freely
    // (`bar`, `free`: experiments). The default reads the beat both ways and keeps the
    // reading the network hears more.
    var bars: (meter: BarPointer.BarShape, downbeat: Int)? = nil
    var networkBeats = false
    // Whether the network hears the music: its own reading at least `networkHearing`.
    var networkListens = false
    if let decoded = BarPointer.track(
      features, novelty: novelty, settings: settings, end: min(n - 1, lastOnset + 2), around: period
    ) {
      (beats, period) = (decoded.beats, decoded.period)
      bars = (decoded.meter, decoded.downbeat)
      networkBeats = BarPointer.followsNetwork(settings)
      networkListens =
        networkBeats && heard(decoded.beats, activation: features.beatActivation) >= networkHearing
    } else if settings.model == .downbeats, features.heardNetwork,
      let decoded = BarPointer.trackActivations(
        features, novelty: novelty, settings: settings, end: min(n - 1, lastOnset + 2))
    {
      networkListens = heard(decoded.beats, activation: features.beatActivation) >= networkHearing
      if networkHearsMore(decoded.beats, than: beats, activation: features.beatActivation) {
        // The network's reading of the beat: its bars are left to `DownbeatFinder`.
        (beats, period) = (decoded.beats, decoded.period)
        networkBeats = true
      }
    }
    // One metrical level through a steady song: a switch part-way needs strong evidence,
    // and where it has weak evidence the song's level is kept and its beats are doubtful.
    // Heard by the network where it hears the reading, else by the onsets and bass.
    var levelDoubtful: [ClosedRange<Int>] = []
    var levelChoice: LevelChoice.Outcome? = nil
    if settings.model != .bar, settings.model != .free {
      let end = min(n - 1, lastOnset + 2)
      let byNetwork =
        features.heardNetwork && heard(beats, activation: features.beatActivation) >= networkHearing
      let hearing = { (frames: [Int]) -> Double in
        if byNetwork { return heard(frames, activation: features.beatActivation) }
        let s = support(
          at: frames, halfway: false, novelty: novelty, bass: bassNovelty, frameRate: fr)
        return s.onset + s.bass
      }
      let decode = { (near: [Double]) -> MetricalLevel.Reading? in
        if networkBeats {
          return BarPointer.trackActivations(
            features, novelty: novelty, settings: settings, end: end, near: near
          ).map { MetricalLevel.Reading(beats: $0.beats, period: $0.period) }
        }
        return MetricalLevel.Reading(
          beats: dynamicProgramming(novelty, period: near, end: end), period: near)
      }
      if let held = MetricalLevel.hold(
        .init(beats: beats, period: period), frameRate: fr, hearing: hearing, decode: decode)
      {
        (beats, period) = (held.reading.beats, held.reading.period)
        levelDoubtful = held.doubtful
      }
      // And through stretches three against two to the song's tempo.
      if let held = MetricalLevel.holdThreeAgainstTwo(
        .init(beats: beats, period: period), frameRate: fr, hearing: hearing, decode: decode)
      {
        (beats, period) = (held.reading.beats, held.reading.period)
        levelDoubtful += held.doubtful
      }
      // The song's level, questioned on every song that keeps one level (`LevelChoice`);
      // dotted quarters asked for keep theirs.
      if settings.compound != true, levelDoubtful.isEmpty,
        MetricalLevel.switches(beats, frameRate: fr).isEmpty,
        MetricalLevel.threeAgainstTwoStretches(beats, frameRate: fr).isEmpty
      {
        let heardBoth = { (frames: [Int]) -> LevelChoice.Heard in
          let s = support(
            at: frames, halfway: false, novelty: novelty, bass: bassNovelty, frameRate: fr)
          return (
            byNetwork ? heard(frames, activation: features.beatActivation) : nil, s.onset + s.bass
          )
        }
        let slowest = networkBeats ? settings.networkMinBPM : settings.trackerMinBPM
        let chosen = LevelChoice.choose(
          .init(beats: beats, period: period), frameRate: fr,
          shortest: 60 * fr / settings.maxBPM, longest: 60 * fr / slowest,
          settings: settings.levelChoice, heard: heardBoth, decode: decode)
        levelChoice = chosen
        if let reading = chosen.reading { (beats, period) = (reading.beats, reading.period) }
        // Three beats in the old bar's two, or in each of its beats: its meter no longer
        // counts them, and the bars are found again from the beats (`DownbeatFinder`).
        if chosen.factor == 1.5 || chosen.factor == 3 { bars = nil }
      }
    }
    // Where the music begins. The file's opening is its hidden frames (left out above) and
    // 50 ms more, about 100 ms. A file whose opening is as loud as the music's median (a
    // loop, an excerpt cut at a downbeat) starts in the middle of the music, on its first
    // sample; in any other, the opening's median level is the floor that soft onsets at
    // the start must rise above.
    let reach = max(1, Int(0.05 * fr))
    let levels = features.level[firstActive...lastActive].sorted()
    let opening = features.level[0..<min(n, padded + reach)].sorted()
    let startsLoud = (opening.last ?? 0) >= levels[levels.count / 2]
    let openingLevel = opening[opening.count / 2]
    // Beats from the first sound on: continue the chain backwards at the local period, to
    // a little before the first sound (soft attacks), or in a file that starts loud to its
    // first sample, where a beat due within the hidden frames is placed.
    let earliest = startsLoud ? -0.5 * Double(padded) : Double(firstActive) - 0.15 * fr
    while let first = beats.first {
      let p = period[first]
      let guess = Double(first) - p
      guard guess >= earliest else { break }
      let lo = max(0, Int(guess - 0.1 * p))
      let hi = max(lo, min(first - 1, Int(guess + 0.1 * p)))
      var best = lo
      for i in lo...hi where novelty[i] > novelty[best] { best = i }
      beats.insert(best, at: 0)
    }
    beats.removeAll { Double($0) < Double(firstActive) - 0.1 * fr }
    if startsLoud, let first = beats.first, first < padded + reach { beats[0] = 0 }
    // A file that starts loud has no noise before its music: every beat of the chain is
    // the music's, however soft. Otherwise the music begins at its first beat with an
    // onset: a clear one, or a soft one (a pickup) that sounds above the opening (6 dB
    // louder in the 100 ms after it). Beats before it are in the noise before the music
    // (hiss, room tone), whose own fluctuations can look like soft onsets, but not like
    // clear ones.
    while !startsLoud, beats.count > 1 {
      let first = beats[0]
      let onset = novelty[max(0, first - reach)...min(n - 1, first + reach)].max() ?? 0
      let loudness = features.level[first...min(n - 1, first + 2 * reach)].max() ?? 0
      if onset >= clear || (onset >= 0.5 && loudness >= 2 * openingLevel) { break }
      beats.removeFirst()
    }
    // The bar pointer's downbeat as an index, before the beats move to their attacks.
    let barsAt = bars.flatMap { bars in
      beats.indices.min { abs(beats[$0] - bars.downbeat) < abs(beats[$1] - bars.downbeat) }
        .map { (meter: bars.meter, downbeat: $0) }
    }
    var confidences = confidence(beats, novelty: novelty, period: period, hidden: padded)
    // Beats where the level was held on weak evidence (before they move to their attacks).
    let heldDoubtful = beats.map { b in levelDoubtful.contains { $0.contains(b) } }
    for i in beats.indices {
      beats[i] = riseStart(
        of: beats[i], after: i > 0 ? beats[i - 1] : -1, novelty: novelty, period: period[beats[i]],
        frameRate: fr)
    }
    // Onsets that mark no steady beat (many doubtful beats): when the chords change with
    // the bar, the beats are the bars' divisions (`HarmonicBars`).
    var fromHarmony = false
    let doubtful = confidences.filter { $0 < BeatDetector.lowConfidence }.count
    if !networkBeats, let first = beats.first, let last = beats.last,
      Double(doubtful) >= harmonyShare * Double(beats.count),
      let harmonic = HarmonicBars.beats(
        features: features, novelty: novelty, music: first...last, settings: settings,
        tracked: beats)
    {
      beats = harmonic.frames
      period = harmonic.period
      confidences = confidence(beats, novelty: novelty, period: period, hidden: padded)
      fromHarmony = true
    }
    if !fromHarmony {
      for i in confidences.indices where heldDoubtful[i] {
        confidences[i] = min(confidences[i], MetricalLevel.doubtful)
      }
    }
    let keptBars = fromHarmony ? nil : barsAt
    return TrackedBeats(
      frames: beats, confidence: confidences, period: period, pulseClarity: clarity,
      compound: keptBars.map { $0.meter.triple } ?? settings.compound
        ?? dividesInThree(beats, novelty: novelty),
      fromHarmony: fromHarmony,
      soundsLikeNoise: soundsLikeNoise(
        features, onsets: Array(heardOnsets[firstActive...lastActive]),
        music: firstActive...lastActive),
      bars: keptBars, downbeatActivation: fromHarmony ? nil : downbeatActivation,
      networkHeard: networkListens ? heard(beats, activation: features.beatActivation) : nil,
      heldLevel: fromHarmony ? [] : levelDoubtful, levelChoice: levelChoice)
  }

  /// Whether the beat network hears `candidate`'s beats more than `tracked`'s: their mean
  /// beat probability (each beat's largest within 20 ms) is higher, and at least
  /// `networkHearing`. The two readings mostly differ in their metrical level (one counts
  /// twice or three times the other's beats) or their phase; the network was trained to
  /// fire on beats, not on their subdivisions or off-beats, so the reading whose beats it
  /// hears more is taken, provided it hears its own at all. No margin: on the tuning half
  /// any (10 %, 25 %) lost beat F (bench/beats/README.md, session 7).
  static func networkHearsMore(_ candidate: [Int], than tracked: [Int], activation: [Float]) -> Bool
  {
    let candidateHeard = heard(candidate, activation: activation)
    return candidateHeard >= networkHearing
      && candidateHeard > heard(tracked, activation: activation)
  }

  /// The network's mean beat probability at `beats`, each beat's largest within 20 ms.
  static func heard(_ beats: [Int], activation: [Float]) -> Double {
    guard !beats.isEmpty else { return 0 }
    return beats.reduce(0) { $0 + largest(activation, near: $1) } / Double(beats.count)
  }

  /// The largest of `values` within two frames (20 ms) of frame `f`, the frames outside
  /// them left out; 0 when there are none.
  static func largest<T: BinaryFloatingPoint>(_ values: [T], near f: Int) -> Double {
    guard !values.isEmpty else { return 0 }
    let lo = min(values.count - 1, max(0, f - 2))
    let hi = max(lo, min(values.count - 1, f + 2))
    return Double(values[lo...hi].max() ?? 0)
  }

  /// The least mean beat probability at which the network is said to hear the beats it
  /// decodes: one in ten. Below it its decoding follows its own noise: on soft trembling
  /// chords (0.05-0.09) the tracker's reading, then the chords' changes (`HarmonicBars`),
  /// are right. On the development corpus's tuning half (both renderings, 162 pieces) the
  /// floor moves two pieces, a rubato chorale and a string pad that both readings count
  /// poorly (bench/beats/README.md). Since the network's reading is decoded on its peaks
  /// (`BarPointer.activationBeatFrames`), some trembling chords clear it (0.13-0.17) and are
  /// counted in half notes; string pads and chorales heard as weakly (0.11-0.44) are read
  /// better that way, so the floor stayed (session 11).
  static let networkHearing = 0.1

  /// Below this mean beat probability at the map's beats (where the network hears the
  /// music) the beat is called unclear and the musician warned. The best of 0.2-0.6 on the
  /// development corpus's tuning halves (both renderings, 162 pieces) at telling the maps
  /// below beat F 0.8 from the rest (71 % of them warned, 60 % of warnings right, against
  /// 50 % and 56 % for the pulse clarity and doubtful beats alone); on the seed-41 corpus,
  /// which nothing was chosen on, 54 % and 40 %, against 33 % and 34 %
  /// (bench/beats/README.md, session 10).
  static let clearHearing = 0.4

  /// Whether the music is noise (its onsets as noise's, `isNoise`, and its pitch classes
  /// as even as noise's, `pitchClassesAreEven`) or one held sound (`isHeld`).
  static func soundsLikeNoise(
    _ features: OnsetFeatures, onsets: [Double], music: ClosedRange<Int>
  ) -> Bool {
    (isNoise(onsets) && pitchClassesAreEven(features, music: music))
      || isHeld(features, music: music)
  }

  /// Whether the pitch classes sound alike, as in noise: the spectral flatness of the 12
  /// chroma energies (geometric over arithmetic mean), averaged over the music's chroma
  /// frames, is 0.7 or more. White, pink and brown noise: 0.87-0.95. Music: 0.003-0.55 on
  /// the development corpus and the held-out sets (192 pieces; the highest a rock band in
  /// a room, drums flatten it), and 0.12 on soft bowed strings whose onsets alone look like
  /// noise's. 0.7 lies between the two. Without chroma, true (the onsets decide).
  static func pitchClassesAreEven(_ features: OnsetFeatures, music: ClosedRange<Int>) -> Bool {
    guard let first = features.chromaOffset(ofFrame: music.lowerBound),
      let last = features.chromaOffset(ofFrame: music.upperBound)
    else { return true }
    var total = 0.0
    var frames = 0
    for k in stride(from: first, through: last, by: 12) {
      let energies = features.chroma[k..<(k + 12)].map { Double($0) }
      let mean = energies.reduce(0, +) / 12
      guard mean > 0 else { continue }
      let logMean = energies.reduce(0) { $0 + log(max($1, 1e-30)) } / 12
      total += exp(logMean) / mean
      frames += 1
    }
    return frames == 0 || total / Double(frames) >= 0.7
  }

  /// Whether an onset strength (unit standard deviation) is noise's: music's is sparse, as
  /// notes begin now and then, even under hiss or without a steady beat (its median 0: most
  /// frames rise less than their second's mean), and its onsets stand out (its 99th
  /// percentile 6.5-10 on synthesised music, alone, under noise 3 dB down or in free time);
  /// white, pink, red or brown noise rises as often as not (median 0.3-0.4) and nothing
  /// stands out (99th percentile 4.6-6.5, the tail of a bell curve: the redder and longer
  /// the noise, the higher). Soft organ and string music can look the same (median up to
  /// 0.6, 99th percentile 5.5-8 on the development corpus): its pitch classes tell it apart
  /// (`pitchClassesAreEven`), not this.
  static func isNoise(_ novelty: [Double]) -> Bool {
    guard !novelty.isEmpty else { return true }
    let sorted = novelty.sorted()
    return sorted[sorted.count / 2] >= 0.15 && sorted[sorted.count * 99 / 100] < 7
  }

  /// Whether the music is one held sound: in fewer than 1 % of its frames does some band
  /// rise by 1 dB or more from the frame before (about the smallest change of level a
  /// listener hears; `OnsetFeatures.largestRise`), the frames whose windows reach back
  /// before the file left out. A steady test tone, chord or drone: none. Music, at any
  /// level and under noise: 26-99.9 % of the development corpus's frames (its 160 pieces),
  /// as notes begin, swell and fade.
  static func isHeld(_ features: OnsetFeatures, music: ClosedRange<Int>) -> Bool {
    let rises = features.largestRise
    guard rises.count == features.count else { return false }
    let start = max(music.lowerBound, hiddenFrames(features))
    guard start <= music.upperBound else { return true }
    let changing = rises[start...music.upperBound].filter { $0 >= 1 }.count
    return Double(changing) < 0.01 * Double(music.upperBound - start + 1)
  }

  /// Two onset strengths, and the bass's. The broadband one, the mel bands' flux plus half
  /// again the bass bands' (so bass and kick mark the beat rather than off-beat chords),
  /// chooses the metrical level: it keeps the accents that set it. The tracking one is the
  /// fine bands' SuperFlux (every note change, vibrato ignored) plus half the mel flux and
  /// three quarters the bass flux: it follows the beats through music without drums, but
  /// flattens accents (after log compression each note of a run rises alike), so alone it
  /// would count a jig's triplet eighths in twos.
  static func onsetStrengths(_ features: OnsetFeatures)
    -> (broadband: [Double], tracking: [Double], bass: [Double])
  {
    let fr = features.frameRate
    let n = features.count
    let bass = onsetStrength(features.bassFlux, frameRate: fr)
    let mel = onsetStrength(features.flux, frameRate: fr)
    var broadband = mel
    for i in 0..<n { broadband[i] += 0.5 * bass[i] }
    var tracking = onsetStrength(features.superFlux, frameRate: fr)
    for i in 0..<n { tracking[i] += 0.5 * mel[i] + 0.75 * bass[i] }
    // The first frames' windows reach back before the file: their rise is the file
    // starting (from silence to whatever it begins with), not an onset.
    for i in 0..<hiddenFrames(features) {
      tracking[i] = 0
      broadband[i] = 0
    }
    return (broadband, tracking, bass)
  }

  /// The first frames, whose analysis windows reach back before the file.
  static func hiddenFrames(_ features: OnsetFeatures) -> Int {
    min(features.count, features.window / max(1, features.hop) + 1)
  }

  /// The share of doubtful beats (confidence below `BeatDetector.lowConfidence`) from which
  /// the beats are taken from the harmony instead, if it has a clear bar period and they
  /// do not fit its bars (`HarmonicBars.beats`). On the evaluation sets (dry, under noise,
  /// in a hall, with a wavering tempo) beats that are right have up to a fifth doubtful
  /// (a polka in a hall, whose beats fit its bars), most under a tenth; the strings
  /// ritardando's, whose beats are not in its onsets and do not fit, 0.19 to 0.40
  /// (bench/beats/README.md).
  static let harmonyShare = 0.15

  /// Where the onset peaking at frame `peak` began. A soft attack (organ, bowed or plucked
  /// strings, a legato chord) swells over tens of milliseconds, its onset strength peaking
  /// late and wavering on the way up, so the peak frame is late:
  /// - when the burst of onset strength around the peak (frames above a fifth of the peak,
  ///   gaps of up to two frames) began after a quiet moment within reach (150 ms or 0.3 of a
  ///   beat), the onset is the burst's first frame;
  /// - otherwise (no quiet before it in reach: a dense texture) only the steep rise counts:
  ///   back over frames above 0.3 of the peak, for at most 80 ms, across dips of a frame or
  ///   two that do not fall silent.
  /// Never earlier than the frame after `previous`.
  static func riseStart(
    of peak: Int, after previous: Int, novelty: [Double], period: Double, frameRate fr: Double
  ) -> Int {
    let height = novelty[peak]
    guard height > 0 else { return peak }
    // The steep rise.
    var rise = peak
    var g = peak
    while g > max(previous + 1, peak - Int(0.08 * fr)) {
      g -= 1
      if novelty[g] >= 0.3 * height {
        rise = g
      } else if height < 1 || rise - g > 2 || novelty[g] < 0.05 * height {
        break
      }
    }
    // The burst, if it began in reach.
    guard height >= 1 else { return rise }
    let floor = max(previous + 1, peak - min(Int(0.15 * fr), Int(0.3 * period)))
    var first = peak
    g = peak
    while g > floor {
      g -= 1
      if novelty[g] >= 0.2 * height {
        first = g
      } else if first - g > 2 {
        return min(rise, first)
      }
    }
    return rise
  }

  /// The beat divides in three when the mean onset strength at a third and two thirds of
  /// the way to the next beat is twice that half-way, and clearly there (swing and
  /// shuffle count too: their off-beat eighth sits on the last third).
  static func dividesInThree(_ beats: [Int], novelty: [Double]) -> Bool {
    guard beats.count > 4 else { return false }
    func strength(at fraction: Double) -> Double {
      var sum = 0.0
      for i in 0..<(beats.count - 1) {
        let f = Int((Double(beats[i]) + fraction * Double(beats[i + 1] - beats[i])).rounded())
        sum += largest(novelty, near: f)
      }
      return sum / Double(beats.count - 1)
    }
    let thirds = (strength(at: 1.0 / 3) + strength(at: 2.0 / 3)) / 2
    return thirds >= 2 * strength(at: 0.5) && thirds >= 0.3
  }

  /// Whether beats with `on` onset and bass support are the off-beats of the music, given
  /// the support half-way between them. The bass (and kick) marks the beat, so far more of
  /// it half-way than on the beats, where there are notes too (at least half the onset
  /// strength of the beats), means the beats are the off-beats (the chords of an
  /// oom-pah). Bass half-way without notes is a low tone swelling on after its note: an
  /// organ hymn in a 2 s reverb has 1.6-1.8 times the bass half-way, but a third of the
  /// onset; an oom-pah polka in the same reverb, tracked on its chords, two thirds
  /// (bench/beats/README.md).
  static func areOffBeats(
    on: (onset: Double, bass: Double), halfway off: (onset: Double, bass: Double)
  ) -> Bool {
    off.bass > 1.5 * on.bass && off.bass >= 1 && off.onset >= 0.5 * on.onset
  }

  /// Mean onset strength and bass onset strength (peaks within 50 ms) at the beats, or
  /// half-way between consecutive beats.
  static func support(
    at beats: [Int], halfway: Bool, novelty: [Double], bass: [Double], frameRate: Double
  )
    -> (onset: Double, bass: Double)
  {
    let n = novelty.count
    let points =
      halfway
      ? (beats.count > 1 ? (0..<(beats.count - 1)).map { (beats[$0] + beats[$0 + 1]) / 2 } : [])
      : beats
    guard !points.isEmpty, n > 0 else { return (0, 0) }
    let reach = max(1, Int(0.05 * frameRate))
    var onset = 0.0
    var low = 0.0
    for f in points {
      let range = max(0, min(n - 1, f - reach))...max(0, min(n - 1, f + reach))
      onset += novelty[range].max() ?? 0
      low += bass[range].max() ?? 0
    }
    return (onset / Double(points.count), low / Double(points.count))
  }

  /// Spectral flux minus its 1 s moving average, half-wave rectified, scaled to unit
  /// standard deviation.
  static func onsetStrength(_ flux: [Float], frameRate: Double) -> [Double] {
    let n = flux.count
    let half = max(1, Int(frameRate / 2))
    var prefix = [Double](repeating: 0, count: n + 1)
    for i in 0..<n { prefix[i + 1] = prefix[i] + Double(flux[i]) }
    var out = [Double](repeating: 0, count: n)
    for i in 0..<n {
      let lo = max(0, i - half)
      let hi = min(n, i + half + 1)
      out[i] = max(0, Double(flux[i]) - (prefix[hi] - prefix[lo]) / Double(2 * half + 1))
    }
    let mean = out.reduce(0, +) / Double(max(1, n))
    let variance = out.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(1, n))
    let sd = variance.squareRoot()
    if sd > 0 { for i in 0..<n { out[i] /= sd } }
    return out
  }

  /// How far a window's period may stray from the one scored, as a fraction of it.
  static let periodTolerance = 0.04

  /// The mean over `windows` (`localPeriodicity`) of each one's peak within
  /// `periodTolerance` of `lag`; nil when there are no windows.
  static func periodStrength(_ windows: [[Double]], lag: Double) -> Double? {
    guard !windows.isEmpty else { return nil }
    let lo = max(1, Int((lag * (1 - periodTolerance)).rounded(.down)))
    let hi = Int((lag * (1 + periodTolerance)).rounded(.up))
    var total = 0.0
    for window in windows where lo < window.count {
      total += window[lo...min(hi, window.count - 1)].max() ?? 0
    }
    return total / Double(windows.count)
  }

  /// Normalised autocorrelations (to `maxLag`) of `x` in windows of `seconds` every half
  /// window; a piece shorter than a window is one window; a window no longer than `maxLag`
  /// is left out.
  static func localPeriodicity(
    _ x: [Double], frameRate: Double, maxLag: Int, seconds: Double = 8
  ) -> [[Double]] {
    let window = Int(seconds * frameRate)
    let hop = max(1, Int(seconds / 2 * frameRate))
    var windows: [[Double]] = []
    var start = 0
    while start < x.count {
      let end = min(x.count, start + window)
      if end - start > maxLag {
        windows.append(autocorrelation(Array(x[start..<end]), maxLag: maxLag))
      }
      if end == x.count { break }
      start += hop
    }
    return windows
  }

  /// Autocorrelation of the mean-removed signal, unbiased, normalised so lag 0 is 1.
  static func autocorrelation(_ x: [Double], maxLag: Int) -> [Double] {
    let n = x.count
    let mean = x.reduce(0, +) / Double(max(1, n))
    let centered = x.map { $0 - mean }
    var ac = [Double](repeating: 0, count: maxLag + 1)
    centered.withUnsafeBufferPointer { c in
      for lag in 0...maxLag where lag < n {
        var sum = 0.0
        for i in 0..<(n - lag) { sum += c[i] * c[i + lag] }
        ac[lag] = sum / Double(n - lag)
      }
    }
    let zero = ac[0]
    if zero > 0 { for i in ac.indices { ac[i] /= zero } }
    return ac
  }

  /// How likely a musician is to count a beat of `lag` frames: a log-Gaussian (0.8 octave:
  /// wide, so a slow ballad's eighth notes do not outweigh its beat) around 125 BPM, or
  /// 95 BPM for dotted quarters.
  static func tempoPrior(lag: Double, frameRate: Double, compound: Bool) -> Double {
    let bpm = 60 * frameRate / lag
    return exp(-0.5 * pow(log2(bpm / (compound ? 95.0 : 125.0)) / 0.8, 2))
  }

  /// The local beat period at every frame: autocorrelation over `lags` in windows of
  /// `seconds` every 0.5 s, each period weighted by `prior` when given (so a window whose onsets repeat at 3/2 of the
  /// beat as well as at the beat does not pull the curve there), the best path through it
  /// by Viterbi (jumps cost, and so does straying from `around`).
  static func tempoCurve(
    _ novelty: [Double], frameRate: Double, around: Double, lags: ClosedRange<Int>,
    prior: ((Double) -> Double)? = nil, seconds: Double = 8
  ) -> [Double] {
    let n = novelty.count
    let states = Array(lags)
    guard states.count > 1 else { return [Double](repeating: around, count: n) }
    let window = Int(seconds * frameRate)
    let step = max(1, Int(frameRate / 2))
    let centers = Array(stride(from: 0, to: n, by: step))
    let longest = states[states.count - 1]
    var segment = [Double]()
    var gram = [[Double]]()
    gram.reserveCapacity(centers.count)
    for c in centers {
      let a = max(0, c - window / 2)
      let b = min(n, c + window / 2)
      let mean = novelty[a..<b].reduce(0, +) / Double(max(1, b - a))
      segment = novelty[a..<b].map { $0 - mean }
      if segment.count < 2 * longest + 1 {
        segment.append(contentsOf: repeatElement(0, count: 2 * longest + 1 - segment.count))
      }
      let length = segment.count
      var row = [Double](repeating: 0, count: states.count)
      segment.withUnsafeBufferPointer { s in
        for (k, lag) in states.enumerated() {
          var one = 0.0
          for i in 0..<(length - lag) { one += s[i] * s[i + lag] }
          var two = 0.0
          for i in 0..<(length - 2 * lag) { two += s[i] * s[i + 2 * lag] }
          row[k] = (prior?(Double(lag)) ?? 1) * (one + 0.5 * two) / Double(length)
        }
      }
      let peak = row.map(abs).max() ?? 0
      if peak > 0 { for k in row.indices { row[k] /= peak } }
      gram.append(row)
    }
    let logs = states.map { log(Double($0)) }
    let home = log(around)
    // A weak pull toward the global level, which only decides where the windows hear no
    // clear period: 0.1 held a 150 BPM jazz waltz at 100, and an accelerando longer at
    // a wrong tempo.
    let bias = logs.map { -0.03 * pow(($0 - home) / 0.25, 2) }
    var score = zip(gram[0], bias).map(+)
    var back = [[Int]](repeating: [], count: centers.count)
    for j in 1..<max(1, centers.count) {
      var next = [Double](repeating: 0, count: states.count)
      var from = [Int](repeating: 0, count: states.count)
      for k in states.indices {
        var best = -Double.infinity
        var arg = 0
        for p in states.indices {
          let d = (logs[k] - logs[p]) / 0.03
          let v = score[p] - 0.5 * d * d
          if v > best {
            best = v
            arg = p
          }
        }
        next[k] = best + gram[j][k] + bias[k]
        from[k] = arg
      }
      score = next
      back[j] = from
    }
    var path = [Int](repeating: 0, count: centers.count)
    path[centers.count - 1] = score.indices.max { score[$0] < score[$1] } ?? 0
    for j in stride(from: centers.count - 1, to: 0, by: -1) { path[j - 1] = back[j][path[j]] }
    // Linear interpolation between window centres.
    var period = [Double](repeating: 0, count: n)
    for i in 0..<n {
      let j = min(centers.count - 1, i / step)
      let t = Double(i - centers[j]) / Double(step)
      let a = Double(states[path[j]])
      let b = j + 1 < centers.count ? Double(states[path[j + 1]]) : a
      period[i] = a + (b - a) * min(1, t)
    }
    return period
  }

  /// Ellis's recursion with a local period: the best chain of beats ending at each frame;
  /// the chain ending best within one period before `end` is traced back.
  static func dynamicProgramming(_ onset: [Double], period: [Double], end: Int) -> [Int] {
    let n = onset.count
    let tightness = 100.0
    var score = [Double](repeating: 0, count: n)
    var previous = [Int](repeating: -1, count: n)
    for t in 0..<n {
      let p = period[t]
      let hi = t - Int(p / 2)
      score[t] = onset[t]
      guard hi >= 0 else { continue }
      let lo = max(0, t - Int(2 * p))
      var best = 0.0
      var arg = -1
      for q in lo...hi {
        let r = log(Double(t - q) / p)
        let v = score[q] - tightness * r * r
        if v > best {
          best = v
          arg = q
        }
      }
      if arg >= 0 {
        score[t] += best
        previous[t] = arg
      }
    }
    let last = min(n - 1, max(0, end))
    let from = max(0, last - Int(period[last]))
    var t = from
    for i in from...last where score[i] > score[t] { t = i }
    var beats = [t]
    while previous[t] >= 0 {
      t = previous[t]
      beats.append(t)
    }
    return beats.reversed()
  }

  /// Per beat: how much the onset at the beat stands out within its own beat span,
  /// times how well its intervals agree with the tempo curve. A beat in the file's first
  /// `hidden` frames (a file that starts loud on a beat) has no onset strength to measure
  /// (`onsetStrengths` zeroes them: their rise is the file starting), so its intervals alone
  /// judge it.
  static func confidence(_ beats: [Int], novelty: [Double], period: [Double], hidden: Int)
    -> [Double]
  {
    let n = novelty.count
    return beats.indices.map { i in
      let b = beats[i]
      let p = period[b]
      let near = novelty[max(0, b - 3)...min(n - 1, b + 3)].max() ?? 0
      let span = novelty[max(0, b - Int(p / 2))...min(n - 1, b + Int(p / 2))].max() ?? 0
      let salience = b < hidden ? 1 : span > 0 ? near / span : 0
      var ratios: [Double] = []
      if i > 0 { ratios.append(Double(b - beats[i - 1]) / p) }
      if i + 1 < beats.count { ratios.append(Double(beats[i + 1] - b) / p) }
      let agreement = ratios.map { exp(-pow(log($0), 2) / (2 * 0.1 * 0.1)) }.min() ?? 0
      return salience.squareRoot() * agreement
    }
  }
}
