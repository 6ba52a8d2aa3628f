import Dispatch
import CPlatform
import Foundation
import Synchronization

/// What happened during a run of the engine.
public struct PlaybackReport: Sendable, Equatable {
  /// Frames handed to the sink.
  public var framesWritten: Int64
  /// Passes played to their end (a pass left by a jump does not count).
  public var passesCompleted: Int
  /// Stopped by `stop()` (Ctrl-C, `q`) before the plan's end.
  public var interrupted: Bool
  /// The audio ended before the length its file declares (a file cut short or damaged):
  /// decoding stopped early, or the play reached the end of a file known to end early.
  /// What was decodable was played.
  public var truncation: Truncation?
  /// Device underruns that were recovered from.
  public var underruns: Int
}

/// Executes a `PlaybackPlan` into an `AudioSink`: file → feeder (read-ahead, loop seams)
/// → render thread (stretcher, filters, gain, clicks) → sink. The same engine drives `play` and
/// `render`, so what a render contains is what a listener hears.
///
/// Everything that depends on where a source frame ends up in the output (clicks, pass
/// starts and ends, the position a controller shows) is scheduled when that frame is fed,
/// at the output frame the speed puts it on, and acted on when the output gets there.
/// So a speed change, the trainer's steps and a jump are one mechanism: feed differently
/// from now on. A controller steers a live engine with `send(_:)` and `jump(to:kind:)`
/// and follows it through `events`.
public final class PlaybackEngine: @unchecked Sendable {
  /// Frames per block the render thread hands to the sink; the same for every sink so
  /// that output never depends on where it goes.
  public static let blockFrames = 1024
  /// Bytes of memory asked for before the engine makes its buffers: more than twice what
  /// they take, so that what a play allocates once it runs fits too.
  static let roomNeeded = 1 << 20
  /// The fade around a pause, a jump or a switch into the stretcher.
  public static let fadeMilliseconds = 5.0

  /// The plan the engine started with.
  public let plan: PlaybackPlan
  /// Whether a controller may steer it (see `init`).
  public let live: Bool
  /// Frames handed to the sink so far (render thread writes, anyone reads).
  public let framesWritten = Atomic<Int64>(0)
  /// CLOCK_MONOTONIC nanoseconds when the first frame was handed to the sink (0 before).
  public let firstFrameNanoseconds = Atomic<UInt64>(0)
  /// CLOCK_MONOTONIC nanoseconds when the sink accepted the last frame (before draining).
  public let lastFrameNanoseconds = Atomic<UInt64>(0)
  /// The pass sounding (from 1; 0 in the count-in) and passes played to their end.
  public let passesStarted = Atomic<Int>(0)
  public let passesEnded = Atomic<Int>(0)
  /// One report per block, and one when paused, resumed or ended (render → controller).
  public let events = ValueRing<PlaybackEvent>(capacity: 512, filler: .none)
  /// Render-thread work per block (everything but the sink's blocking write), in 10 µs
  /// buckets up to 50 ms; read after the engine ends.
  public let blockTimes: BlockTimeHistogram

  /// Linear gain as Float bits, so a controller can change the volume while playing.
  private let gainBits: Atomic<UInt32>
  private let stopRequested = Atomic<Bool>(false)
  private let renderEnded = Atomic<Bool>(false)
  private let commands = ValueRing<TransportCommand>(capacity: 64, filler: .pause)
  /// Filter designs to fade to (controller → render thread; the last one wins).
  private let filterDesigns = ValueRing<FilterDesign>(capacity: 16, filler: .identity)
  /// A jump's plan not yet taken by the render thread (an unretained `JumpBox`).
  private let pendingJump = Atomic<UnsafeMutableRawPointer?>(nil)
  /// Every jump's box, kept alive until the engine is gone so that the render thread
  /// never releases the last reference (and frees) a plan; controller thread only.
  private var jumpBoxes: [JumpBox] = []
  /// Signalled with every command and jump, so a paused render thread wakes.
  private let wake = DispatchSemaphore(value: 0)
  private let calibrationDone = DispatchSemaphore(value: 0)

  private let feeder: SourceFeeder
  private let sink: any AudioSink  // render thread only after start()
  private let channels: Int
  private let sampleRate: Int
  private let fadeFrames: Int
  private let block: UnsafeMutablePointer<Float>  // render thread only
  private let fadeCurve: UnsafeMutablePointer<Float>  // immutable after init: rising half cosine
  private let clicks: ClickPlan?  // immutable after init
  private let clickSound: ClickSound  // immutable after init
  private let filterStage: FilterStage  // render thread only
  private let renderDone = DispatchSemaphore(value: 0)
  private let feederDone = DispatchSemaphore(value: 0)
  private var renderError: (any Error)?  // written by the render thread before renderDone
  private var interrupted = false  // written by the render thread before renderDone

