import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// A sink that keeps what it is given, any rate and channel count, and lets a test act
/// after each write on the render thread (so live changes land at an exact place).
final class CaptureSink: AudioSink, @unchecked Sendable {
  let sampleRate: Int
  let channels: Int
  let maxBlockFrames = PlaybackEngine.blockFrames
  private(set) var samples: [Float] = []
  var onWrite: (Int) -> Void = { _ in }

  init(sampleRate: Int, channels: Int) {
    self.sampleRate = sampleRate
    self.channels = channels
    samples.reserveCapacity(1 << 21)
  }

  func write(_ block: UnsafePointer<Float>, frames: Int) throws {
    samples.append(contentsOf: UnsafeBufferPointer(start: block, count: frames * channels))
    onWrite(samples.count / channels)
  }
  func pendingFrames() -> Int { 0 }
  func finish() throws {}
  func abort() {}
}

/// The filters measured on what the engine renders: their frequency response against the
/// documented curves, and live changes that are heard at once and never click.
@Suite struct FilterResponseTests {
  let dir = TemporaryDirectory()
  static let rate = 48000
  /// 25 whole-hertz tones from 40 Hz to 16 kHz: a 1 s window holds whole cycles of each.
  static let tones = ToneAnalysis.logSpaced(from: 40, to: 16000, count: 25)

  /// Renders a multitone (float WAV, so nothing is quantised) through the engine with
  /// `filter`; returns the gain at each tone, measured over the second second.
  func measuredGains(
    _ filter: PartFilter, name: String, rate: Int = FilterResponseTests.rate,
    tones: [Double] = FilterResponseTests.tones
  ) throws -> [Double] {
    let source = ToneAnalysis.multitone(tones, amplitude: 0.02, seconds: 2.2, sampleRate: rate)
    let path = dir.file("\(name).wav")
    try Synth.writeFloatWAV(source, to: path, sampleRate: rate)
    let file = try SoundFile(path: path)
    let sink = CaptureSink(sampleRate: rate, channels: 1)
    var plan = PlaybackPlan(
      range: 0..<file.info.frames, passes: .count(1), volume: .unity, sampleRate: rate)
    plan.filter = filter
    _ = try PlaybackEngine(file: file, plan: plan, sink: sink).run()
    let out = sink.samples
    #expect(out.count == source.count)
    return tones.map { f in
      let y = ToneAnalysis.amplitude(out, frequency: f, sampleRate: rate, start: rate, frames: rate)
      let x = ToneAnalysis.amplitude(
        source, frequency: f, sampleRate: rate, start: rate, frames: rate)
      return y / x
    }
  }

