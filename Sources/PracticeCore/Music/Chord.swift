/// A chord as a musician names it and as Harte's syntax writes it (`C:maj`, `A:min7`,
/// `C:maj/3`): a root pitch class, a quality and the bass as an interval above the root.
/// "No chord" is not a `Chord`; a chord track holds `nil` there (Harte's `N`).
public struct Chord: Sendable, Hashable {
  /// Harte's shorthands that `practice` reads and writes; detection uses the first nine.
  public enum Quality: String, Sendable, CaseIterable {
    case maj, min
    case dominant7 = "7"
    case maj7, min7, dim, aug, sus2, sus4
    case dim7, hdim7, minmaj7, maj6, min6
    case dominant9 = "9"
    case maj9, min9
    case power = "5"
    case single = "1"

    /// Semitones above the root, the root first.
    public var intervals: [Int] {
      switch self {
      case .maj: [0, 4, 7]
      case .min: [0, 3, 7]
      case .dominant7: [0, 4, 7, 10]
      case .maj7: [0, 4, 7, 11]
      case .min7: [0, 3, 7, 10]
      case .dim: [0, 3, 6]
      case .aug: [0, 4, 8]
      case .sus2: [0, 2, 7]
      case .sus4: [0, 5, 7]
      case .dim7: [0, 3, 6, 9]
      case .hdim7: [0, 3, 6, 10]
      case .minmaj7: [0, 3, 7, 11]
      case .maj6: [0, 4, 7, 9]
      case .min6: [0, 3, 7, 9]
      case .dominant9: [0, 4, 7, 10, 2]
      case .maj9: [0, 4, 7, 11, 2]
      case .min9: [0, 3, 7, 10, 2]
      case .power: [0, 7]
      case .single: [0]
      }
    }

    /// What a chart writes after the root: `m7`, `maj7`, `` for a major triad.
    public var suffix: String {
      switch self {
      case .maj: ""
      case .min: "m"
      case .dominant7: "7"
      case .maj7: "maj7"
      case .min7: "m7"
      case .dim: "dim"
      case .aug: "aug"
      case .sus2: "sus2"
      case .sus4: "sus4"
      case .dim7: "dim7"
      case .hdim7: "m7b5"
      case .minmaj7: "m(maj7)"
      case .maj6: "6"
      case .min6: "m6"
      case .dominant9: "9"
      case .maj9: "maj9"
      case .min9: "m9"
      case .power: "5"
      case .single: "(1)"
      }
    }

    /// The qualities `ChordRecognizer` chooses among.
    public static let detected: [Quality] = [
      .maj, .min, .dominant7, .maj7, .min7, .dim, .aug, .sus2, .sus4,
    ]
  }

  /// Pitch class of the root, 0 (C) to 11 (B).
  public let root: Int
  public let quality: Quality
  /// The bass in semitones above the root, 0-11; 0 is root position.
  public let bass: Int

  public init(root: Int, quality: Quality, bass: Int = 0) {
    self.root = ((root % 12) + 12) % 12
    self.quality = quality
    self.bass = ((bass % 12) + 12) % 12
  }

  /// Pitch classes sounding, the root first.
  public var pitchClasses: [Int] { quality.intervals.map { (root + $0) % 12 } }

  /// Pitch class of the bass note.
  public var bassPitchClass: Int { (root + bass) % 12 }

  /// The same chord `semitones` higher (negative: lower).
  public func transposed(by semitones: Int) -> Chord {
    Chord(root: root + semitones, quality: quality, bass: bass)
  }

  // MARK: Harte syntax

  /// `C:maj`, `A:min7`, `C:maj/3`, `Bb:7/b7`; `flats` as `noteName`.
  public func harte(flats: Bool? = nil) -> String {
    let name = Chord.noteName(root, flats: flats) + ":" + quality.rawValue
    return bass == 0 ? name : name + "/" + Chord.degree(bass, quality: quality)
  }

  /// What a chart shows: `Am7`, `C/E`, `F#m`, `Bbmaj7`, `D/F#`; the root named as
  /// `noteName` names it, the bass spelled as its interval above that root (the third of
  /// D is F#, the third of Bb is D, the flat seventh of C is Bb).
  public func symbol(flats: Bool? = nil) -> String {
    let rootName = Chord.noteName(root, flats: flats)
    let name = rootName + quality.suffix
    guard bass != 0 else { return name }
    return name + "/" + Chord.spell(degree: Chord.degree(bass, quality: quality), above: rootName,
      pitchClass: bassPitchClass, flats: flats)
  }