  // The stretcher and its steering: present when the plan needs it or the engine is live;
  // render thread only.
  private let steering: StretchSteering?
  private let stretchInput: UnsafeMutablePointer<Float>
  /// Whether the stretcher is in the path.
  private var stretching: Bool
  /// Output frames still to drop (start delay; negative: silence still to lead with).
  private var stretchDrop = 0
  private var stretchFlushed = false
  /// Frames of silence fed after the end of the source, to push its last frames out.
  private var stretchTail = 0

  // What is being fed; render thread only.
  private var feedPlan: PlaybackPlan
  private var generation = 0
  private var feedPass = 0
  /// Source frames of the pass fed so far, from the range start (the gap follows the range).
  private var feedOffset: Int64 = 0
  private var feedPassEnd: Int64 = 0
  /// The output frame the next fed source frame lands on.
  private var feedOutput = 0.0
  /// The next click of the pass being fed.
  private var feedClick = 0
  /// Passes begun so far, across jumps: the number the next pass gets.
  private var passCounter = 0
  /// The speed the trainer or the plan gives, unless the controller set one.
  private var liveSpeed: Speed?
  private var speedNow: Speed
  private var transposeNow: Double
  private var clicksOn: Bool
  private var countInRemaining: Int64
  private var fadeInRemaining = 0
  private var paused = false

  // What was scheduled, in output order; render thread only.
  private var clickQueue: LocalQueue<ScheduledClick>
  private var marks: LocalQueue<Mark>
  private var sounding: Mark
  private var passesCompleted = 0

  /// `live`: a controller may change speed, pitch, clicks and position while playing
  /// (the stretcher is then always at hand, and clicks can be switched on).
  public init(file: SoundFile, plan: PlaybackPlan, sink: any AudioSink, live: Bool = false) throws {
    precondition(sink.channels == file.info.channels, "sink and source channel counts differ")
    precondition(sink.maxBlockFrames >= PlaybackEngine.blockFrames, "sink blocks too small")
    // Foundation's Thread.start() says nothing when a thread cannot be made (too little
    // memory): the engine's three would then wait for each other for ever.
    let threadError = practice_can_start_threads(3)
    guard threadError == 0 else {
      throw PracticeError(
        .other,
        "cannot start the playback threads (\(String(cString: strerror(threadError)))): "
          + PracticeError.tooLittleMemory)
    }
    // Swift ends the process when an allocation fails: the buffers made below (the read-ahead
    // ring, blocks, filters and queues, about 0.4 MB in stereo) trapped in a 0.4 MB band of
    // address-space limits (136.0-136.35 MB for a debug build). Room for them and what a
    // play makes once it runs is asked for first.
    guard practice_can_allocate(PlaybackEngine.roomNeeded) == 0 else {
      throw PracticeError(
        .other, "cannot make the playback buffers: " + PracticeError.tooLittleMemory)
    }
    self.plan = plan
    self.live = live
    self.sink = sink
    channels = file.info.channels
    sampleRate = file.info.sampleRate
    feeder = try SourceFeeder(file: file, plan: plan)
    gainBits = Atomic(Float(plan.volume.gain).bitPattern)
    block = .allocate(capacity: PlaybackEngine.blockFrames * channels)
    stretchInput = .allocate(capacity: PlaybackEngine.blockFrames * channels)
    blockTimes = BlockTimeHistogram()
    fadeFrames = max(1, Int(Double(sampleRate) * PlaybackEngine.fadeMilliseconds / 1000))
    fadeCurve = .allocate(capacity: fadeFrames)
    for i in 0..<fadeFrames { fadeCurve[i] = SeamBlend.rise(i, fadeFrames) }
    filterStage = FilterStage(
      channels: channels, maxFrames: PlaybackEngine.blockFrames, fadeFrames: fadeFrames,
      design: plan.filter.design(sampleRate: sampleRate, channels: channels), keepsHistory: live)
    clicks = plan.clicks
    clickSound = ClickSound(sampleRate: sampleRate)
    clicksOn = plan.clicks?.enabled ?? false
    countInRemaining = plan.clicks?.countInFrames ?? 0
    // The first pass starts where the count-in ends.
    feedOutput = Double(countInRemaining)
    feedPlan = plan
    speedNow = plan.speed(forPass: 0)
    transposeNow = plan.transpose
    clickQueue = LocalQueue(capacity: 1024, filler: ScheduledClick(frame: 0, accent: false, always: false))
    marks = LocalQueue(capacity: 1024, filler: Mark.start)
    sounding = Mark(
      output: 0, source: plan.range.lowerBound + plan.startOffset, speed: speedNow.rate,
      pass: 0, generation: 0, kind: .gap)
    stretching = plan.needsStretcher
    if plan.needsStretcher || live {
      let steering = try StretchSteering(
        sampleRate: sampleRate, channels: channels, speed: speedNow, semitones: plan.transpose,
        quality: plan.quality, live: live, trainerSpeeds: plan.trainerSpeeds(limit: 32),
        measureNow: stretching)
      self.steering = steering
      if stretching {
        // Prime with the start pad and a lead-in of silence, and drop their output plus the
        // measured delay, so the range's first downbeat is the first thing heard.
        stretchDrop = steering.prime(speed: speedNow, semitones: transposeNow, output: feedOutput)
      }
    } else {
      steering = nil
    }
    // The count-in's clicks, then the first pass from where the count-in ends.
    for click in plan.clicks?.countIn ?? [] {
      clickQueue.append(ScheduledClick(frame: click.frame, accent: click.accent, always: true))
    }
    beginPass(0)
  }

