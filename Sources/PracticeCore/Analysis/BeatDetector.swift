import Foundation

/// Why beats could not be found in a file, and what to do about it.
public struct BeatDetectionError: PracticeFailure, Equatable {
  public let path: String
  public let reason: String
  public let advice: String

  public var category: FailureCategory { .badData }

  /// `cannot find the beat of 'x.wav': the audio is silent; …`
  public var description: String { "cannot find the beat of '\(path)': \(reason); \(advice)" }
}

/// How `BeatDetector` finds the beats (bench/beats/README.md measures each).
public enum BeatModel: String, Sendable, CaseIterable {
  /// Two readings of the beat, `BeatTracker`'s on the hand-made onset features and the bar
  /// pointer's over the beat network's activations, the one whose beats the network hears
  /// more (`BeatTracker.networkHearsMore`); `DownbeatFinder` places the bars, hearing the
  /// network's downbeat probability as well (`BeatNetwork`). The default.
  case downbeats
  /// `BeatTracker` and `DownbeatFinder` on the hand-made onset features alone (the default
  /// until 2026-11-26).
  case tracker
  /// `downbeats`, the tracker hearing the network's beat probability too.
  case hybrid
  /// The bar pointer decoding the beat network's activations.
  case network = "net"
  /// The bar pointer with learned rhythmic patterns, held near the tracker's tempo.
  case bar
  /// The bar pointer with learned rhythmic patterns, free.
  case free

  /// Whether the beat network runs (its input bands are computed).
  public var usesNetwork: Bool { self == .downbeats || self == .hybrid || self == .network }

  /// The slowest beat considered unless one is asked for, in BPM. The network decodes
  /// down to 40 BPM (the development corpus's slowest dotted quarters); the tracker's
  /// metrical level was measured worse with 40 than with 50 (bench/beats/README.md), so in
  /// `downbeats` the tracker looks from 50 and the network from 40.
  public var slowestTempo: Double { self == .downbeats || self == .network ? 40 : 50 }

  /// The slowest beat the tracker's own metrical level is looked for at, unless one is
  /// asked for.
  var slowestTrackedTempo: Double { self == .network ? 40 : 50 }
}

/// What `BeatDetector` is asked for.
public struct BeatDetectionOptions: Sendable, Equatable {
  /// Nil: choose 2, 3, 4, 5 or 7 beats a bar. A meter fixes the bar length and only the
  /// downbeats are found; compound meters (6/8, 9/8, 12/8) count dotted quarters.
  public var meter: Meter?
  /// The slowest beat considered, in BPM (the network's decoding); the tracker's level
  /// is looked for from `trackerMinBPM`.
  public var minBPM: Double
  /// The slowest beat the tracker's metrical level is looked for at: `minBPM` when one was
  /// given, else the model's `slowestTrackedTempo`.
  public var trackerMinBPM: Double
  public var maxBPM: Double
  /// The method; the others are kept for comparison (bench/beats).
  public var model: BeatModel
  /// Where to write what the beat network hears (`writeNetworkBands`), for training it.
  public var featureDump: String?
  /// Where the bar pointer writes its observations, for training its patterns.
  public var observationDump: String?
  /// Where to append one JSON line of the map's doubt measures (`MapDoubt.dump`), for
  /// fitting the warning.
  public var doubtDump: String?
  /// Whether and how the song's metrical level is questioned (`LevelChoice`): the
  /// detector's own setting unless the developers' knob says otherwise.
  var levelChoice: LevelChoice.Settings = .standard
  /// How the bars' cues are weighed (`DownbeatFinder.Settings`).
  var downbeatCues = DownbeatFinder.Settings()

  /// `minBPM` nil: the model's `slowestTempo`.
  public init(
    meter: Meter? = nil, minBPM: Double? = nil, maxBPM: Double = 220,
    model: BeatModel = .downbeats, featureDump: String? = nil, observationDump: String? = nil
  ) {
    self.meter = meter
    self.minBPM = minBPM ?? model.slowestTempo
    // Below a low --max-bpm, the tracker's level looks from 1.2 times below it.
    self.trackerMinBPM = minBPM ?? max(self.minBPM, min(model.slowestTrackedTempo, maxBPM / 1.2))
    self.maxBPM = maxBPM
    self.model = model
    self.featureDump = featureDump
    self.observationDump = observationDump
  }