  /// Parses a Harte label with a shorthand (`C:maj`, `Db:min7/b3`, `A`, which is `A:maj`),
  /// nil for `N` (no chord); throws `ChordLabelError` for what is not a label this reads
  /// (a degree list such as `C:(1,3,5)`, an unknown shorthand).
  public static func parseHarte(_ text: String) throws -> Chord? {
    let label = text.trimmingCharacters(in: .whitespaces)
    if label == "N" { return nil }
    var rest = Substring(label)
    guard let root = takeNote(&rest) else {
      throw ChordLabelError(label: label, reason: "it does not start with a note (C, F#, Bb) or N")
    }
    var quality = Quality.maj
    if rest.hasPrefix(":") {
      rest = rest.dropFirst()
      let end = rest.firstIndex(of: "/") ?? rest.endIndex
      let shorthand = String(rest[..<end])
      if shorthand.contains("(") {
        throw ChordLabelError(label: label, reason: "degree lists such as (1,3,5) are not read")
      }
      guard let q = Quality(rawValue: shorthand) else {
        throw ChordLabelError(
          label: label,
          reason:
            "\(quoted(shorthand)) is not a shorthand this reads (maj, min, 7, maj7, min7, dim, "
            + "aug, sus2, sus4, dim7, hdim7, minmaj7, maj6, min6, 9, maj9, min9, 5, 1)")
      }
      quality = q
      rest = rest[end...]
    }
    var bass = 0
    if rest.hasPrefix("/") {
      rest = rest.dropFirst()
      guard let interval = parseDegree(String(rest)) else {
        throw ChordLabelError(
          label: label, reason: "\(quoted("/" + rest)) is not a bass degree such as /3, /b7 or /5")
      }
      bass = interval
      rest = rest[rest.endIndex...]
    }
    guard rest.isEmpty else {
      throw ChordLabelError(
        label: label, reason: "\(quoted(rest)) after the root is not Harte syntax")
    }
    return Chord(root: root, quality: quality, bass: bass)
  }

  /// Parses a chart symbol as Chordino and lead sheets write it: `C`, `Am`, `G7`, `Cmaj7`,
  /// `F#m7`, `Bdim`, `Caug`, `Csus4`, `C6`, `Cm7b5`, `C/E`; nil for `N`.
  public static func parseSymbol(_ text: String) throws -> Chord? {
    let label = text.trimmingCharacters(in: .whitespaces)
    if label == "N" || label == "N.C." || label == "NC" { return nil }
    var rest = Substring(label)
    guard let root = takeNote(&rest) else {
      throw ChordLabelError(label: label, reason: "it does not start with a note (C, F#, Bb) or N")
    }
    var bassNote: Int? = nil
    if let slash = rest.lastIndex(of: "/") {
      var bassText = rest[rest.index(after: slash)...]
      guard let note = takeNote(&bassText), bassText.isEmpty else {
        throw ChordLabelError(
          label: label, reason: "\(quoted("/" + bassText)) is not a bass note such as /E")
      }
      bassNote = note
      rest = rest[..<slash]
    }
    let suffixes: [String: Quality] = [
      "": .maj, "maj": .maj, "M": .maj, "m": .min, "min": .min, "-": .min, "7": .dominant7,
      "maj7": .maj7, "M7": .maj7, "m7": .min7, "min7": .min7, "-7": .min7, "dim": .dim,
      "o": .dim, "aug": .aug, "+": .aug, "sus2": .sus2, "sus4": .sus4, "sus": .sus4,
      "dim7": .dim7, "o7": .dim7, "m7b5": .hdim7, "ø": .hdim7, "ø7": .hdim7, "mmaj7": .minmaj7,
      "m(maj7)": .minmaj7, "6": .maj6, "m6": .min6, "9": .dominant9, "maj9": .maj9, "m9": .min9,
      "5": .power,
    ]
    guard let quality = suffixes[String(rest)] else {
      throw ChordLabelError(
        label: label, reason: "\(quoted(rest)) is not a chord suffix this reads")
    }
    return Chord(root: root, quality: quality, bass: bassNote.map { $0 - root } ?? 0)
  }

  // MARK: Spelling

  private static let sharpNames = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
  private static let flatNames = ["C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B"]
  /// Without a key: flats for Db, Eb, Ab, Bb, a sharp for F#.
  private static let plainNames = ["C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"]