  deinit {
    block.deallocate()
    stretchInput.deallocate()
    fadeCurve.deallocate()
    clickQueue.deallocate()
    marks.deallocate()
  }

  // MARK: Control (any thread but the render thread)

  /// Sets the gain applied from the next block on.
  public func setVolume(_ volume: Volume) {
    gainBits.store(Float(volume.gain).bitPattern, ordering: .relaxed)
  }

  /// Fades to `filter` (designed here, on the caller's thread) from the next block, over
  /// the engine's fade. One controller thread only.
  public func setFilter(_ filter: PartFilter) {
    filterDesigns.push(filter.design(sampleRate: sampleRate, channels: channels))
    wake.signal()
  }

  /// Queues a command for the render thread (taken at the next block, or at once when
  /// paused). One controller thread only.
  public func send(_ command: TransportCommand) {
    commands.push(command)
    wake.signal()
  }

  /// Asks the calibration thread to measure the start delay for a speed and pitch
  /// (`TimeStretcher.alignedStartDelay`, tens of milliseconds of work), so clicks and
  /// jumps after a speed change land exactly. One controller thread only.
  public func calibrate(speed: Speed, semitones: Double) {
    steering?.calibrate(speed: speed, semitones: semitones)
  }

  /// Moves playback to `plan` (a new range, start offset, passes); a later jump replaces
  /// one not yet taken. One controller thread only.
  public func jump(to plan: PlaybackPlan, kind: JumpKind) {
    let box = JumpBox(plan: plan, kind: kind)
    jumpBoxes.append(box)
    pendingJump.store(Unmanaged.passUnretained(box).toOpaque(), ordering: .releasing)
    wake.signal()
  }

  /// Asks the engine to stop at the next block; safe from any thread or a signal source.
  public func stop() {
    stopRequested.store(true, ordering: .relaxed)
    feeder.stopRequested.store(true, ordering: .relaxed)
    feeder.dataReady.signal()
    feeder.spaceReady.signal()
    wake.signal()
    steering?.wakeWaiters()
  }

  /// Plays the whole plan and returns when it has ended, was stopped, or failed.
  public func run() throws -> PlaybackReport {
    start()
    return try wait()
  }

  /// Starts the feeder and render threads.
  public func start() {
    let feederThread = Thread { [self] in
      practice_set_thread_name("practice-feeder")
      feeder.run()
      feederDone.signal()
    }
    feederThread.start()
    let renderThread = Thread { [self] in
      renderLoop()
      renderDone.signal()
    }
    renderThread.qualityOfService = .userInteractive
    renderThread.start()
    let calibrationThread = Thread { [self] in
      practice_set_thread_name("practice-calibrate")
      steering?.calibrateUntil { [self] in
        stopRequested.load(ordering: .relaxed) || renderEnded.load(ordering: .acquiring)
      }
      calibrationDone.signal()
    }
    calibrationThread.qualityOfService = .utility
    calibrationThread.start()
  }

  /// Waits up to `timeout` for the render thread to end; true if it has (then call `wait()`).
  public func waitForEnd(timeout: DispatchTimeInterval) -> Bool {
    guard renderDone.wait(timeout: .now() + timeout) == .success else { return false }
    renderDone.signal()  // leave it signalled for wait()
    return true
  }

  /// Waits for the render thread to end; rethrows its error.
  public func wait() throws -> PlaybackReport {
    renderDone.wait()
    renderEnded.store(true, ordering: .releasing)
    steering?.wakeWaiters()
    calibrationDone.wait()
    feeder.stopRequested.store(true, ordering: .relaxed)
    feeder.spaceReady.signal()
    feederDone.wait()
    if let renderError { throw renderError }
    let written = framesWritten.load(ordering: .acquiring)
    let underruns = (sink as? PCMDevice)?.underruns.load(ordering: .relaxed) ?? 0
    return PlaybackReport(
      framesWritten: written,
      passesCompleted: passesEnded.load(ordering: .acquiring),
      interrupted: interrupted,
      truncation: feeder.truncation
        ?? (feeder.reachedEarlyEnd && !interrupted
          ? Truncation(frame: feeder.fileFrames, reason: feeder.endReason) : nil),
      underruns: underruns)
  }
}