  /// Beats of the map in a bar of `meter`: 6/8 is two dotted quarters, 9/8 three, 12/8 four.
  public static func countedBeats(_ meter: Meter) -> Int {
    isCompound(meter) ? meter.beats / 3 : meter.beats
  }

  static func isCompound(_ meter: Meter) -> Bool {
    meter.unit == 8 && meter.beats % 3 == 0 && meter.beats > 3
  }
}

/// A detected beat map and what to tell the musician about it.
public struct BeatDetection: Sendable {
  /// Source `detected`, with a confidence on every beat.
  public let map: BeatMap
  /// The meter found (or given).
  public let meter: Meter
  /// The range of bar tempi, 5th to 95th percentile, in BPM.
  public let tempoRange: ClosedRange<Double>
  /// Set when the beats are doubtful (no steady pulse, many weak beats).
  public let warning: String?
  /// The beats look right but no beat of the bar stands out: where bar 1 starts is a guess
  /// (`MapDoubt.barsAreAGuess`), never set with `warning`. The face says how to move it.
  public var barsAreAGuess = false

  /// Bars between the first and the last with another number of beats than the meter's
  /// (where two beats were dropped or added): their numbers and beat counts.
  public var oddBars: [(number: Int, beats: Int)] {
    let counted = BeatDetectionOptions.countedBeats(meter)
    return map.bars.dropLast().filter { $0.number >= 1 && $0.beatIndices.count != counted }
      .map { ($0.number, $0.beatIndices.count) }
  }
}

/// Finds beats, bars and downbeats in an audio file. Streams it through aubio in blocks
/// and keeps only about 100 small feature frames a second, so memory stays small for
/// long files. See `BeatTracker` and `DownbeatFinder` for the method.
public enum BeatDetector {
  /// How a warning names detecting again within other tempo limits; the face says it with
  /// its options.
  public static let tempoLimitsWords = "other tempo limits"
  /// Below this, a beat is shown as doubtful (`beats show` marks it).
  public static let lowConfidence = 0.5
  /// The shortest file worth tracking.
  static let minimumSeconds = 3.0
  /// The rate every file is heard at (`MonoResampler`): the features, the network's bands
  /// and the tracker's frames are then the same for one recording whatever rate it was
  /// converted to. Heard at their own rates, the real set's 59 excerpts converted from
  /// 44.1 to 22.05 or 48 kHz changed metrical level in 7-8 of them (bench/beats/README.md,
  /// session 21). 44.1 kHz: the rate of most of what the network was trained on.
  static let analysisRate = 44_100

  /// Reads `path` and detects its beat map. `progress` receives 0-1 as the file is read.
  public static func detect(
    path: String, options: BeatDetectionOptions = BeatDetectionOptions(),
    progress: (Double) -> Void = { _ in }
  ) throws -> BeatDetection {
    try detect(file: SoundFile(path: path), options: options, progress: progress)
  }

  /// Reads `file` from its start and detects its beat map.
  public static func detect(
    file: SoundFile, options: BeatDetectionOptions = BeatDetectionOptions(),
    progress: (Double) -> Void = { _ in }
  ) throws -> BeatDetection {
    let path = file.path
    try file.seek(to: 0)
    let bands = options.model.usesNetwork || options.featureDump != nil
    var pass = try analyse(file, path: path, channel: nil, bands: bands, progress: progress)
    // Channels that cancel when summed (a mono recording with one side's polarity
    // flipped) are heard, but their sum is silent: listen to the first one alone.
    if file.info.channels > 1, pass.mixEnergy < 0.01 * pass.channelEnergy {
      try file.seek(to: 0)
      pass = try analyse(file, path: path, channel: 0, bands: bands, progress: { _ in })
    }
    // The network hears its bands now, and they are dropped before the tracker works.
    prepare(&pass.features, sampleRate: pass.rate, options: options)
    // The map must fit the song as stored: the frames libsndfile reports.
    return try detect(
      features: pass.features, sampleRate: file.info.sampleRate, analysisRate: pass.rate,
      totalFrames: max(pass.frames, file.info.frames), path: path, options: options)
  }