  /// Every tone within ±1 dB of the documented curve.
  func expectResponse(
    _ filter: PartFilter, name: String, rate: Int = FilterResponseTests.rate,
    tones: [Double] = FilterResponseTests.tones, curve: (Double) -> Double
  ) throws {
    let gains = try measuredGains(filter, name: name, rate: rate, tones: tones)
    for (f, gain) in zip(tones, gains) {
      let expected = ToneAnalysis.decibels(curve(f))
      let measured = ToneAnalysis.decibels(gain)
      #expect(
        abs(measured - expected) <= 1,
        "\(name) at \(f) Hz, \(rate) Hz: \(measured) dB, documented \(expected) dB")
    }
  }

  /// The same curves at the rate of the song, whatever it is (tones up to 45 % of it).
  @Test(arguments: [22050, 32000, 96000])
  func theCurvesHoldAtAnyRate(rate: Int) throws {
    let tones = ToneAnalysis.logSpaced(from: 40, to: min(16000, 0.45 * Double(rate)), count: 19)
    let filter = PartFilter(
      eq: PartFilter.EQ(low: 4, mid: -6, high: 8), focus: .treble, band: 60...6000)
    try expectResponse(filter, name: "rate-\(rate)", rate: rate, tones: tones) { f in
      let r = Double(rate)
      return DocumentedCurve.eq(4, -6, 8, f, rate: r) * DocumentedCurve.focus("treble", f, rate: r)
        * DocumentedCurve.band(60, 6000, f, rate: r)
    }
  }

  @Test(arguments: PartFilter.Focus.allCases)
  func everyFocusPresetFollowsItsCurve(focus: PartFilter.Focus) throws {
    try expectResponse(PartFilter(focus: focus), name: "focus-\(focus.rawValue)") { f in
      DocumentedCurve.focus(focus.rawValue, f, rate: Double(FilterResponseTests.rate))
    }
  }

  @Test(arguments: [(6.0, -4.0, 3.0), (-24.0, 12.0, -24.0), (12.0, -24.0, 12.0)])
  func theEQFollowsItsCurve(low: Double, mid: Double, high: Double) throws {
    try expectResponse(
      PartFilter(eq: PartFilter.EQ(low: low, mid: mid, high: high)),
      name: "eq-\(low)-\(mid)-\(high)"
    ) { f in
      DocumentedCurve.eq(low, mid, high, f, rate: Double(FilterResponseTests.rate))
    }
  }

  @Test(arguments: [(80.0, 400.0), (1000.0, 6000.0)])
  func theBandFollowsItsCurve(low: Double, high: Double) throws {
    try expectResponse(PartFilter(band: low...high), name: "band-\(low)-\(high)") { f in
      DocumentedCurve.band(low, high, f, rate: Double(FilterResponseTests.rate))
    }
  }

  @Test func everythingAtOnceMultipliesTheCurves() throws {
    let filter = PartFilter(
      eq: PartFilter.EQ(low: -6, mid: 3, high: 0), focus: .vocal, band: 100...8000)
    try expectResponse(filter, name: "all") { f in
      let rate = Double(FilterResponseTests.rate)
      return DocumentedCurve.focus("vocal", f, rate: rate)
        * DocumentedCurve.eq(-6, 3, 0, f, rate: rate)
        * DocumentedCurve.band(100, 8000, f, rate: rate)
    }
  }

  @Test func aFilterThatDoesNothingIsBypassed() {
    #expect(
      PartFilter(eq: PartFilter.EQ(low: 0, mid: 0, high: 0), channel: .both, centreCut: 0).isNone)
    #expect(PartFilter.none.design(sampleRate: 44100, channels: 2).isIdentity)
    #expect(!PartFilter(channel: .swap).design(sampleRate: 44100, channels: 2).isIdentity)
    // Mono: the channel choice and the centre cut have nothing to do.
    #expect(
      PartFilter(channel: .left, centreCut: 1).design(sampleRate: 44100, channels: 1).isIdentity)
  }

  /// `--band` needs its low edge below its high one; `--centre-cut 29%` is labelled 29 %;
  /// the mono mix is the two channels' mean, as loud as either.
  @Test func theOptionsAreReadAndLabelledAsTyped() throws {
    #expect(throws: PartFilter.Problem.notABand("400-400")) {
      try PartFilter(writtenEQ: nil, focus: nil, band: "400-400", channel: nil, centreCut: nil)
    }
    let typed = try PartFilter(
      writtenEQ: nil, focus: nil, band: nil, channel: .mono, centreCut: "29%")
    #expect(typed.label == "centre cut 29% · mono")
    let mono = PartFilter(channel: .mono).design(sampleRate: 44100, channels: 2).matrix
    #expect([mono.0, mono.1, mono.2, mono.3] == [0.5, 0.5, 0.5, 0.5])
  }

  @Test func anyRateTheDecoderGives() throws {
    // A band reaching past 45 % of a low rate keeps its low side and loses its high one.
    let low = PartFilter(band: 300...6000).design(sampleRate: 8000, channels: 1)
    #expect(low.sectionCount == 2)
    let high = PartFilter(eq: PartFilter.EQ(low: 0, mid: 0, high: 6)).design(
      sampleRate: 8000, channels: 1)
    let section = high.sections[0]
    let finite = [section.b0, section.b1, section.b2, section.a1, section.a2].allSatisfy {
      $0.isFinite
    }
    #expect(finite)
  }
}

@Suite struct LiveFilterTests {
  let dir = TemporaryDirectory()
  let rate = 44100
  var fade: Int { Int(Double(rate) * PlaybackEngine.fadeMilliseconds / 1000) }

  /// A 16-bit stereo file: 440 Hz on the left, 1 kHz on the right.
  func stereo(seconds: Double = 2) throws -> (path: String, samples: [Float]) {
    let left = Synth.sine(frequency: 440, seconds: seconds, sampleRate: rate, amplitude: 0.4)
    let right = Synth.sine(
      frequency: 1000, seconds: seconds, sampleRate: rate, amplitude: 0.3, phase: 1)
    var samples = [Float]()
    samples.reserveCapacity(left.count * 2)
    for i in 0..<left.count { samples += [left[i], right[i]] }
    samples = Synth.quantized16(samples)
    let path = dir.file("stereo.wav")
    try Synth.write(samples, to: path, sampleRate: rate, channels: 2)
    return (path, samples)
  }

  /// The largest sample-to-sample step in channel `channel` of frames `range`.
  func largestStep(_ samples: [Float], channel: Int, _ range: Range<Int>) -> Float {
    var largest: Float = 0
    for i in (range.lowerBound + 1)..<range.upperBound {
      largest = max(largest, abs(samples[i * 2 + channel] - samples[(i - 1) * 2 + channel]))
    }
    return largest
  }

