import CPlatform
import ArgumentParser
import Foundation
import PracticeCore
import Synchronization

struct Play: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "play",
    abstract: "Play a song, or part of it, through an ALSA device.",
    discussion: """
      Ctrl-C stops cleanly (exit 130). Every play remembers where it stopped (the position \
      heard, its loop, speed, transpose and volume); --resume continues there.
      """)

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title.", valueName: "song")) var song: String
  @OptionGroup var playback: PlaybackOptions
  @OptionGroup var output: PlayOutputOptions

  @Flag(
    help: ArgumentHelp(
      "Continue where the last play of the song stopped, in its loop, at its speed, transpose and volume.",
      discussion:
        "Options given override what is remembered; a range given replaces the loop (the position is kept when it lies in it). A play that ran to its end starts its range again."
    ))
  var resume = false

  func run() throws {
    let library = try library.open()
    let song = try library.resolve(song)
    var point: ResumePoint?
    if resume {
      point = try library.resumePoint(of: song)
      if point == nil {
        Terminal.say("'\(song.title)' has not been played yet: playing from the start")
      }
    }
    try playSong(
      song, library: library,
      request: try playback.request(for: song, library: library, resume: point),
      detect: !playback.noDetect, output: output)
    if Session.endedEarly.load(ordering: .relaxed) { throw ExitCode(65) }
  }
}

/// `practice resume`: the most recent play of any song, continued.
struct ResumeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "resume",
    abstract: "Continue the most recent play of any song where it stopped.",
    discussion: """
      Like `practice play SONG --resume` for the song played last: its loop, position, speed, \
      transpose and volume, with options given overriding them. Exit 66 when nothing was \
      played yet.
      """)

  @OptionGroup var library: LibraryOptions
  @OptionGroup var playback: PlaybackOptions
  @OptionGroup var output: PlayOutputOptions

  func run() throws {
    let library = try library.open()
    guard let point = try library.latestResumePoint(), let song = try library.song(id: point.songID)
    else {
      throw PracticeError(
        .missingInput, "nothing was played yet, so there is nothing to resume; `practice play SONG`"
      )
    }
    try playSong(
      song, library: library,
      request: try playback.request(for: song, library: library, resume: point),
      detect: !playback.noDetect, output: output)
    if Session.endedEarly.load(ordering: .relaxed) { throw ExitCode(65) }
  }
}

/// Where and how `play` and `resume` sound: the device, pass announcements, keys.
struct PlayOutputOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "ALSA PCM to play through (default: $PRACTICE_DEVICE, else 'default').", valueName: "pcm"))
  var device: String?

  @Option(
    help: ArgumentHelp(
      "Pass announcements on stderr: text or json (one object per line; with json, a `stopped` object at the end says where the sound stopped).",
      valueName: "format"))
  var progress: ProgressFormat = .text

  @Flag(help: "Read no keys even at a terminal (the status line still shows).")
  var noKeys = false

  @Flag(
    help: ArgumentHelp(
      "Show the status line alone, not the player screen.",
      discussion:
        "At a terminal of 12 rows or more, play shows the player screen: the waveform around what is heard with the bar ruler, the loop and the selections, a cursor, and the status line beneath."
    ))
  var noScreen = false
}

