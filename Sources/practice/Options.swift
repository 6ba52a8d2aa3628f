import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

/// `--db`, shared by every command that touches the library.
struct LibraryOptions: ParsableArguments {
  @Option(
    name: .customLong("db"),
    help: ArgumentHelp(
      "Library database file.",
      discussion:
        "Default: $PRACTICE_DB, else ${XDG_DATA_HOME:-~/.local/share}/practice/library.sqlite.",
      valueName: "path"))
  var path: String?

  func open() throws -> Library {
    try LibraryOptions.opened.open(
      path: path ?? Library.defaultPath(environment: ProcessInfo.processInfo.environment))
  }

  /// The libraries this process opened, put back as they were when a command fails (main
  /// thread only).
  nonisolated(unsafe) static let opened = OpenedLibraries()
}

/// `--device`: the ALSA PCM that `play`, `resume`, `setlist play`, `beats tap` and `tone`
/// play through.
struct PlaybackDeviceOption: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "ALSA PCM to play through (default: $PRACTICE_DEVICE, else 'default').", valueName: "pcm"))
  var device: String?

  /// The PCM to open: --device, else $PRACTICE_DEVICE, else "default".
  var name: String { DeviceChoice.playback.name(asked: device) }
}

/// The options a selection can keep as its practice settings (`select set`), shared by
/// `play`, `render` and `select set`.
struct SettingsOptions: ParsableArguments {
  @Option(
    name: .customLong("repeat"), parsing: .unconditional,
    help: ArgumentHelp(
      "Play the range N times (1-9999; default: once, or a drill up to its --ramp-to).",
      valueName: "N"),
    transform: wholeNumber(
      PlaybackOptions.repeatRange, "use 1 to 9999 passes (--loop for endless)"))
  var repeatCount: Int?

  @Flag(help: "Loop the range until stopped (Ctrl-C).")
  var loop = false

  // Unconditional, so `--volume -6dB` is read as a value rather than a flag.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Volume: 80%, 0.8 or -6dB, from 0% to 200% (default 100%).", valueName: "volume"),
    transform: Volume.argument)
  var volume: Volume?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Speed, pitch kept: 0.75, 75% or 75, from 25% to 200% (default 100%).", valueName: "speed"),
    transform: Speed.argument)
  var speed: Speed?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Pitch shift in semitones, -12 to 12 (-0.5 is 50 cents down).", valueName: "semitones"),
    transform: { try plainDecimal($0, in: PlaybackPlan.transposeRange, "use -12 to 12 semitones") })
  var transpose: Double?

  @Option(
    name: .customLong("count-in"), parsing: .unconditional,
    help: ArgumentHelp(
      "Bars of click before the first pass (needs a beat map).", valueName: "bars"),
    transform: wholeNumber(PracticeSettings.countInRange, "use 0 to 16 bars"))
  var countIn: Int?

  @Flag(
    inversion: .prefixedNo, exclusivity: .exclusive,
    help:
      "Click on every beat of the beat map, accented on downbeats (--no-click: not even when the selection's settings say so)."
  )
  var click: Bool?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Silence between passes: 2s, 1.5s, 1bar or 2bars (bars are clicked with --click).",
      valueName: "duration"),
    transform: accepted(
      by: PracticeSettings.parseGap, "not a duration; write 2s, 1.5s (up to 60s), 1bar or 2bars"))
  var gap: String?

  @Option(
    name: .customLong("ramp-to"), parsing: .unconditional,
    help: ArgumentHelp(
      "Speed trainer: raise (or lower) the speed towards this.", valueName: "speed"),
    transform: Speed.argument)
  var rampTo: Speed?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Speed trainer step: 5% or 0.05 (default 5% towards --ramp-to).", valueName: "points"),
    transform: parsed(
      by: PracticeSettings.parseStep,
      "not a speed step; write 0.1% to 175% or 0.001 to 1.75 (negative ramps down)"))
  var step: Double?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Speed trainer: passes per step (1-9999, default 1).", valueName: "passes"),
    transform: wholeNumber(PlaybackOptions.repeatRange, "use 1 to 9999 passes per step"))
  var every: Int?

  /// The practice settings typed on the command line (nil where an option was not given).
  var given: PracticeSettings {
    PracticeSettings(
      speed: speed, rampTo: rampTo, step: step, every: every,
      countIn: countIn, click: click, gap: gap, transpose: transpose, volume: volume,
      passes: loop ? .endless : repeatCount.map { .count($0) })
  }

  func validate() throws {
    if loop && repeatCount != nil {
      throw ValidationError("--repeat and --loop cannot be combined; use one")
    }
  }
}

