import Foundation

/// One metrical level through a steady song (issue 41). A decoding may slide from one level
/// to another part-way through a song whose tempo never changed (120 → 60 BPM where the
/// hi-hat stops): the bar pointer's tempo may change by up to 15 % a beat, so an octave
/// costs it only a few such steps, and the tracker's tempo curve may move as far. So the
/// song's level is decided over the whole song, the reading decoded again held there
/// (`hold`), and a switch is kept only where the evidence for the new level is strong over
/// the stretch; where it is weak the map keeps the song's level and the stretch is doubtful.
enum MetricalLevel {
  /// Seconds of beats before and after a beat that a switch is judged on.
  static let window = 10.0
  /// A change of the median beat interval by this ratio, either way, between the `window`
  /// before a beat and the one after it is a level switch: twice or half the tempo, as
  /// against a ritardando to 0.6 of the tempo (1.67) or a step change of tempo (1.25, the
  /// development corpus's).
  static let duple: ClosedRange<Double> = 1.7...2.4
  /// A stretch of at least a `window` whose tempo is within this ratio of 3/2 or 2/3 of the
  /// song's own tempo is at another level: three beats in the time of two (a shuffle's
  /// dotted beat against its straight one, 70 → 47 BPM in a blues). It slides there and
  /// back over several seconds, too slowly for `switches`' two neighbouring windows to see
  /// a jump, so it is measured against the song's tempo, its median beat interval.
  static let threeAgainstTwo = 1.06
  /// Strong evidence, over a stretch where the readings differ by a level: the faster
  /// reading's beats that the slower one lacks are heard at least this much against the
  /// beats both share (for the faster level), or at most `1 - strong` (for the slower).
  /// Half-way from the neutral 0.5 (the duple-level test of bench/beats/README.md, session
  /// 9) to either end; not tuned.
  static let strong = 0.75
  /// Beats within this many seconds of each other are the same beat (the evaluation's
  /// tolerance).
  static let sameBeat = 0.07
  /// The confidence at most of a beat where the level was held on weak evidence: doubtful
  /// (`BeatDetector.lowConfidence`), so `beats show` marks its bar.
  static let doubtful = BeatDetector.lowConfidence / 2

  /// A period curve (per frame) smoothed to its median over `window`, taken every half
  /// second: the slide between two levels smoothed out.
  static func smoothed(_ curve: [Double], frameRate fr: Double) -> [Double] {
    let n = curve.count
    guard n > 0 else { return [] }
    let step = max(1, Int(fr / 2))
    let reach = Int(window / 2 * fr) / step
    let grid = stride(from: 0, to: n, by: step).map { curve[$0] }
    let smooth = grid.indices.map { g -> Double in
      let part = grid[max(0, g - reach)...min(grid.count - 1, g + reach)].sorted()
      return part[part.count / 2]
    }
    return (0..<n).map { smooth[min(smooth.count - 1, $0 / step)] }
  }

  /// A level switch: the beat where it happens, and the tempo after over the tempo before.
  struct Switch: Equatable {
    var index: Int
    var ratio: Double
  }

