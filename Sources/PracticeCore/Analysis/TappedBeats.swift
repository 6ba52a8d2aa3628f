import Foundation

/// A key press while tapping along: the source frame audible when it came (device delay
/// and speed already accounted for), and whether it marked a downbeat.
public struct Tap: Sendable, Equatable {
  public var frame: Int64
  public var downbeat: Bool

  public init(frame: Int64, downbeat: Bool) {
    self.frame = frame
    self.downbeat = downbeat
  }
}

/// Turns taps into a beat map (source `tapped`):
///
/// 1. Taps closer than a third of a beat are one tap (space and `d` pressed together).
/// 2. Each tap moves to the clear onset within ±40 ms, if there is one (`OnsetSnapper`).
/// 3. A gap of about k beats between taps gets k − 1 beats: each interval is divided by
///    the local beat length (the median of the nine intervals around it, each first
///    reduced to one beat by the song-wide median).
/// 4. Taps that found no onset are moved onto a local fit (a parabola in beat index)
///    through the taps five beats either side: the snapped ones if there are three, else
///    all (a tap 30 ms off the others' tempo is a slip and left out), which takes out the
///    jitter of a hand without flattening a tempo that changes.
/// 5. Filled-in beats are spaced evenly between their neighbours, then snapped too.
/// 6. Bars come from the downbeat taps (`placeBars`).
///
/// The map covers the first to the last tap: nothing is extrapolated to the song's edges.
public enum TappedBeats {
  /// How the warnings name giving the meter; the face says it with its option.
  public static let meterWords = "the meter given"
  /// The fewest taps that make a map.
  public static let minimumTaps = 4
  /// How far from its neighbours' tempo a tap without an onset may be before it is taken
  /// for a slip and placed by them alone.
  static let slipSeconds = 0.030

  /// The map and what went into it, for the summary line.
  public struct Result: Sendable {
    public var map: BeatMap
    /// Taps after merging, how many were snapped to an onset, beats filled into gaps.
    public var taps: Int
    public var snapped: Int
    public var filled: Int
    /// Beats in each bar that is not a pickup or the last, in order (for the meter line).
    public var barLengths: [Int]
    /// Tempo range over the map in beats per minute (from beat-to-beat intervals, median
    /// over four beats, so one early tap does not show).
    public var tempo: ClosedRange<Double>
    public var warnings: [String]

    /// `'Song': 32 beats from 30 taps (28 on onsets, 2 filled in), bars 1-8, 4 beats a bar,
    /// 119.8-120.2 BPM, 0:00.5-0:16.0`
    public func summary(title: String) -> String {
      let rate = Double(map.sampleRate)
      let lengths = Set(barLengths).sorted()
      let bar = "\(lengths.map(String.init).joined(separator: ", ")) beats a bar"
      let low = String(format: "%.1f", tempo.lowerBound)
      let high = String(format: "%.1f", tempo.upperBound)
      let tempoText = low == high ? "\(low) BPM" : "\(low)–\(high) BPM"
      let span =
        "\(formatTime(Double(map.beats[0].frame) / rate))–\(formatTime(Double(map.beats[map.beats.count - 1].frame) / rate))"
      return
        "'\(title)': \(map.beats.count) beats from \(taps) taps (\(snapped) on onsets, "
        + "\(filled) filled in), \(map.barsDescription), \(bar), \(tempoText), \(span)"
    }
  }