  /// One pass over the file: the features of its channels' mean (or of one channel) at
  /// `analysisRate` (at the file's own rate where libswresample cannot be loaded, or the
  /// rate is too low to analyse), that rate, and the energy of that mix against the
  /// channels' own mean energy. `bands`: the beat network's input bands too.
  private static func analyse(
    _ file: SoundFile, path: String, channel: Int?, bands: Bool, progress: (Double) -> Void
  ) throws -> (
    features: OnsetFeatures, rate: Int, frames: Int64, mixEnergy: Double, channelEnergy: Double
  ) {
    let input = MonoReader(
      file: file, rate: analysisRate, channel: channel, lowest: OnsetAnalyzer.lowestRate)
    let analyzer = try OnsetAnalyzer(sampleRate: input.rate, networkBands: bands)
    let pass = try input.read(name: path, progress: progress, analyzer.process)
    return (analyzer.finish(), input.rate, pass.frames, pass.monoEnergy, pass.channelEnergy)
  }

  /// Detects the beat map from features already computed (tests feed synthetic audio), heard
  /// at `analysisRate` (nil: the song's `sampleRate`), for a song of `totalFrames` at
  /// `sampleRate`.
  public static func detect(
    features: OnsetFeatures, sampleRate: Int, analysisRate: Int? = nil, totalFrames: Int64,
    path: String, options: BeatDetectionOptions
  ) throws -> BeatDetection {
    let heardRate = analysisRate ?? sampleRate
    // A sample of the analysis, as a frame of the song.
    func songFrame(_ sample: Int64) -> Int64 {
      heardRate == sampleRate
        ? sample : Int64((Double(sample) * Double(sampleRate) / Double(heardRate)).rounded())
    }
    let seconds = Double(totalFrames) / Double(sampleRate)
    func failure(_ reason: String, _ advice: String) -> BeatDetectionError {
      BeatDetectionError(path: path, reason: reason, advice: advice)
    }
    guard seconds >= minimumSeconds else {
      throw failure(
        String(format: "%.1f s of audio is too short to find a beat", seconds),
        "it needs at least \(Int(minimumSeconds)) s; make the beat map with `beats grid` or `beats import`"
      )
    }
    var features = features
    prepare(&features, sampleRate: heardRate, options: options)
    let compound = options.meter.map(BeatDetectionOptions.isCompound)
    guard
      let tracked = BeatTracker.track(
        features,
        settings: .init(
          trackerMinBPM: options.trackerMinBPM, networkMinBPM: options.minBPM,
          maxBPM: options.maxBPM,
          compound: compound,
          beatsPerBar: options.meter.map(BeatDetectionOptions.countedBeats), model: options.model,
          observationDump: options.observationDump, levelChoice: options.levelChoice))
    else {
      throw failure("the audio is silent", "check the file, or make the beat map with `beats grid`")
    }
    // Music without a steady beat still gets its best map, its doubtful beats marked and a
    // warning; noise and too little music get none.
    guard !tracked.soundsLikeNoise else {
      throw failure(
        "it sounds like noise or a held sound, with no note or beat standing out",
        "check the file, or make the beat map with `beats grid` or `beats tap`")
    }
    guard tracked.frames.count >= 4 else {
      throw failure(
        "it holds too few beats to make two bars",
        "make the beat map with `beats grid`, `beats tap` or `beats import`")
    }
    let placement =
      tracked.bars.map { bars in
        // The bar pointer's bars: every beat counted on from its first downbeat.
        let m = bars.meter.beats
        let anchor = bars.downbeat
        return DownbeatFinder.Placement(
          beatsPerBar: m, positions: tracked.frames.indices.map { (($0 - anchor) % m + m) % m })
      }
      ?? DownbeatFinder.place(
        beats: tracked.frames, features: features, period: tracked.period,
        beatsPerBar: options.meter.map(BeatDetectionOptions.countedBeats),
        downbeatActivation: tracked.downbeatActivation, settings: options.downbeatCues)
    let m = placement.beatsPerBar
    let found = tracked.compound ? "\(3 * m)/8" : "\(m)/4"
    let meter = options.meter ?? Meter(parsing: found) ?? .common

    // Frames in the source; two beats never share a frame, and none leaves the audio.
    var frames: [Int64] = []
    var confidences: [Double] = []
    var numbers: [Int] = []
    for (i, f) in tracked.frames.enumerated() {
      // Each beat where its attack began; beats that divide the bars the chords change in
      // mark no attack of their own, and keep their frame's centre.
      let frame = songFrame(
        tracked.fromHarmony
          ? features.centre(ofFrame: f)
          : features.attackStart(ofFrame: f))
      guard frame < totalFrames, (frames.last ?? -1) < frame else { continue }
      frames.append(frame)
      confidences.append(tracked.confidence[i])
      numbers.append(placement.positions[i] + 1)
    }
    var beats: [Beat] = []
    var bar = numbers.first == 1 ? 1 : 0
    for i in frames.indices {
      if i > 0 && numbers[i] == 1 { bar += 1 }
      beats.append(
        Beat(
          frame: frames[i], bar: bar, beat: numbers[i], source: .detected,
          confidence: (confidences[i] * 1000).rounded() / 1000))
    }
    let map = try BeatMap(beats: beats, totalFrames: totalFrames, sampleRate: sampleRate)

    let tempi = map.bars.compactMap { map.tempo(ofBar: $0.number) }.sorted()
    let low = tempi.isEmpty ? 0 : tempi[Int(Double(tempi.count - 1) * 0.05)]
    let high = tempi.isEmpty ? 0 : tempi[Int(Double(tempi.count - 1) * 0.95)]
    let weak = confidences.filter { $0 < lowConfidence }.count
    let doubt = MapDoubt.features(of: tracked, positions: placement.positions, features: features)
    let unclear = MapDoubt.warning(doubt, doubtful: weak, beats: confidences.count)
    if let file = options.doubtDump {
      let old = unclearBeat(
        networkHeard: tracked.networkHeard, pulseClarity: tracked.pulseClarity, doubtful: weak,
        beats: confidences.count)
      MapDoubt.dump(
        doubt, path: path, fromHarmony: tracked.fromHarmony,
        heldWarning: !tracked.heldLevel.isEmpty, oldWarning: old != nil,
        networkHeard: tracked.networkHeard, beats: confidences.count, doubtful: weak,
        levelChoice: tracked.levelChoice, to: file)
    }
    var warning: String? = nil
    if tracked.fromHarmony {
      warning =
        "the onsets mark no steady beat, so the beats divide the bars where the chords change "
        + "(\(weak) of \(confidences.count) beats doubtful); check them by ear, the bars marked ? in "
        + "`beats show` first"
    } else {
      warning = unclear
    }
    let held = tracked.heldLevel.map { frames -> ClosedRange<Double> in
      let from = min(seconds, features.seconds(ofFrame: frames.lowerBound, sampleRate: heardRate))
      let to = min(seconds, features.seconds(ofFrame: frames.upperBound, sampleRate: heardRate))
      return from...max(from, to)
    }
    if let words = heldLevel(held) {
      warning = warning.map { "\($0); and \(words)" } ?? words
    }
    var detection = BeatDetection(
      map: map, meter: meter, tempoRange: low...high, warning: warning)
    detection.barsAreAGuess = warning == nil && MapDoubt.barsAreAGuess(doubt)
    return detection
  }

