import Foundation

/// The knobs of chord recognition, with the values bench/chords.py chose on its tuning half
/// (coordinate descent from the first guesses, 2026-11-28: seventhPenalty 0.03 → 0,
/// changeCost 0.25 → 0.4; majmin 0.989 → 0.993, sevenths 0.952 → 0.966, majmin_inv 0.972
/// there; inversionPenalty 0.2 scored sevenths 0.978 but majmin_inv 0.956, and was not
/// kept). Then on the tune half of a held-out set by another generator (bench/chords-heldout.py,
/// General MIDI through FluidSynth, 2026-12-03): otherPenalty 0.06 → 0.15 (sus chords were
/// heard where a melody's passing note or a root-fifth bass sat on a triad); majmin 0.868 →
/// 0.883 there, 0.880 → 0.899 on its test half, 0.982 → 0.984 on bench/chords.py's. The
/// descent went on to changeCost 0.55, bassWeight 0.25 and inversionPenalty 0.08 (0.902 on
/// the tune half), not kept: a change of bass under one chord (C to C/E) was no longer heard.
/// Scores are cosine similarities (0-1) plus the terms below.
public struct ChordSettings: Sendable, Equatable {
  /// Spectral shape of a note for the decomposition: harmonic h has amplitude decay^(h-1).
  public var harmonicDecay = 0.6
  /// Harmonics in a note's template.
  public var harmonics = 8
  /// Multiplicative-update iterations of the non-negative decomposition.
  public var iterations = 30
  /// Share of each bin's local mean (an octave around it) taken off before decomposing:
  /// broadband sound (drums, noise) out, notes kept.
  public var whitening = 0.9
  /// Weight of the bass term: the share of the bass range's energy on the chord's bass note.
  public var bassWeight = 0.35
  /// Taken off the score of a seventh chord (7, maj7, min7) and of dim, aug, sus.
  public var seventhPenalty = 0.0
  public var otherPenalty = 0.15
  /// Taken off an inversion's score (the bass must say it clearly).
  public var inversionPenalty = 0.12
  /// The score of N (no chord): a chord must sound better than this.
  public var noChord = 0.55
  /// A segment whose power is below this share of the piece's median segment is N.
  public var quiet = 0.01
  /// The cost of changing chord, in score units; at a downbeat, times `downbeatDiscount`.
  public var changeCost = 0.4
  public var downbeatDiscount = 0.5
  /// Without a beat map: the cost of a change between two 46 ms frames.
  public var frameChangeCost = 1.5
  /// Key: weight of the tonic chord's share of the time, and of the first and the last
  /// chord (where the music rests) being it.
  public var tonicWeight = 0.3
  public var firstWeight = 0.2
  public var finalWeight = 0.2

  public init() {}

  /// Sets a knob by its name (`bassWeight=0.4`); false when there is no such knob.
  public mutating func set(_ name: String, _ value: Double) -> Bool {
    switch name {
    case "harmonicDecay": harmonicDecay = value
    case "harmonics": harmonics = max(1, Int(value))
    case "iterations": iterations = max(0, Int(value))
    case "whitening": whitening = value
    case "bassWeight": bassWeight = value
    case "seventhPenalty": seventhPenalty = value
    case "otherPenalty": otherPenalty = value
    case "inversionPenalty": inversionPenalty = value
    case "noChord": noChord = value
    case "quiet": quiet = value
    case "changeCost": changeCost = value
    case "downbeatDiscount": downbeatDiscount = value
    case "frameChangeCost": frameChangeCost = value
    case "tonicWeight": tonicWeight = value
    case "firstWeight": firstWeight = value
    case "finalWeight": finalWeight = value
    default: return false
    }
    return true
  }
}

/// A detected chord track and key.
public struct ChordDetection: Sendable {
  /// Consecutive spans covering the audio, N where no chord sounds.
  public let spans: [ChordSpan]
  /// Nil when no chord was heard.
  public let key: MusicalKey?
  /// The recording's tuning, cents from A = 440 (0 when it could not be measured).
  public let tuningCents: Double
  /// Set when no harmony was heard (drums only, noise): every span is N.
  public let note: String?
  /// Whether the chords were decided per beat of a beat map.
  public let onBeats: Bool

