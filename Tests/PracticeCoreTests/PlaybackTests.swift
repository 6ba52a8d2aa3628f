import Foundation
import TestSupport
import Testing

@testable import PracticeCore

@Suite struct PlanTests {
  func plan(_ range: Range<Int64>, passes: Passes = .count(2)) -> PlaybackPlan {
    PlaybackPlan(range: range, passes: passes, volume: .unity, sampleRate: 44100)
  }

  @Test func seamCrossfadesIntoThePrerollWhenThereIsRoom() {
    #expect(plan(1000..<50000).seam(sourceFrames: 88200) == .tailIntoPreroll(length: 221))
  }

  @Test func seamUsesThePostrollNearTheFileStart() {
    #expect(plan(100..<50000).seam(sourceFrames: 88200) == .headFromPostroll(length: 221))
  }

  @Test func seamFadesWhenTheRangeIsTheWholeFile() {
    #expect(plan(0..<88200).seam(sourceFrames: 88200) == .fadeOutIn(length: 221))
  }

  @Test func seamNeverExceedsHalfTheRange() {
    #expect(plan(1000..<1100).seam(sourceFrames: 88200) == .tailIntoPreroll(length: 50))
    #expect(plan(1000..<1001).seam(sourceFrames: 88200) == .none)
  }

  @Test func totalFrames() {
    #expect(plan(100..<200, passes: .count(3)).totalFrames(sampleRate: 44100) == 300)
    #expect(plan(100..<200, passes: .endless).totalFrames(sampleRate: 44100) == nil)
  }

  /// `--gap 2s` lasts two seconds heard at any speed, and none follows the last pass.
  @Test func aGapInSecondsLastsThatLongAtAnySpeed() throws {
    var slow = plan(1000..<2000, passes: .count(3))
    slow.gap = .seconds(2)
    slow.speed = try #require(Speed(parsing: "50%"))
    #expect(slow.gapSourceFrames(afterPass: 0, sampleRate: 44100) == 44100)
    #expect(slow.gapSourceFrames(afterPass: 2, sampleRate: 44100) == 0)
    // Three passes of 1,000 source frames at half speed, two gaps of 2 s.
    let total = try #require(slow.totalFrames(sampleRate: 44100))
    #expect(total == Int64(3 * 2000 + 2 * 88200), "\(total)")
  }

  /// A plan made by a jump starts inside its range; the passes after start at its start.
  @Test func onlyTheFirstPassStartsAtTheOffset() {
    var jumped = plan(1000..<2000, passes: .count(3))
    jumped.startOffset = 400
    #expect(jumped.sourceFrames(ofPass: 0, sampleRate: 44100) == 600)
    #expect(jumped.sourceFrames(ofPass: 1, sampleRate: 44100) == 1000)
    #expect(jumped.totalFrames(sampleRate: 44100) == 2600)
  }

  /// The trainer's steps are those of the passes played: none past the last pass.
  @Test func trainerStepsStopAtTheLastPass() throws {
    var ladder = plan(0..<1000, passes: .count(3))
    ladder.speed = try #require(Speed(parsing: "70%"))
    ladder.ramp = PlaybackPlan.Ramp(
      target: try #require(Speed(parsing: "100%")), step: 0.1, every: 1)
    #expect(ladder.trainerSpeeds(limit: 10).map(\.description) == ["70%", "80%", "90%"])
    ladder.passes = .endless
    #expect(ladder.trainerSpeeds(limit: 10).map(\.description) == ["70%", "80%", "90%", "100%"])
    ladder.passes = .count(6)
    ladder.ramp?.every = 2
    #expect(ladder.trainerSpeeds(limit: 10).map(\.description) == ["70%", "80%", "90%"])
  }
}

/// Where clicks sound, computed from the beat map (`ClickPlan`), checked frame by frame.
@Suite struct ClickPlanTests {
  /// 100 frames a beat at 1 kHz, first beat at frame 50; `numbers` as a beat file gives them.
  func grid(_ count: Int = 32, bar1: Int = 1, numbers: [Int?]? = nil) throws -> BeatMap {
    try BeatMap.placing(
      frames: (0..<count).map { 50 + Int64($0) * 100 },
      beatsInBar: numbers ?? Array(repeating: nil, count: count), meter: .common, bar1: bar1,
      source: .grid, totalFrames: 10_000, sampleRate: 1000)
  }

  /// A pickup on beat 4 hears a bar of the meter, then 1 2 3: not a "bar" of one beat.
  @Test func countInIntoAPickupCountsBarsOfTheMeter() throws {
    let map = try grid(33, bar1: 2)
    let range = try map.frames(of: BarRange(parsing: "0-2")!)
    let clicks = ClickPlan(
      beatMap: map, range: range, speed: .normal, countInBars: 1, click: false, volume: .unity)
    #expect(clicks.countIn.map(\.frame) == [0, 100, 200, 300, 400, 500, 600])
    #expect(clicks.countIn.map(\.accent) == [true, false, false, false, true, false, false])
    #expect(clicks.countInFrames == 700)
  }