  /// Where the metrical level of `beats` (in frames at `frameRate`) jumps by about twice or
  /// half and stays: the median interval of the `window` after a beat against that of the
  /// `window` before it is within `duple`, either way. Of a run of beats that all pass, the
  /// one where the ratio of the mean intervals is furthest from 1 (the medians' ratio is flat
  /// around a sharp switch); the next is looked for a `window` on. bench/beats/real-set.py
  /// counts switches the same way.
  static func switches(_ beats: [Int], frameRate fr: Double) -> [Switch] {
    guard beats.count >= 8 else { return [] }
    let span = window * fr
    // The tempo after beat k over the tempo before it, by the median intervals and by the
    // means.
    func ratio(_ k: Int) -> (median: Double, mean: Double) {
      let t = Double(beats[k])
      var before: [Double] = []
      var after: [Double] = []
      var j = k
      while j > 0, Double(beats[j - 1]) >= t - span {
        before.append(Double(beats[j] - beats[j - 1]))
        j -= 1
      }
      j = k
      while j + 1 < beats.count, Double(beats[j + 1]) <= t + span {
        after.append(Double(beats[j + 1] - beats[j]))
        j += 1
      }
      guard before.count >= 3, after.count >= 3 else { return (1, 1) }
      let mean = before.reduce(0, +) / Double(before.count) * Double(after.count)
        / after.reduce(0, +)
      return (median(before) / median(after), mean)
    }
    func isSwitch(_ r: Double) -> Bool { duple.contains(max(r, 1 / r)) }
    let first = Double(beats[0])
    let last = Double(beats[beats.count - 1])
    var found: [Switch] = []
    var i = 1
    while i < beats.count - 1 {
      let t = Double(beats[i])
      guard t - first >= span, last - t >= span else {
        i += 1
        continue
      }
      let r = ratio(i)
      guard isSwitch(r.median) else {
        i += 1
        continue
      }
      var best = (index: i, ratio: r)
      var k = i + 1
      while k < beats.count - 1, last - Double(beats[k]) >= span {
        let rk = ratio(k)
        guard isSwitch(rk.median) else { break }
        if abs(log(rk.mean)) > abs(log(best.ratio.mean)) { best = (k, rk) }
        k += 1
      }
      found.append(Switch(index: best.index, ratio: best.ratio.median))
      let next = Double(beats[best.index]) + span
      i = beats.firstIndex { Double($0) >= next } ?? beats.count
    }
    return found
  }

  /// A reading of the beat: its beats and the beat period at every frame, in frames.
  struct Reading {
    var beats: [Int]
    var period: [Double]
  }

  /// A reading held at one level.
  struct Held {
    var reading: Reading
    /// The frames where the level was held on weak evidence: their beats are doubtful.
    var doubtful: [ClosedRange<Int>]
    /// The frames where a switch was kept, on strong evidence.
    var switched: [ClosedRange<Int>]
  }