  /// `song.wav: 48 chords (7 different), key Am, on the beats`, as `BeatDetection.summary`.
  public func summary(name: String) -> String {
    let chords = spans.compactMap(\.chord)
    let key = self.key.map { "key \($0)" } ?? "no key"
    let placed = onBeats ? "on the beats" : "on their own times (no beat map)"
    return "\(name): \(chords.count) chords (\(Set(chords).count) different), \(key), \(placed)"
  }
}

/// Why chords could not be found in a file.
public struct ChordDetectionError: PracticeFailure, Equatable {
  public let path: String
  public let reason: String
  public let advice: String
  public var category: FailureCategory { .badData }
  public var description: String { "cannot find the chords of '\(path)': \(reason); \(advice)" }
}

/// Finds the chords and key of a recording, without a learned model, in the manner of
/// Chordino (Mauch & Dixon, 2010):
/// 1. the recording's tuning (`ConcertPitchEstimator`), then a semitone spectrum on that
///    tuning (`NoteSpectrum`, C1-B7, every 46 ms);
/// 2. the frames averaged over each beat of the beat map (a chord changes on a beat), or
///    kept as they are without one;
/// 3. each segment's spectrum whitened (its local mean taken off) and decomposed into
///    notes with harmonic templates by non-negative least squares (multiplicative
///    updates): note saliences without the harmonics that would pass for other notes;
/// 4. a treble chroma (C3-C7) and a bass chroma (E1-B3) from the saliences;
/// 5. each chord of the vocabulary (9 qualities x 12 roots, inversions of the triads and
///    sevenths, N) scored: the treble chroma's cosine with the chord's notes, the bass's
///    share on the chord's bass note, small penalties for rarer chords and inversions;
/// 6. the chord sequence by Viterbi decoding with a cost for every change (less at a
///    downbeat): no flicker.
/// The key is a major or minor key scored by its Temperley profile against the chords'
/// notes, the tonic chord's share of the time, and whether the first and last chords are
/// the tonic.
public enum ChordRecognizer {
  /// The shortest file worth analysing (as beat detection).
  static let minimumSeconds = 3.0

  /// Reads `file` from its start. `beats`: decide chords per beat. `progress` gets 0-1.
  public static func detect(
    file: SoundFile, beats: BeatMap?, settings: ChordSettings = ChordSettings(),
    progress: (Double) -> Void = { _ in }
  ) throws -> ChordDetection {
    let path = file.path
    let info = file.info
    let seconds = Double(info.frames) / Double(max(1, info.sampleRate))
    guard seconds >= minimumSeconds else {
      throw ChordDetectionError(
        path: path,
        reason: String(format: "%.1f s of audio is too short to hear chords in", seconds),
        advice: "it needs at least \(Int(minimumSeconds)) s; import chords with `chords import`")
    }
    var lastReport = -1.0
    func report(_ fraction: Double) {
      if fraction - lastReport >= 0.01 || (fraction == 1 && lastReport < 1) {
        progress(fraction)
        lastReport = fraction
      }
    }
    // The tuning: a third of the work. No steady partials at all: nothing harmonic here.
    try file.seek(to: 0)
    var cents: Double? = nil
    do {
      cents = try ConcertPitchEstimator.estimate(file: file, name: path) { report($0 / 3) }.cents
    } catch let error as PracticeError where error.category == .badData {
      cents = nil
    }
    try file.seek(to: 0)
    let tuned = cents ?? 0
    // Heard at one rate whatever rate the file was converted to (as the tuning was): the same
    // windows and bins for one recording; the segments are in the song's own frames.
    let input = MonoReader(file: file, rate: BeatDetector.analysisRate)
    let spectrum = try NoteSpectrum(
      sampleRate: input.rate, a4: ConcertPitch.offset(cents: tuned))
    let pass = try input.read(
      name: path, progress: { report(1.0 / 3 + 2.0 / 3 * $0) }, spectrum.process)
    let read = pass.frames
    guard pass.peak > 1e-4 else {
      throw ChordDetectionError(
        path: path, reason: "the audio is silent", advice: "check the file")
    }
    let frames = spectrum.finish()
    let total = max(read, info.frames)
    guard cents != nil else {
      return ChordDetection(
        spans: [ChordSpan(start: 0, end: total, chord: nil)], key: nil, tuningCents: 0,
        note: "no steady pitched notes heard (drums, noise?): the whole song is N",
        onBeats: beats != nil)
    }
    // Song frames per sample heard.
    let scale = Double(info.sampleRate) / Double(input.rate)
    let segments = Segments(
      beats: beats, totalFrames: total, hop: Double(spectrum.hop) * scale,
      window: Double(spectrum.window) * scale, frameCount: frames.count / NoteSpectrum.count)
    return recognise(
      frames: frames, segments: segments, totalFrames: total, tuningCents: tuned,
      settings: settings)
  }

