import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

struct BeatsDetect: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "detect",
    abstract:
      "Find the beats, bars and downbeats in songs' audio and store them as their beat maps.",
    discussion: """
      Each song's map is replaced whole (source `detected`, with a confidence per beat; \
      `beats show` marks doubtful bars with ?). A map that was imported, tapped, made with \
      `grid` or edited is kept unless --replace is given. One summary line per song on stderr, \
      and a warning when the map is likely wrong: a small model, fitted on tuning pieces, \
      weighs what detection heard (the beats' confidence, the beat network's downbeats \
      against the other beats, how clearly the onsets repeat at one period), or the beat network \
      hears the map's beats faintly (below 0.25 of 1); such a map is still stored (exit 0), to \
      be checked by ear. Where the beats look right but no beat of the bar stands out (the \
      network's downbeats hardly above its other beats), a line says bar 1 is a guess and \
      how to move the bar lines (`beats downbeat`, or d in the player).
      """)

  @OptionGroup var target: SongsInLibrary
  @Option(
    help: ArgumentHelp(
      "auto (2, 3, 4, 5 or 7 beats a bar), or the meter whose downbeats to find (6/8: two dotted quarters a bar).",
      valueName: "auto|N/D"),
    transform: Parse.meterOrAuto)
  var meter: AutoOr<Meter> = .auto
  @Option(
    help: ArgumentHelp(
      "onsets: beats from the onsets heard or from the beat network, whichever reading the network hears more, bars with its help; network: beats and bars decoded from the beat network alone.",
      valueName: "onsets|network"))
  var method: BeatMethod = .onsets
  @Option(
    name: .customLong("min-bpm"),
    help: ArgumentHelp(
      "Slowest tempo to consider (20-400; default 40 for the network's reading, 50 for the onsets').",
      valueName: "bpm"),
    transform: Parse.tempo(in: 20...400))
  var minBPM: Double?
  @Option(
    name: .customLong("max-bpm"),
    help: ArgumentHelp("Fastest tempo to consider (20-400).", valueName: "bpm"),
    transform: Parse.tempo(in: 20...400))
  var maxBPM: Double = 220
  @Flag(help: "Replace a beat map that was imported, tapped, made with grid or edited.")
  var replace = false

  func validate() throws {
    let minBPM = self.minBPM ?? method.model.slowestTempo
    if minBPM * 1.2 > maxBPM {
      // Without --min-bpm, the slowest tempo is the method's own: say so.
      let slowest = self.minBPM == nil ? "the default --min-bpm \(minBPM)" : "--min-bpm \(minBPM)"
      throw ValidationError(
        "\(slowest) and --max-bpm \(maxBPM) leave too narrow a range; make --max-bpm at least 1.2 times --min-bpm"
      )
    }
  }

  func run() throws {
    let (library, resolved) = try target.resolve()
    do {
      try library.checkBeatDetection(of: resolved, replace: replace)
    } catch let refusal as DetectionRefusal {
      throw PracticeError(.usage, worded(refusal, replacingWith: "detected beats"))
    }
    let options = BeatDetectionOptions.fromEnvironment(
      meter: meter.value, minBPM: minBPM, maxBPM: maxBPM,
      model: method.model)
    try detectEach(resolved, in: library) { song, name, bar in
      let (found, stored) = try library.detectBeatMap(for: song, options: options) {
        bar?.show($0, name)
      }
      bar?.clear()
      Terminal.say(found.summary(name: name))
      warn(of: found, song: song, name: name)
      warn(of: stored.selectionsUpset, song: song, map: found.map)
    }
  }
}

/// `beats detect` and `chords detect`: `detect` each song (its file name given, and the
/// progress bar at a terminal). A song that fails is said in one line and, if it was added
/// by naming its file, taken out again; the others are still worth detecting, and the exit
/// code tells of the first failure.
func detectEach(
  _ songs: [Song], in library: Library,
  _ detect: (Song, String, ProgressBar?) throws -> Void
) throws {
  let bar = ProgressBar()
  var firstFailure: FailureCategory?
  for song in songs {
    do {
      try detect(song, (song.path as NSString).lastPathComponent, bar)
    } catch let failure as any PracticeFailure {
      bar?.clear()
      try? library.undoFirstUse(of: song)
      Terminal.error(worded(failure))
      firstFailure = firstFailure ?? failure.category
    }
  }
  if let firstFailure { throw ExitCode(ExitStatus.code(for: firstFailure)) }
}

/// The song's beat map; when it has none, a band repository's, or one detected now and
/// stored as `beats detect` would store it (one line saying so, a progress bar at a
/// terminal, the summary line and any warning), so a first `play --bars` just plays. With
/// `detect` false (`--no-detect`), exit 66 naming the commands that make one.
func detectingBeatMap(of song: Song, in library: Library, detect: Bool) throws -> BeatMap {
  let name = (song.path as NSString).lastPathComponent
  let bar = ProgressBar()
  defer { bar?.clear() }
  do {
    return try library.beatMap(
      for: song, detect: detect,
      starting: {
        Terminal.say(
          "'\(song.title)' has no beat map yet; detecting one (as `practice beats detect` does)")
      }, progress: { bar?.show($0, name) }
    ) { found in
      bar?.clear()
      switch found {
      case .repository(let repository):
        Terminal.say("'\(song.title)' had no beat map; took the one of repository '\(repository)'")
      case .detected(let detection):
        Terminal.say(detection.summary(name: name))
        warn(of: detection, song: song, name: name)
      }
    }
  } catch is NoBeatMap {
    throw noBeatMap(song)
  }
}

/// A detected map's warning, or, where its beats look right but no beat of the bar stands
/// out, where bar 1 was put and the one command (or key) that moves the bar lines.
func warn(of detection: BeatDetection, song: Song, name: String) {
  if let warning = detection.warning {
    Terminal.warning("\(name): \(worded(warning: warning))")
  } else if detection.barsAreAGuess, let bar1 = detection.map.frame(bar: 1) {
    let at = formatTime(Double(bar1) / Double(detection.map.sampleRate))
    Terminal.warning(
      "\(name): no beat of the bar stands out, so bar 1 (at \(at)) is a guess; if the 1 you "
        + "hear falls on another beat, move the bar lines with `practice beats downbeat "
        + "\(song.id ?? 0) --bar 1.N` (N: that beat) or press d on it in the player")
  }
}

/// How `beats detect` finds the beats: the musician's names for two `BeatModel`s
/// (bench/beats/README.md measures both).
enum BeatMethod: String, ExpressibleByArgument, CaseIterable {
  /// The default: `BeatTracker`'s beats or the network's, `DownbeatFinder`'s bars hearing
  /// the network.
  case onsets
  /// The bar pointer over the beat network's activations.
  case network

  var model: BeatModel { self == .network ? .network : .downbeats }
}
