/// The render thread's filter stage (after the stretcher, before gain and clicks): runs a
/// `FilterDesign` over each block in place, in Double precision (transposed direct form II
/// per section, per channel). A new design is faded in over the engine's fade: both the
/// old and the new path run on the same input and their outputs are crossfaded (raised
/// cosine), the new path's state first warmed on the last `historyFrames` of input so it
/// starts as if it had always been running. With nothing to do it touches no sample.
///
/// Everything is allocated at init; render thread only after the engine starts.
final class FilterStage {
  /// Input kept for warming a new design: about 93 ms at 44.1 kHz, several time constants
  /// of the slowest section (a 20 Hz band edge); warming runs it once per change.
  static let historyFrames = 4096

  private let channels: Int  // immutable after init
  private let fadeFrames: Int  // immutable after init
  private let fadeCurve: UnsafeMutablePointer<Float>  // immutable after init: rising half cosine
  private let keepsHistory: Bool  // immutable after init
  private var current: FilterDesign
  private var previous = FilterDesign.identity
  /// Section states, `[channel][section][2]`, for the current and the previous design.
  private var state: UnsafeMutablePointer<Double>
  private var previousState: UnsafeMutablePointer<Double>
  private let stateCount: Int
  private var fadeRemaining = 0
  private let scratch: UnsafeMutablePointer<Float>
  private let maxFrames: Int
  /// The last `historyFrames` input frames, a ring; `historyEnd` the next slot to write.
  private let history: UnsafeMutablePointer<Float>
  private var historyEnd = 0
  private var historyFilled = 0

  /// `keepsHistory`: designs will change while playing (a live engine), so keep the input
  /// needed to warm them.
  init(channels: Int, maxFrames: Int, fadeFrames: Int, design: FilterDesign, keepsHistory: Bool) {
    self.channels = channels
    self.maxFrames = maxFrames
    self.fadeFrames = max(1, fadeFrames)
    self.keepsHistory = keepsHistory
    fadeCurve = .allocate(capacity: self.fadeFrames)
    for i in 0..<self.fadeFrames { fadeCurve[i] = SeamBlend.rise(i, self.fadeFrames) }
    current = design
    stateCount = channels * FilterDesign.maxSections * 2
    state = .allocate(capacity: stateCount)
    state.initialize(repeating: 0, count: stateCount)
    previousState = .allocate(capacity: stateCount)
    previousState.initialize(repeating: 0, count: stateCount)
    scratch = .allocate(capacity: maxFrames * channels)
    let historySamples = keepsHistory ? FilterStage.historyFrames * channels : 1
    history = .allocate(capacity: historySamples)
    history.initialize(repeating: 0, count: historySamples)
  }

  deinit {
    fadeCurve.deallocate()
    state.deallocate()
    previousState.deallocate()
    scratch.deallocate()
    history.deallocate()
  }

  /// Whether `process` would change nothing.
  var isBypassed: Bool { fadeRemaining == 0 && current.isIdentity }

  /// Switches to `design`: the new path warmed on the recent input; faded in over the fade
  /// unless `fade` is false (paused: nothing sounds until the resume fades in anyway).
  func change(to design: FilterDesign, fade: Bool) {
    let old = state
    state = previousState
    previousState = old
    previous = current
    current = design
    state.update(repeating: 0, count: stateCount)
    warm()
    fadeRemaining = fade && !(previous.isIdentity && current.isIdentity) ? fadeFrames : 0
  }

  /// Filters `frames` interleaved frames of `block` in place.
  func process(_ block: UnsafeMutablePointer<Float>, frames: Int) {
    if keepsHistory { remember(block, frames: frames) }
    if isBypassed { return }
    let fading = fadeRemaining > 0
    if fading {
      scratch.update(from: block, count: frames * channels)
      run(previous, previousState, scratch, frames: frames)
    }
    run(current, state, block, frames: frames)
    if fading {
      var i = 0
      while i < frames && fadeRemaining > 0 {
        let g = fadeCurve[fadeFrames - fadeRemaining]
        for c in 0..<channels {
          let at = i * channels + c
          block[at] = scratch[at] + (block[at] - scratch[at]) * g
        }
        fadeRemaining -= 1
        i += 1
      }
    }
  }

  /// Runs one design's path over `buffer`.
  private func run(
    _ design: FilterDesign, _ state: UnsafeMutablePointer<Double>,
    _ buffer: UnsafeMutablePointer<Float>,
    frames: Int
  ) {
    if design.mixesChannels && channels >= 2 {
      let m = design.matrix
      for i in 0..<frames {
        let at = i * channels
        let l = Double(buffer[at])
        let r = Double(buffer[at + 1])
        buffer[at] = Float(m.0 * l + m.1 * r)
        buffer[at + 1] = Float(m.2 * l + m.3 * r)
      }
    }
    guard design.sectionCount > 0 else { return }
    for c in 0..<channels {
      for s in 0..<design.sectionCount {
        let q = design.sections[s]
        let base = (c * FilterDesign.maxSections + s) * 2
        var s1 = state[base]
        var s2 = state[base + 1]
        var at = c
        for _ in 0..<frames {
          let x = Double(buffer[at])
          let y = q.b0 * x + s1
          s1 = q.b1 * x - q.a1 * y + s2
          s2 = q.b2 * x - q.a2 * y
          buffer[at] = Float(y)
          at += channels
        }
        // Decayed to nothing: zero, so silence never runs on denormals.
        if abs(s1) < 1e-30 { s1 = 0 }
        if abs(s2) < 1e-30 { s2 = 0 }
        state[base] = s1
        state[base + 1] = s2
      }
    }
  }

  /// Keeps the input for warming.
  private func remember(_ block: UnsafeMutablePointer<Float>, frames: Int) {
    let capacity = FilterStage.historyFrames
    var from = max(0, frames - capacity)
    while from < frames {
      let n = min(frames - from, capacity - historyEnd)
      (history + historyEnd * channels).update(from: block + from * channels, count: n * channels)
      historyEnd = (historyEnd + n) % capacity
      from += n
    }
    historyFilled = min(capacity, historyFilled + frames)
  }

  /// Runs the current design's sections over the kept input (in scratch-sized pieces),
  /// discarding the output, so its state is what it would be had it been running.
  private func warm() {
    guard keepsHistory, current.sectionCount > 0, historyFilled > 0 else { return }
    let capacity = FilterStage.historyFrames
    var index = (historyEnd - historyFilled + capacity) % capacity
    var left = historyFilled
    while left > 0 {
      let n = min(left, capacity - index, maxFrames)
      scratch.update(from: history + index * channels, count: n * channels)
      run(current, state, scratch, frames: n)
      index = (index + n) % capacity
      left -= n
    }
  }
}
