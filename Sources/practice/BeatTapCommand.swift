import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

struct BeatsTap: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tap",
    abstract:
      "Play a song and tap along to make its beat map: space on every beat, d or Enter on downbeats.",
    discussion: """
      Backspace takes the last tap back; q (or Esc, or the end of the song) stores the map; \
      Ctrl-C stores nothing (exit 130). Taps are placed where the audio was heard (device \
      delay and --speed accounted for), moved onto the clear onset within 40 ms if there is \
      one, smoothed, and gaps of whole beats are filled in. Without --meter, beats per bar \
      follow the spacing of the downbeat taps. The taps replace the span from the first to \
      the last tap; the rest of a map the song has is kept, its bars counted on through the \
      span (from the tapped downbeats, if any were tapped), and selections keep their music. \
      A map that was imported, made with grid or edited after detection is tapped into only \
      with --replace; a map with tapped beats, or one as `beats detect` left it, needs none. \
      `beats undo` takes the taps back. Needs a terminal.
      """)

  @OptionGroup var target: SongInLibrary
  @Option(
    help: ArgumentHelp(
      "Beats per bar from the first downbeat on: 4/4, 3/4, 6/8… (default: from the downbeat taps).",
      valueName: "N/D"))
  var meter: Meter?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Start time: 83.5, 1:23.5 or 1:02:03.5.", valueName: "time"),
    transform: Parse.time)
  var from: TypedTime?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Speed, pitch kept: 0.75 or 75%, from 25% to 200%.", valueName: "speed"),
    transform: Speed.argument)
  var speed: Speed = .normal
  @OptionGroup var device: PlaybackDeviceOption
  @Flag(help: "Tap into a beat map that was imported, made with grid, or edited.") var replace =
    false

  func run() throws {
    let (library, song) = try target.resolve()
    // Refuse before playing, so no tapping is wasted.
    do {
      try library.checkBeatTapping(of: song, replace: replace)
    } catch let refusal as DetectionRefusal {
      throw PracticeError(.usage, worded(refusal, replacingWith: "tapped beats"))
    }
    guard isatty(STDIN_FILENO) == 1 else {
      throw PracticeError(
        .usage,
        "beats tap needs a terminal to read taps from, and stdin is not one; run it in a terminal (use `beats import` or `beats grid` from scripts)"
      )
    }
    let name = device.name
    let play = try TapPlay(
      song: song, from: from?.seconds, speed: speed, meter: meter, device: name,
      deviceAdvice: playbackDeviceAdvice)
    let speedText = speed == .normal ? "" : " at \(speed)"
    Terminal.say(
      "tapping '\(song.title)' \(formatTimeRange(play.range, sampleRate: play.sampleRate))\(speedText) on '\(name)': "
        + "space beat · d downbeat · Backspace undo · q store · Ctrl-C abandon")
    let session = TapSession(play: play, status: isatty(STDERR_FILENO) == 1)
    let (report, interrupted) = try session.run()
    let taps = play.taps
    Session.report(report, engine: play.engine, song: song, file: play.file)
    if interrupted {
      Terminal.say(
        "interrupted: \(counted(taps.count, "tap")) dropped, the beat map was left as it was")
      throw ExitCode(ExitStatus.interrupted)
    }
    let (result, snaps) = try play.assemble()
    if ProcessInfo.processInfo.environment["PRACTICE_TRACE"] != nil {
      // Each tap's time as heard and the onset it snaps to, for checking the latency.
      for snap in snaps {
        Terminal.say(
          "trace tap \(String(format: "%.4f", snap.tap)) onset \(snap.onset.map { String(format: "%.4f", $0) } ?? "-")")
      }
    }
    let (map, old, stored) = try library.storeTapped(
      result, downbeatsTapped: taps.contains { $0.downbeat }, meter: meter, for: song,
      summary: "beats tap" + (from.map { " --from \($0)" } ?? ""))
    for warning in result.warnings { Terminal.warning(worded(warning: warning)) }
    Terminal.say(result.summary(title: song.title))
    // A song with a map keeps it outside the span the taps cover.
    if let old {
      let span =
        result.map.beats[0].frame..<(result.map.beats[result.map.beats.count - 1].frame + 1)
      Terminal.say(
        "'\(song.title)': the taps replace \(formatTimeRange(span, sampleRate: song.sampleRate)) of the map, the rest is kept: "
          + "\(map.barsDescription) now (was \(old.barsDescription)), \(map.beats.count) beats")
    }
    sayFollowed(stored.followed, upset: stored.selectionsUpset, song: song, map: map)
  }
}
