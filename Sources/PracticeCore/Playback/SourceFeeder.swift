import Dispatch
import Synchronization

/// Where and why the audio ended before the length its file declares (a file cut short
/// or damaged): decoding stopped before the plan's end, or the plan reached the end of a
/// file known to end early (`SoundFile.endsEarly`).
public struct Truncation: Sendable, Equatable {
  /// The source frame at which the audio ended.
  public let frame: Int64
  /// The decoding library's message, when it gave one.
  public let reason: String?

  public init(frame: Int64, reason: String?) {
    self.frame = frame
    self.reason = reason
  }
}

/// Audio that ended before the length its file declares, in seconds, for the one line that
/// says so: where it ends, the length declared, and by how much it is short.
public struct ShortAudio: Sendable, Equatable {
  /// Seconds of audio that decoded.
  public var ends: Double
  /// Seconds the file says it holds.
  public var declared: Double

  public init(_ truncation: Truncation, declaredFrames: Int64, sampleRate: Int) {
    let rate = Double(max(sampleRate, 1))
    ends = Double(truncation.frame) / rate
    declared = Double(declaredFrames) / rate
  }

  /// Milliseconds missing, rounded.
  public var shortMilliseconds: Int { Int(((declared - ends) * 1000).rounded()) }
  /// The two lengths read the same in tenths of a second (`0:03.0` both): only the
  /// milliseconds missing tell them apart.
  public var readsTheSame: Bool { formatTime(ends) == formatTime(declared) }
}

/// Decodes the plan's passes ahead of the render thread and hides the loop seams.
///
/// Runs on its own thread (the only one touching `file` after init), so file I/O and
/// decoding never happen in the device write loop. Output goes through a `SampleRing`.
///
/// A jump replaces the plan: the render thread puts the new one in `requestedPlan` and
/// bumps `requestedGeneration`; the feeder stops where it is, notes how far it had
/// written (`acknowledgedWritten`), publishes `acknowledgedGeneration`, and decodes the
/// new plan. The render thread then drops the ring's samples up to that mark.
final class SourceFeeder: @unchecked Sendable {
  let ring: SampleRing
  /// Signalled after every write into the ring, after an acknowledgement and at the end.
  let dataReady = DispatchSemaphore(value: 0)
  /// Signalled by the consumer after every read from the ring, and with every request.
  let spaceReady = DispatchSemaphore(value: 0)
  /// The generation whose last sample (of the plan or of the decodable audio) is in the ring.
  let finishedGeneration = Atomic<Int>(-1)
  let stopRequested = Atomic<Bool>(false)
  /// Written by the render thread before it bumps `requestedGeneration`; read by the
  /// feeder after it sees the bump. The render thread writes again only after the ack.
  var requestedPlan: PlaybackPlan
  let requestedGeneration = Atomic<Int>(0)
  let acknowledgedGeneration = Atomic<Int>(0)
  /// The ring's write counter when the feeder acknowledged; samples before it are stale.
  let acknowledgedWritten = Atomic<Int>(0)
  /// Written by the feeder thread before `finishedGeneration` is set; read only after.
  private(set) var truncation: Truncation?
  /// Set by the feeder thread when it read up to the end of a file that ends early (the
  /// audio stops before the length the file declares); read after the feeder ended.
  private(set) var reachedEarlyEnd = false
  /// Why the file ends early, when its decoder knows (`SoundFile.shortfall`: a chain's
  /// links left out); with `reachedEarlyEnd`.
  private(set) var endReason: String?

  private let file: SoundFile  // feeder thread only after init
  /// The file's length in frames; immutable after init.
  let fileFrames: Int64
  private var plan: PlaybackPlan  // feeder thread only after init
  private var generation = 0  // feeder thread only
  private var seam = SeamBlend.none  // feeder thread only
  private let channels: Int
  /// Preroll or postroll frames for the seam blend; feeder thread only after init.
  private let seamAudio: UnsafeMutablePointer<Float>
  private let seamCapacity: Int
  private let chunk: UnsafeMutablePointer<Float>  // feeder thread only
  private static let chunkFrames = 4096

  init(file: SoundFile, plan: PlaybackPlan, ringFrames: Int = 32768) throws {
    self.file = file
    self.plan = plan
    self.requestedPlan = plan
    self.channels = file.info.channels
    fileFrames = file.info.frames
    ring = SampleRing(capacity: ringFrames * channels)
    chunk = .allocate(capacity: SourceFeeder.chunkFrames * channels)
    seamCapacity = max(1, plan.seamFrames)
    seamAudio = .allocate(capacity: seamCapacity * channels)
    seamAudio.initialize(repeating: 0, count: seamCapacity * channels)
    try prepareSeam()
  }

  deinit {
    chunk.deallocate()
    seamAudio.deallocate()
  }

  /// Reads the preroll or postroll the plan's seam blends with.
  private func prepareSeam() throws {
    seam = plan.seam(sourceFrames: file.info.frames)
    var length = 0
    var start: Int64 = 0
    switch seam {
    case .tailIntoPreroll(let n):
      length = n
      start = plan.range.lowerBound - Int64(n)
    case .headFromPostroll(let n):
      length = n
      start = plan.range.upperBound
    case .fadeOutIn, .none:
      break
    }
    length = min(length, seamCapacity)
    seamAudio.update(repeating: 0, count: seamCapacity * channels)
    if length > 0 {
      try file.seek(to: start)
      // A short read (damaged file) leaves zeros: the seam then fades instead of blending.
      _ = file.read(into: seamAudio, frames: length)
    }
  }

