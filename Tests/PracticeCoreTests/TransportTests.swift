import Testing

@testable import PracticeCore

/// The render thread's plain-value plumbing: where the source is at an output frame, and the
/// two fixed queues when they are full or wrap.
@Suite struct TransportTests {
  func event(inGap: Bool = false, paused: Bool = false) -> PlaybackEvent {
    PlaybackEvent(
      outputFrame: 1000, delayFrames: 0, nanoseconds: 0, sourceFrame: 5000, speed: 0.5, pass: 1,
      passesCompleted: 0, generation: 0, inGap: inGap, paused: paused, ended: false)
  }

  @Test func theSourceRunsAtTheSpeedAndHoldsInAGapOrAPause() {
    // At half speed, 400 output frames later the source has moved 200.
    #expect(event().sourceFrame(atOutput: 1400) == 5200)
    #expect(event(inGap: true).sourceFrame(atOutput: 1400) == 5000)
    #expect(event(paused: true).sourceFrame(atOutput: 1400) == 5000)
  }

  @Test func aFullRingRefusesAndKeepsWhatItHolds() {
    let ring = ValueRing<Int>(capacity: 2, filler: 0)
    #expect(ring.push(1) && ring.push(2))
    #expect(!ring.push(3))
    #expect(ring.pop() == 1 && ring.pop() == 2 && ring.pop() == nil)
    #expect(ring.push(4) && ring.pop() == 4)
  }

  @Test func aLocalQueueKnowsItsFirstAndLastAcrossTheWrap() {
    var queue = LocalQueue<Int>(capacity: 3, filler: 0)
    defer { queue.deallocate() }
    queue.append(1)
    queue.append(2)
    #expect(queue.first == 1 && queue.last == 2)
    queue.removeFirst()
    queue.append(3)
    queue.append(4)
    let appended = queue.append(5)
    #expect(!appended)
    #expect(queue.first == 2 && queue.last == 4 && queue[1] == 3 && queue.count == 3)
    queue.removeLast()
    #expect(queue.last == 3)
  }
}
