import ArgumentParser
import Foundation
import PracticeCore

/// `--db`, shared by every command that touches the library.
struct LibraryOptions: ParsableArguments {
  @Option(
    name: .customLong("db"),
    help: ArgumentHelp(
      "Library database file.",
      discussion: "Default: $PRACTICE_DB, else ${XDG_DATA_HOME:-~/.local/share}/practice/library.sqlite.",
      valueName: "path"))
  var path: String?

  func open() throws -> Library {
    try Library(path: path ?? Library.defaultPath(environment: ProcessInfo.processInfo.environment))
  }
}

/// What part of the song to play and how: shared by `play` and `render`.
struct PlaybackOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Bars to play, from the beat map: 9-16, 9, or 9.3-12.2 (beat 3 of bar 9 through beat 2 of bar 12).",
      valueName: "bars"))
  var bars: String?

  @Option(
    name: .customLong("select"),
    help: ArgumentHelp("A named selection of the song (see `practice select`).", valueName: "name"))
  var selection: String?

  @Option(help: ArgumentHelp("Start time: 83.5, 1:23.5 or 1:02:03.5.", valueName: "time"))
  var from: String?

  @Option(help: ArgumentHelp("End time (exclusive), written like --from.", valueName: "time"))
  var to: String?

  @Option(name: .customLong("repeat"), help: ArgumentHelp("Play the range N times (1-9999).", valueName: "N"))
  var repeatCount: Int?
  /// What `--repeat` accepts: a long practice session, not a file that fills the disk.
  static let repeatRange = 1...9999

  @Flag(help: "Loop the range until stopped (Ctrl-C).")
  var loop = false

  // Unconditional, so `--volume -6dB` is read as a value rather than a flag.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Volume: 80%, 0.8 or -6dB, from 0% to 200%.", valueName: "volume"))
  var volume: Volume = .unity

  @Option(help: ArgumentHelp("Speed, pitch kept: 0.75 or 75%, from 25% to 200%.", valueName: "speed"))
  var speed: Speed = .normal

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Pitch shift in semitones, -12 to 12 (-0.5 is 50 cents down).", valueName: "semitones"))
  var transpose: Double = 0

  @Option(help: ArgumentHelp("Stretcher: finer (Rubber Band R3) or faster (R2).", valueName: "quality"))
  var quality: StretchQuality = .finer

  @Option(name: .customLong("count-in"), help: ArgumentHelp("Bars of click before the first pass (needs a beat map).", valueName: "bars"))
  var countIn: Int = 0

  @Flag(help: "Click on every beat of the beat map, accented on downbeats.")
  var click = false

  @Option(
    name: .customLong("click-volume"), parsing: .unconditional,
    help: ArgumentHelp("Click volume: 80%, 0.8 or -6dB.", valueName: "volume"))
  var clickVolume: Volume = .unity

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Silence between passes: 2s, 1.5s, 1bar or 2bars (bars are clicked with --click).", valueName: "duration"))
  var gap: String?

  @Flag(
    name: .customLong("no-detect"),
    help: "Without a beat map, refuse --bars, --count-in, --click and --gap in bars (exit 66) instead of detecting one.")
  var noDetect = false
  @Option(name: .customLong("ramp-to"), help: ArgumentHelp("Speed trainer: raise (or lower) the speed towards this.", valueName: "speed"))
  var rampTo: Speed?

  @Option(parsing: .unconditional, help: ArgumentHelp("Speed trainer step: 5% or 0.05 (negative ramps down).", valueName: "points"))
  var step: String?

  @Option(help: ArgumentHelp("Speed trainer: passes per step (default 1).", valueName: "passes"))
  var every: Int = 1

  /// `2s` → seconds, `1bar`/`2bars` → bars; nil if malformed.
  static func parseGap(_ text: String) -> (seconds: Double?, bars: Int?)? {
    if text.hasSuffix("bars") || text.hasSuffix("bar") {
      let number = text.hasSuffix("bars") ? text.dropLast(4) : text.dropLast(3)
      guard let bars = Int(number), (1...16).contains(bars) else { return nil }
      return (nil, bars)
    }
    guard text.hasSuffix("s"), let seconds = Double(text.dropLast()), seconds.isFinite,
      seconds > 0, seconds <= 60
    else { return nil }
    return (seconds, nil)
  }

  /// `5%` or `0.05`; nil if malformed or zero.
  static func parseStep(_ text: String) -> Double? {
    let percent = text.hasSuffix("%")
    guard let value = Double(percent ? String(text.dropLast()) : text), value.isFinite, value != 0,
      abs(value) <= (percent ? 175 : 1.75)
    else { return nil }
    return percent ? value / 100 : value
  }

  mutating func validate() throws {
    if let gap, PlaybackOptions.parseGap(gap) == nil {
      throw ValidationError("--gap '\(gap)' is not a duration; write 2s, 1.5s (up to 60s), 1bar or 2bars")
    }
    if let step, PlaybackOptions.parseStep(step) == nil {
      throw ValidationError("--step '\(step)' is not a speed step; write 5% or 0.05 (negative ramps down)")
    }
    if (rampTo == nil) != (step == nil) {
      throw ValidationError("--ramp-to and --step go together: --speed 70% --ramp-to 100% --step 5%")
    }
    if let rampTo, let step = step.flatMap(PlaybackOptions.parseStep),
      (rampTo.rate - speed.rate) * step < 0
    {
      throw ValidationError(
        "--step \(self.step ?? "") moves away from --ramp-to \(rampTo); use a \(step > 0 ? "negative" : "positive") step")
    }
    if every < 1 { throw ValidationError("--every must be at least 1 pass") }
    guard (0...16).contains(countIn) else {
      throw ValidationError("--count-in \(countIn) is out of range; use 0 to 16 bars")
    }
    guard transpose.isFinite, PlaybackPlan.transposeRange.contains(transpose) else {
      throw ValidationError("--transpose \(transpose) is out of range; use -12 to 12 semitones")
    }
    for (flag, text) in [("--from", from), ("--to", to)] {
      if let text, parseTime(text) == nil {
        throw ValidationError(
          "\(flag) '\(text)' is not a time; write seconds (83.5), m:ss (1:23.5) or h:mm:ss (1:02:03.5)")
      }
    }
    if let bars {
      guard BarRange(parsing: bars) != nil else {
        throw ValidationError(
          "--bars '\(bars)' is not a bar range; write 9-16, 9, or 9.3-12.2 (bar.beat)")
      }
      if from != nil || to != nil {
        throw ValidationError("--bars cannot be combined with --from/--to; use one or the other")
      }
    }
    if selection != nil && (bars != nil || from != nil || to != nil) {
      throw ValidationError("--select cannot be combined with --bars or --from/--to; use one")
    }
    if let repeatCount, !PlaybackOptions.repeatRange.contains(repeatCount) {
      throw ValidationError(
        "--repeat \(repeatCount) is out of range; use 1 to \(PlaybackOptions.repeatRange.upperBound) passes (--loop for endless)")
    }
    if loop && repeatCount != nil {
      throw ValidationError("--repeat and --loop cannot be combined; use one")
    }
  }

  /// How the user named the range, for the status line: "bars 9-16", "selection 'solo'".
  var rangeLabel: String? {
    if let selection { return "selection '\(selection)'" }
    return bars.map { "bars \($0)" }
  }

  /// The plan for `song` whose audio is `info`: the range checked against its length,
  /// bars resolved through the song's beat map.
  func plan(for song: Song, info: SoundFileInfo, library: Library) throws -> PlaybackPlan {
    try setup(for: song, info: info, library: library).plan
  }

  /// What a play needs besides the plan: the beat map if it was read, the selection.
  struct Setup {
    var plan: PlaybackPlan
    var beatMap: BeatMap?
    var selection: Selection?
  }

  /// The plan, the song's beat map if the plan needed it (read at most once; always for
  /// `live`, whose keys move by beats and can switch clicks on), and the selection played.
  func setup(for song: Song, info: SoundFileInfo, library: Library, live: Bool = false) throws -> Setup {
    var loaded: BeatMap??
    func beatMap() throws -> BeatMap? {
      if let loaded { return loaded }
      let map = try library.beatMap(for: song)
      loaded = .some(map)
      return map
    }
    // A map the plan cannot do without: detected now if the song has none.
    func neededBeatMap() throws -> BeatMap {
      if let map = try beatMap() { return map }
      let map = try detectingBeatMap(of: song, in: library, detect: !noDetect)
      loaded = .some(map)
      return map
    }
    let range: Range<Int64>
    var chosen: Selection?
    if let name = selection {
      let selection = try library.selection(named: name, of: song)
      chosen = selection
      let map = try beatMap()
      do {
        range = try selection.span.frames(beatMap: map)
      } catch let error as PracticeError {
        throw PracticeError(
          .usage,
          "selection '\(selection.name)' (\(selection.span)) cannot be played: \(error.message)")
      }
    } else if let bars, let barRange = BarRange(parsing: bars) {
      range = try neededBeatMap().frames(of: barRange)
    } else {
      range = try resolveTimeRange(
        from: from.flatMap(parseTime), to: to.flatMap(parseTime), sampleRate: info.sampleRate,
        frames: info.frames)
    }
    let passes: Passes = loop ? .endless : .count(repeatCount ?? 1)
    var plan = PlaybackPlan(range: range, passes: passes, volume: volume, sampleRate: info.sampleRate)
    let gapSpec = gap.flatMap(PlaybackOptions.parseGap)
    if countIn > 0 || click || gapSpec?.bars != nil {
      let map = try neededBeatMap()
      if countIn > 0 || click || live {
        plan.clicks = ClickPlan(
          beatMap: map, range: range, speed: speed, countInBars: countIn, click: click,
          gapBars: gapSpec?.bars ?? 0, volume: clickVolume)
      }
      if let bars = gapSpec?.bars {
        plan.gap = .bars(count: bars, barFrames: ClickPlan.barFrames(beatMap: map, range: range))
      }
    }
    if let seconds = gapSpec?.seconds { plan.gap = .seconds(seconds) }
    if let rampTo, let step = step.flatMap(PlaybackOptions.parseStep) {
      plan.ramp = PlaybackPlan.Ramp(target: rampTo, step: step, every: every)
    }
    if live, !(countIn > 0 || click || gapSpec?.bars != nil), let map = try beatMap() {
      plan.clicks = ClickPlan(
        beatMap: map, range: range, speed: speed, countInBars: 0, click: false, volume: clickVolume)
    }
    plan.speed = speed
    plan.transpose = transpose
    plan.quality = quality
    return Setup(plan: plan, beatMap: loaded ?? nil, selection: chosen)
  }
}

extension Volume: ExpressibleByArgument {
  public init?(argument: String) { self.init(parsing: argument) }
  public var defaultValueDescription: String { "100%" }
}

extension Speed: ExpressibleByArgument {
  public init?(argument: String) { self.init(parsing: argument) }
  public var defaultValueDescription: String { "100%" }
}

extension StretchQuality: ExpressibleByArgument {}
