import Dispatch
import Synchronization

/// Rubber Band steered so the content lands where the plan says: its time map (input
/// frames fed → output frames, as the stretcher really runs), the start delays measured
/// per speed and pitch (by a calibration thread of its own), and the speed trainer's
/// steps. The engine's render thread owns it; `calibrate`, `calibrateUntil` (the
/// calibration thread) and `wakeWaiters` are the only entries from other threads.
final class StretchSteering: @unchecked Sendable {
  /// The stretcher itself; render thread only after start.
  let stretcher: TimeStretcher
  /// The plan's speeds (the trainer's), each measured at start (the first) or by the
  /// calibration thread; immutable after init.
  let trainerSpeeds: [Speed]
  private let sampleRate: Int  // immutable after init
  private let channels: Int  // immutable after init
  private let quality: StretchQuality  // immutable after init
  private let live: Bool  // immutable after init
  /// The plan's pitch: the trainer's speeds are measured at it; immutable after init.
  private let plannedSemitones: Double

  /// Speeds to measure (engine or controller → calibration thread) and what was measured
  /// (→ render thread).
  private let requests = ValueRing<Calibration>(capacity: 64, filler: .none)
  private let results = ValueRing<Calibration>(capacity: 64, filler: .none)
  private let requestWake = DispatchSemaphore(value: 0)
  /// Signalled after every measurement, for a render thread waiting for a trainer speed's.
  private let resultReady = DispatchSemaphore(value: 0)

  /// Measured start delays (`TimeStretcher.alignedStartDelay`) per speed and pitch: the
  /// start's, then what the calibration thread brings; a fixed table. Render thread only.
  private var calibrations: [Calibration]
  private var calibrationCount = 0

  /// Rubber Band's time map as it really runs (see `steer`): stretcher input frames fed
  /// after the start pad, the last point where its ratio changed (input and output frames)
  /// and the ratio since; the bias of the speed the last prime measured (already in the
  /// dropped delay) and of the speed the content now being fed plays at. Render thread only.
  private(set) var fed: Int64 = 0
  private var mapInput: Int64 = 0
  private var mapOutput = 0.0
  private var mapRatio = 1.0
  private(set) var primedBias = 0.0
  private(set) var contentBias = 0.0
  private var step = TrainerStep.idle

  /// A stretcher at `speed` and `semitones`. `measureNow`: the stretcher is in the path
  /// from the start, so the start's delay is measured here and the trainer's other speeds
  /// are queued for the calibration thread (well before their steps).
  init(
    sampleRate: Int, channels: Int, speed: Speed, semitones: Double, quality: StretchQuality,
    live: Bool, trainerSpeeds: [Speed], measureNow: Bool
  ) throws {
    self.sampleRate = sampleRate
    self.channels = channels
    self.quality = quality
    self.live = live
    self.trainerSpeeds = trainerSpeeds
    plannedSemitones = semitones
    calibrations = Array(repeating: .none, count: 64)
    stretcher = try TimeStretcher(
      sampleRate: sampleRate, channels: channels, speed: speed, semitones: semitones,
      quality: quality, maxBlockFrames: PlaybackEngine.blockFrames, live: live)
    if measureNow {
      let delay = try TimeStretcher.alignedStartDelay(
        sampleRate: sampleRate, channels: channels, speed: speed, semitones: semitones,
        quality: quality, live: live)
      remember(Calibration(speed: speed, semitones: semitones, delay: delay))
      for speed in trainerSpeeds.dropFirst() {
        requests.push(Calibration(speed: speed, semitones: semitones, delay: 0))
      }
    }
  }

  // MARK: Other threads

  /// Queues a speed and pitch for the calibration thread. One controller thread only.
  func calibrate(speed: Speed, semitones: Double) {
    requests.push(Calibration(speed: speed, semitones: semitones, delay: 0))
    requestWake.signal()
  }

