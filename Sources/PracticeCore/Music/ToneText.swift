import Foundation

/// Why a note or a frequency typed for a reference tone cannot sound, as a value for the
/// face to word.
public enum ToneProblem: Sendable, Equatable {
  /// A note whose frequency, at the A4 given, is outside the tones played (its hertz).
  case noteOutOfRange(hertz: Double)
  /// A note name above G9, the highest MIDI note (`B9`, `C#9`…).
  case aboveHighestNote
  /// Neither a note nor a frequency in range.
  case notANote

  /// What is wrong with `text` as a tone at `a4` (20 to 8000 Hz); nil when it plays.
  public init?(_ text: String, a4: Double) {
    guard parseToneFrequency(text, a4: a4) == nil else { return nil }
    if let named = Note.parse(text) {
      self = .noteOutOfRange(hertz: named.frequency(a4: a4))
    } else if let first = text.first, "ABCDEFGabcdefg".contains(first),
      text.last?.isNumber == true, text.hasSuffix("9")
    {
      self = .aboveHighestNote
    } else {
      self = .notANote
    }
  }
}

/// `A4 (440 Hz)` for a note, `440 Hz` for a frequency: a tone as the player lists it.
public func toneLabel(_ text: String, hertz: Double) -> String {
  guard let note = Note.parse(text) else { return "\(formatHertz(hertz)) Hz" }
  return "\(note) (\(formatHertz(hertz)) Hz)"
}

extension PitchReading {
  /// `E2  -12 ¢  ─────────●──|──────────  81.84 Hz`: the note, the cents off it, a needle of
  /// 21 cells and the frequency, as a tuner's status line shows them.
  public var tunerLine: String {
    let name = note.description.padding(toLength: 3, withPad: " ", startingAt: 0)
    let whole = Int(cents.rounded())
    let centsText = whole == 0 ? "0" : String(format: "%+d", whole)
    return "\(name)  \(String(repeating: " ", count: max(0, 3 - centsText.count)))\(centsText) ¢  "
      + "\(needle(width: 21))  \(String(format: "%.2f", frequency)) Hz"
  }
}

extension TunerReadout {
  /// The status line: the note shown (`tunerLine`), or `—` when nothing is pitched.
  public var statusText: String { shown?.tunerLine ?? "—" }
}
