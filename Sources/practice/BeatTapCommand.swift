import ArgumentParser
import CPlatform
import Foundation
import PracticeCore

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

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title.", valueName: "song")) var song: String
  @Option(
    help: ArgumentHelp(
      "Beats per bar from the first downbeat on: 4/4, 3/4, 6/8… (default: from the downbeat taps).",
      valueName: "N/D"))
  var meter: Meter?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Start time: 83.5, 1:23.5 or 1:02:03.5.", valueName: "time"))
  var from: String?
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Speed, pitch kept: 0.75 or 75%, from 25% to 200%.", valueName: "speed"),
    transform: Speed.argument)
  var speed: Speed = .normal
  @Option(
    help: ArgumentHelp(
      "ALSA PCM to play through (default: $PRACTICE_DEVICE, else 'default').", valueName: "pcm"))
  var device: String?
  @Flag(help: "Tap into a beat map that was imported, made with grid, or edited.") var replace =
    false

  func validate() throws {
    if let from, parseTime(from) == nil {
      throw ValidationError(
        "--from '\(from)' is not a time; write seconds (83.5), m:ss (1:23.5) or h:mm:ss (1:02:03.5)"
      )
    }
  }

  func run() throws {
    let library = try library.open()
    let song = try library.resolve(song)
    // Refuse before playing, so no tapping is wasted.
    if !replace, let beats = try library.storedBeats(for: song),
      !(beats.contains { $0.source == .tapped } || beats.areAsDetected)
    {
      throw PracticeError(
        .usage,
        "'\(song.title)' has \(describeKind(of: beats)); add --replace to overwrite it with tapped beats"
      )
    }
    guard isatty(STDIN_FILENO) == 1 else {
      throw PracticeError(
        .usage,
        "beats tap needs a terminal to read taps from, and stdin is not one; run it in a terminal (use `beats import` or `beats grid` from scripts)"
      )
    }
    let file = try song.openAudio()
    let range = try resolveTimeRange(
      from: from.flatMap(parseTime), to: nil, sampleRate: file.info.sampleRate,
      frames: file.info.frames)
    var plan = PlaybackPlan(
      range: range, passes: .count(1), volume: .unity, sampleRate: file.info.sampleRate)
    plan.speed = speed
    let name = device ?? ProcessInfo.processInfo.environment["PRACTICE_DEVICE"] ?? "default"
    // Taps must be heard within 100 ms, as `play`'s keys: the shorter device buffer.
    let sink = try PCMDevice(
      name: name, sampleRate: file.info.sampleRate, channels: file.info.channels,
      encoding: .lossless(forBitDepth: file.info.bitDepth),
      maxBlockFrames: PlaybackEngine.blockFrames, bufferMilliseconds: 50,
      openAdvice: playbackDeviceAdvice)
    let engine = try PlaybackEngine(file: file, plan: plan, sink: sink)
    let speedText = speed == .normal ? "" : " at \(speed)"
    Terminal.say(
      "tapping '\(song.title)' \(formatTimeRange(range, sampleRate: file.info.sampleRate))\(speedText) on '\(name)': "
        + "space beat · d downbeat · Backspace undo · q store · Ctrl-C abandon")
    let session = TapSession(
      engine: engine, info: file.info, meter: meter, status: isatty(STDERR_FILENO) == 1)
    let (report, taps, interrupted) = try session.run()
    Session.report(report, engine: engine, song: song, file: file)
    if interrupted {
      Terminal.say("interrupted: \(taps.count) tap(s) dropped, the beat map was left as it was")
      throw ExitCode(ExitStatus.interrupted)
    }
    let result = try TapSession.assemble(taps, song: song, meter: meter)
    let summaryText = "beats tap" + (from.map { " --from \($0)" } ?? "")
    // A song with a map keeps it outside the span the taps cover.
    if let old = try library.beatMap(for: song) {
      let map = try old.replacingSpan(
        withTapped: result.map, downbeatsTapped: taps.contains { $0.downbeat }, meter: meter)
      let stored = try library.storeBeatMap(
        map, for: song, change: BeatMapChange(.recounted, summaryText))
      for warning in result.warnings { Terminal.warning(warning) }
      Terminal.say(summary(result, song: song))
      let rate = song.sampleRate
      let span =
        result.map.beats[0].frame..<(result.map.beats[result.map.beats.count - 1].frame + 1)
      Terminal.say(
        "'\(song.title)': the taps replace \(formatTimeRange(span, sampleRate: rate)) of the map, the rest is kept: "
          + "\(map.barsDescription) now (was \(old.barsDescription)), \(map.beats.count) beats")
      sayFollowed(stored.followed, song: song, library: library, map: map)
      return
    }
    let before = mapBeforeReplacing(song, in: library)
    try library.replaceBeatMap(
      for: song, with: result.map, change: BeatMapChange(.replaced, summaryText))
    for warning in result.warnings { Terminal.warning(worded(warning: warning)) }
    Terminal.say(summary(result, song: song))
    try warnOfSelections(of: song, in: library, before: before, after: result.map)
  }

  /// `'Song': 32 beats from 30 taps (28 on onsets, 2 filled in), bars 1-8, 4 beats a bar,
  /// 119.8-120.2 BPM, 0:00.5-0:16.0`
  private func summary(_ result: TappedBeats.Result, song: Song) -> String {
    let map = result.map
    let rate = Double(map.sampleRate)
    let lengths = Set(result.barLengths).sorted()
    let bar =
      lengths.count == 1
      ? "\(lengths[0]) beats a bar"
      : "\(lengths.map(String.init).joined(separator: ", ")) beats a bar"
    let low = String(format: "%.1f", result.tempo.lowerBound)
    let high = String(format: "%.1f", result.tempo.upperBound)
    let tempo = low == high ? "\(low) BPM" : "\(low)–\(high) BPM"
    let span =
      "\(formatTime(Double(map.beats[0].frame) / rate))–\(formatTime(Double(map.beats[map.beats.count - 1].frame) / rate))"
    return
      "'\(song.title)': \(map.beats.count) beats from \(result.taps) taps (\(result.snapped) on onsets, "
      + "\(result.filled) filled in), \(map.barsDescription), \(bar), \(tempo), \(span)"
  }
}