/// A jump's new plan, handed from the controller to the render thread.
private final class JumpBox {
  let plan: PlaybackPlan
  let kind: JumpKind
  init(plan: PlaybackPlan, kind: JumpKind) {
    self.plan = plan
    self.kind = kind
  }
}

/// A click at an output frame; `always` for count-in clicks, which sound with clicks off.
struct ScheduledClick: BitwiseCopyable {
  var frame: Int64
  var accent: Bool
  var always: Bool
}

/// Something that happens when the output reaches `output`: the source position from
/// there on (every feed leaves one), or a pass starting or ending.
struct Mark: BitwiseCopyable {
  enum Kind: UInt8 { case position, gap, passStart, passEnd }
  var output: Double
  var source: Int64
  var speed: Double
  var pass: Int
  var generation: Int
  var kind: Kind

  static let start = Mark(output: 0, source: 0, speed: 1, pass: 0, generation: 0, kind: .gap)
}

extension PlaybackEvent {
  static let none = PlaybackEvent(
    outputFrame: 0, delayFrames: 0, nanoseconds: 0, sourceFrame: 0, speed: 1, pass: 0,
    passesCompleted: 0, generation: 0, inGap: true, paused: false, ended: false)
}

// MARK: The render thread

extension PlaybackEngine {
  /// Per block: commands, count-in silence, a jump or a pause (with their fades), source
  /// frames (through the stretcher when it is in the path), filters, gain, clicks, sink. No
  /// allocation, no locks; it waits only for the feeder, for the sink, and while paused.
  private func renderLoop() {
    practice_set_thread_name("practice-render")
    do {
      while true {
        if stopRequested.load(ordering: .relaxed) {
          interrupted = true
          break
        }
        let workStart = monotonicNanoseconds()
        var pauseNow = false
        var switchIntoStretcher = false
        while let command = commands.pop() {
          switch command {
          case .pause: pauseNow = !paused
          case .resume: break
          case .setSpeed(let speed):
            liveSpeed = speed
            switchIntoStretcher = setSpeedNow(speed) || switchIntoStretcher
          case .setTranspose(let semitones):
            transposeNow = semitones
            if stretching { steering?.stretcher.setTranspose(semitones) } else if semitones != 0 { switchIntoStretcher = true }
          case .setClick(let on): clicksOn = on && feedPlan.clicks != nil
          }
        }
        takeMeasurements()
        takeFilterDesign(fade: true)
        var frames = countInSilence(at: 0)
        var fadeInFrom = frames
        if let raw = pendingJump.exchange(nil, ordering: .acquiring) {
          let box = Unmanaged<JumpBox>.fromOpaque(raw).takeUnretainedValue()
          frames = adopt(box.plan, kind: box.kind, at: frames, fadeOut: true)
          // A drill's count-in begins where the jump was taken.
          frames = countInSilence(at: frames)
          fadeInFrom = frames
        } else if switchIntoStretcher && steering != nil {
          frames = fadeOut(at: frames)
          startStretching(at: frames)
          fadeInFrom = frames
        }
        if pauseNow {
          frames = fadeOut(at: frames)
        } else if frames < PlaybackEngine.blockFrames {
          frames += fill(block + frames * channels, frames: PlaybackEngine.blockFrames - frames, at: frames)
        }
        // Stopped while waiting for the feeder: drop the partial block.
        if stopRequested.load(ordering: .relaxed) {
          interrupted = true
          break
        }
        if frames == 0 { break }
        applyFadeIn(from: fadeInFrom, to: frames)
        filterStage.process(block, frames: frames)
        let gain = Float(bitPattern: gainBits.load(ordering: .relaxed))
        if gain != 1 {
          for i in 0..<(frames * channels) { block[i] *= gain }
        }
        mixClicks(frames: frames)
        blockTimes.record(nanoseconds: monotonicNanoseconds() - workStart)
        if firstFrameNanoseconds.load(ordering: .relaxed) == 0 {
          firstFrameNanoseconds.store(monotonicNanoseconds(), ordering: .relaxed)
        }
        try sink.write(block, frames: frames)
        let written = framesWritten.add(Int64(frames), ordering: .releasing).newValue
        reachOutput(written)
        publish(written: written)
        if pauseNow { try pauseUntilResumed() }
      }
      lastFrameNanoseconds.store(monotonicNanoseconds(), ordering: .relaxed)
      // Played to its end: a mark placed a frame or so past the last output (the last
      // pass's end, after the stretcher's steering) was reached too.
      if !interrupted { reachOutput(Int64.max / 2) }
      publish(written: framesWritten.load(ordering: .relaxed), ended: true)
      if interrupted { sink.abort() } else { try sink.finish() }
    } catch {
      sink.abort()
      renderError = error
    }
  }