  /// `free` held at the song's metrical level, or nil when it has no level switch (or all
  /// its switches have strong evidence, or the held decoding fails).
  ///
  /// `decode` reads the beat again with its period held near the given curve (per frame:
  /// `free`'s period moved to one level, a running median over `window`), at each of the
  /// two levels `free` counts at; the song's level is decided over the whole song by the
  /// duple-level test (the faster where its own beats are heard at least half as much as
  /// the beats both readings share; with three levels, the one held longest). Over each
  /// stretch at another level, the
  /// faster of the two readings' beats that the slower lacks are heard (`hearing`: the
  /// mean of what is heard at those frames) against the beats both share: at least
  /// `strong` for the faster level, at most `1 - strong` for the slower, and the switch is
  /// kept; between the two the song's level is kept and the stretch is doubtful; clearly
  /// for the song's level, it is kept and not doubtful.
  static func hold(
    _ free: Reading, frameRate fr: Double, hearing: ([Int]) -> Double,
    decode: ([Double]) -> Reading?
  ) -> Held? {
    let found = switches(free.beats, frameRate: fr)
    guard !found.isEmpty, !free.period.isEmpty else { return nil }
    let beats = free.beats
    let n = free.period.count
    // Each stretch: its first beat and its level in octaves from the first (+1: twice the
    // tempo).
    var starts = [0]
    var octaves = [0]
    for s in found {
      starts.append(s.index)
      octaves.append(octaves[octaves.count - 1] + (s.ratio > 1 ? 1 : -1))
    }
    func frames(ofStretch k: Int) -> ClosedRange<Int> {
      let lo = k == 0 ? 0 : min(n - 1, beats[starts[k]])
      let hi = k + 1 < starts.count ? max(lo, min(n - 1, beats[starts[k + 1]] - 1)) : n - 1
      return lo...hi
    }
    // The period to hold near at a level: free's moved there, its median over a window
    // every half second (the slide between two levels smoothed out).
    func near(_ level: Int) -> [Double] {
      var folded = free.period
      for k in starts.indices {
        let factor = pow(2, Double(octaves[k] - level))
        for f in frames(ofStretch: k) { folded[f] *= factor }
      }
      return smoothed(folded, frameRate: fr)
    }
    let tolerance = Int((sameBeat * fr).rounded())
    // Of two readings a level apart, how much the faster one's own beats are heard against
    // the beats both share; nil when either set is empty or unheard.
    func heardBeyond(_ a: [Int], _ b: [Int]) -> Double? {
      let (faster, slower) = a.count >= b.count ? (a, b) : (b, a)
      var extra: [Int] = []
      var shared: [Int] = []
      for x in faster {
        if slower.contains(where: { abs($0 - x) <= tolerance }) {
          shared.append(x)
        } else {
          extra.append(x)
        }
      }
      guard !extra.isEmpty, !shared.isEmpty else { return nil }
      let base = hearing(shared)
      return base > 0 ? hearing(extra) / base : nil
    }
    // The song's level, decided over the whole song: of the two levels free counts at, the
    // faster where its own beats are heard at least half as much as the beats both share
    // (the duple-level test, bench/beats/README.md session 9), else the slower. Three
    // levels or more: the one held longest.
    let levels = Set(octaves).sorted()
    var song = 0
    var held = free
    if levels.count == 2 {
      guard let slow = decode(near(levels[0])), let fast = decode(near(levels[1])),
        slow.beats.count >= 2, fast.beats.count >= 2
      else { return nil }
      let faster = (heardBeyond(fast.beats, slow.beats) ?? 0) >= 0.5
      song = faster ? levels[1] : levels[0]
      held = faster ? fast : slow
    } else {
      var time: [Int: Int] = [:]
      for k in starts.indices { time[octaves[k], default: 0] += frames(ofStretch: k).count }
      guard
        let longest = time.max(by: { ($0.value, -abs($0.key)) < ($1.value, -abs($1.key)) })?.key,
        let reading = decode(near(longest)), reading.beats.count >= 2
      else { return nil }
      song = longest
      held = reading
    }

    var doubtful: [ClosedRange<Int>] = []
    var switched: [ClosedRange<Int>] = []
    for k in starts.indices where octaves[k] != song {
      let range = frames(ofStretch: k)
      guard
        let heard = heardBeyond(
          beats.filter { range.contains($0) }, held.beats.filter { range.contains($0) })
      else {
        doubtful.append(range)
        continue
      }
      // free counts faster than the song here (its level above it) or slower.
      let freeFaster = octaves[k] > song
      let forSwitch = freeFaster ? heard >= strong : heard <= 1 - strong
      let forSong = freeFaster ? heard <= 1 - strong : heard >= strong
      if forSwitch {
        switched.append(range)
      } else if !forSong {
        doubtful.append(range)
      }
    }
    if switched.count == starts.indices.filter({ octaves[$0] != song }).count { return nil }
    guard !switched.isEmpty else {
      return Held(reading: held, doubtful: doubtful, switched: [])
    }
    // The held reading, with free's beats and period where a switch was kept.
    return Held(
      reading: splice(held, with: free, over: switched), doubtful: doubtful, switched: switched)
  }

  /// `base` with `other`'s beats and period over `ranges` (frames); a beat closer than half
  /// a period to the one before it (at a seam) is dropped.
  static func splice(_ base: Reading, with other: Reading, over ranges: [ClosedRange<Int>])
    -> Reading
  {
    func inside(_ f: Int) -> Bool { ranges.contains { $0.contains(f) } }
    let spliced = (base.beats.filter { !inside($0) } + other.beats.filter(inside)).sorted()
    var period = base.period
    for range in ranges { for f in range { period[f] = other.period[f] } }
    var tidy: [Int] = []
    for b in spliced where tidy.last.map({ Double(b - $0) >= 0.5 * period[b] }) ?? true {
      tidy.append(b)
    }
    return Reading(beats: tidy, period: period)
  }