  /// The map from `taps` (any order). `snapper` nil: no snapping. `meter` nil: beats per
  /// bar from the spacing of the downbeat taps.
  public static func assemble(
    taps raw: [Tap], snapper: OnsetSnapper?, meter: Meter?, totalFrames: Int64, sampleRate: Int
  ) throws -> Result {
    var taps = merged(raw.sorted { $0.frame < $1.frame }, sampleRate: sampleRate)
    guard taps.count >= minimumTaps else {
      throw PracticeError(
        .missingInput,
        "\(taps.count == 0 ? "no taps" : taps.count == 1 ? "only 1 tap" : "only \(taps.count) taps"): a beat map needs at least \(minimumTaps) (space on every beat, d on downbeats); the beat map was left as it was")
    }
    // 2. Snap.
    var snapped = taps.map { snapper?.snap($0.frame) }
    for i in taps.indices { if let s = snapped[i] { taps[i].frame = s } }
    // Two taps snapped onto one onset are one tap.
    var k = 1
    while k < taps.count {
      if taps[k].frame <= taps[k - 1].frame {
        taps[k - 1].downbeat = taps[k - 1].downbeat || taps[k].downbeat
        taps.remove(at: k)
        snapped.remove(at: k)
      } else {
        k += 1
      }
    }
    guard taps.count >= minimumTaps else {
      throw PracticeError(
        .missingInput, "only \(taps.count) distinct taps: a beat map needs at least \(minimumTaps); the beat map was left as it was")
    }
    // 3. Beats per interval, and each tap's beat index.
    let steps = beatsPerInterval(taps.map(\.frame))
    var index = [0]
    for s in steps { index.append(index[index.count - 1] + s) }
    // 4. Smooth the taps that found no onset.
    var times = taps.map { Double($0.frame) }
    let anchors = times
    for i in taps.indices where snapped[i] == nil {
      if let fitted = localFit(
        at: index[i], indices: index, times: anchors, snapped: snapped, slip: slipSeconds * Double(sampleRate))
      {
        times[i] = fitted
      }
    }
    // Smoothing must not reorder beats; where it would, the tap stays as tapped.
    for i in taps.indices.dropFirst() where times[i] <= times[i - 1] { times[i] = max(anchors[i], times[i - 1] + 1) }
    // 5. Fill gaps.
    var frames: [Int64] = []
    var downbeats: [Bool] = []
    var filled = 0
    for i in taps.indices {
      frames.append(Int64(times[i].rounded()))
      downbeats.append(taps[i].downbeat)
      guard i + 1 < taps.count, steps[i] > 1 else { continue }
      let next = times[i + 1]
      for j in 1..<steps[i] {
        let estimate = times[i] + (next - times[i]) * Double(j) / Double(steps[i])
        var frame = Int64(estimate.rounded())
        if let onset = snapper?.snap(frame), Double(onset) > times[i], Double(onset) < next { frame = onset }
        frames.append(frame)
        downbeats.append(false)
        filled += 1
      }
    }
    // Keep frames strictly increasing and inside the audio.
    var kept: [Int64] = []
    var keptDownbeats: [Bool] = []
    for (frame, down) in zip(frames, downbeats) where frame >= 0 && frame < totalFrames {
      if let last = kept.last, frame <= last { continue }
      kept.append(frame)
      keptDownbeats.append(down)
    }
    guard kept.count >= minimumTaps else {
      throw PracticeError(.missingInput, "the taps lie outside the audio; tap again while it plays")
    }
    // 6. Bars.
    let placement = placeBars(downbeats: keptDownbeats, meter: meter)
    let beats = zip(kept, placement.labels).map { frame, label in
      Beat(frame: frame, bar: label.bar, beat: label.beat, source: .tapped)
    }
    let map = try BeatMap(beats: beats, totalFrames: totalFrames, sampleRate: sampleRate)
    let lengths = map.bars.filter { $0.number >= 1 }.dropLast().map { $0.beatIndices.count }
    return Result(
      map: map, taps: taps.count, snapped: snapped.filter { $0 != nil }.count, filled: filled,
      barLengths: lengths.isEmpty ? map.bars.filter { $0.number >= 1 }.map { $0.beatIndices.count } : lengths,
      tempo: tempoRange(kept, sampleRate: sampleRate), warnings: placement.warnings)
  }

  // MARK: Steps

