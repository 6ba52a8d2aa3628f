import ArgumentParser
import Foundation
import PracticeCore
import Synchronization

struct Play: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "play",
    abstract: "Play a song, or part of it, through an ALSA device.",
    discussion: "Ctrl-C stops cleanly (exit 130).")

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title.", valueName: "song")) var song: String
  @OptionGroup var playback: PlaybackOptions
  @Option(
    help: ArgumentHelp(
      "ALSA PCM to play through (default: $PRACTICE_DEVICE, else 'default').", valueName: "pcm"))
  var device: String?

  @Option(help: ArgumentHelp("Pass announcements on stderr: text or json (one object per line).", valueName: "format"))
  var progress: ProgressFormat = .text

  @Flag(help: "Read no keys even at a terminal (the status line still shows).")
  var noKeys = false

  func run() throws {
    let library = try library.open()
    let song = try library.resolve(song)
    let file = try song.openAudio()
    // Keys when stdin is a terminal, a status line when stderr is one.
    let keys = !noKeys && isatty(STDIN_FILENO) == 1
    let status = isatty(STDERR_FILENO) == 1
    let setup = try playback.setup(for: song, info: file.info, library: library, live: keys || status)
    let plan = setup.plan
    let name = device ?? ProcessInfo.processInfo.environment["PRACTICE_DEVICE"] ?? "default"
    // Keys must be heard within 100 ms: a shorter device buffer when they are read.
    let sink = try PCMDevice(
      name: name, sampleRate: file.info.sampleRate, channels: file.info.channels,
      encoding: .lossless(forBitDepth: file.info.bitDepth),
      maxBlockFrames: PlaybackEngine.blockFrames, bufferMilliseconds: keys ? 50 : 100)
    let engine = try PlaybackEngine(file: file, plan: plan, sink: sink, live: keys)
    Terminal.say("playing \(describe(plan, of: song, rate: file.info.sampleRate, label: playback.rangeLabel)) on '\(name)'")
    var log = PlayLog(song: song, plan: plan, selection: setup.selection, bars: playback.bars)
    let report: PlaybackReport
    let ending: LiveSession.Ending
    do {
      if keys || status {
        let session = LiveSession(
          engine: engine, song: song, library: library, beatMap: setup.beatMap, info: file.info,
          label: playback.rangeLabel, keys: keys, status: status)
        (report, ending) = try session.run()
        log.slowest = session.slowest
        log.fastest = session.fastest
        Session.report(report, engine: engine, song: song, file: file)
      } else {
        let rate = Double(file.info.sampleRate)
        // Bar and beat at the range start, for JSON progress; the beat map is read only if
        // the plan did not already need it.
        let map = progress == .json && setup.beatMap == nil ? try library.beatMap(for: song) : setup.beatMap
        let first = map?.beats.first { $0.frame >= plan.range.lowerBound }
        let announcer = PassAnnouncer(
          plan: plan, format: progress,
          label: playback.rangeLabel
            ?? formatTimeRange(plan.range, sampleRate: file.info.sampleRate),
          bar: first?.bar, beat: first?.beat, time: Double(plan.range.lowerBound) / rate)
        report = try Session.run(engine, song: song, file: file, announcer: announcer)
        ending = report.interrupted ? .interrupted : .completed
        log.speedsOfPasses(max(1, engine.passesStarted.load(ordering: .relaxed)))
      }
    } catch {
      log.write(
        to: library, outcome: .failed, passes: engine.passesEnded.load(ordering: .relaxed),
        frames: engine.framesWritten.load(ordering: .relaxed), sampleRate: file.info.sampleRate)
      throw error
    }
    let outcome: PlayOutcome =
      switch ending {
      case .completed: .completed
      case .stopped: .stopped
      case .interrupted: .interrupted
      }
    log.write(
      to: library, outcome: outcome, passes: report.passesCompleted, frames: report.framesWritten,
      sampleRate: file.info.sampleRate)
    if ending == .interrupted { throw ExitCode(ExitStatus.interrupted) }
  }
}

/// The practice-log row a play writes when it ends, however it ends.
struct PlayLog {
  let song: Song
  let plan: PlaybackPlan
  let selection: Selection?
  let bars: String?
  let started = Date()
  var slowest: Speed
  var fastest: Speed

  init(song: Song, plan: PlaybackPlan, selection: Selection?, bars: String?) {
    self.song = song
    self.plan = plan
    self.selection = selection
    if let bars {
      self.bars = bars
    } else if case .bars(let range)? = selection?.span {
      self.bars = "\(range)"
    } else {
      self.bars = nil
    }
    slowest = plan.speed
    fastest = plan.speed
  }

  /// The slowest and fastest of the first `passes` passes (the trainer's steps).
  mutating func speedsOfPasses(_ passes: Int) {
    let speeds = (0..<passes).map { plan.speed(forPass: $0).rate }
    slowest = Speed(clamping: speeds.min() ?? plan.speed.rate)
    fastest = Speed(clamping: speeds.max() ?? plan.speed.rate)
  }

  /// Writes the row; a library that cannot take it costs a warning, not the play.
  func write(to library: Library, outcome: PlayOutcome, passes: Int, frames: Int64, sampleRate: Int) {
    guard let songID = song.id else { return }
    let entry = PracticeEntry(
      songID: songID, selectionID: selection?.id, selectionName: selection?.name, bars: bars,
      range: plan.range, slowest: slowest, fastest: fastest, passes: passes,
      startedAt: started, endedAt: Date(), duration: Double(frames) / Double(sampleRate),
      outcome: outcome)
    do {
      try library.log(entry)
    } catch let failure as any PracticeFailure {
      Terminal.warning("this play was not logged: \(failure.description)")
    } catch {
      Terminal.warning("this play was not logged: \(error)")
    }
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
    try OutputFormat(path: output, bitDepth: 16)?.check(sampleRate: file.info.sampleRate, path: output)
    let plan = try playback.plan(for: song, info: file.info, library: library)
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
    let report = try Session.run(engine, song: song, file: file, progress: progress)
    if report.interrupted { throw ExitCode(ExitStatus.interrupted) }
    let seconds = Double(report.framesWritten) / Double(rate)
    let took = Double(monotonicNanoseconds() &- started) / 1e9
    Terminal.say(
      "rendered \(describe(plan, of: song, rate: rate, label: playback.rangeLabel)) to '\(output)' "
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
  let transpose = plan.transpose == 0 ? "" : ", transpose \(plan.transpose > 0 ? "+" : "")\(plan.transpose)"
  let filter = plan.filter.label.map { ", " + $0 } ?? ""
  let span = label.map { "\($0) (\(times))" } ?? times
  return "'\(song.title)' \(span), \(passes)\(speed)\(transpose)\(volume)\(filter)"
}
