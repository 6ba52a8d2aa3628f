/// The beat-file formats `practice` reads; all but `xml` and `xsc` can also be written.
public enum BeatFileFormat: String, CaseIterable, Sendable {
  /// One time in seconds per line (`#` comments allowed).
  case times
  /// `time<TAB>beat-in-bar` per line, 1 = downbeat (madmom's downbeat tracker output).
  case mirex
  /// Audacity label track: `start<TAB>end<TAB>label`.
  case audacity
  /// Sonic Visualiser time-instant export: `time,label` or `time,value,label`.
  case csv
  /// `<metadata><beats><beat>1.40</beat>…</beats></metadata>`, times in seconds.
  case xml
  /// Transcribe! document: section, measure and beat markers, and loops.
  case xsc
  /// `{"sample_rate":…,"beats":[{"time":…,"frame":…,"bar":…,"beat":…},…]}`, as exported.
  case json
}

/// One beat as a file states it: a time in seconds and, where the file says so, its
/// position in the bar (1 = downbeat) and bar number.
public struct BeatMark: Sendable, Equatable {
  public var time: Double
  public var beatInBar: Int?
  public var bar: Int?

  public init(time: Double, beatInBar: Int? = nil, bar: Int? = nil) {
    self.time = time
    self.beatInBar = beatInBar
    self.bar = bar
  }
}

/// A named loop stored in a beat file (Transcribe! loops), in seconds.
public struct NamedRange: Sendable, Equatable {
  public var name: String
  public var start: Double
  public var end: Double

  public init(name: String, start: Double, end: Double) {
    self.name = name
    self.start = start
    self.end = end
  }
}

/// What a beat file holds: its beats in time order and any named loops.
public struct BeatFile: Sendable, Equatable {
  public var beats: [BeatMark]
  public var loops: [NamedRange]

  public init(beats: [BeatMark], loops: [NamedRange] = []) {
    self.beats = beats
    self.loops = loops
  }
}

/// A malformed beat or chord file: which kind, which file, which line (1-based, when
/// known), what is wrong, and what to do about it.
public struct DataFileError: PracticeFailure, Equatable {
  public enum Kind: String, Sendable {
    case beat = "beat file"
    case chord = "chord file"
  }

  public let kind: Kind
  public let path: String
  public let line: Int?
  public let reason: String
  public let advice: String

  public init(
    _ kind: Kind, path: String, line: Int?, reason: String,
    advice: String = "fix or remove the line"
  ) {
    self.kind = kind
    self.path = path
    self.line = line
    self.reason = reason
    self.advice = advice
  }

  public var category: FailureCategory { .badData }

  /// `beat file 'x.txt' line 12: times must increase (4.500 after 4.750); fix or remove the line`
  public var description: String {
    "\(kind.rawValue) '\(path)'" + (line.map { " line \($0)" } ?? "") + ": \(reason); \(advice)"
  }
}