  /// The median of `x` (of an even count, the mean of the middle two); 0 when empty.
  static func median(_ x: [Double]) -> Double {
    guard !x.isEmpty else { return 0 }
    let s = x.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
  }

  /// A stretch of beats three against two to the song's tempo: its beats (indices into the
  /// reading's) from where the tempo leaves the song's to where it comes back, and whether
  /// it is faster (three beats in the time of the song's two) or slower.
  struct Stretch: Equatable {
    var beats: ClosedRange<Int>
    var faster: Bool
  }

  /// The stretches of `beats` whose tempo (the median interval of the `window` around each
  /// beat) is within `threeAgainstTwo` of 3/2 or 2/3 of the song's for at least a `window`,
  /// each widened over the slide to it and back: to the nearest beats either side whose
  /// tempo is within `threeAgainstTwo` of the song's. Only stretches with the song's tempo
  /// on both sides (a steady song), and none within a `window` of a duple switch
  /// (`switches`), which `hold` judges.
  static func threeAgainstTwoStretches(_ beats: [Int], frameRate fr: Double) -> [Stretch] {
    guard beats.count >= 8 else { return [] }
    let half = window / 2 * fr
    let song = median(zip(beats.dropFirst(), beats).map { Double($0 - $1) })
    guard song > 0 else { return [] }
    let near = log(threeAgainstTwo)
    // Each beat's tempo over the song's (nil: too few beats around it).
    var lo = 0
    var hi = 0
    let tempo = beats.indices.map { i -> Double? in
      let t = Double(beats[i])
      while Double(beats[lo]) < t - half { lo += 1 }
      while hi + 1 < beats.count, Double(beats[hi + 1]) <= t + half { hi += 1 }
      guard hi - lo >= 4 else { return nil }
      return song / median((lo..<hi).map { Double(beats[$0 + 1] - beats[$0]) })
    }
    func label(_ i: Int) -> Int {
      guard let r = tempo[i] else { return 0 }
      return abs(log(r / 1.5)) < near ? 1 : abs(log(r * 1.5)) < near ? -1 : 0
    }
    func atSong(_ i: Int) -> Bool { tempo[i].map { abs(log($0)) < near } ?? false }
    let span = window * fr
    let duple = switches(beats, frameRate: fr).map { Double(beats[$0.index]) }
    var found: [Stretch] = []
    var i = 0
    while i < beats.count {
      let kind = label(i)
      guard kind != 0 else {
        i += 1
        continue
      }
      var j = i
      while j + 1 < beats.count, label(j + 1) == kind { j += 1 }
      if Double(beats[j] - beats[i]) >= span {
        var (first, last) = (i, j)
        while first > 0, !atSong(first - 1) { first -= 1 }
        while last + 1 < beats.count, !atSong(last + 1) { last += 1 }
        let (start, end) = (Double(beats[first]), Double(beats[last]))
        // The song's tempo on both sides: a steady song, read at another level in between
        // (at the start or the end it may be the music that changes tempo).
        if first > 0, last + 1 < beats.count,
          !duple.contains(where: { $0 >= start - span && $0 <= end + span }),
          found.last.map({ $0.beats.upperBound < first }) ?? true
        {
          found.append(Stretch(beats: first...last, faster: kind == 1))
        }
        j = max(j, last)
      }
      i = j + 1
    }
    return found
  }