  /// The speed from now on; true if the stretcher must come into the path for it.
  private func setSpeedNow(_ speed: Speed) -> Bool {
    speedNow = speed
    if stretching, let steering {
      // Rubber Band applies the ratio from the centre of its next analysis frame, some
      // frames before what was fed: follow the content there (clicks and marks are placed
      // from `feedOutput`), and shift it by the new speed's bias once it is measured.
      steering.endStep()
      feedOutput = steering.follow(
        speed, bias: steering.bias(speed, semitones: transposeNow) ?? steering.contentBias)
      return false
    }
    return speed != .normal
  }

  /// Switches the filter stage to the last design sent, if any.
  private func takeFilterDesign(fade: Bool) {
    var latest: FilterDesign?
    while let design = filterDesigns.pop() { latest = design }
    if let latest { filterStage.change(to: latest, fade: fade) }
  }

  /// Takes the calibration thread's measurements (which may move the content's place).
  private func takeMeasurements() {
    steering?.takeMeasurements(
      playing: speedNow, semitones: transposeNow, stretching: stretching, feedOutput: &feedOutput)
  }

  /// The bias of one of the trainer's speeds (waiting for its measurement if need be).
  private func trainerBias(_ steering: StretchSteering, _ speed: Speed) -> Double {
    steering.trainerBias(
      speed, playing: speedNow, semitones: transposeNow, stretching: stretching,
      feedOutput: &feedOutput, stopped: { stopRequested.load(ordering: .relaxed) })
  }

  /// Lets the steering prepare the trainer's next step (see `StretchSteering.steer`).
  private func steerStretcher(_ steering: StretchSteering) {
    var next: Speed? = nil
    if liveSpeed == nil && !feedPlan.passes.isFinal(feedPass) {
      let speed = feedPlan.speed(forPass: feedPass + 1)
      if speed != speedNow { next = speed }
    }
    steering.steer(
      next: next, toPassEnd: feedPassEnd - feedOffset, speed: speedNow, semitones: transposeNow,
      feedOutput: &feedOutput, stopped: { stopRequested.load(ordering: .relaxed) })
  }

  /// Plays out what is queued (its end faded), then waits for resume, stop or a jump.
  private func pauseUntilResumed() throws {
    try sink.pause()
    paused = true
    publish(written: framesWritten.load(ordering: .relaxed))
    while paused {
      if stopRequested.load(ordering: .relaxed) { return }
      wake.wait()
      while let command = commands.pop() {
        switch command {
        case .resume, .pause: paused = false
        case .setSpeed(let speed):
          liveSpeed = speed
          if setSpeedNow(speed) && steering != nil { startStretching(at: 0) }
        case .setTranspose(let semitones):
          transposeNow = semitones
          if stretching { steering?.stretcher.setTranspose(semitones) } else if semitones != 0 && steering != nil {
            startStretching(at: 0)
          }
        case .setClick(let on): clicksOn = on && feedPlan.clicks != nil
        }
      }
      takeMeasurements()
      takeFilterDesign(fade: false)
      if let raw = pendingJump.exchange(nil, ordering: .acquiring) {
        let box = Unmanaged<JumpBox>.fromOpaque(raw).takeUnretainedValue()
        _ = adopt(box.plan, kind: box.kind, at: 0, fadeOut: false)
        // Nothing sounds before the resume, and then the jump's new place: report that
        // place now (the status line shows it; the next step counts from it). A drill's
        // count-in is that place, not the pass after it: it sounds once the play resumes.
        var start = marks.last
        for i in 0..<marks.count where marks[i].generation == generation {
          start = marks[i]
          break
        }
        if let start { reachOutput(Int64(start.output.rounded(.up))) }
      }
      publish(written: framesWritten.load(ordering: .relaxed))
    }
    try sink.resume()
    fadeInRemaining = fadeFrames
  }

  /// Fills `frames` of the block from `at` with the stream faded out; returns the new end.
  private func fadeOut(at start: Int) -> Int {
    let wanted = min(fadeFrames, PlaybackEngine.blockFrames - start)
    let got = fill(block + start * channels, frames: wanted, at: start)
    for i in 0..<got {
      let g = fadeCurve[fadeFrames - 1 - i * fadeFrames / max(1, wanted)]
      for c in 0..<channels { block[(start + i) * channels + c] *= g }
    }
    fadeInRemaining = 0
    return start + got
  }

  /// Fills the block from `at` with what is left of the count-in's silence (its clicks are
  /// mixed in with the others), up to the block's end; returns the new end.
  private func countInSilence(at start: Int) -> Int {
    let frames = Int(min(countInRemaining, Int64(PlaybackEngine.blockFrames - start)))
    guard frames > 0 else { return start }
    (block + start * channels).update(repeating: 0, count: frames * channels)
    countInRemaining -= Int64(frames)
    // What follows starts out of silence, as a play's first pass does: unfaded (a drill's
    // fade-in after its count-in took the attack off the first downbeat).
    if countInRemaining == 0 { fadeInRemaining = 0 }
    return start + frames
  }

