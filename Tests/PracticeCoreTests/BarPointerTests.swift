import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The bar pointer (an experiment beside the tracker: `BarPointer`) decodes tempo, beats and
/// bars together.
@Suite struct BarPointerTests {
  func observations(_ piece: BeatSynth.Piece) throws -> (
    BarPointer.Observations, [BeatSynth.TrueBeat]
  ) {
    let (samples, truth) = BeatSynth.render(piece)
    let analyzer = try OnsetAnalyzer(sampleRate: 44100)
    samples.withUnsafeBufferPointer { analyzer.process($0) }
    return (BarPointer.observations(analyzer.finish()), truth)
  }

  /// A pattern with a strong onset at each beat's first cell and a chord change at the bar's.
  func pattern(_ beats: Int) -> BarPointer.Pattern {
    let cells = BarPointer.cellsPerBeat * beats
    var mean = [Double](repeating: 0, count: cells * BarPointer.dimensions)
    let variance = [Double](repeating: 0.5, count: cells * BarPointer.dimensions)
    for k in 0..<cells where k % BarPointer.cellsPerBeat == 0 {
      for d in 0..<3 { mean[k * BarPointer.dimensions + d] = 1.5 }
      mean[k * BarPointer.dimensions + 3] = k == 0 ? 1.5 : -0.3
    }
    return BarPointer.Pattern(
      meter: .init(beats: beats, triple: false), mean: mean, variance: variance)
  }

  @Test func aSteadyPieceIsDecodedOnItsBeatsAndBars() throws {
    var piece = BeatSynth.Piece()
    piece.startBPM = 112
    piece.endBPM = 112
    let (observed, truth) = try observations(piece)
    let decoded = try #require(
      BarPointer.decode(
        observed, patterns: [pattern(3), pattern(4)], meters: BarPointer.BarShape.all, minBPM: 50,
        maxBPM: 220))
    #expect(decoded.meter == .init(beats: 4, triple: false))
    let times = decoded.beats.map { Double($0) / BarPointer.frameRate }
    let inside = truth.filter { $0.time > 1 && $0.time < min(truth.last!.time, times.last!) - 1 }
    // Every true beat has a decoded one within two frames (40 ms: the decoding's grid; the
    // detector moves each to its attack), and every downbeat is decoded as one.
    for beat in inside {
      let k = try #require(
        times.indices.min { abs(times[$0] - beat.time) < abs(times[$1] - beat.time) })
      #expect(abs(times[k] - beat.time) <= 0.04, "beat at \(beat.time) s decoded at \(times[k]) s")
      #expect(
        (decoded.positions[k] == 0) == (beat.beatInBar == 1),
        "beat \(beat.beatInBar) at \(beat.time) s")
    }
    // Within the music the period stays at the tempo's (50 * 60 / 112 = 26.8 frames):
    // whole frames that alternate around it. (After the last note nothing holds it.)
    let end = truth.last!.time
    let periods = decoded.periods.indices.filter { times[$0] > 1 && times[$0] < end - 1 }
      .map { decoded.periods[$0] }
    #expect(periods.allSatisfy { abs(Double($0) - 26.8) <= 1.8 }, "periods \(periods)")
    let mean = Double(periods.reduce(0, +)) / Double(max(1, periods.count))
    #expect(abs(mean - 26.8) < 0.3, "mean period \(mean)")
  }

  @Test func heldNearATempoTheDecodingStaysThere() throws {
    var piece = BeatSynth.Piece()
    piece.startBPM = 112
    piece.endBPM = 112
    let (observed, _) = try observations(piece)
    // Held near twice the period, it counts half notes.
    let near = [Double](repeating: 2 * 50 * 60 / 112.0, count: observed.count)
    let decoded = try #require(
      BarPointer.decode(
        observed, patterns: [pattern(2)], meters: BarPointer.BarShape.all, minBPM: 30, maxBPM: 220,
        near: near))
    #expect(decoded.periods.allSatisfy { abs(Double($0) / near[0] - 1) <= 0.25 })
  }
  /// The beat-by-beat Viterbi finds the frame-by-frame one's path: on an activation-like
  /// signal (a beat every 21-25 frames, drifting, a downbeat every `m`, noise), for every
  /// meter, free and held near a tempo.
  @Test(arguments: [2, 3, 4, 5])
  func beatByBeatViterbiFindsTheFrameByFramePath(beats m: Int) throws {
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(m)
    func random() -> Float {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Float(seed >> 40) / Float(1 << 24)
    }
    let frames = 1500
    var beat = [Float](repeating: 0, count: frames)
    var downbeat = [Float](repeating: 0, count: frames)
    var t = 7.0
    var k = 1
    while Int(t) < frames {
      beat[Int(t)] = 0.5 + 0.5 * random()
      if k % m == 0 { downbeat[Int(t)] = beat[Int(t)] * (0.4 + 0.6 * random()) }
      t += 23 + 2 * sin(t / 300)
      k += 1
    }
    for i in 0..<frames {
      beat[i] = min(1, beat[i] + 0.3 * random() * random())
      downbeat[i] = min(beat[i], downbeat[i] + 0.1 * random() * random())
    }
    let (values, count) = BarPointer.activationLikelihoods(
      beat: beat, downbeat: downbeat, beats: m, step: 1)
    // The frame-by-frame search hears every twelfth of the beat as its own cell: the first
    // twelfth its value, each of the eleven others the rest's.
    let twelve = BarPointer.cellsPerBeat
    var everyTwelfth = [Float](repeating: 0, count: count * m * twelve)
    for t in 0..<count {
      for k in 0..<m {
        for c in 0..<twelve {
          everyTwelfth[(t * m + k) * twelve + c] = values[(t * m + k) * 2 + (c == 0 ? 0 : 1)]
        }
      }
    }
    let meter = BarPointer.BarShape(beats: m, triple: false)
    let periods = Array(14...60)
    let near = (0..<count).map { 23 + 4 * sin(Double($0) / 200) }
    for held in [nil, near] {
      let fast = try #require(
        BarPointer.viterbi(
          likelihoods: values, frames: count, meter: meter, periods: periods, near: held,
          twelfths: BarPointer.activationTwelfths))
      let slow = try #require(
        BarPointer.frameByFrameViterbi(
          likelihoods: everyTwelfth, frames: count, meter: meter, periods: periods, near: held))
      #expect(fast.beats == slow.beats)
      #expect(fast.positions == slow.positions)
      #expect(fast.periods == slow.periods)
      #expect(abs(fast.score - slow.score) < 1e-3 * abs(slow.score))
    }
  }
}

