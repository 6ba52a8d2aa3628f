import Foundation

/// Concert pitch: the frequency of A4 that the equal-tempered notes are tuned from.
public struct ConcertPitch: Sendable, Equatable, CustomStringConvertible {
  /// What `--a4` accepts, in Hz: the historical and orchestral range with room to spare.
  public static let range: ClosedRange<Double> = 400...480
  public static let standard = ConcertPitch(uncheckedHertz: 440)

  /// A4 in Hz.
  public let hertz: Double

  /// `nil` outside `range` (and for NaN).
  public init?(hertz: Double) {
    guard ConcertPitch.range.contains(hertz) else { return nil }
    self.hertz = hertz
  }

  init(uncheckedHertz: Double) { hertz = uncheckedHertz }

  /// The A4 whose grid lies `cents` away from A = 440 Hz.
  public static func offset(cents: Double) -> Double { 440 * pow(2, cents / 1200) }

  /// `440 Hz`, `436.2 Hz`.
  public var description: String { "\(formatHertz(hertz)) Hz" }

  /// Cents a recording's concert-pitch estimate may be off by: what its tests hold it to
  /// (ConcertPitchTests, TuneTests: within 3 cents of the tuning a piece was made in).
  public static let estimateUncertainty = 3.0

  /// The transposition in semitones that brings a recording `cents` off A = 440 Hz to it
  /// (`-cents / 100`); nil when the offset is within the estimate's uncertainty, so
  /// nothing is worth changing.
  public static func correction(forCents cents: Double) -> Double? {
    abs(cents) <= estimateUncertainty ? nil : -cents / 100
  }
}

/// An equal-tempered note, numbered as MIDI does (A4 = 69, middle C = C4 = 60).
public struct Note: Sendable, Equatable, Hashable, CustomStringConvertible {
  public let midi: Int

  public init(midi: Int) { self.midi = midi }

  private static let names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]

  /// The octave in scientific pitch notation (C4 is middle C; B3 is just below it).
  public var octave: Int { Int((Double(midi) / 12).rounded(.down)) - 1 }

  /// The pitch class name with sharps: `C`, `F#`.
  public var pitchClass: String { Note.names[((midi % 12) + 12) % 12] }

  /// `E2`, `F#3`, `C-1`.
  public var description: String { "\(pitchClass)\(octave)" }

  /// Its frequency in Hz for the given A4.
  public func frequency(a4: Double = 440) -> Double { a4 * pow(2, Double(midi - 69) / 12) }

  /// Parses `A4`, `F#3`, `Bb2`, `eb4`, `C♯5`, `D♭3`, `C-1`: a letter, any number of sharps
  /// (`#`, `♯`) or flats (`b`, `♭`), and an octave from -1 to 9. `nil` otherwise.
  public static func parse(_ text: String) -> Note? {
    var rest = Substring(text.trimmingCharacters(in: .whitespaces))
    // An ASCII letter first: another's capital can be two (`ß` → `SS`), no Character.
    guard let first = rest.first, first.isASCII,
      let letter = NoteLetter.pitchClass[Character(first.uppercased())]
    else { return nil }
    rest = rest.dropFirst()
    var shift = 0
    while let c = rest.first, "#♯b♭".contains(c) {
      shift += (c == "#" || c == "♯") ? 1 : -1
      rest = rest.dropFirst()
    }
    guard !rest.isEmpty, rest.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") }),
      let octave = Int(rest), (-1...9).contains(octave), !(rest.hasPrefix("-") && octave == 0)
    else { return nil }
    let midi = (octave + 1) * 12 + letter + shift
    guard (0...127).contains(midi) else { return nil }
    return Note(midi: midi)
  }
}

/// A frequency placed on the equal-tempered grid: the nearest note and how far from it.
public struct PitchReading: Sendable, Equatable {
  /// The frequency heard, in Hz.
  public let frequency: Double
  /// The nearest note for the A4 given.
  public let note: Note
  /// Cents from that note, -50 ..< 50 (a hundredth of a semitone).
  public let cents: Double

  /// `nil` for a frequency that is not positive and finite.
  public init?(frequency: Double, a4: Double = 440) {
    guard frequency.isFinite, frequency > 0, a4 > 0 else { return nil }
    let semitones = 12 * log2(frequency / a4) + 69
    let nearest = semitones.rounded()
    guard abs(nearest) < 1e6 else { return nil }
    self.frequency = frequency
    note = Note(midi: Int(nearest))
    cents = (semitones - nearest) * 100
  }

  /// A needle for a terminal: `width` cells (odd) with `|` at the centre for in tune and
  /// `●` where the reading is, one cell per `50 / (width / 2)` cents (clamped at the ends):
  /// `───●──|──────` is about 12 cents flat at width 13.
  public func needle(width: Int = 21) -> String {
    let half = max(1, width / 2)
    let position = half + Int((cents / 50 * Double(half)).rounded())
    let clamped = min(max(position, 0), 2 * half)
    return String(
      (0...(2 * half)).map { i -> Character in
        i == clamped ? "●" : i == half ? "|" : "─"
      })
  }
}

/// A tone's frequency from `A4`, `F#3`, `Bb2` (a note, for the given A4) or `440`, `440Hz`,
/// `82.41 Hz` (hertz). `nil` for anything else or a frequency outside `range`.
public func parseToneFrequency(
  _ text: String, a4: Double = 440, range: ClosedRange<Double> = 20...8000
) -> Double? {
  if let note = Note.parse(text) {
    let f = note.frequency(a4: a4)
    return range.contains(f) ? f : nil
  }
  var number = text.trimmingCharacters(in: .whitespaces)
  if number.lowercased().hasSuffix("hz") {
    number = String(number.dropLast(2)).trimmingCharacters(in: .whitespaces)
  }
  guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
    let value = Double(number), range.contains(value)
  else { return nil }
  return value
}

/// Up to two decimals, trailing zeros dropped: `440`, `436.2`, `82.41`.
public func formatHertz(_ hertz: Double) -> String {
  var text = String(format: "%.2f", hertz)
  while text.hasSuffix("0") { text.removeLast() }
  if text.hasSuffix(".") { text.removeLast() }
  return text
}

/// Signed whole cents: `-30 ¢`, `+15 ¢`, `0 ¢`.
public func formatCents(_ cents: Double) -> String {
  let whole = Int(cents.rounded())
  return whole == 0 ? "0 ¢" : String(format: "%+d ¢", whole)
}