  private func applyFadeIn(from start: Int, to end: Int) {
    var i = start
    while fadeInRemaining > 0 && i < end {
      let g = fadeCurve[fadeFrames - fadeInRemaining]
      for c in 0..<channels { block[i * channels + c] *= g }
      fadeInRemaining -= 1
      i += 1
    }
  }

  /// Brings the stretcher into the path at the current feed position: reset, primed at the
  /// current speed and pitch, its delay dropped so output continues where the feed is.
  private func startStretching(at blockOffset: Int) {
    guard let steering else { return }
    stretchDrop = steering.restart(speed: speedNow, semitones: transposeNow, output: feedOutput)
    stretchFlushed = false
    stretchTail = 0
    stretching = true
    fadeInRemaining = fadeFrames
  }

  /// Takes a jump's plan at block offset `at`: either plays on from the fed position under
  /// the new range, or fades out, drops everything scheduled after this point, resets the
  /// stretcher and starts the plan. Returns the block offset where the new stream starts.
  private func adopt(_ newPlan: PlaybackPlan, kind: JumpKind, at start: Int, fadeOut fade: Bool) -> Int {
    var next = newPlan
    let fedSource = feedPlan.range.lowerBound + feedOffset
    let inRange = feedOffset < feedPlan.rangeFrames && !feederEnded
    if kind == .playOn && inRange && next.range.contains(fedSource) {
      // Play on: the new plan's first pass continues the pass being fed.
      next.startOffset = fedSource - next.range.lowerBound
      restartFeeder(with: next)
      feedOffset = next.startOffset
      feedPassEnd = next.rangeFrames + next.gapSourceFrames(afterPass: 0, sampleRate: sampleRate)
      feedClick = firstClick(from: feedOffset)
      applyPassSpeed()
      return start
    }
    var end = start
    if fade { end = fadeOut(at: start) }
    countInRemaining = 0
    let switchOutput = Double(framesWritten.load(ordering: .relaxed) + Int64(end))
    while let last = clickQueue.last, Double(last.frame) >= switchOutput { clickQueue.removeLast() }
    while let last = marks.last, last.output >= switchOutput { marks.removeLast() }
    restartFeeder(with: next)
    feedOutput = switchOutput
    if kind == .drill {
      // The plan's speed from here: the stretcher starts afresh at it below (or is left out),
      // so there is nothing to follow or to wait for.
      liveSpeed = nil
      speedNow = next.speed(forPass: 0)
      // Its count-in (a selection's), as at the start of a play: reported as pass 0, its
      // clicks always heard, the drill's first pass from where it ends.
      if let clicks = next.clicks, clicks.countInFrames > 0 {
        marks.append(
          Mark(
            output: switchOutput, source: next.range.lowerBound, speed: speedNow.rate, pass: 0,
            generation: generation, kind: .gap))
        for click in clicks.countIn {
          clickQueue.append(
            ScheduledClick(
              frame: Int64(switchOutput) + click.frame, accent: click.accent, always: true))
        }
        countInRemaining = clicks.countInFrames
        feedOutput += Double(clicks.countInFrames)
      }
    } else {
      applyPassSpeed()
    }
    if steering != nil {
      stretching = speedNow != .normal || transposeNow != 0 || (liveSpeed == nil && feedPlan.ramp != nil)
      if stretching { startStretching(at: end) }
    }
    beginPass(0, continuing: kind != .playOn)
    fadeInRemaining = fadeFrames
    return end
  }

  /// Whether the feeder has delivered its plan's last sample and the ring is empty.
  private var feederEnded: Bool {
    feeder.finishedGeneration.load(ordering: .acquiring) == generation && feeder.ring.available == 0
  }

  /// Hands `plan` to the feeder as a new generation, waits for it to let go of the old one,
  /// and drops what it had queued of it.
  private func restartFeeder(with plan: PlaybackPlan) {
    generation += 1
    feeder.requestedPlan = plan
    feeder.requestedGeneration.store(generation, ordering: .releasing)
    feeder.spaceReady.signal()
    while feeder.acknowledgedGeneration.load(ordering: .acquiring) != generation {
      feeder.dataReady.wait()
    }
    feeder.ring.discard(upTo: feeder.acknowledgedWritten.load(ordering: .relaxed))
    feeder.spaceReady.signal()  // the feeder may be waiting for the room just freed
    feedPlan = plan
    feedPass = 0
  }

