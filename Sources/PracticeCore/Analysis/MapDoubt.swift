import Foundation

/// How likely a detected map is poor (beat F below 0.8 against the truth, or another
/// metrical level or phase than a reference tracker's on released music), from what the
/// detector heard: a logistic regression over a few standardised measures of the map
/// (`Features`), fitted by bench/beats/warning_fit.py on tuning data only
/// (`MapDoubtModel.swift` holds its coefficients and provenance). Above
/// `MapDoubtModel.threshold`, or where the network hears the map's beats more faintly than
/// `MapDoubtModel.faintHearing`, the musician is warned that the beat is unclear.
struct MapDoubt {
  /// Measures of one map, each cheap to compute from what detection already has.
  struct Features: Equatable {
    /// Whether the network hears the music (`TrackedBeats.networkHeard` is set).
    var networkListens = 0.0
    /// The network's mean beat probability at the map's beats (0 without the network).
    var heardAtBeats = 0.0
    /// Its mean beat probability half-way between consecutive beats.
    var heardBetween = 0.0
    /// Its mean downbeat probability at the map's downbeats less at its other beats.
    var downbeatContrast = 0.0
    /// The spread of the beat intervals: median absolute log ratio of consecutive ones.
    var tempoWobble = 0.0
    /// Share of beats whose confidence is below `BeatDetector.lowConfidence`.
    var doubtfulShare = 0.0
    /// Mean beat confidence.
    var meanConfidence = 0.0
    /// Onset and bass strength half-way between the beats over at them (the other
    /// metrical level's, or the off-beats', evidence).
    var halfwayOnsets = 0.0
    /// Height of the strongest periodicity in the onsets (`TrackedBeats.pulseClarity`).
    var pulseClarity = 0.0
    /// Share of beats where the level was held on weak evidence (`TrackedBeats.heldLevel`).
    var heldShare = 0.0
    /// log2 of the median tempo over 100 BPM.
    var tempoOctave = 0.0

    /// The measures by name, in the order the JSON dump and the fit use.
    var named: [(StaticString, Double)] {
      [
        ("network_listens", networkListens), ("heard_at_beats", heardAtBeats),
        ("heard_between", heardBetween), ("downbeat_contrast", downbeatContrast),
        ("tempo_wobble", tempoWobble), ("doubtful_share", doubtfulShare),
        ("mean_confidence", meanConfidence), ("halfway_onsets", halfwayOnsets),
        ("pulse_clarity", pulseClarity), ("held_share", heldShare),
        ("tempo_octave", tempoOctave),
      ]
    }

    subscript(name: String) -> Double? { named.first { "\($0.0)" == name }?.1 }
  }

  /// The measures of `tracked`'s beats (analysis frames), `positions` their places in
  /// the bar (0 the downbeat).
  static func features(
    of tracked: TrackedBeats, positions: [Int], features: OnsetFeatures
  ) -> Features {
    var out = Features()
    let beats = tracked.frames
    let n = beats.count
    guard n >= 2 else { return out }
    let midpoints = (0..<(n - 1)).map { (beats[$0] + beats[$0 + 1]) / 2 }
    out.networkListens = tracked.networkHeard == nil ? 0 : 1
    if features.heardNetwork {
      out.heardAtBeats = BeatTracker.heard(beats, activation: features.beatActivation)
      out.heardBetween = BeatTracker.heard(midpoints, activation: features.beatActivation)
    }
    let downbeats = features.downbeatActivation
    if downbeats.count == features.count, positions.count == n {
      var on = (sum: 0.0, count: 0)
      var off = (sum: 0.0, count: 0)
      for (b, p) in zip(beats, positions) {
        let v = BeatTracker.largest(downbeats, near: b)
        if p == 0 { on = (on.sum + v, on.count + 1) } else { off = (off.sum + v, off.count + 1) }
      }
      if on.count > 0, off.count > 0 {
        out.downbeatContrast = on.sum / Double(on.count) - off.sum / Double(off.count)
      }
    }
    let intervals = (0..<(n - 1)).map { Double(max(1, beats[$0 + 1] - beats[$0])) }
    if intervals.count >= 2 {
      let ratios = (0..<(intervals.count - 1)).map { abs(log(intervals[$0 + 1] / intervals[$0])) }
        .sorted()
      out.tempoWobble = ratios[ratios.count / 2]
    }
    let median = intervals.sorted()[intervals.count / 2]
    out.tempoOctave = log2(60 * features.frameRate / median / 100)
    let doubtful = tracked.confidence.filter { $0 < BeatDetector.lowConfidence }.count
    out.doubtfulShare = Double(doubtful) / Double(max(1, tracked.confidence.count))
    out.meanConfidence =
      tracked.confidence.reduce(0, +) / Double(max(1, tracked.confidence.count))
    let (_, novelty, bass) = BeatTracker.onsetStrengths(features)
    let on = BeatTracker.support(
      at: beats, halfway: false, novelty: novelty, bass: bass, frameRate: features.frameRate)
    let off = BeatTracker.support(
      at: beats, halfway: true, novelty: novelty, bass: bass, frameRate: features.frameRate)
    out.halfwayOnsets = (off.onset + off.bass) / max(1e-6, on.onset + on.bass)
    out.pulseClarity = tracked.pulseClarity
    let held = beats.filter { b in tracked.heldLevel.contains { $0.contains(b) } }.count
    out.heldShare = Double(held) / Double(n)
    return out
  }

