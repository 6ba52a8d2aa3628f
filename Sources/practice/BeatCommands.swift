import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

struct Beats: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "beats",
    abstract: "Make, edit and inspect a song's beat map (bars and beats).",
    subcommands: [
      BeatsImport.self, BeatsGrid.self, BeatsExport.self, BeatsShow.self, BeatsShift.self,
      BeatsMeter.self, BeatsDetect.self, BeatsTap.self, BeatsDouble.self, BeatsHalve.self,
      BeatsDownbeat.self, BeatsUndo.self, BeatsRedo.self,
    ])
}

/// `--meter` and `--bar1`, shared by the commands that place beats into bars.
struct BarPlacementOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Meter when the beats carry no bar information: 4/4, 3/4, 6/8…", valueName: "N/D"),
    transform: Parse.meter)
  var meter: Meter = .common

  @Option(
    name: .customLong("bar1"),
    help: ArgumentHelp(
      "The K-th beat is the first downbeat; earlier beats form a pickup bar 0.", valueName: "K"),
    transform: Parse.count(in: 1...BarPosition.maximumBar, "beats"))
  var bar1: Int = 1
}

struct BeatsGrid: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "grid",
    abstract: "Make a constant-tempo beat map from --start to the end of the audio.")

  @OptionGroup var target: SongInLibrary
  @Option(
    help: ArgumentHelp("Tempo in beats per minute (10-600).", valueName: "bpm"),
    transform: Parse.tempo(in: 10...600))
  var bpm: Double
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Time of the first beat (default 0).", valueName: "time"),
    transform: Parse.time)
  var start: TypedTime?
  @OptionGroup var placement: BarPlacementOptions

  func run() throws {
    let (library, song) = try target.resolve()
    let first = start?.seconds ?? 0
    guard
      let map = try BeatMap.grid(
        bpm: bpm, start: first, meter: placement.meter, bar1: placement.bar1,
        totalFrames: song.frames, sampleRate: song.sampleRate)
    else {
      throw PracticeError(
        .usage,
        "--start \(formatTime(first)) is past the end of the audio (\(formatTime(song.duration)))")
    }
    let stored = try library.storeBeatMap(
      map, for: song, change: BeatMapChange(.replaced, "beats grid --bpm \(bpm)"))
    Terminal.say(
      "'\(song.title)': \(map.beats.count) beats, \(map.barsDescription), \(placement.meter) at \(bpm) BPM"
    )
    warn(of: stored.selectionsUpset, song: song, map: map)
  }
}

struct BeatsShow: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract:
      "Show the bar table: bar, start time, beats in the bar, tempo in BPM (a table; tab-separated when piped).",
    discussion: """
      Detected maps add a fifth column: the lowest confidence of the bar's beats (0-1), \
      followed by ? when it is below 0.5, so doubtful bars can be checked by ear. A song \
      with chords (`chords detect`) adds the bar's chords, one a beat, `.` where it stays.
      """)

  @OptionGroup var target: SongInLibrary
  @Flag(help: "Print a JSON array of bars instead.") var json = false

  func run() throws {
    let (library, song, map) = try target.resolveWithMap()
    warnIfMeasuredLate(song)
    // With a chord track, each bar's chords (`chords show`'s column).
    let (bars, chords) = try library.barLines(of: song, map: map)
    let doubtful = bars.filter(\.doubtful).count
    if json {
      Terminal.json(bars)
    } else {
      Table.bars(bars, chords: chords).print()
    }
    if doubtful > 0 {
      let bars = doubtful == 1 ? "1 bar has" : "\(doubtful) bars have"
      Terminal.say("\(bars) doubtful detected beats (marked ?); check them by ear")
    }
  }
}

struct BeatsShift: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "shift", abstract: "Move every beat by a number of seconds (negative: earlier).")

  @OptionGroup var target: SongInLibrary
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Seconds, e.g. 0.02 or -0.150 (or milliseconds: 20ms).", valueName: "seconds"),
    transform: Parse.offset)
  var by: Double

  func run() throws {
    let (library, song, _) = try target.resolveWithMap()
    let result = try library.fixBeatMap(
      of: song, .shift(seconds: by, sampleRate: song.sampleRate),
      summary: "beats shift --by \(formatSeconds(by))")
    guard let shifted = result.after else { return }
    Terminal.say("'\(song.title)': \(shifted.beats.count) beats moved by \(by) s")
    sayFollowed(result.followed, upset: result.selectionsUpset, song: song, map: shifted)
  }
}