  /// Sets up feeding pass `pass` of the feed plan from `feedOffset`, at its speed, and
  /// marks its start (not when a seek continues the pass being played).
  private func beginPass(_ pass: Int, continuing: Bool = false) {
    feedPass = pass
    if pass == 0 { feedOffset = feedPlan.startOffset } else { feedOffset = 0 }
    feedPassEnd = feedPlan.rangeFrames + feedPlan.gapSourceFrames(afterPass: pass, sampleRate: sampleRate)
    feedClick = firstClick(from: feedOffset)
    // After the last pass there is no speed to take: the trainer's next step would re-time
    // the stretcher's tail (`follow`) and change the length the plan says.
    if case .count(let n) = feedPlan.passes, pass >= n { return }
    applyPassSpeed()
    if !continuing || passCounter == 0 { passCounter += 1 }
    marks.append(
      Mark(
        output: feedOutput, source: feedPlan.range.lowerBound + feedOffset, speed: speedNow.rate,
        pass: passCounter, generation: generation, kind: continuing ? .position : .passStart))
  }

  /// The speed of the pass being fed (the controller's, else the plan's), into the stretcher.
  private func applyPassSpeed() {
    let speed = liveSpeed ?? feedPlan.speed(forPass: feedPass)
    guard speed != speedNow else { return }
    speedNow = speed
    guard stretching, let steering else { return }
    if steering.approachingStep { return }  // `steerStretcher` switches it on time
    // Not steered (a pass shorter than the lookahead): switch now and follow the content.
    let bias =
      liveSpeed == nil
      ? trainerBias(steering, speed)
      : steering.bias(speed, semitones: transposeNow) ?? steering.contentBias
    feedOutput = steering.follow(speed, bias: bias)
  }

  /// The clicks of the pass being fed: its beats, and the gap bar's when a gap follows.
  private var passClicks: [ClickPlan.Click] {
    guard let clicks = feedPlan.clicks else { return [] }
    return feedPlan.gapSourceFrames(afterPass: feedPass, sampleRate: sampleRate) == 0
      ? clicks.beats : clicks.beatsWithGap
  }

  private func firstClick(from offset: Int64) -> Int {
    let list = passClicks
    var index = 0
    while index < list.count && list[index].frame < offset { index += 1 }
    return index
  }

  /// Reads up to `frames` source frames of the pass being fed from the ring (waiting for
  /// the feeder), and schedules what they carry: a position mark, their clicks, the pass's
  /// end. Returns 0 at the end of the plan (or of the decodable audio).
  private func pull(into buffer: UnsafeMutablePointer<Float>, frames wanted: Int) -> Int {
    if case .count(let n) = feedPlan.passes, feedPass >= n { return 0 }
    let n = Int(min(Int64(wanted), feedPassEnd - feedOffset))
    let got = readRing(buffer, n * channels) / channels
    guard got > 0 else { return 0 }
    let ratio = speedNow.timeRatio
    let inGap = feedOffset >= feedPlan.rangeFrames
    marks.append(
      Mark(
        output: feedOutput,
        source: feedPlan.range.lowerBound + min(feedOffset, feedPlan.rangeFrames),
        speed: speedNow.rate, pass: passCounter, generation: generation,
        kind: inGap ? .gap : .position))
    let list = passClicks
    let end = feedOffset + Int64(got)
    while feedClick < list.count && list[feedClick].frame < end {
      let click = list[feedClick]
      let frame = feedOutput + Double(click.frame - feedOffset) * ratio
      clickQueue.append(ScheduledClick(frame: Int64(frame.rounded()), accent: click.accent, always: false))
      feedClick += 1
    }
    if feedOffset < feedPlan.rangeFrames && end >= feedPlan.rangeFrames {
      let at = feedOutput + Double(feedPlan.rangeFrames - feedOffset) * ratio
      marks.append(
        Mark(
          output: at, source: feedPlan.range.upperBound, speed: speedNow.rate, pass: passCounter,
          generation: generation, kind: .passEnd))
    }
    feedOffset = end
    feedOutput += Double(got) * ratio
    if feedOffset >= feedPassEnd { beginPass(feedPass + 1) }
    return got
  }

  /// Reads up to `count` samples from the ring, waiting for the feeder; short only at the
  /// end of the feeder's plan or when stopped.
  private func readRing(_ destination: UnsafeMutablePointer<Float>, _ count: Int) -> Int {
    var done = 0
    while done < count {
      let n = feeder.ring.read(into: destination + done, count: count - done)
      done += n
      if n > 0 { feeder.spaceReady.signal() }
      if done == count { break }
      if stopRequested.load(ordering: .relaxed) { break }
      if feederEnded { break }
      if n == 0 { feeder.dataReady.wait() }  // signalled by every write, at the end, and by stop()
    }
    return done
  }

  /// Fills `frames` of the stream (stretched or not) into `out`, which is block offset
  /// `at`; short only at the end.
  private func fill(_ out: UnsafeMutablePointer<Float>, frames: Int, at: Int) -> Int {
    if stretching, let steering {
      return fillStretched(steering, into: out, frames: frames, at: at)
    }
    var done = 0
    while done < frames {
      let got = pull(into: out + done * channels, frames: frames - done)
      if got == 0 { break }
      done += got
    }
    return done
  }