extension BarPointer {
  /// The frame-by-frame Viterbi over every state (one state a frame of the bar, for every
  /// period), as `viterbi(likelihoods:...)` was before it ran over beats: what it must
  /// agree with.
  static func frameByFrameViterbi(
    likelihoods: [Float], frames: Int, meter: BarShape, periods: [Int], near: [Double]? = nil
  ) -> Decoded? {
    let m = meter.beats
    guard frames > 2 * m * (periods.last ?? 1), !periods.isEmpty else { return nil }
    let cells = cellsPerBeat * m
    let p = periods.count
    var offset = [Int](repeating: 0, count: p + 1)
    for j in 0..<p { offset[j + 1] = offset[j] + m * periods[j] }
    let states = offset[p]
    // The cell each state hears through.
    var cell = [Int32](repeating: 0, count: states)
    for j in 0..<p {
      let tau = periods[j]
      for phi in 0..<(m * tau) {
        cell[offset[j] + phi] = Int32(min(cells - 1, phi * cellsPerBeat / tau))
      }
    }
    // Period changes at a beat: from period i to j, with their log-probabilities, only those
    // within 15 % (beyond it the probability is below e^-15 of staying).
    var sources: [[(from: Int, cost: Float)]] = Array(repeating: [], count: p)
    for i in 0..<p {
      var row: [(Int, Double)] = []
      for j in 0..<p {
        let change = abs(Double(periods[j]) / Double(periods[i]) - 1)
        if change <= 0.15 { row.append((j, -tempoChange * change)) }
      }
      let total = log(row.reduce(0) { $0 + exp($1.1) })
      for (j, lp) in row { sources[j].append((i, Float(lp - total))) }
    }
    // Backpointers: per frame, per period and beat of the bar, the period before.
    var back = [UInt16](repeating: 0, count: frames * p * m)
    var score = [Float](repeating: 0, count: states)
    var next = [Float](repeating: 0, count: states)
    // What was taken off the scores to keep them small: added back for comparing meters.
    var removed = 0.0
    likelihoods.withUnsafeBufferPointer { ll in
      for s in 0..<states { score[s] = ll[Int(cell[s])] }
      score.withUnsafeMutableBufferPointer { old in
        next.withUnsafeMutableBufferPointer { new in
          cell.withUnsafeBufferPointer { cellOf in
            for t in 1..<frames {
              let row = t * cells
              for j in 0..<p {
                let tau = periods[j]
                let base = offset[j]
                if let near, Double(tau) < near[t] / nearness || Double(tau) > near[t] * nearness {
                  for phi in 0..<(m * tau) { new[base + phi] = -.infinity }
                  continue
                }
                for phi in 1..<(m * tau) where phi % tau != 0 {
                  new[base + phi] = old[base + phi - 1] + ll[row + Int(cellOf[base + phi])]
                }
                for k in 0..<m {
                  // Beat k begins: the last frame of beat k - 1 (of the bar before for k = 0).
                  let before = (k + m - 1) % m
                  var bestValue = -Float.infinity
                  var bestFrom = j
                  for (i, cost) in sources[j] {
                    let v = old[offset[i] + before * periods[i] + periods[i] - 1] + cost
                    if v > bestValue {
                      bestValue = v
                      bestFrom = i
                    }
                  }
                  let s = base + k * tau
                  new[s] = bestValue + ll[row + Int(cellOf[s])]
                  back[(t * p + j) * m + k] = UInt16(bestFrom)
                }
              }
              // Keep the numbers small: the best path is unchanged by a constant.
              var top = -Float.infinity
              for s in 0..<states where new[s] > top { top = new[s] }
              for s in 0..<states { old[s] = new[s] - top }
              removed += Double(top)
            }
          }
        }
      }
    }
    // Trace back from the best final state.
    var s = 0
    for i in 0..<states where score[i] > score[s] { s = i }
    var j = (0..<p).last { offset[$0] <= s } ?? 0
    var phi = s - offset[j]
    var beats: [Int] = []
    var positions: [Int] = []
    var beatPeriods: [Int] = []
    var t = frames - 1
    while t >= 0 {
      let tau = periods[j]
      if phi % tau == 0 {
        beats.append(t)
        positions.append(phi / tau)
        beatPeriods.append(tau)
        guard t > 0 else { break }
        let k = phi / tau
        let i = Int(back[(t * p + j) * m + k])
        let before = (k + m - 1) % m
        j = i
        phi = before * periods[i] + periods[i] - 1
      } else {
        phi -= 1
      }
      t -= 1
    }
    beats.reverse()
    positions.reverse()
    beatPeriods.reverse()
    return Decoded(
      meter: meter, beats: beats, positions: positions, periods: beatPeriods,
      score: (removed + Double(score.max() ?? 0)) / Double(frames))
  }
}

