import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PracticeCore

/// A sink that keeps what it is given and lets a test act at a given output frame, on the
/// render thread, so that live commands land at an exact, repeatable place.
final class ScriptedSink: AudioSink, @unchecked Sendable {
  let sampleRate = 44100
  let channels = 1
  let maxBlockFrames = PlaybackEngine.blockFrames
  private(set) var samples: [Float] = []
  let pauses = Atomic<Int>(0)
  /// Called after each write with the frames written so far (render thread).
  var onWrite: (Int) -> Void = { _ in }

  init() { samples.reserveCapacity(1 << 20) }

  func write(_ block: UnsafePointer<Float>, frames: Int) throws {
    samples.append(contentsOf: UnsafeBufferPointer(start: block, count: frames * channels))
    onWrite(samples.count / channels)
  }
  func pendingFrames() -> Int { 0 }
  func finish() throws {}
  func abort() {}
  func pause() throws { pauses.add(1, ordering: .releasing) }
}

@Suite struct LiveControlTests {
  let dir = TemporaryDirectory()
  let fade = Int(44100 * PlaybackEngine.fadeMilliseconds / 1000)

  /// A mono 16-bit file whose every frame holds its own index (mod 65536), so where each
  /// output frame came from can be read off it.
  func countingSource(frames: Int = 60000) throws -> (path: String, samples: [Float]) {
    let samples = (0..<frames).map { Float(Int16(truncatingIfNeeded: $0 &* 1 &- 32768)) / 32768 }
    let path = dir.file("counting.wav")
    try Synth.write(samples, to: path)
    return (path, samples)
  }

  func engine(
    _ path: String, plan: PlaybackPlan, live: Bool = true,
    script: @escaping (PlaybackEngine, Int) -> Void
  ) throws -> (PlaybackEngine, ScriptedSink) {
    let sink = ScriptedSink()
    let engine = try PlaybackEngine(
      file: try SoundFile(path: path), plan: plan, sink: sink, live: live)
    sink.onWrite = { [unowned engine] written in script(engine, written) }
    return (engine, sink)
  }

  func plan(_ range: Range<Int64>, passes: Passes = .count(1)) -> PlaybackPlan {
    PlaybackPlan(range: range, passes: passes, volume: .unity, sampleRate: 44100)
  }

  @Test func aSeekFadesOutAndPlaysTheNewPlaceExactly() throws {
    let (path, source) = try countingSource()
    var target = plan(0..<60000)
    target.startOffset = 30000
    let (engine, sink) = try engine(path, plan: plan(0..<60000)) { engine, written in
      if written == 1024 { engine.jump(to: target, kind: .seek) }
    }
    let report = try engine.run()
    let out = sink.samples
    #expect(out.count == 1024 + fade + 30000)
    #expect(Array(out[0..<1024]) == Array(source[0..<1024]))
    // The fade-out continues the old place, the fade-in starts the new one.
    #expect(abs(out[1024] - source[1024]) < 1e-3)
    #expect(abs(out[1024 + fade - 1]) < abs(source[1024 + fade - 1]) * 0.01)
    #expect(abs(out[1024 + fade]) < abs(source[30000]) * 0.01)
    #expect(Array(out[(1024 + 2 * fade)...]) == Array(source[(30000 + fade)..<60000]))
    #expect(report.passesCompleted == 1)
  }

  @Test func playOnKeepsPlayingIntoANewLoopWithoutABreak() throws {
    let (path, source) = try countingSource()
    let loop = plan(1000..<20000, passes: .endless)
    let (engine, sink) = try engine(path, plan: plan(0..<60000)) { engine, written in
      if written == 2048 { engine.jump(to: loop, kind: .playOn) }
      if written >= 30000 { engine.stop() }
    }
    _ = try engine.run()
    let out = sink.samples
    let seam = loop.seamFrames
    // Straight on to the new loop's end (its last frames crossfade into the preroll) ...
    #expect(Array(out[0..<(20000 - seam)]) == Array(source[0..<(20000 - seam)]))
    // ... and round again from its start.
    #expect(Array(out[20000..<29000]) == Array(source[1000..<10000]))
  }

