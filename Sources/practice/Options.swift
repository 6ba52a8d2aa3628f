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

  @Option(name: .customLong("repeat"), help: ArgumentHelp("Play the range N times.", valueName: "N"))
  var repeatCount: Int?

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

  mutating func validate() throws {
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
    if let repeatCount, repeatCount < 1 {
      throw ValidationError("--repeat must be at least 1 (got \(repeatCount))")
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
    let range: Range<Int64>
    if let name = selection {
      let selection = try library.selection(named: name, of: song)
      let map = try library.beatMap(for: song)
      do {
        range = try selection.span.frames(beatMap: map)
      } catch let error as PracticeError {
        throw PracticeError(
          .usage,
          "selection '\(selection.name)' (\(selection.span)) cannot be played: \(error.message)")
      }
    } else if let bars, let barRange = BarRange(parsing: bars) {
      guard let map = try library.beatMap(for: song) else { throw noBeatMap(song) }
      range = try map.frames(of: barRange)
    } else {
      range = try resolveTimeRange(
        from: from.flatMap(parseTime), to: to.flatMap(parseTime), sampleRate: info.sampleRate,
        frames: info.frames)
    }
    let passes: Passes = loop ? .endless : .count(repeatCount ?? 1)
    var plan = PlaybackPlan(range: range, passes: passes, volume: volume, sampleRate: info.sampleRate)
    if countIn > 0 || click {
      guard let map = try library.beatMap(for: song) else {
        throw PracticeError(
          .missingInput,
          "\(click ? "--click" : "--count-in") needs the beats of '\(song.title)', and it has no beat map; make one with "
            + "`practice beats grid \(song.id ?? 0) --bpm N` or `practice beats import \(song.id ?? 0) FILE`")
      }
      plan.clicks = ClickPlan(
        beatMap: map, range: range, speed: speed, countInBars: countIn, click: click, volume: clickVolume)
    }
    plan.speed = speed
    plan.transpose = transpose
    plan.quality = quality
    return plan
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