  private enum Outcome { case done, restart, stopped }

  /// The feeder thread's body: the plan's passes into the ring, then whatever plan a
  /// jump brings, until stopped.
  func run() {
    defer { dataReady.signal() }
    while true {
      switch play() {
      case .stopped:
        return
      case .done:
        finishedGeneration.store(generation, ordering: .releasing)
        dataReady.signal()
        // Wait for a jump (or the stop at the end).
        while requestedGeneration.load(ordering: .acquiring) == generation {
          if stopRequested.load(ordering: .relaxed) { return }
          spaceReady.wait()
        }
      case .restart:
        break
      }
      generation = requestedGeneration.load(ordering: .acquiring)
      plan = requestedPlan
      truncation = nil
      do { try prepareSeam() } catch { truncation = Truncation(frame: plan.range.lowerBound, reason: file.lastError) }
      acknowledgedWritten.store(ring.writtenCount, ordering: .relaxed)
      acknowledgedGeneration.store(generation, ordering: .releasing)
      dataReady.signal()
    }
  }

  /// Every pass of the plan, in order, into the ring.
  private func play() -> Outcome {
    if truncation != nil { return .done }
    let rangeFrames = Int(plan.rangeFrames)
    var pass = 0
    while true {
      if stopRequested.load(ordering: .relaxed) { return .stopped }
      if case .count(let n) = plan.passes, pass >= n { return .done }
      let first = pass == 0 ? Int(min(plan.startOffset, Int64(rangeFrames))) : 0
      do { try file.seek(to: plan.range.lowerBound + Int64(first)) } catch {
        truncation = Truncation(frame: plan.range.lowerBound + Int64(first), reason: file.lastError)
        return .done
      }
      var offset = first
      while offset < rangeFrames {
        let wanted = min(SourceFeeder.chunkFrames, rangeFrames - offset)
        let got = file.read(into: chunk, frames: wanted)
        if got > 0 {
          blend(offset: offset, frames: got, pass: pass, rangeFrames: rangeFrames)
          if let outcome = push(count: got * channels) { return outcome }
          offset += got
        }
        if got < wanted {
          truncation = Truncation(
            frame: plan.range.lowerBound + Int64(offset), reason: file.lastError)
          return .done
        }
      }
      if plan.range.upperBound >= file.info.frames, file.endsEarly {
        reachedEarlyEnd = true
        endReason = file.shortfall
      }
      // The gap after the pass: silence through the ring (and the stretcher).
      var gap = Int(plan.gapSourceFrames(afterPass: pass, sampleRate: file.info.sampleRate))
      if gap > 0 { chunk.update(repeating: 0, count: SourceFeeder.chunkFrames * channels) }
      while gap > 0 {
        let n = min(gap, SourceFeeder.chunkFrames)
        if let outcome = push(count: n * channels) { return outcome }
        gap -= n
      }
      pass += 1
    }
  }

  /// Applies the seam blend to the chunk holding range offsets `[offset, offset + frames)`.
  private func blend(offset: Int, frames: Int, pass: Int, rangeFrames: Int) {
    let isFinal = plan.passes.isFinal(pass)
    let end = offset + frames
    switch seam {
    case .tailIntoPreroll(let length) where !isFinal:
      let fadeStart = rangeFrames - length
      for i in overlap(offset..<end, fadeStart..<rangeFrames) {
        let j = i - fadeStart
        let w = SeamBlend.rise(j, length)
        for c in 0..<channels {
          let k = (i - offset) * channels + c
          chunk[k] = chunk[k] * (1 - w) + seamAudio[j * channels + c] * w
        }
      }
    case .headFromPostroll(let length) where pass > 0:
      for i in overlap(offset..<end, 0..<length) {
        let w = SeamBlend.rise(i, length)
        for c in 0..<channels {
          let k = (i - offset) * channels + c
          chunk[k] = seamAudio[i * channels + c] * (1 - w) + chunk[k] * w
        }
      }
    case .fadeOutIn(let length):
      if pass > 0 {
        for i in overlap(offset..<end, 0..<length) {
          scaleFrame(i - offset, by: SeamBlend.rise(i, length))
        }
      }
      if !isFinal {
        let fadeStart = rangeFrames - length
        for i in overlap(offset..<end, fadeStart..<rangeFrames) {
          scaleFrame(i - offset, by: 1 - SeamBlend.rise(i - fadeStart, length))
        }
      }
    default:
      break
    }
  }

  /// The frames two ranges share (empty if none), in range offsets.
  private func overlap(_ a: Range<Int>, _ b: Range<Int>) -> Range<Int> {
    let lower = max(a.lowerBound, b.lowerBound)
    return lower..<max(lower, min(a.upperBound, b.upperBound))
  }

  private func scaleFrame(_ frame: Int, by gain: Float) {
    for c in 0..<channels { chunk[frame * channels + c] *= gain }
  }

  /// Moves `count` samples from the chunk into the ring, waiting for room; nil when all
  /// are in, else why it gave up (stopped, or a jump asks for another plan).
  private func push(count: Int) -> Outcome? {
    var done = 0
    while done < count {
      if stopRequested.load(ordering: .relaxed) { return .stopped }
      if requestedGeneration.load(ordering: .acquiring) != generation { return .restart }
      let n = ring.write(chunk + done, count: count - done)
      done += n
      if n > 0 { dataReady.signal() }
      if done < count { spaceReady.wait() }  // signalled by every read, a request, and stop()
    }
    return nil
  }
}