  /// The calibration thread: measures what is asked until `finished` says so (checked
  /// after every wake; `wakeWaiters` wakes it).
  func calibrateUntil(_ finished: () -> Bool) {
    while !finished() {
      while let request = requests.pop() {
        // A probe that cannot be set up leaves the library's own delay: never no answer.
        let delay =
          (try? TimeStretcher.alignedStartDelay(
            sampleRate: sampleRate, channels: channels, speed: request.speed,
            semitones: request.semitones, quality: quality, live: live)) ?? stretcher.startDelay
        results.push(Calibration(speed: request.speed, semitones: request.semitones, delay: delay))
        resultReady.signal()
      }
      requestWake.wait()
    }
  }

  /// Wakes the calibration thread and a render thread waiting for a measurement (on stop
  /// and at the end).
  func wakeWaiters() {
    requestWake.signal()
    resultReady.signal()
  }

  // MARK: Render thread

  /// Takes the measurements that arrived; one for the speed and pitch playing now (with the
  /// stretcher in the path) moves `feedOutput` to where that speed really puts the content.
  func takeMeasurements(
    playing speed: Speed, semitones: Double, stretching: Bool, feedOutput: inout Double
  ) {
    while let calibration = results.pop() {
      remember(calibration)
      guard stretching, calibration.speed == speed, calibration.semitones == semitones else {
        continue
      }
      let bias = Double(calibration.delay - stretcher.startDelay)
      feedOutput += bias - contentBias
      contentBias = bias
    }
  }

  private func remember(_ calibration: Calibration) {
    calibrations[calibrationCount % calibrations.count] = calibration
    calibrationCount += 1
  }

  /// Output frames by which Rubber Band places transients at `speed` later than its start
  /// delay implies (negative: earlier), if measured.
  func bias(_ speed: Speed, semitones: Double) -> Double? {
    for i in 0..<min(calibrationCount, calibrations.count) {
      let c = calibrations[i]
      if c.speed == speed && c.semitones == semitones {
        return Double(c.delay - stretcher.startDelay)
      }
    }
    return nil
  }

  /// The bias of one of the trainer's speeds, waiting for the calibration thread if it has
  /// not measured it yet (in real time it has, long before; a render waits, so that its
  /// output never depends on timing). Measurements taken meanwhile may move `feedOutput`.
  func trainerBias(
    _ speed: Speed, playing: Speed, semitones: Double, stretching: Bool, feedOutput: inout Double,
    stopped: () -> Bool
  ) -> Double {
    guard trainerSpeeds.contains(speed), semitones == plannedSemitones else {
      return bias(speed, semitones: semitones) ?? contentBias
    }
    while true {
      takeMeasurements(
        playing: playing, semitones: semitones, stretching: stretching, feedOutput: &feedOutput)
      if let bias = bias(speed, semitones: semitones) { return bias }
      if stopped() { return contentBias }
      resultReady.wait()
    }
  }

  /// Primes the stretcher at `speed` and `semitones` and starts its time map at output frame
  /// `output`; returns the output frames to drop (negative: silence to lead with).
  func prime(speed: Speed, semitones: Double, output: Double) -> Int {
    let bias = self.bias(speed, semitones: semitones) ?? 0
    let drop = stretcher.prime(
      alignedStartDelay: stretcher.startDelay + Int(bias), sampleRate: sampleRate, speed: speed)
    fed = Int64(TimeStretcher.leadInFrames(sampleRate: sampleRate))
    mapInput = fed
    mapOutput = output
    mapRatio = speed.timeRatio
    primedBias = bias
    contentBias = bias
    step = .idle
    return drop
  }

  /// Resets the stretcher and primes it again (bringing it into the path); see `prime`.
  func restart(speed: Speed, semitones: Double, output: Double) -> Int {
    stretcher.reset()
    stretcher.setSpeed(speed)
    stretcher.setTranspose(semitones)
    return prime(speed: speed, semitones: semitones, output: output)
  }

  /// Counts frames fed to the stretcher (content or silence).
  func noteFed(_ frames: Int) { fed += Int64(frames) }