/// "an imported beat map", "a beat map made with `beats grid`"…
func describeKind(of beats: [Beat]) -> String {
  switch beats[0].source {
  case .detected: return "an edited detected beat map"
  case .imported: return "an imported beat map"
  case .grid: return "a beat map made with `beats grid`"
  case .tapped: return "a tapped beat map"
  }
}

/// `beats tap` at a terminal: plays, turns key presses into taps at the source frame
/// audible when each came, and shows a status line (taps, tempo, the bar.beat placed).
/// Runs on the main thread; the terminal is restored however it ends.
final class TapSession {
  private let engine: PlaybackEngine
  private let meter: Meter?
  private let status: Bool
  private let sampleRate: Int
  private let totalFrames: Int64
  private var clock: AudibleClock
  private(set) var taps: [Tap] = []
  private var interrupted = false
  private var pending: [UInt8] = []
  private var line = StatusLine()
  /// What the status line says about the taps, worked out again after each tap.
  private var tapText = "tap space on every beat, d on downbeats"

  init(engine: PlaybackEngine, info: SoundFileInfo, meter: Meter?, status: Bool) {
    self.engine = engine
    self.meter = meter
    self.status = status
    sampleRate = info.sampleRate
    totalFrames = info.frames
    clock = AudibleClock(sampleRate: info.sampleRate, totalFrames: info.frames)
  }

  /// Plays until the end, `q`, or Ctrl-C; the taps, and whether it was interrupted.
  func run() throws -> (report: PlaybackReport, taps: [Tap], interrupted: Bool) {
    if practice_terminal_raw(STDIN_FILENO) != 0 {
      throw PracticeError(
        .usage,
        "beats tap needs a terminal: stdin would not switch to raw mode (\(String(cString: strerror(errno))))"
      )
    }
    defer {
      line.clear()
      practice_terminal_restore()
    }
    let report = try Session.withSignals(engine) { signalled in
      engine.start()
      while !engine.waitForEnd(timeout: .milliseconds(0)) {
        readKeys()
        takeEvents()
        if status { draw() }
      }
      if signalled() { interrupted = true }
      return try engine.wait()
    }
    return (report, taps, interrupted)
  }

  private func takeEvents() {
    while let event = engine.events.pop() { clock.append(event) }
  }