  func channel(_ samples: [Float], _ c: Int, _ range: Range<Int>) -> [Float] {
    range.map { samples[$0 * 2 + c] }
  }

  @Test func theLeftChannelKeyIsHeardAtTheNextBlockWithoutAClick() throws {
    let (path, source) = try stereo()
    let file = try SoundFile(path: path)
    let sink = CaptureSink(sampleRate: rate, channels: 2)
    let frames = Int(file.info.frames)
    let plan = PlaybackPlan(
      range: 0..<file.info.frames, passes: .count(1), volume: .unity, sampleRate: rate)
    let engine = try PlaybackEngine(file: file, plan: plan, sink: sink, live: true)
    let switchAt = 8192
    sink.onWrite = { [unowned engine] written in
      if written == switchAt { engine.setFilter(PartFilter(channel: .left)) }
    }
    _ = try engine.run()
    let out = sink.samples
    #expect(out.count == source.count)
    // Untouched before; from the end of the fade (5 ms, well within 100 ms) both sides
    // carry exactly the left channel.
    #expect(Array(out[0..<(switchAt * 2)]) == Array(source[0..<(switchAt * 2)]))
    let after = (switchAt + fade)..<frames
    #expect(channel(out, 0, after) == channel(source, 0, after))
    #expect(channel(out, 1, after) == channel(source, 0, after))
    // The right side crossfades from its tone to the left's: no step larger than theirs.
    let own = max(
      largestStep(source, channel: 0, 0..<frames), largestStep(source, channel: 1, 0..<frames))
    let around = (switchAt - 64)..<(switchAt + fade + 64)
    #expect(largestStep(out, channel: 1, around) <= own * 1.01)
  }

  @Test func aFocusSwitchedOnAndOffFadesBetweenTheFilteredAndTheOriginal() throws {
    let (path, source) = try stereo()
    let frames = Int(try SoundFile(path: path).info.frames)
    let plan = PlaybackPlan(
      range: 0..<Int64(frames), passes: .count(1), volume: .unity, sampleRate: rate)
    // The same song rendered with the focus from the start: what the filter sounds like.
    let referenceSink = CaptureSink(sampleRate: rate, channels: 2)
    var filtered = plan
    filtered.filter = PartFilter(focus: .bass)
    _ = try PlaybackEngine(file: try SoundFile(path: path), plan: filtered, sink: referenceSink)
      .run()
    let reference = referenceSink.samples

    let sink = CaptureSink(sampleRate: rate, channels: 2)
    let engine = try PlaybackEngine(
      file: try SoundFile(path: path), plan: plan, sink: sink, live: true)
    let on = 8192
    let off = 30720
    sink.onWrite = { [unowned engine] written in
      if written == on { engine.setFilter(PartFilter(focus: .bass)) }
      if written == off { engine.setFilter(.none) }
    }
    _ = try engine.run()
    let out = sink.samples
    #expect(out.count == source.count)
    #expect(Array(out[0..<(on * 2)]) == Array(source[0..<(on * 2)]))
    // Filtered after the fade in: the warmed filter sounds as if it had always run.
    var worst: Float = 0
    for i in ((on + fade) * 2)..<(off * 2) { worst = max(worst, abs(out[i] - reference[i])) }
    #expect(worst < 1e-5, "filtered part differs from the reference by \(worst)")
    // Off again: the original, exactly, after the fade out.
    #expect(Array(out[((off + fade) * 2)...]) == Array(source[((off + fade) * 2)...]))
    // No step larger than the source's or the filtered signal's own.
    for c in 0..<2 {
      let own = max(
        largestStep(source, channel: c, 0..<frames),
        largestStep(reference, channel: c, 2048..<frames))
      #expect(largestStep(out, channel: c, (on - 64)..<(on + fade + 64)) <= own * 1.01)
      #expect(largestStep(out, channel: c, (off - 64)..<(off + fade + 64)) <= own * 1.01)
    }
  }

  @Test func withoutFiltersTheLiveEngineIsBitExact() throws {
    let (path, source) = try stereo(seconds: 1)
    let file = try SoundFile(path: path)
    let sink = CaptureSink(sampleRate: rate, channels: 2)
    let plan = PlaybackPlan(
      range: 0..<file.info.frames, passes: .count(1), volume: .unity, sampleRate: rate)
    let engine = try PlaybackEngine(file: file, plan: plan, sink: sink, live: true)
    sink.onWrite = { [unowned engine] written in
      // A filter that does nothing, sent while playing, changes nothing.
      if written == 4096 { engine.setFilter(PartFilter(channel: .both, centreCut: 0)) }
    }
    _ = try engine.run()
    #expect(sink.samples == source)
  }
}