/// What part of the song to play and how: shared by `play` and `render`.
struct PlaybackOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Bars to play, from the beat map: 9-16, 9, 9.3-12.2 (beat 3 of bar 9 through beat 2 of bar 12), or 69- (to the end).",
      valueName: "bars"),
    transform: Parse.openBars)
  var bars: BarRangeText?

  @Option(
    name: .customLong("select"),
    help: ArgumentHelp(
      "A named selection of the song (see `practice select`), played with its settings (`select set`); options given here override them.",
      valueName: "name"))
  var selection: String?

  // Unconditional here and below, so a negative value is read (and refused with its
  // range) rather than taken for a flag.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Start time: 83.5, 1:23.5 or 1:02:03.5 (alone: to the end).", valueName: "time"),
    transform: Parse.time)
  var from: TypedTime?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "End time (exclusive), written like --from, or `end` (the default).", valueName: "time"),
    transform: Parse.timeOrEnd)
  var to: TypedTime?

  @OptionGroup var settings: SettingsOptions
  var loop: Bool { settings.loop }
  /// What `--repeat` accepts: a long practice session, not a file that fills the disk.
  static let repeatRange = 1...9999

  /// The practice settings typed on the command line (nil where an option was not given).
  var given: PracticeSettings { settings.given }

  @Option(
    help: ArgumentHelp(
      "Play in this key: Bm, F# (a transposition from the song's key, the nearest way).",
      discussion: "The song's key is set with `practice set SONG --key`; the modes must match.",
      valueName: "key"),
    transform: Parse.key)
  var key: MusicalKey?

  @Option(
    help: ArgumentHelp("Stretcher: finer (Rubber Band R3) or faster (R2).", valueName: "quality"))
  var quality: StretchQuality = .finer

  @Option(
    name: .customLong("click-volume"), parsing: .unconditional,
    help: ArgumentHelp("Click volume: 80%, 0.8 or -6dB.", valueName: "volume"),
    transform: Volume.argument)
  var clickVolume: Volume = .unity

  @Flag(
    name: .customLong("no-detect"),
    help:
      "Without a beat map, refuse --bars, --count-in, --click and --gap in bars (exit 66) instead of detecting one."
  )
  var noDetect = false

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "EQ in dB, -24 to 12 each: low shelf 250 Hz, peak 1 kHz, high shelf 4 kHz (6:0:-3).",
      valueName: "low:mid:high"))
  var eq: String?

  @Option(
    help: ArgumentHelp(
      "Bring a part forward: the rest of the spectrum 9 dB down (see README).",
      discussion:
        "bass: low-pass 300 Hz; guitar: band-pass 700 Hz; vocal: band-pass 2 kHz; drums: the middle (1 kHz) scooped; treble: high-pass 3 kHz.",
      valueName: "part"))
  var focus: PartFilter.Focus?

  @Option(
    help: ArgumentHelp(
      "Band-pass in Hz, 24 dB/octave each side, 20 to 20000 (80-400).", valueName: "low-high"))
  var band: String?

  @Option(
    help: ArgumentHelp(
      "Stereo: hear the left or right channel on both sides, a mono mix, or the sides swapped.",
      valueName: "channel"))
  var channel: PartFilter.Channel?

  @Option(
    name: [.customLong("centre-cut"), .customLong("center-cut")],
    help: ArgumentHelp(
      "Stereo: attenuate what is panned to the centre by AMOUNT (0-100%, default 100%).",
      discussion:
        "Sounds panned to one side keep their level on that side. Without an amount, 100%; an amount goes right after it (--centre-cut 60%).",
      valueName: "amount"))
  var centreCut: String?

  /// `--centre-cut` takes an optional amount: a bare one (followed by nothing, an option or
  /// something that is not an amount) gets `100%` inserted, for the argument parser.
  static func expandingOptionalValues(_ arguments: [String]) -> [String] {
    var result: [String] = []
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      result.append(argument)
      index += 1
      if argument == "--" {
        result += arguments[index...]
        break
      }
      if argument == "--centre-cut" || argument == "--center-cut" {
        let next = index < arguments.count ? arguments[index] : nil
        if next.flatMap(PartFilter.parseAmount) == nil { result.append("100%") }
      }
    }
    return result
  }

  mutating func validate() throws {
    try settings.validate()
    if key != nil && settings.transpose != nil {
      throw ValidationError("--key and --transpose cannot be combined; use one")
    }
    // With a selection its settings may complete (or set off) the trainer: checked in setup.
    if selection == nil, let problem = given.problem { throw ValidationError(worded(problem)) }
    try Parse.oneRange(bars: bars != nil, times: from != nil || to != nil)
    if selection != nil && (bars != nil || from != nil || to != nil) {
      throw ValidationError("--select cannot be combined with --bars or --from/--to; use one")
    }
    _ = try partFilter()
  }

  /// The filters the options ask for; throws a `ValidationError` naming the option.
  func partFilter() throws -> PartFilter {
    do {
      return try PartFilter(
        writtenEQ: eq, focus: focus, band: band, channel: channel, centreCut: centreCut)
    } catch {
      throw ValidationError(worded(error))
    }
  }

  /// What the command line asks of a play: the part, the settings typed (a key as its
  /// transposition from the song's), the sound.
  func request(for song: Song, library: Library, resume: ResumePoint? = nil) throws -> PlayRequest {
    var request = PlayRequest(settings: given)
    if let selection {
      request.part = .selection(selection)
    } else if let bars {
      request.part = .bars(bars)
    } else {
      request.part = .times(from: from?.seconds, to: to?.end)
    }
    if let key {
      request.settings.transpose = Double(
        try transposition(of: song, to: key, in: library))
    }
    request.quality = quality
    request.clickVolume = clickVolume
    request.filter = try partFilter()
    request.resume = resume
    return request
  }
}