/// Plays `song` as `request` asks (a beat map it needs and lacks detected when `detect`),
/// logs the play with its passes, and remembers where it stopped; says how it ended
/// (Ctrl-C throws exit 130). A setlist passes its `heading` for the status line and its
/// own keys (`extraKey`).
@discardableResult
func playSong(
  _ song: Song, library: Library, request: PlayRequest, detect: Bool,
  output: PlayOutputOptions, heading: String? = nil, extraKey: ((Key) -> Bool)? = nil
) throws -> LiveSession.Ending {
  let file = try song.openAudio()
  // Keys when stdin is a terminal, a status line when stderr is one.
  let keys = !output.noKeys && isatty(STDIN_FILENO) == 1
  let status = isatty(STDERR_FILENO) == 1
  var request = request
  request.live = keys || status
  let builder = PlanBuilder(library: library, song: song, info: file.info) { song in
    try detectingBeatMap(of: song, in: library, detect: detect)
  }
  let setup = try builder.build(request)
  for note in setup.notes { Terminal.warning(words(for: note, song: song)) }
  let plan = setup.plan
  let rate = file.info.sampleRate
  let name = output.device ?? ProcessInfo.processInfo.environment["PRACTICE_DEVICE"] ?? "default"
  // Keys must be heard within 100 ms: a short device buffer when they are read. Without
  // keys only Ctrl-C needs an answer (within about a period): a longer buffer wakes the
  // render thread and the sound server half as often (bench/cpu-play.py).
  let sink = try PCMDevice(
    name: name, sampleRate: rate, channels: file.info.channels,
    encoding: .lossless(forBitDepth: file.info.bitDepth),
    maxBlockFrames: PlaybackEngine.blockFrames, bufferMilliseconds: keys ? 50 : 200,
    openAdvice: playbackDeviceAdvice)
  let engine = try PlaybackEngine(file: file, plan: plan, sink: sink, live: keys)
  let session = PracticeSession(
    song: song, library: library, setup: setup, engine: engine, info: file.info)
  let live = keys || status
  let from =
    plan.startOffset > 0
    ? " from \(formatTime(Double(plan.range.lowerBound + plan.startOffset) / Double(rate)))" : ""
  Terminal.say(
    "playing \(describe(plan, of: song, rate: rate, label: setup.label))\(from) on '\(name)'")
  let report: PlaybackReport
  let ending: LiveSession.Ending
  do {
    if live {
      let screen =
        status && !output.noScreen
        ? try playerScreen(song, library: library, beatMap: setup.beatMap, loop: plan.range) : nil
      let steering = LiveSession(session: session, keys: keys, status: status, screen: screen)
      steering.heading = heading
      steering.extraKey = extraKey
      (report, ending) = try steering.run()
      Session.report(report, engine: engine, song: song, file: file)
    } else {
      // Bar and beat at the range start, for JSON progress; the beat map is read only if
      // the plan did not already need it.
      let map =
        output.progress == .json && setup.beatMap == nil
        ? try library.beatMap(for: song) : setup.beatMap
      let first = map?.beats.first { $0.frame >= plan.range.lowerBound }
      var announcer = PassAnnouncer(
        plan: plan, format: output.progress,
        label: setup.label ?? formatTimeRange(plan.range, sampleRate: rate),
        bar: first?.bar, beat: first?.beat, time: Double(plan.range.lowerBound) / Double(rate))
      if plan.startOffset > 0 {
        // A resumed play: the bar and beat sounding where it starts.
        let start = plan.range.lowerBound + plan.startOffset
        let beat = map?.beatIndex(at: start).map { map!.beats[$0] }
        announcer.firstPassStart = (beat?.bar, beat?.beat, Double(start) / Double(rate))
      }
      var tracker = session.tracker
      report = try Session.run(
        engine, song: song, file: file, announcer: announcer, tracker: &tracker)
      session.take(tracker)
      ending = report.interrupted ? .interrupted : .completed
    }
  } catch {
    let passes = engine.passesEnded.load(ordering: .relaxed)
    let written = engine.framesWritten.load(ordering: .relaxed)
    let heard = session.tracker.heardSeconds(
      written: written, interrupted: true,
      firstFrameNanoseconds: engine.firstFrameNanoseconds.load(ordering: .relaxed),
      endNanoseconds: monotonicNanoseconds(), audibleClock: sink.hasAudibleClock)
    keepBooks(
      session, outcome: .failed, completed: passes, heard: heard, written: written, live: live,
      finished: false, progress: nil)
    throw error
  }
  let ended = monotonicNanoseconds()
  let outcome: PlayOutcome =
    switch ending {
    case .completed: .completed
    case .stopped: .stopped
    case .interrupted: .interrupted
    }
  // A device with no audible clock (ALSA's null PCM, or one that took the audio faster
  // than real time) is credited no time heard; the play, its passes and the audio played
  // are logged.
  let heard = session.tracker.heardSeconds(
    written: report.framesWritten, interrupted: report.interrupted,
    firstFrameNanoseconds: engine.firstFrameNanoseconds.load(ordering: .relaxed),
    endNanoseconds: report.interrupted ? (session.tracker.endEvent?.nanoseconds ?? ended) : ended,
    audibleClock: sink.hasAudibleClock)
  keepBooks(
    session, outcome: outcome, completed: report.passesCompleted, heard: heard,
    written: report.framesWritten, live: live, finished: !report.interrupted,
    progress: output.progress == .json && !live ? output.progress : nil)
  if ending == .interrupted { throw ExitCode(ExitStatus.interrupted) }
  return ending
}