  /// A pickup numbered past the bars after it (a 4 before bars of 3/4) counts in no more
  /// than a bar's beats before it.
  @Test func countInBeforeAPickupIsAtMostABar() throws {
    let numbers: [Int?] = [4] + (0..<9).map { $0 % 3 + 1 }
    let map = try grid(10, numbers: numbers)
    let range = try map.frames(of: BarRange(parsing: "0-3")!)
    let clicks = ClickPlan(
      beatMap: map, range: range, speed: .normal, countInBars: 1, click: false, volume: .unity)
    #expect(clicks.countIn.map(\.accent) == [true, false, false, true, false])
  }

  /// Gap bars are clicked at the tempo of the source: in source frames after the range,
  /// like the beats of a pass, at any speed.
  @Test func gapBarsAreClickedInSourceFrames() throws {
    let map = try grid()
    let range = try map.frames(of: BarRange(parsing: "2-3")!)  // 450..<1250
    let slow = ClickPlan(
      beatMap: map, range: range, speed: try #require(Speed(parsing: "50%")), countInBars: 0,
      click: true, gapBars: 1, volume: .unity)
    #expect(slow.beats.map(\.frame) == [0, 100, 200, 300, 400, 500, 600, 700])
    #expect(slow.beatsWithGap.map(\.frame).suffix(4) == [800, 900, 1000, 1100])
    #expect(slow.beatsWithGap.map(\.accent).suffix(4) == [true, false, false, false])
  }

  /// A whole bar 0 (no pickup) starts on a downbeat: its beat 1 is accented like any.
  @Test func aWholeBarZeroIsAccentedOnItsDownbeat() throws {
    let beats = (0..<8).map {
      Beat(frame: 50 + Int64($0) * 100, bar: $0 / 4, beat: $0 % 4 + 1, source: .grid)
    }
    let map = try BeatMap(beats: beats, totalFrames: 10_000, sampleRate: 1000)
    let clicks = ClickPlan(
      beatMap: map, range: 50..<850, speed: .normal, countInBars: 0, click: true, volume: .unity)
    #expect(clicks.beats.filter(\.accent).map(\.frame) == [0, 400])
  }
}

@Suite struct SampleRingTests {
  @Test func wrapsAroundAndKeepsOrder() {
    let ring = SampleRing(capacity: 8)
    var source: [Float] = (0..<20).map(Float.init)
    var out = [Float](repeating: -1, count: 20)
    var written = 0
    var read = 0
    source.withUnsafeMutableBufferPointer { src in
      out.withUnsafeMutableBufferPointer { dst in
        while read < 20 {
          written += ring.write(src.baseAddress! + written, count: min(5, 20 - written))
          read += ring.read(into: dst.baseAddress! + read, count: 3)
        }
      }
    }
    #expect(out == source)
    #expect(ring.available == 0)
  }

  @Test func neverOverfills() {
    let ring = SampleRing(capacity: 4)
    let data: [Float] = [1, 2, 3, 4, 5, 6]
    #expect(data.withUnsafeBufferPointer { ring.write($0.baseAddress!, count: 6) } == 4)
    #expect(ring.space == 0)
  }
}

/// Renders through the real engine into a file sink and reads the result back.
func render(
  _ source: String, plan: (SoundFileInfo) -> PlaybackPlan, to output: String
) throws -> (report: PlaybackReport, samples: [Float], info: SoundFileInfo) {
  let file = try SoundFile(path: source)
  let format = try #require(OutputFormat(path: output, bitDepth: file.info.bitDepth))
  let sink = try SoundFileWriter(
    path: output, format: format, sampleRate: file.info.sampleRate, channels: file.info.channels,
    maxBlockFrames: PlaybackEngine.blockFrames)
  let engine = try PlaybackEngine(file: file, plan: plan(file.info), sink: sink)
  let report = try engine.run()
  let (info, samples) = try Synth.read(output)
  return (report, samples, info)
}

@Suite struct EngineTests {
  let dir = TemporaryDirectory()

  /// A 16-bit stereo file of two different sines (so channel order matters).
  func stereoSource() throws -> (path: String, samples: [Float]) {
    let left = Synth.sine(frequency: 330, seconds: 1.5, amplitude: 0.4)
    let right = Synth.sine(frequency: 523, seconds: 1.5, amplitude: 0.3, phase: 1)
    var samples = [Float]()
    for i in 0..<left.count { samples += [left[i], right[i]] }
    samples = Synth.quantized16(samples)
    let path = dir.file("stereo.wav")
    try Synth.write(samples, to: path, channels: 2)
    return (path, samples)
  }