struct BeatsMeter: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "meter",
    abstract:
      "Count the bars again in another meter, from a bar on (a meter change) or with a new first downbeat."
  )

  @OptionGroup var target: SongInLibrary
  @Option(
    help: ArgumentHelp("The new meter: 3/4, 6/8…", valueName: "N/D"), transform: Parse.meter)
  var meter: Meter
  @Option(
    name: .customLong("from-bar"),
    help: ArgumentHelp("First bar in the new meter.", valueName: "B"),
    transform: Parse.count(in: 0...BarPosition.maximumBar, "bars"))
  var fromBar: Int?
  @Option(
    name: .customLong("bar1"),
    help: ArgumentHelp("Count again from the start: the K-th beat is bar 1.", valueName: "K"),
    transform: Parse.count(in: 1...BarPosition.maximumBar, "beats"))
  var bar1: Int?

  func validate() throws {
    if fromBar != nil && bar1 != nil {
      throw ValidationError(
        "--from-bar and --bar1 cannot be combined: --bar1 counts the whole song again")
    }
  }

  func run() throws {
    let (library, song, before) = try target.resolveWithMap()
    let map = try before.rebarred(meter: meter, fromBar: fromBar, bar1: bar1)
    let options =
      "--meter \(meter)" + (fromBar.map { " --from-bar \($0)" } ?? "") + (bar1.map { " --bar1 \($0)" } ?? "")
    let stored = try library.storeBeatMap(
      map, for: song, change: BeatMapChange(.recounted, "beats meter \(options)"))
    Terminal.say("'\(song.title)': \(map.barsDescription) after counting \(meter)")
    sayFollowed(stored.followed, upset: stored.selectionsUpset, song: song, map: map)
  }
}

struct BeatsImport: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Import a beat map from a file, replacing the song's (all or nothing).",
    discussion: """
      Formats: times (one time per line), mirex (time<TAB>beat-in-bar), audacity (label \
      track), csv (Sonic Visualiser instants), xml (<beats><beat>1.40</beat>…), xsc \
      (Transcribe!: its measures and beats; its loops become selections), json (what \
      `beats export --format json` writes).
      """)

  @OptionGroup var target: SongInLibrary
  @Argument(help: ArgumentHelp("Beat file.", valueName: "file")) var file: String
  @Option(
    help: ArgumentHelp("auto, times, mirex, audacity, csv, xml, xsc or json.", valueName: "format"),
    transform: Parse.importFormat)
  var format: AutoOr<BeatFileFormat> = .auto
  @OptionGroup var placement: BarPlacementOptions

  func run() throws {
    let (library, song) = try target.resolve()
    let (map, loops): (BeatMap, [(name: String, frames: Range<Int64>)])
    do {
      (map, loops) = try BeatImport.read(
        path: file, format: format.value, meter: placement.meter,
        bar1: placement.bar1, totalFrames: song.frames, sampleRate: song.sampleRate)
    } catch let error as DataFileError where error.reason == BeatImport.formatUnknown {
      throw DataFileError(
        error.kind, path: error.path, line: error.line, reason: error.reason,
        advice: "give it with --format: times, mirex, audacity, csv, xml, xsc or json")
    }
    let stored = try library.storeBeatMap(
      map, for: song,
      change: BeatMapChange(.replaced, "beats import '\((file as NSString).lastPathComponent)'"),
      loops: loops)
    for name in stored.keptLoops {
      Terminal.warning(
        "a selection '\(name)' exists already; the file's loop of that name was not imported")
    }
    let added = loops.count - stored.keptLoops.count
    Terminal.say(
      "'\(song.title)': \(map.beats.count) beats, \(map.barsDescription)"
        + (added > 0 ? ", \(counted(added, "selection")) from the file's loops" : ""))
    warn(of: stored.selectionsUpset, song: song, map: map)
  }
}

struct BeatsExport: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Write the song's beat map, to stdout or FILE with -o; import reads it back exactly.")

  @OptionGroup var target: SongInLibrary
  @Option(
    help: ArgumentHelp("times, mirex, audacity, csv or json.", valueName: "format"),
    transform: Parse.exportFormat)
  var format: BeatFileFormat = .json
  @Option(name: .shortAndLong, help: ArgumentHelp("Write to FILE.", valueName: "file")) var output:
    String?

  func run() throws {
    let (_, _, map) = try target.resolveWithMap()
    let text = try BeatFiles.export(
      map.beats.map { (frame: $0.frame, bar: $0.bar, beatInBar: $0.beat) },
      sampleRate: map.sampleRate, format: format)
    if let output {
      try OutputFile.write(Data(text.utf8), to: output)
    } else {
      Terminal.data(text)
    }
  }
}
