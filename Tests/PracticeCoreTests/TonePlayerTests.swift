import Foundation
import Testing

@testable import PracticeCore

/// `practice tone`'s sound: each note as long as asked, in both ears; the keys step
/// between the notes and stop at the first and the last.
@Suite struct TonePlayerTests {
  func played(_ player: TonePlayer) throws {
    player.start()
    let ended = player.waitForEnd(timeout: .seconds(20))
    #expect(ended, "the tones did not end")
    if !ended { player.stop() }
    try player.wait()
  }

  /// Notes of 0.1 s: the first sounds for 4,410 frames, its fade-out ending inside them,
  /// and it sounds the same in both channels (planted bugs M182, M184).
  @Test func aNoteLastsItsTimeInBothEars() throws {
    let sink = CaptureSink(sampleRate: 44100, channels: 2)
    let player = TonePlayer(sink: sink, frequencies: [440, 660], secondsEach: 0.1)
    try played(player)
    let out = sink.samples
    let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
    let right = stride(from: 1, to: out.count, by: 2).map { out[$0] }
    #expect(left == right)
    // Sounding up to its last frames, silent from frame 4,410 to the end of its block.
    #expect(left[4000..<4400].contains { abs($0) > 0.01 })
    #expect(left[4410..<4608].allSatisfy { $0 == 0 })
    #expect(left[4608..<9000].contains { abs($0) > 0.1 }, "the second note follows")
  }

  /// A drone asked for the note before the first stays on the first (it does not stop);
  /// `next` then moves on to the second, and `stop` ends it (planted bug M183).
  @Test func previousOnTheFirstNoteStaysThere() throws {
    let sink = CaptureSink(sampleRate: 44100, channels: 2)
    let player = TonePlayer(sink: sink, frequencies: [440, 660], secondsEach: nil)
    sink.onWrite = { [unowned player] written in
      if written == 2048 { player.previous() }
      if written == 8192 { player.next() }
      if written == 16384 { player.stop() }
    }
    try played(player)
    #expect(player.current.load(ordering: .relaxed) == 1)
    #expect(sink.samples.count / 2 >= 16384)
  }
}