  @Test func onePassAtUnityIsBitExact() throws {
    let (path, samples) = try stereoSource()
    let range: Range<Int64> = 12345..<54321
    let result = try render(
      path,
      plan: {
        PlaybackPlan(range: range, passes: .count(1), volume: .unity, sampleRate: $0.sampleRate)
      }, to: dir.file("out.wav"))
    #expect(result.samples == Array(samples[12345 * 2..<54321 * 2]))
    #expect(result.report.framesWritten == 54321 - 12345)
    #expect(result.report.passesCompleted == 1)
  }

  @Test(arguments: [
    (Int64(20000), Int64(40000)),  // tail into preroll
    (Int64(30), Int64(39950)),  // head from postroll
    (Int64(0), Int64(66150)),  // whole file: fade out and in
  ])
  func passesAreExactlyTheRangeLengthAndTheSeamIsSmooth(start: Int64, end: Int64) throws {
    // A sine cut mid-cycle at both ends: played as-is, the seam would jump.
    let samples = Synth.quantized16(Synth.sine(frequency: 436.8333, seconds: 1.5, amplitude: 0.8))
    let path = dir.file("sine-\(start).wav")
    try Synth.write(samples, to: path)
    let length = Int(end - start)
    let passes = 4
    let result = try render(
      path,
      plan: {
        PlaybackPlan(
          range: start..<end, passes: .count(passes), volume: .unity, sampleRate: $0.sampleRate)
      }, to: dir.file("loop-\(start).wav"))
    #expect(result.samples.count == passes * length)

    let range = Array(samples[Int(start)..<Int(end)])
    let largestInside = zip(range, range.dropFirst()).map { abs($1 - $0) }.max()!
    let naiveSeamJump = abs(range.first! - range.last!)
    #expect(naiveSeamJump > 2 * largestInside, "the fixture must actually cut mid-cycle")
    for seam in 1..<passes {
      let i = seam * length
      let jump = abs(result.samples[i] - result.samples[i - 1])
      #expect(jump <= largestInside, "seam \(seam): jump \(jump) > \(largestInside)")
    }
    // The whole output stays as smooth as the source.
    let largestOut = zip(result.samples, result.samples.dropFirst()).map { abs($1 - $0) }.max()!
    #expect(largestOut <= largestInside * 1.01)
    // The first pass starts and the last pass ends exactly as the source does.
    #expect(Array(result.samples.prefix(length / 4)) == Array(range.prefix(length / 4)))
    #expect(Array(result.samples.suffix(length / 4)) == Array(range.suffix(length / 4)))

    // Sample for sample, every pass is the range with its seams crossfaded as the source
    // continues: a preroll or postroll read a frame off (a repeated sample is still
    // smooth) is not.
    let expected = Self.expectedLoop(samples, start: Int(start), end: Int(end), passes: passes)
    var mismatches: [Int] = []
    for i in 0..<min(expected.count, result.samples.count)
    where abs(result.samples[i] - expected[i]) > 1.01 / 32768 {
      mismatches.append(i)
    }
    #expect(
      mismatches.isEmpty, "\(mismatches.count) samples differ, first at \(mismatches.prefix(5))")
  }

  /// The rising half of a raised cosine at position `i` of `length` (the seam's fade).
  static func rise(_ i: Int, _ length: Int) -> Float {
    Float(0.5 - 0.5 * cos(Double.pi * (Double(i) + 0.5) / Double(length)))
  }

  /// What `passes` passes of `start..<end` of a mono 16-bit `source` must render to: a
  /// 5 ms seam (221 frames at 44.1 kHz) blended into the preroll when there is room
  /// before the range, else out of the postroll, else faded out and in; 16-bit samples.
  static func expectedLoop(_ source: [Float], start: Int, end: Int, passes: Int) -> [Float] {
    let length = end - start
    let n = min(221, length / 2)
    var out: [Float] = []
    for pass in 0..<passes {
      let last = pass == passes - 1
      for i in 0..<length {
        var v = source[start + i]
        if start >= n {
          if !last && i >= length - n {
            let j = i - (length - n)
            let w = rise(j, n)
            v = v * (1 - w) + source[start - n + j] * w
          }
        } else if end + n <= source.count {
          if pass > 0 && i < n {
            let w = rise(i, n)
            v = source[end + i] * (1 - w) + v * w
          }
        } else {
          if pass > 0 && i < n { v *= rise(i, n) }
          if !last && i >= length - n { v *= 1 - rise(i - (length - n), n) }
        }
        out.append(v)
      }
    }
    return Synth.quantized16(out)
  }

