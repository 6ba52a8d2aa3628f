/// The seven note letters and their natural pitch classes (C 0 … B 11), for every reader and
/// speller of note names (chords, keys, pitches).
enum NoteLetter {
  /// In order, C to B: a letter's index counts steps of the scale (the third of D is F).
  static let letters: [Character] = ["C", "D", "E", "F", "G", "A", "B"]
  /// The natural pitch class of each letter in `letters`.
  static let naturals = [0, 2, 4, 5, 7, 9, 11]
  /// A letter's natural pitch class.
  static let pitchClass: [Character: Int] = Dictionary(
    uniqueKeysWithValues: zip(letters, naturals))
}