  /// Fills with stretched output: feeds the stretcher as it asks, drops its start delay,
  /// and after the final flush holds the total to the output frames the feed is worth, so
  /// pass lengths are exact. Returns frames, short only at the end.
  private func fillStretched(
    _ steering: StretchSteering, into out: UnsafeMutablePointer<Float>, frames wanted: Int, at: Int
  ) -> Int {
    let stretcher = steering.stretcher
    var produced = 0
    if stretchDrop < 0 {
      // Lead with silence where the stretcher's transients would otherwise come early.
      produced = min(-stretchDrop, wanted)
      out.update(repeating: 0, count: produced * channels)
      stretchDrop += produced
    }
    while produced < wanted {
      let available = stretcher.framesAvailable
      if available > 0 {
        let to = out + produced * channels
        var got = stretcher.retrieve(into: to, frames: min(available, wanted - produced))
        if stretchDrop > 0 {
          let dropped = min(stretchDrop, got)
          to.update(from: to + dropped * channels, count: (got - dropped) * channels)
          stretchDrop -= dropped
          got -= dropped
        }
        produced += got
        continue
      }
      if stretchFlushed || stopRequested.load(ordering: .relaxed) { break }
      steerStretcher(steering)
      let wanted = min(max(stretcher.framesRequired, 1), PlaybackEngine.blockFrames)
      let frames = pull(into: stretchInput, frames: wanted)
      if frames > 0 {
        stretcher.process(stretchInput, frames: frames)
        steering.noteFed(frames)
      } else if stretchTail < stretcher.startPad + stretcher.startDelay + PlaybackEngine.blockFrames {
        // The end: push the last frames out with silence (a final process call alone
        // leaves the stretcher's latency unplayed); the length is held exact below.
        stretcher.process(nil, frames: wanted)
        stretchTail += wanted
        steering.noteFed(wanted)
      } else {
        stretcher.process(nil, frames: 0, final: true)
        stretchFlushed = true
      }
    }
    if stretchTail > 0 || stretchFlushed {
      // The tail may run long or short of the exact length: hold it to it.
      let position = framesWritten.load(ordering: .relaxed) + Int64(at)
      let room = Int(max(0, min(Int64(wanted), Int64(feedOutput.rounded()) - position)))
      if produced > room { produced = room }
      if produced < room && stretcher.framesAvailable <= 0 {
        (out + produced * channels).update(repeating: 0, count: (room - produced) * channels)
        produced = room
      }
    }
    return produced
  }

  /// Acts on the marks the output has reached: the sounding position, pass starts and ends.
  private func reachOutput(_ written: Int64) {
    while let mark = marks.first, mark.output <= Double(written) + 0.5 {
      marks.removeFirst()
      switch mark.kind {
      case .passEnd:
        passesCompleted += 1
        passesEnded.store(passesCompleted, ordering: .releasing)
      case .passStart:
        passesStarted.store(mark.pass, ordering: .releasing)
      case .position, .gap:
        break
      }
      sounding = mark
    }
  }

  /// Reports where the output is (the render thread's only message to the controller).
  private func publish(written: Int64, ended: Bool = false) {
    let mark = sounding
    let inGap = mark.kind == .gap || mark.kind == .passEnd
    // Paused after a jump, the output has not reached its start yet.
    let source = inGap ? mark.source : mark.source + Int64((max(0, Double(written) - mark.output) * mark.speed).rounded())
    events.push(
      PlaybackEvent(
        outputFrame: written, delayFrames: ended || paused ? 0 : sink.pendingFrames(),
        nanoseconds: monotonicNanoseconds(), sourceFrame: source, speed: speedNow.rate,
        pass: mark.pass, passesCompleted: passesCompleted, generation: mark.generation,
        inGap: inGap, paused: paused, ended: ended))
  }

  /// Adds the scheduled clicks that overlap the block just filled (output frames from
  /// `framesWritten`) into every channel, at the click volume.
  private func mixClicks(frames: Int) {
    guard let clicks else { return }
    let blockStart = framesWritten.load(ordering: .relaxed)
    let blockEnd = blockStart + Int64(frames)
    let gain = Float(clicks.volume.gain)
    while let first = clickQueue.first, first.frame + Int64(clickSound.accent.count) <= blockStart {
      clickQueue.removeFirst()
    }
    var i = 0
    while i < clickQueue.count {
      let c = clickQueue[i]
      if c.frame >= blockEnd { break }
      i += 1
      guard c.always || clicksOn else { continue }
      let sound = c.accent ? clickSound.accent : clickSound.normal
      let from = max(blockStart, c.frame)
      let to = min(blockEnd, c.frame + Int64(sound.count))
      guard from < to else { continue }
      for frame in from..<to {
        let value = sound[Int(frame - c.frame)] * gain
        let base = Int(frame - blockStart) * channels
        for ch in 0..<channels { block[base + ch] += value }
      }
    }
  }
}