  /// A pitch class's name; `flats` nil: the plain choice (Db, Eb, F#, Ab, Bb).
  public static func noteName(_ pitchClass: Int, flats: Bool?) -> String {
    let pc = ((pitchClass % 12) + 12) % 12
    switch flats {
    case .some(true): return flatNames[pc]
    case .some(false): return sharpNames[pc]
    case .none: return plainNames[pc]
    }
  }

  /// The note a Harte `degree` (`3`, `b7`, `#5`) above the note `rootName` is: its letter
  /// counted from the root's letter, its sharp or flat from `pitchClass`; `noteName`'s
  /// choice where that would take a double sharp or flat.
  static func spell(degree: String, above rootName: String, pitchClass: Int, flats: Bool?)
    -> String
  {
    let (letters, naturals) = (NoteLetter.letters, NoteLetter.naturals)
    guard let rootLetter = rootName.first, let rootIndex = letters.firstIndex(of: rootLetter),
      let number = Int(degree.filter(\.isNumber))
    else { return noteName(pitchClass, flats: flats) }
    let index = (rootIndex + number - 1) % 7
    var shift = ((pitchClass - naturals[index]) % 12 + 12) % 12
    if shift > 6 { shift -= 12 }
    guard abs(shift) <= 1 else { return noteName(pitchClass, flats: flats) }
    return String(letters[index]) + (shift == 1 ? "#" : shift == -1 ? "b" : "")
  }

  /// Whether a key's signature has flats (F, Bb… major; D, G… minor); nil without a key.
  public static func prefersFlats(key: MusicalKey?) -> Bool? {
    guard let key else { return nil }
    let major = key.minor ? (key.tonic + 3) % 12 : key.tonic
    if key.spelling.contains("b") { return true }
    if key.spelling.contains("#") { return false }
    return [5, 10, 3, 8, 1].contains(major)
  }

  /// Reads a note letter and its sharps and flats off the front of `text`.
  private static func takeNote(_ text: inout Substring) -> Int? {
    guard let first = text.first, let letter = NoteLetter.pitchClass[first] else { return nil }
    text = text.dropFirst()
    var shift = 0
    while let c = text.first, "#♯b♭".contains(c) {
      shift += (c == "#" || c == "♯") ? 1 : -1
      text = text.dropFirst()
    }
    return ((letter + shift) % 12 + 12) % 12
  }

  /// Harte's degree (`3`, `b3`, `#5`, `bb7`, `9`) as semitones above the root, 0-11.
  static func parseDegree(_ text: String) -> Int? {
    var rest = Substring(text)
    var shift = 0
    while let c = rest.first, c == "b" || c == "#" {
      shift += c == "#" ? 1 : -1
      rest = rest.dropFirst()
    }
    let natural = [1: 0, 2: 2, 3: 4, 4: 5, 5: 7, 6: 9, 7: 11, 9: 2, 11: 5, 13: 9]
    guard !rest.isEmpty, rest.allSatisfy(\.isNumber), let n = Int(rest), let base = natural[n]
    else { return nil }
    return ((base + shift) % 12 + 12) % 12
  }

  /// The degree Harte writes for a bass `semitones` above the root of a `quality` chord.
  static func degree(_ semitones: Int, quality: Quality) -> String {
    switch (semitones, quality) {
    case (6, .dim), (6, .dim7), (6, .hdim7): return "b5"
    case (8, .aug): return "#5"
    case (9, .dim7): return "bb7"
    default:
      return ["1", "b2", "2", "b3", "3", "4", "b5", "5", "b6", "6", "b7", "7"][semitones]
    }
  }
}

/// A chord label that could not be read, and why.
public struct ChordLabelError: Error, Equatable, CustomStringConvertible {
  public let label: String
  public let reason: String
  public var description: String { "\(quoted(label)) is not a chord label: \(reason)" }
}

/// One chord of a chord track: from `start` to `end` (source frames), `chord` nil for N.
public struct ChordSpan: Sendable, Equatable {
  public var start: Int64
  public var end: Int64
  public var chord: Chord?

  public init(start: Int64, end: Int64, chord: Chord?) {
    self.start = start
    self.end = end
    self.chord = chord
  }

  /// `C:maj`, `N`.
  public func harte(flats: Bool? = nil) -> String { chord?.harte(flats: flats) ?? "N" }
}