  /// `free` held at the song's tempo over its stretches three against two to it
  /// (`threeAgainstTwoStretches`), or nil when it has none (or every one has strong
  /// evidence, or the held decoding fails). `decode` reads the beat again near a period
  /// curve: `free`'s, and over each stretch the line from the song's beat interval before
  /// it (the median of the `window` before) to the one after it. Over each stretch, the
  /// beats of each reading that the other lacks are heard against each other (`hearing`):
  /// free's at least `strong / (1 - strong)` times as much
  /// as the song's keeps free's beats there; at most the inverse, the song's; between the
  /// two, the song's, doubtful.
  static func holdThreeAgainstTwo(
    _ free: Reading, frameRate fr: Double, hearing: ([Int]) -> Double,
    decode: ([Double]) -> Reading?
  ) -> Held? {
    let stretches = threeAgainstTwoStretches(free.beats, frameRate: fr)
    let n = free.period.count
    guard !stretches.isEmpty, n > 0 else { return nil }
    let beats = free.beats
    // A stretch's frames: from the beat before it to the beat after it, at the song's tempo.
    func frames(_ stretch: Stretch) -> ClosedRange<Int> {
      let lo = min(n - 1, beats[max(0, stretch.beats.lowerBound - 1)])
      return lo...max(lo, min(n - 1, beats[min(beats.count - 1, stretch.beats.upperBound + 1)]))
    }
    // The song's tempo either side of a stretch: the median interval of the `window` of
    // beats before it and of the `window` after it (with too few beats, the other side's,
    // or the song's).
    let span = window * fr
    let song = median(zip(beats.dropFirst(), beats).map { Double($0 - $1) })
    func tempo(_ k: ClosedRange<Int>) -> Double? {
      let local = k.count >= 4 ? median(k.dropFirst().map { Double(beats[$0] - beats[$0 - 1]) }) : 0
      return local > 0 ? local : nil
    }
    var near = free.period
    for stretch in stretches {
      let range = frames(stretch)
      let (first, last) = (stretch.beats.lowerBound, stretch.beats.upperBound)
      let from = beats.firstIndex { Double($0) >= Double(beats[first]) - span } ?? first
      let to = beats.lastIndex { Double($0) <= Double(beats[last]) + span } ?? last
      let before = tempo(from...first)
      let after = tempo(last...to)
      let (a, b) = (before ?? after ?? song, after ?? before ?? song)
      let length = Double(max(1, range.count - 1))
      for f in range { near[f] = a + (b - a) * Double(f - range.lowerBound) / length }
    }
    guard let held = decode(near), held.beats.count >= 2 else { return nil }
    let tolerance = Int((sameBeat * fr).rounded())
    func own(_ a: [Int], against b: [Int]) -> [Int] {
      LevelChoice.split(a, by: b, tolerance: tolerance).own
    }
    var doubtful: [ClosedRange<Int>] = []
    var replaced: [ClosedRange<Int>] = []
    for stretch in stretches {
      let range = frames(stretch)
      let (mine, songs) = (
        beats.filter { range.contains($0) }, held.beats.filter { range.contains($0) }
      )
      let (ownFree, ownSong) = (own(mine, against: songs), own(songs, against: mine))
      let base = ownSong.isEmpty ? 0 : hearing(ownSong)
      guard !ownFree.isEmpty, base > 0 else {
        replaced.append(range)
        doubtful.append(range)
        continue
      }
      let heard = hearing(ownFree) / base
      if heard >= strong / (1 - strong) { continue }
      replaced.append(range)
      if heard > (1 - strong) / strong { doubtful.append(range) }
    }
    guard !replaced.isEmpty else { return nil }
    // Free's beats and period outside the stretches replaced, the held reading's inside.
    return Held(
      reading: splice(free, with: held, over: replaced), doubtful: doubtful, switched: [])
  }
}