  /// The counting source playing 0..<60000, paused once 4096 frames are written; returns
  /// when the sink has been paused.
  func pausedAt4096() throws -> (PlaybackEngine, ScriptedSink, [Float]) {
    let (path, source) = try countingSource()
    let (engine, sink) = try engine(path, plan: plan(0..<60000)) { engine, written in
      if written == 4096 { engine.send(.pause) }
    }
    engine.start()
    while sink.pauses.load(ordering: .acquiring) == 0 { usleep(1000) }
    return (engine, sink, source)
  }

  @Test func aPauseFadesOutAndResumesWhereItStopped() throws {
    let (engine, sink, source) = try pausedAt4096()
    #expect(!engine.waitForEnd(timeout: .milliseconds(50)), "a paused engine waits")
    engine.send(.resume)
    let report = try engine.wait()
    let out = sink.samples
    // Nothing is lost or repeated: the fade-out and fade-in sit on consecutive frames.
    #expect(out.count == 60000)
    #expect(report.framesWritten == 60000)
    #expect(Array(out[0..<4096]) == Array(source[0..<4096]))
    #expect(abs(out[4096 + fade - 1]) < 0.01 * abs(source[4096 + fade - 1]) + 1e-6)
    #expect(abs(out[4096 + fade]) < 0.01 * abs(source[4096 + fade]) + 1e-6)
    #expect(Array(out[(4096 + 2 * fade)...]) == Array(source[(4096 + 2 * fade)...]))
  }

  /// A musician pauses, then steps to another bar: the position reported while paused is
  /// the new place (the status line shows it, and the next step counts from it), and the
  /// resume plays from exactly there.
  @Test func aSeekWhilePausedIsReportedAtOnceAndResumesThere() throws {
    let (engine, sink, source) = try pausedAt4096()
    var target = plan(0..<60000)
    target.startOffset = 30000
    engine.jump(to: target, kind: .seek)
    var reported: PlaybackEvent?
    var waited = 0
    while reported?.sourceFrame != 30000 && waited < 2000 {
      while let event = engine.events.pop() { reported = event }
      usleep(1000)
      waited += 1
    }
    #expect(reported?.paused == true)
    #expect(reported?.sourceFrame == 30000, "\(String(describing: reported))")
    engine.send(.resume)
    _ = try engine.wait()
    let out = sink.samples
    // The pause's fade-out, then the new place faded in.
    #expect(out.count == 4096 + fade + 30000)
    #expect(Array(out[(4096 + 2 * fade)...]) == Array(source[(30000 + fade)..<60000]))
  }

