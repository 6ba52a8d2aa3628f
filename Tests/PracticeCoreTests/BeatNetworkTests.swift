import Foundation
import Testing

@testable import PracticeCore

/// The beat network's inference (`BeatNetwork`): a tiny network with known weights, the
/// shipped one against PyTorch's outputs, and the shipped one on a click track.
@Suite struct BeatNetworkTests {
  func elu(_ x: Float) -> Float { x < 0 ? expm1(x) : x }
  func sigmoid(_ x: Float) -> Float { 1 / (1 + exp(-x)) }

  /// One band; the input layer adds the band, its rise and a bias; two blocks, the second
  /// (dilated by 2) adding the ELU of the frame two before.
  @Test func aTinyNetworkGivesWhatItsWeightsSay() throws {
    var w: [Float] = [1, 1, 1, 1, 2, 3, 1, 2]  // header: 1 band, widths 1 and 1, 2 blocks
    w += [0.5, 0, 2, 1]  // mean, scale of band and rise
    w += [1, 0.5, 0.1]  // input convolution (band, rise), bias
    w += [1, 0]  // 1×1, bias
    w += [0, 0, 0, 0, 1, 0]  // block 1: dilated convolution, bias, 1×1, bias (adds 0)
    w += [1, 0, 0, 0, 1, 0]  // block 2: the frame 2 before, bias, 1×1, bias
    w += [1, -2, 0.25, 0]  // output: beat = x + 0.25, downbeat = -2x
    let network = try #require(BeatNetwork(weights: w))
    let band: [Float] = [0, 1, 0.25, 2, 2, -1]
    let (beat, downbeat) = network.activations([band])
    var x: [Float] = []
    for t in band.indices {
      let rise = t == 0 ? 0 : max(0, band[t] - band[t - 1])
      x.append(elu(elu(2 * (band[t] - 0.5) + 0.5 * rise + 0.1)))
    }
    let y = x.indices.map { t in x[t] + (t >= 2 ? elu(x[t - 2]) : 0) }
    for t in band.indices {
      #expect(abs(beat[t] - sigmoid(y[t] + 0.25)) < 1e-5, "beat at frame \(t)")
      #expect(abs(downbeat[t] - sigmoid(-2 * y[t])) < 1e-5, "downbeat at frame \(t)")
    }
    #expect(BeatNetwork(weights: Array(w.dropLast())) == nil)
  }

  /// The shipped weights give what PyTorch gave (train-network.py writes both).
  @Test func theShippedNetworkMatchesTraining() throws {
    let network = try #require(BeatNetwork.shipped)
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../bench/beats/network-check.json")
    let check = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    let frames = check["frames"] as! [Int]
    let rows = (0..<network.bands).map { c in
      (0..<400).map { t in Float(0.5 + 0.5 * sin(0.37 * Double(c) + 0.11 * Double(t))) }
    }
    let (beat, downbeat) = network.activations(rows)
    for (k, t) in frames.enumerated() {
      #expect(abs(Double(beat[t]) - (check["beat"] as! [Double])[k]) < 1e-4)
      #expect(abs(Double(downbeat[t]) - (check["downbeat"] as! [Double])[k]) < 1e-4)
    }
  }

  /// Clicks at 120 BPM, every fourth louder: the beat activation peaks on each click and
  /// stays low half-way between them.
  @Test func theShippedNetworkFiresOnClicks() throws {
    let network = try #require(BeatNetwork.shipped)
    let rate = 44100
    var samples = [Float](repeating: 0, count: 16 * rate)
    var clicks: [Double] = []
    var k = 0
    var noise: UInt32 = 1
    while 0.5 + Double(k) * 0.5 < 15.5 {
      let start = Int((0.5 + Double(k) * 0.5) * Double(rate))
      clicks.append(Double(start) / Double(rate))
      let gain: Float = k % 4 == 0 ? 0.8 : 0.4
      for i in 0..<Int(0.03 * Double(rate)) {
        noise = noise &* 1_664_525 &+ 1_013_904_223
        let white = Float(Int32(bitPattern: noise)) / Float(Int32.max)
        let tone = sin(2 * Float.pi * 1000 * Float(i) / Float(rate))
        samples[start + i] = gain * exp(-Float(i) / (0.006 * Float(rate))) * (0.5 * white + 0.5 * tone)
      }
      k += 1
    }
    let analyzer = try OnsetAnalyzer(sampleRate: rate, networkBands: true)
    samples.withUnsafeBufferPointer { analyzer.process($0) }
    let features = analyzer.finish()
    let (beat, _) = network.activations(features.networkBands)
    func frame(_ seconds: Double) -> Int {
      Int(((seconds * Double(rate) + Double(features.window) / 2) / Double(features.hop) - 1).rounded())
    }
    var hits = 0
    var quiet = 0
    for c in clicks.dropFirst().dropLast() {
      let f = frame(c)
      if beat[(f - 2)...(f + 2)].max()! > 0.5 { hits += 1 }
      if beat[frame(c + 0.25) - 2...frame(c + 0.25) + 2].max()! < 0.3 { quiet += 1 }
    }
    let n = clicks.count - 2
    #expect(hits >= n * 9 / 10, "\(hits) of \(n) clicks heard")
    #expect(quiet >= n * 9 / 10, "\(quiet) of \(n) half-way points quiet")
  }
}