/// The song's metrical level, questioned on every song (issue 41: no half-tempo reading
/// where the beats it skips are as strong as the ones it keeps). `MetricalLevel.hold` only
/// asks which level a song counts at where its reading switches level part-way; a song read
/// at half the tempo throughout never meets that question. `choose` asks it of every song
/// whose reading keeps one level: the reading is decoded again held at twice its tempo, and
/// at half of it, within the tempo range allowed, and the duple-level test of
/// `MetricalLevel.hold` decides between each pair of levels a duple apart: the faster where
/// the beats only it has are heard at least `up` as much as the beats both share (the
/// reading moves up a level), or the slower where the reading's own beats that the slower
/// lacks are heard less than `down` as much (it moves down).
///
/// What is "heard" (`Hearing`): the beat network's beat probability at the beats, the onset
/// and bass strength there, or both (the smaller of the two ratios). The onsets alone cannot
/// be trusted: a song with 8th-note hi-hats has its 8ths as loud as its quarters, and the
/// quarters are its beat; the network, trained to fire on beats and not on their
/// subdivisions, hears those 8ths little. A record whose producer counts the hi-hat's level
/// has the network firing there too.
///
/// Measured (bench/beats/README.md, session 15), moving up only: at the right level on the
/// development corpus's tuning half (clean renders) the network hears twice the tempo's own
/// beats at a median 0.006 of the shared ones (at most 0.54, one piece), the onsets at 0.12
/// (up to 0.78: the 8ths); on the real set's tuning half the network's ratio at 0.5 (session
/// 9's midpoint) moves 7 of 30 excerpts, 6 of them to madmom's level. So the network is the
/// evidence; the onsets alone would double the corpus's 8th notes. On by default
/// (`standard`: the network's ratio, up at 0.5); moving down (`down`) is not measured and
/// off.
enum LevelChoice {
  /// What the ratio of the beats' strengths is measured on.
  enum Hearing: String {
    /// The beat network's beat probability (`BeatTracker.heard`), where the network hears
    /// the reading; else the onsets.
    case network
    /// Onset and bass strength at the beats (`BeatTracker.support`).
    case onsets
    /// The smaller of the two ratios (the onsets' alone where the network does not hear).
    case both
  }

  /// Where a reading can move: twice, three times, 3/2 or half its tempo.
  enum Move: String {
    case up, three, threeTwo, down
  }

  struct Settings: Equatable {
    var hearing: Hearing = .both
    /// The faster level is taken where its own beats are heard at least this much against
    /// the shared ones; nil: never moved up.
    var up: Double? = nil
    /// The slower level is taken where the reading's own beats are heard less than this
    /// much against the shared ones; nil: never moved down.
    var down: Double? = nil
    /// The reading moves to 3/2 its tempo where the beats only that reading has are heard
    /// at least this much against the beats only the reading has; nil: never.
    var threeTwo: Double? = nil
    /// The reading moves to three times its tempo where the beats only that reading has are
    /// heard at least this much against the beats both share; nil: never.
    var three: Double? = nil
    /// For measuring (bench): move there whatever the evidence, where the held decoding
    /// exists.
    var force: Move? = nil
    /// For measuring: work out both ratios even where nothing can move (they go into
    /// `PRACTICE_BEAT_DOUBT`'s dump).
    var measure = false
    /// The width, in octaves, of a log-normal prior on the tempo centred at
    /// `preferredBPM` (listeners' preferred beat rate): `up` and `down` are scaled by how
    /// much likelier the prior finds the slower of the two levels. Nil: a flat prior.
    var prior: Double? = nil

    /// Off: no level is questioned.
    static let off = Settings()

    /// The detector's own setting: the network's ratio, moving up at 0.5 (session 9's
    /// midpoint, and the best of 0.5-0.8 on the real set's tuning half; on the corpus's
    /// tuning half it moves 1 of 81 clean pieces and 2 of 81 delivered ones).
    static let standard = Settings(hearing: .network, up: 0.5)
  }

  /// The centre of the tempo prior, in BPM (the beat rate listeners tap most readily,
  /// Moelants 2002; Ellis 2007 centres his tracker's prior there).
  static let preferredBPM = 120.0

  /// How much likelier the tempo prior of `width` octaves finds a beat at `slowerBPM` than
  /// one at twice it: exp(((o + 1)² − o²) / 2w²), o the slower level's octaves from
  /// `preferredBPM`; 1 without a prior.
  static func priorOdds(slowerBPM: Double, width: Double?) -> Double {
    guard let width, width > 0, slowerBPM > 0 else { return 1 }
    let o = log2(slowerBPM / preferredBPM)
    return exp((2 * o + 1) / (2 * width * width))
  }

