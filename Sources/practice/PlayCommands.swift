import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal
import Synchronization

struct Play: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "play",
    abstract: "Play a song, or part of it, through an ALSA device.",
    discussion: """
      Ctrl-C stops cleanly (exit 130). Every play is logged (`practice log`) and remembers \
      where it stopped (the position heard, its loop, speed, transpose and volume); --resume \
      continues there. At the keys, the play ends by saying what it logged, a line for each \
      part: `logged bars 5-6 'solo': 4 passes (2 clean, 1 flubbed) at 75%, 0:20 heard`.
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
      sayIfFinished(point, song: song)
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
    sayIfFinished(point, song: song)
    try playSong(
      song, library: library,
      request: try playback.request(for: song, library: library, resume: point),
      detect: !playback.noDetect, output: output)
    if Session.endedEarly.load(ordering: .relaxed) { throw ExitCode(65) }
  }
}

/// One line when the play to resume had run to its end: it starts from the beginning.
func sayIfFinished(_ point: ResumePoint?, song: Song) {
  guard let point, point.finished else { return }
  Terminal.say(
    "the last play of '\(song.title)' had finished: playing "
      + (point.label.map { "\($0) " } ?? "") + "from the beginning")
}

/// Where and how `play` and `resume` sound: the device, pass announcements, keys.
struct PlayOutputOptions: ParsableArguments {
  @OptionGroup var device: PlaybackDeviceOption

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

/// Plays `song` as `request` asks (a beat map it needs and lacks detected when `detect`)
/// through a `PracticeSession`, which keeps the books (the log rows, where it stopped);
/// says how it ended (Ctrl-C throws exit 130). A setlist passes its `heading` for the
/// status line and its own keys (`extraKey`).
@discardableResult
func playSong(
  _ song: Song, library: Library, request: PlayRequest, detect: Bool,
  output: PlayOutputOptions, heading: String? = nil, extraKey: ((Key) -> Bool)? = nil
) throws -> PlayOutcome {
  // Keys when stdin is a terminal, a status line when stderr is one.
  let keys = !output.noKeys && isatty(STDIN_FILENO) == 1
  let status = isatty(STDERR_FILENO) == 1
  var request = request
  request.live = keys || status
  let name = output.device.name
  let session = try PracticeSession.open(
    song: song, library: library, request: request, device: name,
    latency: keys ? .keys : .relaxed, deviceAdvice: playbackDeviceAdvice
  ) { song in try detectingBeatMap(of: song, in: library, detect: detect) }
  let (setup, plan, rate) = (session.setup, session.setup.plan, session.sampleRate)
  for note in setup.notes { Terminal.warning(words(for: note, song: song)) }
  let from =
    plan.startOffset > 0
    ? " from \(formatTime(Double(plan.range.lowerBound + plan.startOffset) / Double(rate)))" : ""
  Terminal.say(
    "playing \(describe(plan, of: song, rate: rate, label: setup.label))\(from) on '\(name)'")
  let report: PlaybackReport
  let ending: PlayOutcome
  do {
    if session.live {
      let screen =
        status && !output.noScreen
        ? try PlayerScreen.of(song, library: library, beatMap: setup.beatMap, loop: plan.range) : nil
      let steering = LiveSession(session: session, keys: keys, status: status, screen: screen)
      steering.heading = heading
      steering.extraKey = extraKey
      (report, ending) = try steering.run()
    } else {
      // A play wakes ten times a second: the event ring holds seconds, a pass line needs no more.
      let label = setup.label ?? formatTimeRange(plan.range, sampleRate: rate)
      report = try Session.withSignals(session.engine) { _ in
        try session.run(
          waiting: .milliseconds(100),
          passStarted: { Terminal.say(announcement(of: $0, label: label, format: output.progress)) })
      }
      ending = report.interrupted ? .interrupted : .completed
    }
  } catch {
    keepBooks(session.keepBooks(.failed, report: nil), of: session, progress: nil)
    throw error
  }
  Session.report(report, engine: session.engine, song: song, file: session.file)
  keepBooks(
    session.keepBooks(ending, report: report), of: session,
    progress: session.live ? nil : output.progress)
  if ending == .interrupted { throw ExitCode(ExitStatus.interrupted) }
  return ending
}

/// Says what the library would not take of a play's books (a warning each, not the play);
/// at the keys, what was logged (the status line and the player screen are gone by then);
/// with `--progress json`, where it stopped on stderr as a `stopped` object.
private func keepBooks(_ books: PracticeSession.Books, of session: PracticeSession, progress: ProgressFormat?) {
  if session.live {
    for entry in books.logged { Terminal.say("logged " + Terminal.escaped(entry.summary(clock: formatClock))) }
  }
  for (what, failure) in [
    ("this play was not logged", books.notLogged),
    ("where this play stopped was not remembered", books.notRemembered),
  ] {
    guard let failure else { continue }
    Terminal.warning("\(what): \((failure as? any PracticeFailure).map { worded($0) } ?? "\(failure)")")
  }
  guard progress == .json, let point = books.point else { return }
  let beat = session.beat(stoppedAt: point)
  Terminal.say(
    StopEvent(
      frame: point.frame, time: Double(point.frame) / Double(session.sampleRate),
      bar: beat?.bar, beat: beat?.beat, finished: books.finished
    ).jsonText)
}

struct Render: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "render",
    abstract: "Render what `play` would play into a file, as fast as possible.",
    discussion: """
      The format follows the extension of OUT: .wav, .flac, .aiff (the source's bit depth, \
      16 or 24), .ogg (Vorbis), .opus, .mp3 or .m4a (AAC, 256 kb/s stereo, through FFmpeg); \
      same rate and channels as the source. \
      While it works, a progress bar on stderr when stderr is a terminal; at the end one line \
      on stderr: what was rendered, the output's length and the time it took. With --json, \
      also a JSON object on stdout with the output's exact length in frames.
      """)

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title.", valueName: "song")) var song: String
  @OptionGroup var playback: PlaybackOptions
  @Option(name: .shortAndLong, help: ArgumentHelp("Output file.", valueName: "out"))
  var output: String
  @Flag(help: "Also print a JSON object on stdout: song_id, output, frames, sample_rate, seconds.")
  var json = false

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
    let noDetect = playback.noDetect
    let renderer: PlanRenderer
    do {
      renderer = try PlanRenderer.open(
        song: song, library: library, request: try playback.request(for: song, library: library),
        output: output, noted: { Terminal.warning(words(for: $0, song: song)) }
      ) { song in try detectingBeatMap(of: song, in: library, detect: !noDetect) }
    } catch let refusal as PlanRenderer.Refusal {
      throw PracticeError(refusal.category, worded(refusal, output: output))
    }
    let (plan, rate) = (renderer.setup.plan, renderer.sampleRate)
    let bar = ProgressBar()
    let label = "rendering " + (output as NSString).lastPathComponent
    // Fifty times a second with a bar, so it moves smoothly; else ten.
    let report = try Session.withSignals(renderer.engine) { _ in
      defer { bar?.clear() }
      return try renderer.run(waiting: .milliseconds(bar == nil ? 100 : 20)) {
        bar?.show($0, label)
      }
    }
    Session.report(
      report, engine: renderer.engine, song: song, file: renderer.file,
      done: "rendered to '\(output)'")
    if report.interrupted { throw ExitCode(ExitStatus.interrupted) }
    // The warning was the one line: the audio ended before the song's end.
    if report.truncation != nil { throw ExitCode(65) }
    let seconds = Double(report.framesWritten) / Double(rate)
    let took = Double(monotonicNanoseconds() &- started) / 1e9
    Terminal.say(
      "rendered \(describe(plan, of: song, rate: rate, label: renderer.setup.label)) to '\(output)' "
        + "(\(formatTime(seconds)) long) in \(formatTaken(took))")
    if json {
      Terminal.json(
        RenderRecord(
          songID: song.id, output: output, frames: report.framesWritten, sampleRate: rate))
    }
  }
}

/// Why `render` would not begin, with the options that would make it.
private func worded(_ refusal: PlanRenderer.Refusal, output: String) -> String {
  switch refusal {
  case .endless(let label):
    return "\(label ?? "the range") loops until stopped; render it with --repeat N"
  case .outputIsSource: return "-o '\(output)' is the song itself; pick another output file"
  case .unknownFormat: return "cannot write '\(output)': unknown output format"
  }
}

/// "'Title' 0:10.0–0:20.0, 2 passes, volume 80%": what a plan plays, for stderr.
func describe(_ plan: PlaybackPlan, of song: Song, rate: Int, label: String? = nil) -> String {
  "'\(song.title)' " + plan.summary(sampleRate: rate, label: label)
}