  /// Taps closer than a third of the median interval (and never more than 150 ms apart)
  /// become one, at their mean, a downbeat if either was.
  static func merged(_ taps: [Tap], sampleRate: Int) -> [Tap] {
    guard taps.count > 1 else { return taps }
    let intervals = zip(taps, taps.dropFirst()).map { Double($1.frame - $0.frame) }
    let limit = min(median(intervals) / 3, 0.150 * Double(sampleRate))
    var out: [Tap] = [taps[0]]
    var group = 1
    var sum = Double(taps[0].frame)
    for tap in taps.dropFirst() {
      if Double(tap.frame - out[out.count - 1].frame) < limit || Double(tap.frame) - sum / Double(group) < limit {
        group += 1
        sum += Double(tap.frame)
        out[out.count - 1].frame = Int64((sum / Double(group)).rounded())
        out[out.count - 1].downbeat = out[out.count - 1].downbeat || tap.downbeat
      } else {
        out.append(tap)
        group = 1
        sum = Double(tap.frame)
      }
    }
    return out
  }

  /// How many beats each interval between successive taps spans (1 unless a tap was left
  /// out): the interval over the local beat length, rounded.
  static func beatsPerInterval(_ frames: [Int64]) -> [Int] {
    let intervals = zip(frames, frames.dropFirst()).map { Double($1 - $0) }
    guard !intervals.isEmpty else { return [] }
    let global = median(intervals)
    let single = intervals.map { $0 / max(1, ($0 / global).rounded()) }
    return intervals.indices.map { j in
      let around = single[max(0, j - 4)...min(single.count - 1, j + 4)]
      let local = median(Array(around))
      return max(1, Int((intervals[j] / local).rounded()))
    }
  }

  /// Where a tap that found no onset belongs, from a local fit through the taps within
  /// five beats of it (`slip` frames: how far off a hand may be before the tap is taken
  /// for a slip). With three snapped taps about, only they count; otherwise all taps do,
  /// the tap itself too unless it lies more than `slip` from where the others put it.
  /// Nil with fewer than two other taps about.
  static func localFit(at beat: Int, indices: [Int], times: [Double], snapped: [Int64?], slip: Double) -> Double? {
    var others: [(x: Double, y: Double)] = []
    var onsets: [(x: Double, y: Double)] = []
    var own: Double?
    for (i, b) in indices.enumerated() where abs(b - beat) <= 5 {
      if b == beat {
        own = times[i]
        continue
      }
      others.append((Double(b - beat), times[i]))
      if snapped[i] != nil { onsets.append((Double(b - beat), times[i])) }
    }
    if onsets.count >= 3, let fitted = fit(onsets) { return fitted }
    guard let predicted = fit(others) else { return nil }
    guard let own, abs(own - predicted) <= slip else { return predicted }
    return fit(others + [(0, own)]) ?? predicted
  }

