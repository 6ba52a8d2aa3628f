import PracticeCore
import Testing

/// The lengths the "cut short" warning gives.
@Suite struct ShortAudioTests {
  @Test func lengthsInSecondsAndTheMillisecondsMissing() {
    let far = ShortAudio(
      Truncation(frame: 44100, reason: nil), declaredFrames: 132300, sampleRate: 44100)
    #expect(far.ends == 1 && far.declared == 3)
    #expect(!far.readsTheSame && far.shortMilliseconds == 2000)
    // Cut 26 ms before the end: both read 0:03.0.
    let near = ShortAudio(
      Truncation(frame: 132300 - 1147, reason: nil), declaredFrames: 132300, sampleRate: 44100)
    #expect(near.readsTheSame && near.shortMilliseconds == 26)
    // 26.5 ms (1170 frames) missing reads 27 ms: rounded, not cut (planted bug M173).
    let half = ShortAudio(
      Truncation(frame: 132300 - 1170, reason: nil), declaredFrames: 132300, sampleRate: 44100)
    #expect(half.shortMilliseconds == 27)
  }
}
