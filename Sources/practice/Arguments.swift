import ArgumentParser
import Foundation
import PracticeCore

// The values the song, selection, beat, chord, setlist and view commands read, each parsed
// once, by one function, into a value of the core (`@Option(transform: Parse.bars)`). A
// malformed value is refused by the argument parser, and `Practice.reworded` makes its
// message one line naming the option: `--bars 9x: not a bar range; write …`.

/// The parsers of the typed values; each throws what to write instead.
enum Parse {
  /// `value`, or a refusal saying what to write instead (`says`).
  private static func parsed<Value>(_ value: Value?, else says: String) throws -> Value {
    guard let value else { throw ValidationError(says) }
    return value
  }

  /// `--bars 9-16`, `9`, `9.3-12.2`: a closed bar range.
  static func bars(_ text: String) throws -> BarRange {
    try parsed(
      BarRange(parsing: text), else: "not a bar range; write 9-16, 9, or 9.3-12.2 (bar.beat)")
  }

  /// `--bars 9-16`, `9.3-12.2` or `9-` (to the end).
  static func openBars(_ text: String) throws -> BarRangeText {
    try parsed(
      BarRangeText(parsing: text),
      else: "not a bar range; write 9-16, 9, 9.3-12.2 (bar.beat) or 9- (to the end)")
  }

  /// `--bar 9.3`: one beat (bar 9, beat 3; `9` is its first beat).
  static func beat(_ text: String) throws -> BarPosition {
    try parsed(BarPosition(parsing: Substring(text)), else: "not a beat; write bar.beat, e.g. 9.3")
  }

  /// `--from 1:23.5`: a time, as written and in seconds.
  static func time(_ text: String) throws -> TypedTime {
    if text.hasPrefix("-"), parseTime(text) == nil {
      throw ValidationError("before the start; times run from 0 to 1000:00:00")
    }
    let seconds = try parsed(
      parseTime(text),
      else: "not a time; write seconds (83.5), m:ss (1:23.5) or h:mm:ss (1:02:03.5)")
    return TypedTime(seconds: seconds, text: text)
  }

  /// `--to end` as well as a time: the end of the audio (infinite seconds).
  static func timeOrEnd(_ text: String) throws -> TypedTime {
    text == "end" ? TypedTime(seconds: .infinity, text: text) : try time(text)
  }

  /// `--bars` given with `--from`/`--to`: refused in the same words by every command that
  /// takes a range either way (`play`, `render`, `view`, `select`).
  static func oneRange(bars: Bool, times: Bool) throws {
    if bars && times {
      throw ValidationError("--bars cannot be combined with --from/--to; use one or the other")
    }
  }

  /// `--at 3`: a place in a list, counted from 1.
  static func position(_ text: String) throws -> Int {
    try parsed(Int(text).flatMap { $0 >= 1 ? $0 : nil }, else: "positions count from 1")
  }

  /// `--bpm 92.5`: a tempo within `range` beats per minute, written as a plain decimal.
  static func tempo(in range: ClosedRange<Double>) -> @Sendable (String) throws -> Double {
    { text in
      let bpm = try plainDecimal(text)
      let limits = "\(formatNumber(range.lowerBound))-\(formatNumber(range.upperBound))"
      return try parsed(range.contains(bpm) ? bpm : nil, else: "must be \(limits) beats per minute")
    }
  }

  /// `--bar1 2`, `--by -2`, `--capo 3`: a whole number (`+8` too) within `range`, where
  /// `unit` says what it counts (`bars`, `semitones`).
  static func count(in range: ClosedRange<Int>, _ unit: String) -> @Sendable (String) throws
    -> Int
  {
    { text in
      try parsed(
        Int(text.hasPrefix("+") ? String(text.dropFirst()) : text).flatMap {
          range.contains($0) ? $0 : nil
        },
        else: "must be a whole number of \(unit), \(range.lowerBound) to \(range.upperBound)")
    }
  }

  /// `--key Am`: a key.
  static func key(_ text: String) throws -> MusicalKey {
    try parsed(
      MusicalKey(parsing: text),
      else: "not a key; write a letter, # or b, and m for minor: Am, F#, Bb, C#m")
  }