  /// The value at x = 0 of a least-squares fit: a parabola when three points lie on each
  /// side (a line would pull beats off a tempo that speeds up or slows down), else a line
  /// through the points within three beats. Nil with fewer than two points to fit.
  static func fit(_ all: [(x: Double, y: Double)]) -> Double? {
    let degree = all.filter { $0.x < 0 }.count >= 3 && all.filter { $0.x > 0 }.count >= 3 ? 2 : 1
    // Near the ends a line is extrapolated; three beats keep it close to the tempo there.
    let points = degree == 2 ? all : all.filter { abs($0.x) <= 3 }
    guard points.count >= degree + 1 else { return nil }
    // Normal equations in powers of x; the constant term is the value at x = 0.
    let size = degree + 1
    var a = [[Double]](repeating: [Double](repeating: 0, count: size + 1), count: size)
    for p in points {
      var powers = [1.0]
      for _ in 0..<(2 * degree) { powers.append(powers[powers.count - 1] * p.x) }
      for r in 0..<size {
        for c in 0..<size { a[r][c] += powers[r + c] }
        a[r][size] += powers[r] * p.y
      }
    }
    // Gaussian elimination with partial pivoting.
    for col in 0..<size {
      guard let pivot = (col..<size).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }), abs(a[pivot][col]) > 1e-9
      else { return nil }
      a.swapAt(col, pivot)
      for r in 0..<size where r != col {
        let f = a[r][col] / a[col][col]
        for c in col...size { a[r][c] -= f * a[col][c] }
      }
    }
    return a[0][size] / a[0][0]
  }

  /// Bar and beat numbers for beats with downbeat marks.
  ///
  /// With a meter, bars of that many beats from the first downbeat (marks off the bar
  /// lines are reported). Without, beats per bar is the most common spacing of the
  /// downbeat marks (2-16 beats; 4 with fewer than two marks); a spacing that is a
  /// multiple of it is that many bars (not every downbeat need be tapped), another
  /// spacing shorter than two bars is one bar of that length (a meter change), and a
  /// longer one is whole bars and a short one before the mark. Beats before the first
  /// mark are counted back in whole bars, a part bar being the pickup bar 0.
  public static func placeBars(downbeats: [Bool], meter: Meter?) -> (labels: [(bar: Int, beat: Int)], warnings: [String]) {
    let n = downbeats.count
    let marks = downbeats.indices.filter { downbeats[$0] }
    var warnings: [String] = []
    var length: Int
    if let meter {
      length = meter.beats
    } else {
      let spacings = zip(marks, marks.dropFirst()).map { $1 - $0 }.filter { (2...16).contains($0) }
      var counts: [Int: Int] = [:]
      for s in spacings { counts[s, default: 0] += 1 }
      length = counts.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key ?? 4
      if marks.count < 2 {
        warnings.append(
          "\(marks.isEmpty ? "no downbeat was" : "only one downbeat was") tapped: counting \(length) beats a bar; tap d on two or more downbeats, or give the meter")
      }
    }
    // Where each bar starts.
    var starts: [Int] = []
    let first = marks.first ?? 0
    if marks.isEmpty { warnings.append("bar 1 starts at the first tap") }
    var s = first
    while s - length >= 0 { s -= length }
    // The beats before `s` (fewer than a bar) are the pickup.
    let pickup = s
    while s < first {
      starts.append(s)
      s += length
    }
    if let meter {
      var t = first
      while t < n {
        starts.append(t)
        t += length
      }
      let off = marks.filter { ($0 - first) % length != 0 }.count
      if off > 0 {
        warnings.append("\(off) downbeat tap(s) fell off the bar lines of \(meter) counted from the first downbeat; the bars follow \(TappedBeats.meterWords)")
      }
    } else {
      for (j, mark) in marks.enumerated() {
        let next = j + 1 < marks.count ? marks[j + 1] : n
        let spacing = next - mark
        var t = mark
        if j + 1 == marks.count || spacing % length == 0 {
          while t < next {
            starts.append(t)
            t += length
          }
        } else if spacing < 2 * length {
          starts.append(mark)
        } else {
          while next - t >= length {
            starts.append(t)
            t += length
          }
          starts.append(t)
        }
      }
      if marks.isEmpty {
        var t = 0
        while t < n {
          starts.append(t)
          t += length
        }
      }
    }
    starts = Array(Set(starts)).sorted()
    var labels: [(bar: Int, beat: Int)] = []
    labels.reserveCapacity(n)
    var bar = 0
    var beat = length - pickup
    var next = 0
    for i in 0..<n {
      if next < starts.count && starts[next] == i {
        bar += 1
        beat = 1
        next += 1
      } else {
        beat += 1
      }
      labels.append((bar, beat))
    }
    return (labels, warnings)
  }

  /// Slowest and fastest tempo over beat frames, each from the median of four intervals.
  public static func tempoRange(_ frames: [Int64], sampleRate: Int) -> ClosedRange<Double> {
    let intervals = zip(frames, frames.dropFirst()).map { Double($1 - $0) }
    guard !intervals.isEmpty else { return 0...0 }
    let window = min(4, intervals.count)
    var bpms: [Double] = []
    for j in 0...(intervals.count - window) {
      bpms.append(60 * Double(sampleRate) / median(Array(intervals[j..<(j + window)])))
    }
    return bpms.min()!...bpms.max()!
  }

  static func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let m = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2
  }
}