/// Writes the session's log rows and remembers where it stopped, for `--resume` (a library
/// that cannot take them costs a warning, not the play); with `--progress json`, says
/// where it stopped on stderr as a `stopped` object.
private func keepBooks(
  _ session: PracticeSession, outcome: PlayOutcome, completed: Int, heard: Double,
  written: Int64, live: Bool, finished: Bool, progress: ProgressFormat?
) {
  let entries = session.logEntries(
    outcome: outcome, completed: completed, heard: heard, written: written, live: live)
  bestEffort("this play was not logged") {
    for entry in entries { try session.library.log(entry) }
  }
  guard let point = session.resumePoint(completed: completed, finished: finished, live: live)
  else { return }
  bestEffort("where this play stopped was not remembered") { try session.library.remember(point) }
  if let progress, progress == .json {
    let song = session.song
    let map = session.setup.beatMap ?? (try? session.library.beatMap(for: song)) ?? nil
    let frame = point.frame
    // A finished play: the bar and beat of the last frame heard.
    let beat = map?.beatIndex(at: finished ? max(point.range.lowerBound, frame - 1) : frame)
      .map { map!.beats[$0] }
    Terminal.say(
      StopEvent(
        frame: frame, time: Double(frame) / Double(song.sampleRate), bar: beat?.bar,
        beat: beat?.beat, finished: finished
      ).jsonText)
  }
}

/// The player screen for `song`, when stderr is a terminal tall enough for it; the song's
/// waveform summary is computed first if the library has none yet.
private func playerScreen(_ song: Song, library: Library, beatMap: BeatMap?, loop: Range<Int64>)
  throws -> PlayerScreen?
{
  guard Int(practice_terminal_rows(STDERR_FILENO)) >= PlayerScreen.minimumRows else { return nil }
  if try library.storedWaveformSummary(for: song) == nil {
    Terminal.say("reading '\(song.title)' once for its waveform (kept in the library)")
  }
  let content = OverviewContent(
    title: Terminal.escaped(song.title), artist: song.artist.map { Terminal.escaped($0) },
    summary: try library.waveformSummary(for: song).summary, beatMap: beatMap,
    selections: PlayerScreen.spans(of: song, library: library, beatMap: beatMap),
    window: 0..<song.frames)
  // The chord lane when the song has chords; a library that cannot say costs only the lane.
  let chords = (try? library.chordTrack(for: song)).flatMap { $0 }.map {
    (track: $0, key: (try? library.details(of: song).key) ?? nil)
  }
  return PlayerScreen(content: content, loop: loop, chords: chords)
}

/// Runs `body`; a failure costs a warning (`what: why`), not the play.
private func bestEffort(_ what: String, _ body: () throws -> Void) {
  do {
    try body()
  } catch let failure as any PracticeFailure {
    Terminal.warning("\(what): \(worded(failure))")
  } catch {
    Terminal.warning("\(what): \(error)")
  }
}