  /// The chords and key from a semitone spectrum already computed (tests feed their own).
  static func recognise(
    frames: [Float], segments: Segments, totalFrames: Int64, tuningCents: Double,
    settings: ChordSettings
  ) -> ChordDetection {
    let notes = NoteSpectrum.count
    let salience = NoteSalience(settings: settings)
    // Each segment: its averaged spectrum, decomposed; its chromas and energy.
    var treble: [[Double]] = []
    var bass: [[Double]] = []
    // The loudness of each segment: the weighted median of its frames' power, so that a
    // silence before the music is quiet although the last frames' windows reach into it.
    var power = [Double](repeating: 0, count: frames.count / notes)
    for k in power.indices {
      var sum = 0.0
      for j in 0..<notes { sum += Double(frames[k * notes + j]) * Double(frames[k * notes + j]) }
      power[k] = sum
    }
    let loudness = segments.list.map { segment -> Double in
      let sorted = segment.frames.sorted { power[$0.index] < power[$1.index] }
      let half = sorted.reduce(0) { $0 + $1.weight } / 2
      var seen = 0.0
      for (frame, w) in sorted {
        seen += w
        if seen >= half { return power[frame] }
      }
      return 0
    }
    let typical = loudness.isEmpty ? 0 : loudness.sorted()[loudness.count / 2]
    for segment in segments.list {
      var mean = [Double](repeating: 0, count: notes)
      var weight = 0.0
      for (frame, w) in segment.frames {
        for j in 0..<notes { mean[j] += w * Double(frames[frame * notes + j]) }
        weight += w
      }
      if weight > 0 { for j in 0..<notes { mean[j] /= weight } }
      let h = salience.decompose(mean)
      let (t, b) = NoteSalience.chromas(h)
      treble.append(t)
      bass.append(b)
    }
    let vocabulary = ChordVocabulary.shared
    // Each segment's scores are made as the decoding reaches it (an hour of frames without a
    // beat map would hold 180 MB of them).
    func scores(_ i: Int) -> [Double] {
      var row = vocabulary.score(treble: treble[i], bass: bass[i], settings: settings)
      if loudness[i] <= settings.quiet * typical || treble[i].allSatisfy({ $0 <= 0 }) {
        for k in row.indices { row[k] = 0 }
        row[vocabulary.noChord] = 1
      }
      return row
    }
    let costs = segments.list.map {
      segments.onBeats
        ? settings.changeCost * ($0.downbeat ? settings.downbeatDiscount : 1)
        : settings.frameChangeCost
    }
    let path = Viterbi.decode(
      count: segments.list.count, states: vocabulary.chords.count, scores: scores,
      changeCost: costs)
    var spans: [ChordSpan] = []
    for (i, segment) in segments.list.enumerated() {
      let chord = vocabulary.chords[path[i]]
      if let last = spans.last, last.chord == chord {
        spans[spans.count - 1].end = segment.end
      } else {
        spans.append(ChordSpan(start: segment.start, end: segment.end, chord: chord))
      }
    }
    let heard = spans.contains { $0.chord != nil }
    let key = heard ? KeyEstimator.key(of: spans, settings: settings) : nil
    return ChordDetection(
      spans: spans, key: key, tuningCents: tuningCents,
      note: heard ? nil : "no chord heard (drums, noise?): the whole song is N",
      onBeats: segments.onBeats)
  }
}

/// The spans chords are decided over: the beats of a beat map (and the stretch before the
/// first), or each spectrum frame. Each lists the frames it averages, weighted by how much
/// of the middle half of each frame's window lies inside it. Everything is in the song's
/// frames: the spectrum's `hop` and `window` too, converted from the rate it heard.
struct Segments {
  struct Segment {
    var start: Int64
    var end: Int64
    var downbeat: Bool
    var frames: [(index: Int, weight: Double)]
  }

  let list: [Segment]
  let onBeats: Bool

