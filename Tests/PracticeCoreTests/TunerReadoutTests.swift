import Testing

@testable import PracticeCore

/// `tune`'s readout: a note held a quarter second over unpitched readings, a run that ends
/// at its duration.
@Suite struct TunerReadoutTests {
  @Test func aPitchedReadingStaysUpAQuarterSecondAndTheDurationEndsTheRun() {
    var readout = TunerReadout(a4: 440, duration: 1)
    #expect(readout.shown == nil && !readout.isOver)
    var taken = readout.take(TunerReading(time: 0.5, frequency: 440, level: -20))
    #expect(taken && readout.shown?.note.description == "A4")
    taken = readout.take(TunerReading(time: 0.7, frequency: nil, level: -80))
    #expect(taken && readout.shown?.note.description == "A4", "held: 0.2 s after the note")
    taken = readout.take(TunerReading(time: 0.76, frequency: nil, level: -80))
    #expect(taken && readout.shown == nil, "0.26 s after the note: gone")
    #expect(!readout.isOver)
    taken = readout.take(TunerReading(time: 1.0, frequency: 110, level: -20))
    #expect(taken && readout.isOver && readout.shown?.note.description == "A2")
    taken = readout.take(TunerReading(time: 1.02, frequency: 220, level: -20))
    #expect(!taken && readout.latest?.time == 1.0, "a reading past the duration is dropped")
  }

  /// A note stays up for less than a quarter second: exactly 0.25 s after it, it is gone
  /// (planted bug M178).
  @Test func aNoteIsGoneAQuarterSecondAfterIt() {
    var readout = TunerReadout(a4: 440, duration: nil)
    _ = readout.take(TunerReading(time: 0.5, frequency: 440, level: -20))
    _ = readout.take(TunerReading(time: 0.74, frequency: nil, level: -80))
    #expect(readout.shown?.note.description == "A4")
    _ = readout.take(TunerReading(time: 0.75, frequency: nil, level: -80))
    #expect(readout.shown == nil)
  }
}