  /// Waits up to 20 ms for keys; each is placed at the moment it was read.
  private func readKeys() {
    var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, 20) > 0 else { return }
    let now = monotonicNanoseconds()
    var buffer = [UInt8](repeating: 0, count: 64)
    let n = read(STDIN_FILENO, &buffer, buffer.count)
    guard n > 0 else { return }
    // The reports up to now, so the tap is placed from the freshest one before it.
    takeEvents()
    pending += buffer[0..<n]
    let parsed = KeyParser.parse(pending)
    pending = parsed.rest
    for key in parsed.keys { handle(key, at: now) }
  }

  private func handle(_ key: Key, at nanoseconds: UInt64) {
    switch key {
    case .char(" "): tap(downbeat: false, at: nanoseconds)
    case .char("d"), .char("D"), .enter: tap(downbeat: true, at: nanoseconds)
    case .backspace:
      if !taps.isEmpty { taps.removeLast() }
      update()
    case .char("q"), .escape: engine.stop()
    case .interrupt:
      interrupted = true
      engine.stop()
    default: return
    }
    line.soon()
  }

  private func tap(downbeat: Bool, at nanoseconds: UInt64) {
    guard let (event, frame) = clock.audible(at: nanoseconds), !event.inGap, !event.ended else {
      return
    }
    taps.append(Tap(frame: frame, downbeat: downbeat))
    update()
  }

  /// The status line's account of the taps: `12 taps · 3.4 · 120.2 BPM · last 0:06.013`,
  /// from the map the taps make so far (without snapping).
  private func update() {
    guard let last = taps.last else {
      tapText = "tap space on every beat, d on downbeats"
      return
    }
    let time = "last " + formatMilliseconds(Double(last.frame) / Double(sampleRate))
    let count = taps.count == 1 ? "1 tap" : "\(taps.count) taps"
    guard
      let result = try? TappedBeats.assemble(
        taps: taps, snapper: nil, meter: meter, totalFrames: totalFrames, sampleRate: sampleRate),
      let beat = result.map.beats.last
    else {
      tapText = "\(count) · \(time)"
      return
    }
    let beats = result.map.beats
    let recent = beats.suffix(5).map(\.frame)
    let bpm = TappedBeats.tempoRange(Array(recent), sampleRate: sampleRate)
    let tempo = String(format: "%.1f BPM", (bpm.lowerBound + bpm.upperBound) / 2)
    tapText = "\(count) · \(beat.bar).\(beat.beat) · \(tempo) · \(time)"
  }

  private func draw() {
    let now = monotonicNanoseconds()
    guard line.due(now: now) else { return }
    var clockText = "starting…"
    if let (_, frame) = clock.audible(at: now) {
      clockText =
        "\(formatClock(Double(frame) / Double(sampleRate)))/\(formatClock(Double(totalFrames) / Double(sampleRate)))"
    }
    line.show("\(tapText) · \(clockText) · q stores")
  }

  /// The beat map the taps make, snapped to the song's onsets.
  static func assemble(_ taps: [Tap], song: Song, meter: Meter?) throws -> TappedBeats.Result {
    var snapper: OnsetSnapper?
    if let first = taps.map(\.frame).min(), let last = taps.map(\.frame).max() {
      let margin = Int64(2 * song.sampleRate)
      snapper = try OnsetSnapper.reading(
        try song.openAudio(), span: (first - margin)..<(last + margin))
    }
    if ProcessInfo.processInfo.environment["PRACTICE_TRACE"] != nil, let snapper {
      // Each tap's time as heard and the onset it snaps to, for checking the latency.
      let rate = Double(song.sampleRate)
      for tap in taps {
        let onset = snapper.snap(tap.frame).map { String(format: "%.4f", Double($0) / rate) } ?? "-"
        Terminal.say("trace tap \(String(format: "%.4f", Double(tap.frame) / rate)) onset \(onset)")
      }
    }
    return try TappedBeats.assemble(
      taps: taps, snapper: snapper, meter: meter, totalFrames: song.frames,
      sampleRate: song.sampleRate)
  }
}

/// m:ss.mmm (a tap's time on the status line).
func formatMilliseconds(_ seconds: Double) -> String {
  let millis = Int((max(0, seconds) * 1000).rounded())
  return String(format: "%d:%02d.%03d", millis / 60_000, millis / 1000 % 60, millis % 1000)
}