  /// What a beat set is heard as: the network's mean beat probability (nil where it does
  /// not hear the music) and the mean onset and bass strength.
  typealias Heard = (network: Double?, onsets: Double)

  /// How much a set of beats is heard against another, by the network and by the onsets
  /// (nil where unheard).
  struct Ratios: Equatable {
    var network: Double?
    var onsets: Double?

    /// The ratio `hearing` reads.
    func by(_ hearing: Hearing) -> Double? {
      switch hearing {
      case .network: return network ?? onsets
      case .onsets: return onsets
      case .both:
        if let network, let onsets { return min(network, onsets) }
        return onsets
      }
    }
  }

  /// The beats of `a` (increasing frames) farther than `tolerance` frames from any of `b`'s
  /// (increasing), and those near one.
  static func split(_ a: [Int], by b: [Int], tolerance: Int) -> (own: [Int], shared: [Int]) {
    var own: [Int] = []
    var shared: [Int] = []
    var j = 0
    for x in a {
      while j + 1 < b.count, b[j + 1] <= x { j += 1 }
      let near =
        (b.indices.contains(j) && abs(b[j] - x) <= tolerance)
        || (j + 1 < b.count && abs(b[j + 1] - x) <= tolerance)
      if near { shared.append(x) } else { own.append(x) }
    }
    return (own, shared)
  }

  /// How much beats `these` are heard against `those`; nil where either set is empty.
  static func ratios(_ these: [Int], against those: [Int], heard: ([Int]) -> Heard) -> Ratios? {
    guard !these.isEmpty, !those.isEmpty else { return nil }
    let (e, s) = (heard(these), heard(those))
    let network: Double? =
      if let en = e.network, let sn = s.network, sn > 0 { en / sn } else { nil }
    return Ratios(network: network, onsets: s.onsets > 0 ? e.onsets / s.onsets : nil)
  }

  /// Of two readings a duple level apart, how much the faster's own beats (those farther
  /// than `tolerance` frames from any of the slower's) are heard against the beats both
  /// share; nil where either set is empty.
  static func ratios(faster: [Int], slower: [Int], tolerance: Int, heard: ([Int]) -> Heard)
    -> Ratios?
  {
    let (extra, shared) = split(faster, by: slower, tolerance: tolerance)
    return ratios(extra, against: shared, heard: heard)
  }

  /// The period curve of a reading at `factor` times its tempo (2: twice the tempo), its
  /// median over `MetricalLevel.window` every half second.
  static func moved(_ period: [Double], by factor: Double, frameRate fr: Double) -> [Double] {
    MetricalLevel.smoothed(period.map { $0 / factor }, frameRate: fr)
  }

  /// The outcome: the reading at the level chosen (nil where it stays), and the ratios
  /// measured (for `PRACTICE_BEAT_DOUBT`'s dump).
  struct Outcome {
    var reading: MetricalLevel.Reading?
    /// The chosen reading's tempo over the reading's: 1 (kept), 2 (up), 3, 3/2 or 1/2 (down).
    var factor = 1.0
    /// The faster level's own beats against the shared ones (twice the reading's tempo).
    var up: Ratios? = nil
    /// The reading's own beats against those it shares with half its tempo.
    var down: Ratios? = nil
    /// The beats only a reading at 3/2 the tempo has against those only the reading has.
    var threeTwo: Ratios? = nil
    /// A reading at three times the tempo: its own beats against the shared ones.
    var three: Ratios? = nil
  }