  init(beats: BeatMap?, totalFrames: Int64, hop: Double, window: Double, frameCount: Int) {
    var bounds: [(start: Int64, downbeat: Bool)] = []
    if let beats, !beats.beats.isEmpty {
      onBeats = true
      // Before the first beat and after the last, beats of the median length: the music
      // may start late and end early (silence is N), and its first and last chords last.
      let frames = beats.beats.map(\.frame).filter { $0 < totalFrames }
      let gaps = zip(frames.dropFirst(), frames).map { $0 - $1 }.sorted()
      let period =
        gaps.isEmpty
        ? Int64(window.rounded()) : max(Int64(hop.rounded()), gaps[gaps.count / 2])
      var before: [Int64] = []
      var t = (frames.first ?? 0) - period
      while t > 0 {
        before.append(t)
        t -= period
      }
      bounds.append((0, false))
      for t in before.reversed() { bounds.append((t, false)) }
      for beat in beats.beats where beat.frame < totalFrames && beat.frame > 0 {
        bounds.append((beat.frame, beat.beat == 1))
      }
      t = (frames.last ?? 0) + period
      while t < totalFrames {
        bounds.append((t, false))
        t += period
      }
    } else {
      onBeats = false
      // Frame k's centre is (k + 1) * hop - window / 2: the boundaries lie half-way.
      var k = 0
      while true {
        let start = Int64(max(0, (Double(k + 1) * hop - window / 2 - hop / 2).rounded()))
        if k > 0 && start >= totalFrames { break }
        bounds.append((k == 0 ? 0 : start, false))
        k += 1
      }
    }
    var list: [Segment] = []
    let quarter = window / 4
    for (i, bound) in bounds.enumerated() {
      let end = i + 1 < bounds.count ? bounds[i + 1].start : totalFrames
      guard end > bound.start else { continue }
      var frames: [(Int, Double)] = []
      // Frames whose middle half overlaps [start, end).
      let first = max(
        0, Int((Double(bound.start) - quarter + window / 2) / hop) - 2)
      let last = min(
        frameCount - 1, Int((Double(end) + quarter + window / 2) / hop))
      if first <= last {
        for k in first...last {
          let centre = Double(k + 1) * hop - window / 2
          let overlap =
            min(Double(end), centre + quarter) - max(Double(bound.start), centre - quarter)
          if overlap > 0 { frames.append((k, overlap / (2 * quarter))) }
        }
      }
      list.append(Segment(start: bound.start, end: end, downbeat: bound.downbeat, frames: frames))
    }
    self.list = list
  }
}

/// Note saliences from a semitone spectrum: each note's harmonics explained by a template
/// (harmonic h at `decay^(h-1)`), found by non-negative least squares with Lee and Seung's
/// multiplicative updates, after the spectrum's local mean is taken off.
struct NoteSalience {
  let settings: ChordSettings
  /// For each note, the bins its template reaches and their amplitudes.
  let templates: [[(bin: Int, amplitude: Double)]]

  init(settings: ChordSettings) {
    self.settings = settings
    let n = NoteSpectrum.count
    templates = (0..<n).map { j in
      (1...settings.harmonics).compactMap { h -> (Int, Double)? in
        let bin = j + Int((12 * log2(Double(h))).rounded())
        return bin < n ? (bin, pow(settings.harmonicDecay, Double(h - 1))) : nil
      }
    }
  }

  /// Note saliences of one spectrum (`NoteSpectrum.count` values).
  func decompose(_ spectrum: [Double]) -> [Double] {
    let n = spectrum.count
    // Whitening: off the mean of the octave around each bin.
    var x = [Double](repeating: 0, count: n)
    var prefix = [Double](repeating: 0, count: n + 1)
    for i in 0..<n { prefix[i + 1] = prefix[i] + spectrum[i] }
    for i in 0..<n {
      let lo = max(0, i - 6)
      let hi = min(n, i + 7)
      let mean = (prefix[hi] - prefix[lo]) / Double(hi - lo)
      x[i] = max(0, spectrum[i] - settings.whitening * mean)
    }
    // Wᵀx, the start and the numerator.
    var numerator = [Double](repeating: 0, count: n)
    for j in 0..<n {
      var s = 0.0
      for t in templates[j] { s += t.amplitude * x[t.bin] }
      numerator[j] = s
    }
    var h = numerator
    var model = [Double](repeating: 0, count: n)
    for _ in 0..<settings.iterations {
      for i in 0..<n { model[i] = 0 }
      for j in 0..<n where h[j] > 0 {
        for t in templates[j] { model[t.bin] += t.amplitude * h[j] }
      }
      for j in 0..<n where h[j] > 0 {
        var d = 0.0
        for t in templates[j] { d += t.amplitude * model[t.bin] }
        h[j] *= numerator[j] / (d + 1e-12)
      }
    }
    return h
  }