  /// The gap after a pass is silence, every frame of it, and the next pass starts the range
  /// again: not the end of the pass before heard again (planted bug M169).
  @Test func aGapBetweenPassesIsSilence() throws {
    let (path, samples) = try stereoSource()
    let result = try render(
      path,
      plan: {
        var plan = PlaybackPlan(
          range: 20000..<40000, passes: .count(2), volume: .unity, sampleRate: $0.sampleRate)
        plan.gap = .seconds(0.5)
        return plan
      }, to: dir.file("gap.wav"))
    #expect(result.samples.count == (20000 + 22050 + 20000) * 2)
    #expect(result.samples[(20000 * 2)..<(42050 * 2)].allSatisfy { $0 == 0 })
    // Each pass is the range (its ends faded into and out of the gap).
    let middle = Array(samples[(21000 * 2)..<(39000 * 2)])
    #expect(Array(result.samples[(1000 * 2)..<(19000 * 2)]) == middle)
    #expect(Array(result.samples[(43050 * 2)..<(61050 * 2)]) == middle)
  }

  @Test func volumeScalesEverySample() throws {
    let (path, samples) = try stereoSource()
    let result = try render(
      path,
      plan: {
        PlaybackPlan(
          range: 0..<$0.frames, passes: .count(1), volume: Volume(parsing: "50%")!,
          sampleRate: $0.sampleRate)
      }, to: dir.file("half.wav"))
    let expected = samples.map {
      Float((Double($0 * 0.5) * 32768).rounded(.toNearestOrEven) / 32768)
    }
    #expect(result.samples == expected)
  }

  @Test func loudVolumeClipsInsteadOfWrapping() throws {
    let samples = Synth.quantized16(Synth.sine(frequency: 100, seconds: 0.2, amplitude: 0.9))
    let path = dir.file("loud.wav")
    try Synth.write(samples, to: path)
    let result = try render(
      path,
      plan: {
        PlaybackPlan(
          range: 0..<$0.frames, passes: .count(1), volume: Volume(parsing: "200%")!,
          sampleRate: $0.sampleRate)
      }, to: dir.file("clipped.wav"))
    #expect(result.samples.max()! == Float(32767) / 32768)
    #expect(result.samples.min()! == -1)
    #expect(zip(samples, result.samples).allSatisfy { ($0 >= 0) == ($1 >= 0) || $0 == 0 })
  }

  @Test func stopEndsAnEndlessLoopCleanly() throws {
    let (path, _) = try stereoSource()
    let file = try SoundFile(path: path)
    let output = dir.file("endless.wav")
    let sink = try SoundFileWriter(
      path: output, format: OutputFormat(path: output, bitDepth: 16)!, sampleRate: 44100,
      channels: 2, maxBlockFrames: PlaybackEngine.blockFrames)
    let plan = PlaybackPlan(range: 1000..<5000, passes: .endless, volume: .unity, sampleRate: 44100)
    let engine = try PlaybackEngine(file: file, plan: plan, sink: sink)
    engine.start()
    while engine.framesWritten.load(ordering: .relaxed) < 100_000 { usleep(1000) }
    engine.stop()
    let report = try engine.wait()
    #expect(report.interrupted)
    #expect(report.passesCompleted >= 25)
    // An interrupted render leaves no file behind.
    #expect(!FileManager.default.fileExists(atPath: output))
  }
}

@Suite struct SampleConversionTests {
  @Test func roundsToNearestEvenAndClips() {
    let input: [Float] = [
      0, 1.0 / 32768, -1.0 / 32768, 0.5 / 32768, 1.5 / 32768, -2.5 / 32768, 1, -1, 1.5, -3,
      .nan, .infinity, -.infinity, 32767.0 / 32768,
    ]
    var output = [Int16](repeating: 99, count: input.count)
    SampleConversion.toInt16(input, &output, count: input.count)
    // NaN becomes a bound, never a trap: Float.maximum(NaN, -32768) is -32768 (IEEE 754
    // maxNum), and the clamp keeps it.
    #expect(
      output == [0, 1, -1, 0, 2, -2, 32767, -32768, 32767, -32768, -32768, 32767, -32768, 32767])
  }

  @Test func int32KeepsTwentyFourBitSamplesExact() {
    let input: [Float] = [1.0 / 8_388_608, -8_388_608.0 / 8_388_608, 0.25, .nan, 2]
    var output = [Int32](repeating: 0, count: input.count)
    SampleConversion.toInt32(input, &output, count: input.count)
    #expect(output[0] == 256 && output[1] == Int32.min && output[2] == 1 << 29)
    #expect(output[4] == Int32.max)
  }
}