  /// `--goal 100%`, `120bpm`: when a selection counts as learned.
  static func goal(_ text: String) throws -> PracticeGoal {
    try parsed(
      PracticeGoal(parsing: text),
      else: "not a goal; write a speed (100%, 0.9; 25% to 200%) or a tempo (120bpm; 20 to 400)")
  }

  /// `--meter 6/8`.
  static func meter(_ text: String) throws -> Meter {
    try parsed(Meter(parsing: text), else: "not a meter; write beats/note value: 4/4, 3/4, 6/8")
  }

  /// `--meter auto` or a meter.
  static func meterOrAuto(_ text: String) throws -> AutoOr<Meter> {
    text == "auto" ? .auto : .given(try meter(text))
  }

  /// `beats import --format`: auto (from the file's name and content) or a beat file format.
  static func importFormat(_ text: String) throws -> AutoOr<BeatFileFormat> {
    if text == "auto" { return .auto }
    return .given(
      try parsed(
        BeatFileFormat(rawValue: text),
        else: "not one of auto, times, mirex, audacity, csv, xml, xsc, json"))
  }

  /// `beats export --format`: a format beat maps can be written in.
  static func exportFormat(_ text: String) throws -> BeatFileFormat {
    try parsed(
      BeatFileFormat(rawValue: text).flatMap { BeatFiles.exportFormats.contains($0) ? $0 : nil },
      else: "cannot be exported; use times, mirex, audacity, csv or json")
  }

  /// `beats shift --by -0.150`: seconds, less than an hour either way.
  static func offset(_ text: String) throws -> Double {
    // `20ms` and `0.02s` as a musician writes a nudge, besides plain seconds.
    let lower = text.lowercased()
    let seconds: Double
    if lower.hasSuffix("ms"), let value = parseDecimal(lower.dropLast(2)) {
      seconds = value / 1000
    } else if lower.hasSuffix("s"), let value = parseDecimal(lower.dropLast()) {
      seconds = value
    } else if let value = parseDecimal(text) {
      seconds = value
    } else {
      throw ValidationError("must be seconds, like 0.02 or -0.15, or milliseconds, like 20ms")
    }
    return try parsed(
      abs(seconds) < 3600 ? seconds : nil, else: "must be less than an hour (3600 s) either way")
  }
}

/// `--since 7d`: a span back from now (`30m`, `12h`, `7d`, `2w`, up to 100 years) or a date
/// (`2026-11-01`, years 1900 to 9999).
struct Since: ExpressibleByArgument {
  let date: Date

  init?(argument: String) {
    guard let date = parseSince(argument) else { return nil }
    self.date = date
  }

  /// Reads `--since`; the parser's message gets what is allowed appended.
  static func argument(_ text: String) throws -> Since {
    guard let since = Since(argument: text) else {
      throw ValidationError(
        "must be a span back from now, up to 100 years (30m, 12h, 7d, 2w; at most 36500d), "
          + "or a date (2026-11-01)")
    }
    return since
  }

  static var defaultCompletionKind: CompletionKind { .default }
}

/// A time as the user wrote it (`1:23.5`) and in seconds, so that a summary can quote it.
struct TypedTime: Sendable, CustomStringConvertible {
  var seconds: Double
  var text: String
  var description: String { text }
  /// The seconds as an end: nil for `end` (the end of the audio).
  var end: Double? { seconds.isFinite ? seconds : nil }
}

/// `auto`, or a value the user gave: `--meter auto|6/8`, `--format auto|mirex`.
enum AutoOr<Value: Sendable>: Sendable, CustomStringConvertible {
  case auto
  case given(Value)

  /// The value given; nil for auto.
  var value: Value? { if case .given(let value) = self { value } else { nil } }
  var description: String { value.map { "\($0)" } ?? "auto" }
}

/// `--meter 3/4` where a command reads a meter without a transform (`beats tap`).
extension Meter: ExpressibleByArgument {
  public init?(argument: String) { self.init(parsing: argument) }
  public var defaultValueDescription: String { "4/4" }
}
