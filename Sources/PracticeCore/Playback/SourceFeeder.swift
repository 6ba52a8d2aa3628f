import Dispatch
import Synchronization

/// Where and why decoding stopped before the plan's end (a truncated or damaged file).
public struct Truncation: Sendable, Equatable {
  /// The source frame at which no more audio could be decoded.
  public let frame: Int64
  /// libsndfile's message, when it gave one.
  public let reason: String?
}

/// Decodes the plan's passes ahead of the render thread and hides the loop seams.
///
/// Runs on its own thread (the only one touching `file` after init), so file I/O and
/// decoding never happen in the device write loop. Output goes through a `SampleRing`.
final class SourceFeeder: @unchecked Sendable {
  let ring: SampleRing
  /// Signalled after every write into the ring.
  let dataReady = DispatchSemaphore(value: 0)
  /// Signalled by the consumer after every read from the ring.
  let spaceReady = DispatchSemaphore(value: 0)
  /// Set once the last sample of the plan (or of the decodable audio) is in the ring.
  let finished = Atomic<Bool>(false)
  let stopRequested = Atomic<Bool>(false)
  /// Written by the feeder thread before `finished` is set; read only after.
  private(set) var truncation: Truncation?

  private let file: SoundFile  // feeder thread only after init
  private let plan: PlaybackPlan
  private let seam: SeamBlend
  private let channels: Int
  /// Preroll or postroll frames for the seam blend; immutable after init.
  private let seamAudio: UnsafeMutablePointer<Float>
  private let chunk: UnsafeMutablePointer<Float>  // feeder thread only
  private static let chunkFrames = 4096

  init(file: SoundFile, plan: PlaybackPlan, ringFrames: Int = 32768) throws {
    self.file = file
    self.plan = plan
    self.channels = file.info.channels
    self.seam = plan.seam(sourceFrames: file.info.frames)
    ring = SampleRing(capacity: ringFrames * channels)
    chunk = .allocate(capacity: SourceFeeder.chunkFrames * channels)

    var seamLength = 0
    var seamStart: Int64 = 0
    switch seam {
    case .tailIntoPreroll(let length):
      seamLength = length
      seamStart = plan.range.lowerBound - Int64(length)
    case .headFromPostroll(let length):
      seamLength = length
      seamStart = plan.range.upperBound
    case .fadeOutIn, .none:
      break
    }
    seamAudio = .allocate(capacity: max(1, seamLength * channels))
    seamAudio.initialize(repeating: 0, count: max(1, seamLength * channels))
    if seamLength > 0 {
      try file.seek(to: seamStart)
      // A short read (damaged file) leaves zeros: the seam then fades instead of blending.
      _ = file.read(into: seamAudio, frames: seamLength)
    }
  }

  deinit {
    chunk.deallocate()
    seamAudio.deallocate()
  }

  /// The feeder thread's body: every pass of the range, in order, into the ring.
  func run() {
    defer {
      finished.store(true, ordering: .releasing)
      dataReady.signal()
    }
    let rangeFrames = Int(plan.rangeFrames)
    var pass = 0
    while !stopRequested.load(ordering: .relaxed) {
      if case .count(let n) = plan.passes, pass >= n { return }
      do { try file.seek(to: plan.range.lowerBound) } catch {
        truncation = Truncation(frame: plan.range.lowerBound, reason: file.lastError)
        return
      }
      var offset = 0
      while offset < rangeFrames {
        let wanted = min(SourceFeeder.chunkFrames, rangeFrames - offset)
        let got = file.read(into: chunk, frames: wanted)
        if got > 0 {
          blend(offset: offset, frames: got, pass: pass, rangeFrames: rangeFrames)
          guard push(count: got * channels) else { return }
          offset += got
        }
        if got < wanted {
          truncation = Truncation(
            frame: plan.range.lowerBound + Int64(offset), reason: file.lastError)
          return
        }
      }
      // The gap after the pass: silence through the ring (and the stretcher).
      var gap = Int(plan.gapSourceFrames(afterPass: pass, sampleRate: file.info.sampleRate))
      if gap > 0 { chunk.update(repeating: 0, count: SourceFeeder.chunkFrames * channels) }
      while gap > 0 {
        let n = min(gap, SourceFeeder.chunkFrames)
        guard push(count: n * channels) else { return }
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

  /// Moves `count` samples from the chunk into the ring, waiting for room; false if stopped.
  private func push(count: Int) -> Bool {
    var done = 0
    while done < count {
      let n = ring.write(chunk + done, count: count - done)
      done += n
      if n > 0 { dataReady.signal() }
      if done < count {
        if stopRequested.load(ordering: .relaxed) { return false }
        spaceReady.wait()  // signalled by every read, and by stop()
      }
    }
    return true
  }
}