struct Render: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "render",
    abstract: "Render what `play` would play into a file, as fast as possible.",
    discussion: """
      The format follows the extension of OUT: .wav, .flac, .aiff (the source's bit depth, \
      16 or 24), .ogg (Vorbis), .opus or .mp3; same rate and channels as the source. \
      While it works, a progress bar on stderr when stderr is a terminal; at the end one line \
      on stderr: what was rendered, the output's length and the time it took.
      """)

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title.", valueName: "song")) var song: String
  @OptionGroup var playback: PlaybackOptions
  @Option(name: .shortAndLong, help: ArgumentHelp("Output file.", valueName: "out"))
  var output: String

  mutating func validate() throws {
    if OutputFormat(path: output, bitDepth: 16) == nil {
      throw ValidationError(
        "cannot write '\(output)': unknown output format; use one of "
          + OutputFormat.extensions.map { "." + $0 }.joined(separator: ", "))
    }
    if playback.loop {
      throw ValidationError("render cannot --loop forever; use --repeat N")
    }

  }

  func run() throws {
    let started = monotonicNanoseconds()
    let library = try library.open()
    let song = try library.resolve(song)
    let file = try song.openAudio()
    try OutputFormat(path: output, bitDepth: 16)?.check(
      sampleRate: file.info.sampleRate, path: output)
    let setup = try playback.setup(for: song, info: file.info, library: library)
    let plan = setup.plan
    if plan.passes == .endless {
      throw PracticeError(
        .usage, "\(setup.label ?? "the range") loops until stopped; render it with --repeat N")
    }
    let target = SongScanner.absolutePath(output)
    if target == song.path {
      throw PracticeError(.usage, "-o '\(output)' is the song itself; pick another output file")
    }
    guard let format = OutputFormat(path: target, bitDepth: file.info.bitDepth) else {
      throw PracticeError(.usage, "cannot write '\(output)': unknown output format")
    }
    let sink = try SoundFileWriter(
      path: target, format: format, sampleRate: file.info.sampleRate,
      channels: file.info.channels, maxBlockFrames: PlaybackEngine.blockFrames)
    sink.setTags(title: song.title, artist: song.artist, album: song.album)
    let engine = try PlaybackEngine(file: file, plan: plan, sink: sink)
    let rate = file.info.sampleRate
    let progress = ProgressBar().map {
      Session.Progress(
        bar: $0,
        totalFrames: (plan.totalFrames(sampleRate: rate) ?? 0) + (plan.clicks?.countInFrames ?? 0),
        label: "rendering " + (output as NSString).lastPathComponent)
    }
    let report = try Session.run(
      engine, song: song, file: file, progress: progress, done: "rendered to '\(output)'")
    if report.interrupted { throw ExitCode(ExitStatus.interrupted) }
    // The warning was the one line: the audio ended before the song's end.
    if report.truncation != nil { throw ExitCode(65) }
    let seconds = Double(report.framesWritten) / Double(rate)
    let took = Double(monotonicNanoseconds() &- started) / 1e9
    Terminal.say(
      "rendered \(describe(plan, of: song, rate: rate, label: setup.label)) to '\(output)' "
        + "(\(report.framesWritten) frames, \(formatTime(seconds))) in \(formatTaken(took))")
  }
}

/// How long work took, for a person: `0.42 s`, `12.3 s`, `2:05.0`.
func formatTaken(_ seconds: Double) -> String {
  guard seconds.isFinite, seconds >= 0 else { return "0 s" }
  if seconds < 10 { return String(format: "%.2f s", seconds) }
  if seconds < 60 { return String(format: "%.1f s", seconds) }
  return formatTime(seconds)
}

/// "'Title' 0:10.0–0:20.0, 2 passes, volume 80%": what a plan plays, for stderr.
func describe(_ plan: PlaybackPlan, of song: Song, rate: Int, label: String? = nil) -> String {
  let times = formatTimeRange(plan.range, sampleRate: rate)
  let passes: String
  switch plan.passes {
  case .endless: passes = "looped"
  case .count(1): passes = "once"
  case .count(let n): passes = "\(n) passes"
  }
  let volume = plan.volume == .unity ? "" : ", volume \(plan.volume)"
  let speed = plan.speed == .normal ? "" : ", speed \(plan.speed)"
  let transpose =
    plan.transpose == 0 ? "" : ", transpose \(plan.transpose > 0 ? "+" : "")\(plan.transpose)"
  let filter = plan.filter.label.map { ", " + $0 } ?? ""
  let span = label.map { "\($0) (\(times))" } ?? times
  return "'\(song.title)' \(span), \(passes)\(speed)\(transpose)\(volume)\(filter)"
}
