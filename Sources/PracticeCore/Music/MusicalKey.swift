/// A song's key as a band writes it on a setlist: a tonic and a mode (`Am`, `F#`, `Bb minor`).
public struct MusicalKey: Sendable, Equatable, CustomStringConvertible {
  /// Pitch class of the tonic, 0 (C) to 11 (B).
  public let tonic: Int
  public let minor: Bool
  /// The tonic as it was written (`Bb`, `A#`), so that a key reads back as typed.
  public let spelling: String


  /// Parses `Am`, `A minor`, `Amin`, `C`, `C major`, `Cmaj`, `F#m`, `Bb`, `E♭m`: a letter,
  /// at most two sharps or flats, then nothing (major), `m`/`min`/`minor` or `maj`/`major`.
  public init?(parsing text: String) {
    var rest = Substring(text.trimmingCharacters(in: .whitespaces))
    // An ASCII letter first: another's capital can be two (`ß` → `SS`), no Character.
    guard let first = rest.first, first.isASCII,
      let letter = NoteLetter.pitchClass[Character(first.uppercased())]
    else { return nil }
    var spelling = first.uppercased()
    rest = rest.dropFirst()
    var shift = 0
    while let c = rest.first, "#♯b♭".contains(c), abs(shift) < 2 {
      shift += (c == "#" || c == "♯") ? 1 : -1
      spelling.append((c == "#" || c == "♯") ? "#" : "b")
      rest = rest.dropFirst()
    }
    let mode = rest.trimmingCharacters(in: .whitespaces)
    switch mode {
    case "", "M": minor = false  // `AM` is A major, as some charts write it
    case "m": minor = true
    default:
      switch mode.lowercased() {
      case "min", "minor": minor = true
      case "maj", "major": minor = false
      default: return nil
      }
    }
    tonic = ((letter + shift) % 12 + 12) % 12
    self.spelling = spelling
  }

  /// `Am`, `F#`, `Bb`.
  public var description: String { spelling + (minor ? "m" : "") }

  /// The transposition in semitones that takes this key to `target`, the nearest way
  /// (-5 to +6; a tritone goes up). Nil when the modes differ: a minor song is not played
  /// "in C" without saying which way is meant.
  public func semitones(to target: MusicalKey) -> Int? {
    guard minor == target.minor else { return nil }
    let up = ((target.tonic - tonic) % 12 + 12) % 12
    return up > 6 ? up - 12 : up
  }

  /// The key `semitones` away, spelled as keys are usually written (`Bb`, `F#`, `C#m`).
  public func transposed(by semitones: Int) -> MusicalKey {
    guard semitones % 12 != 0 else { return self }
    let pitch = ((tonic + semitones) % 12 + 12) % 12
    let names =
      minor
      ? ["C", "C#", "D", "Eb", "E", "F", "F#", "G", "G#", "A", "Bb", "B"]
      : ["C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]
    return MusicalKey(parsing: names[pitch] + (minor ? "m" : "")) ?? self
  }
}