  /// `reading` (one metrical level throughout) at the level the evidence says, by
  /// `settings`; periods (in frames) from `shortest` to `longest` are allowed. `decode`
  /// reads the beat again held near a period curve (as for `MetricalLevel.hold`).
  static func choose(
    _ reading: MetricalLevel.Reading, frameRate fr: Double, shortest: Double, longest: Double,
    settings: Settings, heard: ([Int]) -> Heard,
    decode: ([Double]) -> MetricalLevel.Reading?
  ) -> Outcome {
    var outcome = Outcome()
    guard
      settings.up != nil || settings.down != nil || settings.threeTwo != nil
        || settings.three != nil || settings.force != nil || settings.measure,
      reading.beats.count >= 8, !reading.period.isEmpty
    else { return outcome }
    let tolerance = Int((MetricalLevel.sameBeat * fr).rounded())
    // The median beat interval of the reading: the level it counts at.
    let intervals = zip(reading.beats.dropFirst(), reading.beats).map { Double($0 - $1) }.sorted()
    let median = intervals[intervals.count / 2]
    // A held decoding at `factor` times the reading's tempo, where that tempo is allowed and
    // it counts there (its median interval within 1.25 of the one asked for).
    func held(_ factor: Double) -> MetricalLevel.Reading? {
      let wanted = median / factor
      guard wanted >= shortest, wanted <= longest,
        let other = decode(moved(reading.period, by: factor, frameRate: fr)),
        other.beats.count >= 4
      else { return nil }
      let gaps = zip(other.beats.dropFirst(), other.beats).map { Double($0 - $1) }.sorted()
      let got = gaps[gaps.count / 2]
      return max(got / wanted, wanted / got) <= 1.25 ? other : nil
    }
    let bpm = 60 * fr / median
    let fast = held(2)
    if let fast {
      outcome.up = ratios(
        faster: fast.beats, slower: reading.beats, tolerance: tolerance, heard: heard)
    }
    let upRatio = outcome.up?.by(settings.hearing)
    let upOdds = priorOdds(slowerBPM: bpm, width: settings.prior)
    if settings.force == .up || (settings.up.map { (upRatio ?? 0) >= $0 * upOdds } ?? false),
      let fast
    {
      (outcome.reading, outcome.factor) = (fast, 2)
      return outcome
    }
    // Three times the tempo: the reading may count whole bars of three (a waltz read one
    // beat a bar). The faster's own beats (two of every three) heard against the shared
    // ones, as for twice the tempo.
    if settings.three != nil || settings.force == .three || settings.measure,
      let triple = held(3)
    {
      outcome.three = ratios(
        faster: triple.beats, slower: reading.beats, tolerance: tolerance, heard: heard)
      let ratio = outcome.three?.by(settings.hearing)
      if settings.force == .three
        || (settings.three.map { t in ratio.map { $0 >= t } ?? false } ?? false)
      {
        (outcome.reading, outcome.factor) = (triple, 3)
        return outcome
      }
    }
    // Three against two: the reading may count a dotted beat, three of the song's 8ths
    // (a straight song read in the dotted quarters of a compound metre). Only the beats
    // each reading has alone tell them apart (the two share every third of the faster's).
    if settings.threeTwo != nil || settings.force == .threeTwo || settings.measure,
      let quick = held(1.5)
    {
      let onlyQuick = split(quick.beats, by: reading.beats, tolerance: tolerance).own
      let onlyRead = split(reading.beats, by: quick.beats, tolerance: tolerance).own
      outcome.threeTwo = ratios(onlyQuick, against: onlyRead, heard: heard)
      let ratio = outcome.threeTwo?.by(settings.hearing)
      if settings.force == .threeTwo
        || (settings.threeTwo.map { t in ratio.map { $0 >= t } ?? false } ?? false)
      {
        (outcome.reading, outcome.factor) = (quick, 1.5)
        return outcome
      }
    }
    guard settings.down != nil || settings.force == .down || settings.measure, let slow = held(0.5)
    else { return outcome }
    outcome.down = ratios(
      faster: reading.beats, slower: slow.beats, tolerance: tolerance, heard: heard)
    let downRatio = outcome.down?.by(settings.hearing)
    let downOdds = priorOdds(slowerBPM: bpm / 2, width: settings.prior)
    if settings.force == .down
      || (settings.down.map { r in downRatio.map { $0 < r * downOdds } ?? false } ?? false)
    {
      (outcome.reading, outcome.factor) = (slow, 0.5)
    }
    return outcome
  }
}