  /// Whether a trainer step is under way (its speed is switched on time by `steer`).
  var approachingStep: Bool {
    if case .approaching = step { return true }
    return false
  }

  /// Ends a trainer step under way (the controller set a speed).
  func endStep() { step = .idle }

  /// Switches to `speed` from the next analysis frame and returns the output frame the
  /// content fed next lands on, with the speed's `bias`.
  func follow(_ speed: Speed, bias: Double) -> Double {
    setRatio(speed.timeRatio, at: analysisCentre)
    contentBias = bias
    return mapValue(at: fed) + bias - primedBias
  }

  /// The input frame from which a ratio set now applies: the centre of Rubber Band's next
  /// analysis frame, `fed + samplesRequired − startPad` (measured for R3; R2 is close).
  private var analysisCentre: Int64 {
    fed + Int64(stretcher.framesRequired) - Int64(stretcher.startPad)
  }

  private func mapValue(at input: Int64) -> Double {
    mapOutput + Double(input - mapInput) * mapRatio
  }

  private func setRatio(_ ratio: Double, at input: Int64) {
    mapOutput = mapValue(at: input)
    mapInput = input
    mapRatio = ratio
    stretcher.setTimeRatio(ratio)
  }

  /// Moves the stretcher's ratio so that the trainer's next speed starts exactly where the
  /// plan says: Rubber Band would apply a ratio set at the pass boundary from the centre of
  /// its next analysis frame, up to a startPad earlier, and places transients with a
  /// speed-dependent bias; so a tenth of a second before the boundary the ratio is nudged
  /// to arrive there on time, switched when the analysis centre passes it, and the
  /// overshoot taken back over the next tenth. Called with all output retrieved.
  ///
  /// `next`: the trainer's speed for the next pass when it differs from `speed` (nil: no
  /// step ahead); `toPassEnd`: source frames still to feed in this pass (they reach the
  /// stretcher one for one); `feedOutput`: where the next fed frame lands.
  func steer(
    next: Speed?, toPassEnd: Int64, speed: Speed, semitones: Double, feedOutput: inout Double,
    stopped: () -> Bool
  ) {
    let lookahead = Int64(sampleRate / 10)
    let centre = analysisCentre
    switch step {
    case .idle:
      guard let next else { return }
      let boundary = fed + toPassEnd
      guard centre >= boundary - lookahead, centre < boundary else { return }
      let atBoundary = feedOutput + Double(boundary - fed) * speed.timeRatio
      let nextBias = trainerBias(
        next, playing: speed, semitones: semitones, stretching: true, feedOutput: &feedOutput,
        stopped: stopped)
      let target = atBoundary + primedBias - nextBias
      let ratio = (target - mapValue(at: centre)) / Double(boundary - centre)
      setRatio(ratio, at: centre)
      step = .approaching(boundary: boundary, ratio: next.timeRatio, nudged: ratio)
    case .approaching(let boundary, let ratio, let nudged):
      guard centre >= boundary else { return }
      let overshoot = Double(centre - boundary) * (nudged - ratio)
      setRatio(ratio - overshoot / Double(lookahead), at: centre)
      step = .settling(until: centre + lookahead, ratio: ratio)
    case .settling(let until, let ratio):
      guard centre >= until else { return }
      setRatio(ratio, at: centre)
      step = .idle
    }
  }
}

/// A measured start delay for a speed and pitch.
struct Calibration: BitwiseCopyable {
  var speed: Speed
  var semitones: Double
  var delay: Int

  static let none = Calibration(speed: .normal, semitones: 0, delay: 0)
}

/// Where the trainer's steering of the stretcher is (see `StretchSteering.steer`).
enum TrainerStep {
  case idle
  /// The ratio is nudged so the content reaches `boundary` on time; `ratio` follows.
  case approaching(boundary: Int64, ratio: Double, nudged: Double)
  /// The new ratio, less the overshoot past the boundary, until `until`.
  case settling(until: Int64, ratio: Double)
}