  /// Treble (C3 up, fading above C7) and bass (E1 to B3, fading from G3) chroma.
  static func chromas(_ h: [Double]) -> (treble: [Double], bass: [Double]) {
    var treble = [Double](repeating: 0, count: 12)
    var bass = [Double](repeating: 0, count: 12)
    for (j, value) in h.enumerated() where value > 0 {
      let midi = NoteSpectrum.notes.lowerBound + j
      let pc = midi % 12
      treble[pc] += value * ramp(Double(midi), 42, 50) * (1 - ramp(Double(midi), 84, 96))
      bass[pc] += value * ramp(Double(midi), 25, 28) * (1 - ramp(Double(midi), 52, 60))
    }
    return (treble, bass)
  }

  /// 0 below `a`, 1 above `b`, linear between.
  static func ramp(_ x: Double, _ a: Double, _ b: Double) -> Double {
    min(1, max(0, (x - a) / (b - a)))
  }
}

/// The chords recognition chooses among: every detected quality on every root, the
/// inversions of the triads and sevenths (not of aug and sus, whose inversions are other
/// roots' chords), and N last.
struct ChordVocabulary: Sendable {
  let chords: [Chord?]
  let noChord: Int
  /// Each chord's notes as a unit vector over the 12 pitch classes.
  private let templates: [[Double]]

  static let shared = ChordVocabulary()

  init() {
    var chords: [Chord?] = []
    for quality in Chord.Quality.detected {
      for root in 0..<12 {
        chords.append(Chord(root: root, quality: quality))
        if ![.aug, .sus2, .sus4].contains(quality) {
          for bass in quality.intervals.dropFirst() {
            chords.append(Chord(root: root, quality: quality, bass: bass))
          }
        }
      }
    }
    noChord = chords.count
    chords.append(nil)
    self.chords = chords
    templates = chords.map { chord in
      var t = [Double](repeating: 0, count: 12)
      guard let chord else { return t }
      let pcs = chord.pitchClasses
      for pc in pcs { t[pc] = 1 / Double(pcs.count).squareRoot() }
      return t
    }
  }

  /// Every chord's score for one segment's chromas; N's is `settings.noChord`.
  func score(treble: [Double], bass: [Double], settings: ChordSettings) -> [Double] {
    let norm = treble.reduce(0) { $0 + $1 * $1 }.squareRoot()
    let bassTotal = bass.reduce(0, +)
    return chords.indices.map { k in
      guard let chord = chords[k] else { return settings.noChord }
      guard norm > 0 else { return 0 }
      var cosine = 0.0
      for pc in chord.pitchClasses { cosine += treble[pc] * templates[k][pc] }
      cosine /= norm
      let share = bassTotal > 0 ? bass[chord.bassPitchClass] / bassTotal : 0
      var score = cosine + settings.bassWeight * share
      switch chord.quality {
      case .maj, .min: break
      case .dominant7, .maj7, .min7: score -= settings.seventhPenalty
      default: score -= settings.otherPenalty
      }
      if chord.bass != 0 { score -= settings.inversionPenalty }
      return score
    }
  }
}

/// The best path through per-segment scores where staying costs nothing and any change
/// costs `changeCost[i]` (into segment i).
enum Viterbi {
  /// `scores(i)` gives segment i's score for each of `states` states.
  static func decode(
    count: Int, states: Int, scores: (Int) -> [Double], changeCost: [Double]
  ) -> [Int] {
    guard count > 0, states > 0 else { return [] }
    var best = scores(0)
    var back = [UInt16](repeating: 0, count: count * states)
    for i in 1..<max(1, count) {
      var top = 0
      for s in 1..<states where best[s] > best[top] { top = s }
      let switched = best[top] - changeCost[i]
      let row = scores(i)
      for s in 0..<states {
        if best[s] >= switched {
          best[s] += row[s]
          back[i * states + s] = UInt16(s)
        } else {
          best[s] = switched + row[s]
          back[i * states + s] = UInt16(top)
        }
      }
    }
    var state = 0
    for s in 1..<states where best[s] > best[state] { state = s }
    var path = [Int](repeating: 0, count: count)
    for i in stride(from: count - 1, through: 0, by: -1) {
      path[i] = state
      state = Int(back[i * states + state])
    }
    return path
  }
}