  /// The warning for stretches where the beat was heard at another metrical level on weak
  /// evidence and the song's level was kept (`MetricalLevel.hold`, `holdThreeAgainstTwo`),
  /// or nil when none was.
  static func heldLevel(_ spans: [ClosedRange<Double>]) -> String? {
    guard !spans.isEmpty else { return nil }
    // Overlapping spans (a duple stretch and a stretch three against two) as one.
    var merged: [ClosedRange<Double>] = []
    for span in spans.sorted(by: { $0.lowerBound < $1.lowerBound }) {
      if let last = merged.last, span.lowerBound <= last.upperBound {
        merged[merged.count - 1] = last.lowerBound...max(last.upperBound, span.upperBound)
      } else {
        merged.append(span)
      }
    }
    let times = merged.map { "\(formatTime($0.lowerBound))-\(formatTime($0.upperBound))" }
    return "the beat may be twice, half or 2/3 as fast at "
      + times.joined(separator: ", ")
      + "; the map keeps the song's tempo there, its bars marked ? in `beats show`: check "
      + "them by ear"
  }

  /// The warning the detector gave before `MapDoubt` (session 15), or nil: kept to compare
  /// the two in `PRACTICE_BEAT_DOUBT`'s dump (`old_warning`). Where the beat network hears the
  /// music (`networkHeard`, its mean beat probability at the map's beats), that decides:
  /// below `BeatTracker.clearHearing`. In music it does not hear, the onsets do: a pulse
  /// clarity below 0.15, or more than half the beats doubtful.
  static func unclearBeat(networkHeard: Double?, pulseClarity: Double, doubtful: Int, beats: Int)
    -> String?
  {
    if let heard = networkHeard {
      guard heard < BeatTracker.clearHearing else { return nil }
      return "the beat is unclear (the beat network hears these beats at "
        + "\(String(format: "%.2f", heard)) of 1); check the map by ear, the bars marked ? in "
        + "`beats show` first; if it counts twice or half the tempo, detect again with "
        + BeatDetector.tempoLimitsWords
    }
    guard pulseClarity < 0.15 || doubtful * 2 > beats else { return nil }
    return "the beat is unclear (pulse clarity \(String(format: "%.2f", pulseClarity)), "
      + "\(doubtful) of \(beats) beats doubtful); check the bars marked ? in `beats show` by ear"
  }
}