  /// The probability that the map is poor: the logistic model of `MapDoubtModel`.
  static func probability(_ features: Features) -> Double {
    var z = MapDoubtModel.intercept
    for term in MapDoubtModel.terms {
      let x = features[term.name] ?? 0
      z += term.weight * (x - term.mean) / term.scale
    }
    return 1 / (1 + exp(-z))
  }

  /// Whether the map is doubtful enough to warn of.
  static func warns(_ features: Features) -> Bool {
    probability(features) >= MapDoubtModel.threshold
      || (features.networkListens > 0 && features.heardAtBeats < MapDoubtModel.faintHearing)
  }

  /// Below this, the network's downbeat probability at the map's downbeats over that at its
  /// other beats (`Features.downbeatContrast`): the bar lines are a guess. Chosen on the
  /// tuning data (the corpus's tuning halves and the released tracks' tuning half), among
  /// maps not warned of: at 0.1 the line is shown for 10 of 170, 4 of them with the beats
  /// right and the downbeats wrong (of 9 such), 1 with the beats wrong, 5 right; at 0.15 for
  /// 18 (7, 3, 8). On the test halves and the second generator's set, at 0.1, it is shown for
  /// 27 of 241: 7 with the downbeats wrong (of 9), 12 with the beats wrong, 8 right
  /// (bench/beats/session18/bars_guess.py).
  static let guessedBars = 0.1

  /// Whether the map's bar lines are a guess: the network heard the music, and its downbeat
  /// probability marks the map's downbeats hardly more than the other beats.
  static func barsAreAGuess(_ features: Features) -> Bool {
    features.networkListens > 0 && features.downbeatContrast < guessedBars
  }

  /// The warning for a doubtful map, or nil: what to check, in the musician's words.
  static func warning(_ features: Features, doubtful: Int, beats: Int) -> String? {
    guard warns(features) else { return nil }
    let marked =
      doubtful > 0
      ? ", the bars marked ? in `beats show` first (\(doubtful) of \(beats) beats doubtful)" : ""
    return "the beat is unclear; check the map by ear\(marked); if it counts twice or half the "
      + "tempo, detect again with " + BeatDetector.tempoLimitsWords
  }

  /// Appends one JSON line of `features` (and the old warning's inputs) to `file`: the
  /// developers' knob `PRACTICE_BEAT_DOUBT`, for bench/beats/warning_fit.py. Failures to
  /// write are ignored.
  static func dump(
    _ features: Features, path: String, fromHarmony: Bool, heldWarning: Bool, oldWarning: Bool,
    networkHeard: Double?, beats: Int, doubtful: Int, levelChoice: LevelChoice.Outcome?,
    to file: String
  ) {
    var out = JSONWriter()
    out.object { o in
      o.field("path", path)
      o.field("name", (path as NSString).lastPathComponent)
      o.field("from_harmony", fromHarmony)
      o.field("held_warning", heldWarning)
      o.field("old_warning", oldWarning)
      o.field("network_heard", networkHeard)
      o.field("beats", beats)
      o.field("doubtful", doubtful)
      o.field("probability", probability(features))
      for (name, value) in features.named { o.field(name, value.isFinite ? value : 0) }
      // What the song's level choice measured (`LevelChoice`), where it ran.
      o.field("level_up_network", levelChoice?.up?.network)
      o.field("level_up_onsets", levelChoice?.up?.onsets)
      o.field("level_down_network", levelChoice?.down?.network)
      o.field("level_down_onsets", levelChoice?.down?.onsets)
      o.field("level_three_two_network", levelChoice?.threeTwo?.network)
      o.field("level_three_two_onsets", levelChoice?.threeTwo?.onsets)
      o.field("level_three_network", levelChoice?.three?.network)
      o.field("level_three_onsets", levelChoice?.three?.onsets)
      o.field("level_moved", levelChoice?.factor)
    }
    out.newline()
    let data = Data(out.text.utf8)
    if !FileManager.default.fileExists(atPath: file) {
      _ = FileManager.default.createFile(atPath: file, contents: nil)
    }
    guard let handle = FileHandle(forWritingAtPath: file) else { return }
    defer { try? handle.close() }
    _ = try? handle.seekToEnd()
    try? handle.write(contentsOf: data)
  }
}