/// A song's key from its chords: each of the 24 major and minor keys scored by the
/// correlation of its Temperley (Kostka-Payne) profile with the chords' notes (the bass
/// counted again), weighted by duration, plus the tonic chord's share of the time and a
/// bonus each when the first and the last chord are the tonic chord.
///
/// A profile tells the scale, but a relative major and minor (C major, A minor) share it:
/// Am-F-C-G and C-G-Am-F are the same chords, even the same changes when looped. What tells
/// them apart is where the music rests: a song most often starts and ends on its tonic
/// chord. Both ends count alike; a chord lasting under half the median chord (a ringing
/// release heard as another chord, a pickup) is not where the music rests, and is passed
/// over.
public enum KeyEstimator {
  static let majorProfile = [
    0.748, 0.060, 0.488, 0.082, 0.670, 0.460, 0.096, 0.715, 0.104, 0.366, 0.057, 0.400,
  ]
  static let minorProfile = [
    0.712, 0.084, 0.474, 0.618, 0.049, 0.460, 0.105, 0.747, 0.404, 0.067, 0.133, 0.330,
  ]
  /// How each tonic is spelled: flats where the signature has fewer accidentals.
  static let majorNames = ["C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]
  static let minorNames = ["C", "C#", "D", "Eb", "E", "F", "F#", "G", "G#", "A", "Bb", "B"]

  public static func key(of spans: [ChordSpan], settings: ChordSettings = ChordSettings())
    -> MusicalKey?
  {
    var histogram = [Double](repeating: 0, count: 12)
    var total = 0.0
    for span in spans {
      guard let chord = span.chord else { continue }
      let d = Double(span.end - span.start)
      for pc in chord.pitchClasses { histogram[pc] += d }
      histogram[chord.bassPitchClass] += d
      total += d
    }
    guard total > 0 else { return nil }
    let (first, last) = restingChords(spans)
    var best: (score: Double, tonic: Int, minor: Bool)? = nil
    for minor in [false, true] {
      for tonic in 0..<12 {
        let profile = minor ? minorProfile : majorProfile
        let rotated = (0..<12).map { profile[(($0 - tonic) % 12 + 12) % 12] }
        var score = correlation(histogram, rotated)
        var share = 0.0
        for span in spans {
          if let chord = span.chord, isTonic(chord, tonic: tonic, minor: minor) {
            share += Double(span.end - span.start)
          }
        }
        score += settings.tonicWeight * share / total
        if let first, isTonic(first, tonic: tonic, minor: minor) { score += settings.firstWeight }
        if let last, isTonic(last, tonic: tonic, minor: minor) { score += settings.finalWeight }
        if best == nil || score > best!.score { best = (score, tonic, minor) }
      }
    }
    guard let best else { return nil }
    let name = (best.minor ? minorNames : majorNames)[best.tonic] + (best.minor ? "m" : "")
    return MusicalKey(parsing: name)
  }

  /// The first and the last chord that last at least half the median chord's time.
  static func restingChords(_ spans: [ChordSpan]) -> (first: Chord?, last: Chord?) {
    let chords = spans.filter { $0.chord != nil }
    guard !chords.isEmpty else { return (nil, nil) }
    let lengths = chords.map { $0.end - $0.start }.sorted()
    let least = lengths[lengths.count / 2] / 2
    let lasting = chords.filter { $0.end - $0.start >= least }
    return (lasting.first?.chord, lasting.last?.chord)
  }

  /// Whether `chord` is the key's tonic chord (a major or minor family chord on the tonic).
  static func isTonic(_ chord: Chord, tonic: Int, minor: Bool) -> Bool {
    guard chord.root == tonic else { return false }
    switch chord.quality {
    case .maj, .maj7, .maj6, .maj9: return !minor
    case .min, .min7, .min6, .min9, .minmaj7: return minor
    default: return false
    }
  }

  static func correlation(_ a: [Double], _ b: [Double]) -> Double {
    let n = Double(a.count)
    let ma = a.reduce(0, +) / n
    let mb = b.reduce(0, +) / n
    var num = 0.0
    var da = 0.0
    var db = 0.0
    for i in a.indices {
      num += (a[i] - ma) * (b[i] - mb)
      da += (a[i] - ma) * (a[i] - ma)
      db += (b[i] - mb) * (b[i] - mb)
    }
    return da > 0 && db > 0 ? num / (da * db).squareRoot() : 0
  }
}