/// A plan's note, worded with the options the player types.
func words(for note: PlayNote, song: Song) -> String {
  switch note {
  case .monoHasNoChannels:
    return "'\(song.title)' is mono: --channel and --centre-cut have nothing to do"
  case .loopPlaysPasses(let count):
    let instead = count == 1 ? "once" : "its drill (\(count) passes)"
    return "'\(song.title)': the entry loops until n moves on, and no keys are read (stdin "
      + "is not a terminal, or --no-keys): it plays \(instead) instead; to loop it here, "
      + "give the entry passes (`setlist add … --repeat N`)"
  }
}

extension Volume: ExpressibleByArgument {
  public init?(argument: String) { self.init(parsing: argument) }
  public var defaultValueDescription: String { "100%" }

  /// Reads a volume option; the parser's message gets the range appended.
  static func argument(_ text: String) throws -> Volume {
    guard let volume = Volume(parsing: text) else {
      throw ValidationError("must be 0% to 200% (up to +6dB), written 80%, 0.8 or -6dB")
    }
    return volume
  }
}

extension Speed: ExpressibleByArgument {
  public init?(argument: String) { self.init(parsing: argument) }
  public var defaultValueDescription: String { "100%" }

  /// Reads `--speed`/`--ramp-to`; the parser's message gets the range appended.
  static func argument(_ text: String) throws -> Speed {
    guard let speed = Speed(parsing: text) else {
      throw ValidationError("must be 25% to 200% (0.25 to 2), written 75% or 0.75")
    }
    return speed
  }
}

extension StretchQuality: ExpressibleByArgument {}

extension PartFilter.Focus: ExpressibleByArgument {}

extension PartFilter.Channel: ExpressibleByArgument {}

extension ProgressFormat: ExpressibleByArgument {}

/// Reads a whole-number option; a value outside `range` is refused with `rule` (the parser's
/// message names the option and the value typed: `--count-in 17: out of range; use 0 to 16
/// bars`).
func wholeNumber(_ range: ClosedRange<Int>, _ rule: String) -> @Sendable (String) throws -> Int {
  { text in
    guard let value = Int(text) else { throw ValidationError("not a whole number; \(rule)") }
    guard range.contains(value) else { throw ValidationError("out of range; \(rule)") }
    return value
  }
}

/// Reads a plain decimal option (`plainDecimal`) within `range`, else refused with `rule`.
func plainDecimal(_ text: String, in range: ClosedRange<Double>, _ rule: String) throws -> Double {
  let value = try plainDecimal(text)
  guard range.contains(value) else { throw ValidationError("out of range; \(rule)") }
  return value
}

/// Reads an option that `parse` understands: its value, or refused with `rule`.
func parsed<T>(by parse: @escaping @Sendable (String) -> T?, _ rule: String)
  -> @Sendable (String) throws -> T
{
  { text in
    guard let value = parse(text) else { throw ValidationError(rule) }
    return value
  }
}

/// Keeps an option as typed once `parse` understands it; else refused with `rule`.
func accepted<T>(by parse: @escaping @Sendable (String) -> T?, _ rule: String)
  -> @Sendable (String) throws -> String
{
  { text in
    guard parse(text) != nil else { throw ValidationError(rule) }
    return text
  }
}

/// Reads a number option as a plain decimal (`1.5`, `-0.5`): hexadecimal, exponents, `inf`
/// and `nan` are refused like any malformed value.
func plainDecimal(_ text: String) throws -> Double {
  guard let value = parseDecimal(text) else {
    throw ValidationError("must be a plain decimal number, like 1.5 or -0.5")
  }
  return value
}
