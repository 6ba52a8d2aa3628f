import Foundation

/// Bar length and downbeats from features at the beats.
///
/// Each beat gets a downbeat score: harmonic change (chroma of the two beats after it
/// against the two before), bass onset strength and overall accent, each standardised.
/// A meter and phase is scored by the mean score at its downbeats minus the mean
/// elsewhere. Three beats a bar wins over two when it scores higher; four wins over two
/// when the bar's first beat outscores its third by a quarter of the two-beat contrast
/// (else the bars are in two).
enum DownbeatFinder {
  /// Beats per bar and the index of the first downbeat (earlier beats are a pickup).
  struct Placement: Equatable {
    var beatsPerBar: Int
    var firstDownbeat: Int
  }

  /// `beatsPerBar` fixes the bar length (only the phase is chosen); nil chooses 2, 3 or 4.
  static func place(beats: [Int], features: OnsetFeatures, period: [Double], beatsPerBar: Int?)
    -> Placement
  {
    let count = beats.count
    guard count >= 2 else { return Placement(beatsPerBar: beatsPerBar ?? 4, firstDownbeat: 0) }
    let score = downbeatScores(beats: beats, features: features, period: period)
    let indices = Array(0..<count)
    func contrast(_ m: Int, _ phase: Int) -> Double {
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
    func bestPhase(_ m: Int) -> Int {
      (0..<m).max { contrast(m, $0) < contrast(m, $1) } ?? 0
    }
    func positionMean(_ m: Int, _ phase: Int, _ position: Int) -> Double {
      let values = indices.filter { (($0 - phase) % m + m) % m == position }.map { score[$0] }
      return values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }
    let m: Int
    let phase: Int
    if let beatsPerBar {
      m = max(1, beatsPerBar)
      phase = m > 1 ? bestPhase(m) : 0
    } else {
      let two = contrast(2, bestPhase(2))
      let threePhase = bestPhase(3)
      if contrast(3, threePhase) > two {
        (m, phase) = (3, threePhase)
      } else {
        let fourPhase = bestPhase(4)
        let firstOverThird = positionMean(4, fourPhase, 0) - positionMean(4, fourPhase, 2)
        if firstOverThird > 0.25 * two {
          (m, phase) = (4, fourPhase)
        } else {
          (m, phase) = (2, bestPhase(2))
        }
      }
    }
    return Placement(beatsPerBar: m, firstDownbeat: phase % m)
  }

  /// Standardised harmonic change + bass onset + half the accent, per beat.
  static func downbeatScores(beats: [Int], features: OnsetFeatures, period: [Double]) -> [Double] {
    let count = beats.count
    let frames = features.count
    let reach = max(1, Int(0.05 * features.frameRate))
    func peak(_ signal: [Float], at frame: Int) -> Double {
      Double(signal[max(0, frame - reach)...min(frames - 1, frame + reach)].max() ?? 0)
    }
    let bass = beats.map { peak(features.bassFlux, at: $0) }
    let accent = beats.map { peak(features.flux, at: $0) }

    // Log-compressed chroma, summed per frame so any span's sum is a difference.
    var frameEnergy = 0.0
    for v in features.chroma { frameEnergy += Double(v) }
    frameEnergy = max(1e-12, frameEnergy / Double(max(1, frames)))
    var prefix = [Double](repeating: 0, count: (frames + 1) * 12)
    for f in 0..<frames {
      for c in 0..<12 {
        prefix[(f + 1) * 12 + c] =
          prefix[f * 12 + c] + log1p(100 * Double(features.chroma[f * 12 + c]) / frameEnergy)
      }
    }
    // Beat boundaries, with one more a period after the last beat.
    let last = beats[count - 1]
    let bounds = beats + [min(frames, last + Int(period[last]))]
    func chroma(from a: Int, to b: Int) -> [Double] {
      let a = max(0, min(a, bounds.count - 1))
      let b = max(0, min(b, bounds.count - 1))
      guard b > a else { return [Double](repeating: 0, count: 12) }
      let v = (0..<12).map { prefix[bounds[b] * 12 + $0] - prefix[bounds[a] * 12 + $0] }
      let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
      return norm > 0 ? v.map { $0 / norm } : v
    }
    var change = [Double](repeating: 0, count: count)
    for i in 1..<count {
      let before = chroma(from: i - 2, to: i)
      let after = chroma(from: i, to: i + 2)
      change[i] = 1 - zip(before, after).reduce(0) { $0 + $1.0 * $1.1 }
    }
    let a = standardised(change)
    let b = standardised(bass)
    let c = standardised(accent)
    return (0..<count).map { a[$0] + b[$0] + 0.5 * c[$0] }
  }

  static func standardised(_ x: [Double]) -> [Double] {
    let mean = x.reduce(0, +) / Double(max(1, x.count))
    let sd = (x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(1, x.count))).squareRoot()
    return x.map { sd > 0 ? ($0 - mean) / sd : 0 }
  }
}