extension BeatDetector {
  /// Writes the network's bands when asked to (`featureDump`), then, for a model that uses
  /// the network, replaces them with its probabilities (`OnsetFeatures.hearNetwork`). Once
  /// done, doing it again changes nothing.
  static func prepare(
    _ features: inout OnsetFeatures, sampleRate: Int, options: BeatDetectionOptions
  ) {
    if let dump = options.featureDump, !dump.isEmpty, features.networkBands.first?.isEmpty == false
    {
      writeNetworkBands(features, sampleRate: sampleRate, to: dump)
    }
    if options.model.usesNetwork { features.hearNetwork() }
  }

  /// What the beat network hears, for `models/train_network.py`: `PATH` holds
  /// `OnsetFeatures.networkBands` as little-endian 32-bit floats, band-major, and
  /// `PATH.json` the frame count, band count and the frames' time reference (frame `i` is
  /// centred on source frame `(i + 1) * hop - window / 2`). A debugging aid
  /// (`BeatDetectionOptions.featureDump`); failures to write are ignored.
  static func writeNetworkBands(_ features: OnsetFeatures, sampleRate: Int, to path: String) {
    var data = Data()
    for row in features.networkBands {
      row.withUnsafeBufferPointer { data.append(Data(buffer: $0)) }
    }
    try? data.write(to: URL(fileURLWithPath: path))
    let info =
      "{\"frames\": \(features.count), \"bands\": \(features.networkBands.count), "
      + "\"hop\": \(features.hop), \"window\": \(features.window), "
      + "\"sample_rate\": \(sampleRate)}\n"
    try? info.write(toFile: path + ".json", atomically: true, encoding: .utf8)
  }
}

extension Sequence<Beat> {
  /// True when the beats are as detection left them: every one detected, with its
  /// confidence (edits clear confidences). Such a map may be detected again without
  /// `--replace`.
  public var areAsDetected: Bool {
    allSatisfy { $0.source == .detected && $0.confidence != nil }
  }
}

extension BeatMap {
  /// The lowest confidence among a bar's beats, nil when none has one.
  public func lowestConfidence(ofBar number: Int) -> Double? {
    guard let bar = bar(number) else { return nil }
    return beats[bar.beatIndices].compactMap(\.confidence).min()
  }
}
