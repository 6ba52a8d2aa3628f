import ArgumentParser
import Foundation
import PracticeCore

struct Play: ParsableCommand {
  static let configuration = CommandConfiguration(
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

  func run() throws {
    let library = try library.open()
    let song = try library.resolve(song)
    let file = try song.openAudio()
    let (plan, loadedMap) = try playback.planAndBeatMap(for: song, info: file.info, library: library)
    let name = device ?? ProcessInfo.processInfo.environment["PRACTICE_DEVICE"] ?? "default"
    let sink = try PCMDevice(
      name: name, sampleRate: file.info.sampleRate, channels: file.info.channels,
      encoding: .lossless(forBitDepth: file.info.bitDepth),
      maxBlockFrames: PlaybackEngine.blockFrames)
    let engine = try PlaybackEngine(file: file, plan: plan, sink: sink)
    Terminal.say("playing \(describe(plan, of: song, rate: file.info.sampleRate, label: playback.rangeLabel)) on '\(name)'")
    let rate = Double(file.info.sampleRate)
    // Bar and beat at the range start, for JSON progress; the beat map is read only if
    // the plan did not already need it.
    let map = progress == .json && loadedMap == nil ? try library.beatMap(for: song) : loadedMap
    let first = map?.beats.first { $0.frame >= plan.range.lowerBound }
    let announcer = PassAnnouncer(
      plan: plan, format: progress,
      label: playback.rangeLabel
        ?? formatTimeRange(plan.range, sampleRate: file.info.sampleRate),
      bar: first?.bar, beat: first?.beat, time: Double(plan.range.lowerBound) / rate)
    let report = try Session.run(engine, song: song, file: file, announcer: announcer)
    if report.interrupted { throw ExitCode(ExitStatus.interrupted) }
  }
}

struct Render: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Render what `play` would play into a file, as fast as possible.",
    discussion: """
      The format follows the extension of OUT: .wav, .flac, .aiff (the source's bit depth, \
      16 or 24), .ogg (Vorbis), .opus or .mp3; same rate and channels as the source.
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
    let library = try library.open()
    let song = try library.resolve(song)
    let file = try song.openAudio()
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
    let report = try Session.run(engine, song: song, file: file)
    if report.interrupted { throw ExitCode(ExitStatus.interrupted) }
    let seconds = Double(report.framesWritten) / Double(file.info.sampleRate)
    Terminal.say(
      "rendered \(describe(plan, of: song, rate: file.info.sampleRate, label: playback.rangeLabel)) to '\(output)' "
        + "(\(report.framesWritten) frames, \(formatTime(seconds)))")
  }
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
  let span = label.map { "\($0) (\(times))" } ?? times
  return "'\(song.title)' \(span), \(passes)\(speed)\(transpose)\(volume)"
}