  @Test func aSpeedChangeBringsInTheStretcherWithoutAGap() throws {
    let samples = Synth.quantized16(Synth.sine(frequency: 440, seconds: 2, amplitude: 0.5))
    let path = dir.file("sine.wav")
    try Synth.write(samples, to: path)
    let (engine, sink) = try engine(path, plan: plan(0..<88200)) { engine, written in
      if written == 8192 { engine.send(.setSpeed(Speed(parsing: "50%")!)) }
    }
    _ = try engine.run()
    let out = sink.samples
    // The rest of the source at half speed: twice as long, within a block.
    let expected = 8192 + fade + (88200 - 8192 - fade) * 2
    #expect(abs(out.count - expected) <= 1024, "\(out.count) vs \(expected)")
    // No gap: every 5 ms after the switch still sounds (a sine of amplitude 0.5).
    var quietest: Float = 1
    var start = 8192 + fade
    while start + 220 < out.count - 4410 {
      quietest = min(quietest, out[start..<(start + 220)].map(abs).max() ?? 0)
      start += 220
    }
    var quiet: [Int] = []
    start = 8192 + fade
    while start + 220 < out.count - 4410 {
      if (out[start..<(start + 220)].map(abs).max() ?? 0) <= 0.3 { quiet.append(start) }
      start += 220
    }
    #expect(
      quietest > 0.3,
      "a window after the switch peaks at only \(quietest), at \(quiet.prefix(20)) of \(out.count)")
  }

  /// The trainer's ramp goes on through a key jump: the jump's plan continues the pass
  /// count (as the player makes it), so the passes after the jump keep the speed reached
  /// instead of starting the ramp again from its first speed.
  @Test func aJumpDoesNotRestartTheSpeedTrainer() throws {
    let (path, _) = try countingSource()
    // 50 % for the first pass, 100 % from the second: 40000 output frames, then 20000 each.
    var ramped = plan(0..<20000, passes: .count(3))
    ramped.speed = Speed(parsing: "50%")!
    ramped.ramp = PlaybackPlan.Ramp(target: .normal, step: 0.5, every: 1)
    #expect(ramped.speed(forPass: 1) == .normal)
    // In the second pass, seek to the range's middle with the two passes left.
    var jumped = ramped
    jumped.startOffset = 10000
    jumped.passes = .count(2)
    jumped.firstPass = 1
    #expect(jumped.speed(forPass: 0) == .normal, "the jump's plan continues the ramp")
    #expect(jumped.trainerSpeeds(limit: 8) == [.normal])
    var jumpedAt: Int?
    let (engine, sink) = try engine(path, plan: ramped) { engine, written in
      if written >= 45000 && jumpedAt == nil {
        jumpedAt = written
        engine.jump(to: jumped, kind: .seek)
      }
    }
    _ = try engine.run()
    // At 100 %: the fade-out, the rest of this pass and one more (at 50 % again, the rest of
    // this pass alone would take 20000 frames).
    let expected = try #require(jumpedAt) + fade + 10000 + 20000
    #expect(abs(sink.samples.count - expected) <= 1500, "\(sink.samples.count) vs \(expected)")
  }

  @Test func eventsFollowThePassesAndThePosition() throws {
    let (path, _) = try countingSource()
    let (engine, _) = try engine(path, plan: plan(10000..<20000, passes: .count(3)), live: false) {
      _, _ in
    }
    let report = try engine.run()
    #expect(report.passesCompleted == 3)
    var events: [PlaybackEvent] = []
    while let event = engine.events.pop() { events.append(event) }
    #expect(events.last?.ended == true)
    #expect(events.map(\.pass).max() == 3)
    // Within a pass the source frame is the range start plus the output frames since the
    // pass began.
    for event in events where !event.inGap && !event.ended {
      let passStart = Int64(event.pass - 1) * 10000
      #expect(event.sourceFrame == 10000 + event.outputFrame - passStart, "\(event)")
    }
  }
  /// A play-on jump (a wider loop) taken in the gap after a pass starts the new loop at its
  /// start: the pass it would play on from is over, and its gap is silence, not the audio
  /// after the old loop's end (planted bug M164).
  @Test func aLoopWidenedDuringTheGapStartsAtItsStart() throws {
    let (path, source) = try countingSource()
    var drill = plan(0..<10000, passes: .count(2))
    drill.gap = .bars(count: 1, barFrames: 20000)
    let wider = plan(0..<30000)
    // 4336 frames into the gap after the first pass.
    let (engine, sink) = try engine(path, plan: drill) { engine, written in
      if written == 14336 { engine.jump(to: wider, kind: .playOn) }
    }
    _ = try engine.run()
    let out = sink.samples
    // The first pass, then silence up to the jump and through the fade-out ...
    let heard = 10000 - drill.seamFrames
    #expect(Array(out[0..<heard]) == Array(source[0..<heard]))
    #expect(out[10000..<(14336 + fade)].allSatisfy { $0 == 0 })
    // ... then the wider loop from its start, once: not the audio after the old loop's end.
    #expect(out.count == 14336 + fade + 30000)
    #expect(Array(out[(14336 + 2 * fade)...]) == Array(source[fade..<30000]))
  }
}
