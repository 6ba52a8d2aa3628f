import CPlatform
import Dispatch
import Foundation
import PracticeCore

/// `play` at a terminal: a status line on stderr (when stderr is a terminal) and single
/// keys from stdin (when stdin is a terminal) that steer the engine while it plays.
///
/// Runs on the main thread: polls stdin, takes the engine's position events, redraws at
/// most ten times a second. Every change goes to the engine as a command or a jump; the
/// session keeps what it asked for (speed, pitch, volume, loop) as the truth to show.
final class LiveSession {
  enum Ending { case completed, stopped, interrupted }

  private let engine: PlaybackEngine
  private let song: Song
  private let library: Library
  private let beatMap: BeatMap?
  private let sampleRate: Int
  private let totalFrames: Int64
  private let keys: Bool
  private let status: Bool
  private let passesTotal: Int?

  /// The plan last sent (or the first), and how its range is shown.
  private var plan: PlaybackPlan
  private var rangeLabel: String
  private(set) var speed: Speed
  private(set) var transpose: Double
  private(set) var volume: Volume
  private var muted = false
  private var clickOn: Bool
  /// The filters asked for (`F`, `C`, `L`/`R`/`M`), and whether the song is stereo.
  private var filter: PartFilter
  private let stereo: Bool
  /// The centre cut `C` switches on: the one given with `--centre-cut`, else 100 %.
  private let centreCutAmount: Double
  /// Bars looped by `l`, so a second `l` extends the loop.
  private var barLoop: ClosedRange<Int>?
  /// Naming a selection (`s`): what has been typed.
  private var prompt: String?
  /// A short message shown in place of the status line for a while.
  private var notice: (text: String, until: UInt64)?
  private var ending = Ending.completed
  /// The last seek's target and when it was asked for.
  private var lastSeek: (frame: Int64, at: UInt64)?
  /// Whether a key changed the loop (`a`, `b`, `l`, a selection's number).
  private(set) var loopChanged = false

  /// Position events: what is audible, each pass's speed and mark (`g`, `x`).
  private(set) var tracker: PlayTracker
  private var clock: AudibleClock { tracker.clock }
  private var line = StatusLine()
  /// With PRACTICE_TRACE set: when each key arrived (CLOCK_MONOTONIC ns), for bench/.
  private let tracing = ProcessInfo.processInfo.environment["PRACTICE_TRACE"] != nil
  private var keyTimes: [(key: Key, nanoseconds: UInt64)] = []
  private var keyReader = KeyReader()
  /// The player screen, when the terminal has room for it (else the status line alone).
  private let screen: PlayerScreen?
  /// The end of the loop the arrows move (`e`), nil when not editing.
  private var editing: LoopEdge?
  /// The status line's text for the screen, renewed when `line` says a redraw is due.
  private var screenStatus = ""
  /// Shown before the status line (`2/7 'Autumn Leaves' — solo` in a setlist).
  var heading: String?
  /// Keys a caller adds (`n`/`p` in a setlist): called first; true ends the play as stopped.
  var extraKey: ((Key) -> Bool)?
  /// The log rows the play owes: told each part the keys switch to.
  var ledger: PlayLedger?

  init(
    engine: PlaybackEngine, song: Song, library: Library, beatMap: BeatMap?, info: SoundFileInfo,
    label: String?, keys: Bool, status: Bool, screen: PlayerScreen? = nil
  ) {
    self.screen = screen
    self.engine = engine
    self.song = song
    self.library = library
    self.beatMap = beatMap
    sampleRate = info.sampleRate
    totalFrames = info.frames
    tracker = PlayTracker(sampleRate: info.sampleRate, totalFrames: info.frames)
    self.keys = keys
    self.status = status
    plan = engine.plan
    rangeLabel = label ?? formatTimeRange(engine.plan.range, sampleRate: info.sampleRate)
    speed = engine.plan.speed
    transpose = engine.plan.transpose
    volume = engine.plan.volume
    clickOn = engine.plan.clicks?.enabled ?? false
    filter = engine.plan.filter
    stereo = info.channels >= 2
    centreCutAmount = engine.plan.filter.centreCut > 0 ? engine.plan.filter.centreCut : 1
    if case .count(let n) = engine.plan.passes { passesTotal = n } else { passesTotal = nil }
  }

  /// Plays to the end, `q`, Ctrl-C or SIGTERM; the terminal is restored however it ends.
  func run() throws -> (report: PlaybackReport, ending: Ending) {
    if keys && practice_terminal_raw(STDIN_FILENO) != 0 {
      throw PracticeError(.other, "cannot read keys: stdin would not switch to raw mode (\(String(cString: strerror(errno))))")
    }
    screen?.enter()
    defer {
      screen?.leave()
      if status && screen == nil { line.clear() }
      if keys { practice_terminal_restore() }
    }
    // The screen's cursor moves up to 30 times a second; the status line alone, 10.
    let tick: Int32 = screen == nil ? 50 : 33
    let report = try Session.withSignals(engine) { signalled in
      engine.start()
      while !engine.waitForEnd(timeout: .milliseconds(0)) {
        if keys { readKeys(waitingMilliseconds: tick) } else { usleep(UInt32(tick) * 1000) }
        takeEvents()
        if status { draw() }
      }
      if signalled() { ending = .interrupted }
      return try engine.wait()
    }
    takeEvents()
    for (key, nanoseconds) in keyTimes { Terminal.say("trace key \(key.name) ns \(nanoseconds)") }
    if report.interrupted && ending == .completed { ending = .interrupted }
    return (report, ending)
  }

  // MARK: Position

  private func takeEvents() {
    while let event = engine.events.pop() { tracker.take(event) }
  }

  /// The loop playing now and its name, for the resume point.
  var loopRange: Range<Int64> { plan.range }
  var loopLabel: String { rangeLabel }

  /// The event covering what is audible now, and the source frame audible.
  private func audible() -> (event: PlaybackEvent, frame: Int64)? { clock.audible() }

  // MARK: Keys

  private func readKeys(waitingMilliseconds: Int32) {
    let keys = keyReader.read(waitingMilliseconds: waitingMilliseconds)
    guard !keys.isEmpty else { return }
    let arrived = monotonicNanoseconds()
    for key in keys {
      if tracing { keyTimes.append((key, arrived)) }
      handle(key)
    }
  }

  private func handle(_ key: Key) {
    if prompt != nil {
      handlePrompt(key)
      return
    }
    if let extraKey, extraKey(key) {
      ending = .stopped
      engine.stop()
      return
    }
    screen?.hideHelp()
    switch key {
    case .char(" "): togglePause()
    case .char("e"): toggleEditing()
    case .tab where editing != nil: editing = editing?.other
    case .left where editing != nil: editLoop(by: -1, unit: .beat)
    case .right where editing != nil: editLoop(by: 1, unit: .beat)
    case .shiftLeft where editing != nil: editLoop(by: -1, unit: .bar)
    case .shiftRight where editing != nil: editLoop(by: 1, unit: .bar)
    case .char("z") where screen != nil: zoom(in: true)
    case .char("Z") where screen != nil: zoom(in: false)
    case .left: moveBeats(-1)
    case .right: moveBeats(1)
    case .shiftLeft, .char(","): moveBars(-1)
    case .shiftRight, .char("."): moveBars(1)
    case .char("["): changeSpeed(by: -0.05)
    case .char("]"): changeSpeed(by: 0.05)
    case .char("{"): changeSpeed(by: -0.01)
    case .char("}"): changeSpeed(by: 0.01)
    case .char("-"), .char("_"): changeVolume(by: -0.1)
    case .char("+"), .char("="): changeVolume(by: 0.1)
    case .char("m"): toggleMute()
    case .char("<"): changeTranspose(by: -1)
    case .char(">"): changeTranspose(by: 1)
    case .char("c"): toggleClick()
    case .char("F"): cycleFocus()
    case .char("C"): toggleCentreCut()
    case .char("L"): chooseChannel(.left)
    case .char("R"): chooseChannel(.right)
    case .char("M"): chooseChannel(.mono)
    case .char("a"): setLoopStart()
    case .char("b"): setLoopEnd()
    case .char("l"): loopBar()
    case .char("s"):
      prompt = ""
    case .char("r"): restart()
    case .char("g"): markPass(.clean)
    case .char("x"): markPass(.flubbed)
    case .char(let c) where c.isASCII && c.isNumber:
      let digit = c.wholeNumberValue ?? 1
      jumpToSelection(digit == 0 ? 10 : digit)
    case .char("q"), .escape:
      ending = .stopped
      engine.stop()
    case .interrupt:
      ending = .interrupted
      engine.stop()
    case .char("?"): showKeys()
    default:
      break
    }
    line.soon()
  }

  /// Marks the pass heard now (or the one just ended) clean or flubbed, for `stats`.
  private func markPass(_ mark: PassMark) {
    guard let pass = tracker.mark(mark, range: plan.range, earliest: ledger?.currentFirstPass ?? 1)
    else {
      return say("no pass to mark yet")
    }
    say("pass \(pass): \(mark.rawValue)")
  }

  private func say(_ text: String) {
    notice = (text, monotonicNanoseconds() + 2_000_000_000)
  }

  private func togglePause() {
    if clock.last?.paused == true { engine.send(.resume) } else { engine.send(.pause) }
  }

  private func changeSpeed(by step: Double) {
    let next = Speed(clamping: speed.rate + step)
    guard next != speed else { return say("speed is at its limit, \(speed)") }
    speed = next
    engine.send(.setSpeed(next))
    engine.calibrate(speed: next, semitones: transpose)
  }

  private func changeTranspose(by semitones: Double) {
    let next = min(max(transpose + semitones, PlaybackPlan.transposeRange.lowerBound), PlaybackPlan.transposeRange.upperBound)
    guard next != transpose else { return say("transpose is at its limit") }
    transpose = next
    engine.send(.setTranspose(next))
    engine.calibrate(speed: speed, semitones: next)
  }

  private func changeVolume(by step: Double) {
    volume = Volume(clamping: volume.gain + step)
    muted = false
    engine.setVolume(volume)
  }

  private func toggleMute() {
    muted.toggle()
    engine.setVolume(muted ? Volume(clamping: 0) : volume)
  }

  private func toggleClick() {
    guard beatMap != nil, plan.clicks != nil else {
      return say("no beat map: no clicks (make one with `practice beats grid` or `beats import`)")
    }
    clickOn.toggle()
    engine.send(.setClick(clickOn))
  }

  /// The next focus preset, after the last one none.
  private func cycleFocus() {
    let all = PartFilter.Focus.allCases
    if let focus = filter.focus, let index = all.firstIndex(of: focus) {
      filter.focus = index + 1 < all.count ? all[index + 1] : nil
    } else {
      filter.focus = all.first
    }
    engine.setFilter(filter)
  }

  private func toggleCentreCut() {
    guard stereo else { return say("a mono recording has no centre to cut") }
    filter.centreCut = filter.centreCut > 0 ? 0 : centreCutAmount
    engine.setFilter(filter)
  }

  /// Plays `channel` (on both sides); the same key again: both channels as recorded.
  private func chooseChannel(_ channel: PartFilter.Channel) {
    guard stereo else { return say("a mono recording has one channel") }
    filter.channel = filter.channel == channel ? .both : channel
    engine.setFilter(filter)
  }

  /// The plan to jump with: the current one moved to `range` from `offset`, with the
  /// trainer's count carried on.
  private func jumpPlan(range: Range<Int64>, offset: Int64, passes: Passes) -> PlaybackPlan {
    var next = plan
    if next.range != range, let map = beatMap {
      // Clicks and a gap in bars follow the new range.
      var gapBars = 0
      if case .bars(let count, _) = plan.gap {
        gapBars = count
        next.gap = .bars(count: count, barFrames: ClickPlan.barFrames(beatMap: map, range: range))
      }
      next.clicks = ClickPlan(
        beatMap: map, range: range, speed: speed, countInBars: 0, click: clickOn, gapBars: gapBars,
        volume: plan.clicks?.volume ?? .unity)
    }
    next.clicks?.countIn = []
    next.clicks?.countInFrames = 0
    next.clicks?.enabled = clickOn
    next.range = range
    next.startOffset = offset
    next.passes = passes
    let pass = clock.last?.pass ?? 1
    next.firstPass = max(0, pass - 1)
    return next
  }

  /// Passes left when the loop goes on (a counted plan keeps its count).
  private var remainingPasses: Passes {
    guard let total = passesTotal else { return .endless }
    return .count(max(1, total - (clock.last?.passesCompleted ?? 0)))
  }

  /// The source frame a relative move starts from: what is audible, or the target of a
  /// seek made so recently that it cannot be heard yet (so `.` `.` moves two bars).
  private func moveOrigin() -> Int64? {
    if let (frame, at) = lastSeek, monotonicNanoseconds() &- at < 250_000_000 { return frame }
    return audible()?.frame
  }

  private func seek(to frame: Int64) {
    let range = plan.range
    let target = range.contains(frame) ? frame : range.lowerBound
    lastSeek = (target, monotonicNanoseconds())
    let next = jumpPlan(range: range, offset: target - range.lowerBound, passes: remainingPasses)
    plan = next
    engine.jump(to: next, kind: .seek)
  }

  private func moveBeats(_ count: Int) {
    guard let frame = moveOrigin() else { return }
    seek(to: beatMap?.frame(steppingBeats: count, from: frame) ?? frame + Int64(count * sampleRate))
  }

  private func moveBars(_ count: Int) {
    guard let frame = moveOrigin() else { return }
    seek(to: beatMap?.frame(steppingBars: count, from: frame) ?? frame + Int64(count * 5 * sampleRate))
  }

  private func restart() { seek(to: plan.range.lowerBound) }

  /// The log's part is now `part`: the pass playing goes on there, and is credited there.
  private func switchPart(_ part: PlayedPart) {
    ledger?.switchTo(
      part, pass: max(1, clock.last?.pass ?? 1),
      written: engine.framesWritten.load(ordering: .relaxed), transpose: transpose)
  }

  /// Loops `range` from here on (playing on if we are inside it); `bars` names it in the
  /// log when it is whole bars.
  private func loop(_ range: Range<Int64>, label: String, bars: String? = nil) {
    guard range.count > 0 else { return }
    switchPart(PlayedPart(range: range, bars: bars))
    loopChanged = true
    let next = jumpPlan(range: range, offset: 0, passes: .endless)
    plan = next
    rangeLabel = label
    engine.jump(to: next, kind: .playOn)
  }

  /// The beat sounding now, as frames and `bar.beat`; without a beat map, a tenth of a
  /// second.
  private func currentBeat() -> (frames: Range<Int64>, label: String)? {
    guard let (_, frame) = audible() else { return nil }
    if let map = beatMap, let index = map.beatIndex(at: frame) {
      let beat = map.beats[index]
      return (map.frames(ofBeat: index), "\(beat.bar).\(beat.beat)")
    }
    let tenth = Int64(sampleRate / 10)
    let start = frame / tenth * tenth
    return (start..<min(totalFrames, start + tenth), formatTime(Double(start) / Double(sampleRate)))
  }

  private func setLoopStart() {
    guard let (beat, label) = currentBeat() else { return }
    let end = plan.range.upperBound > beat.lowerBound ? plan.range.upperBound : totalFrames
    barLoop = nil
    loop(beat.lowerBound..<end, label: "from \(label)")
  }

  private func setLoopEnd() {
    guard let (beat, label) = currentBeat() else { return }
    guard beat.upperBound > plan.range.lowerBound else { return say("the loop end must come after its start") }
    barLoop = nil
    loop(plan.range.lowerBound..<beat.upperBound, label: "to \(label)")
  }

  private func loopBar() {
    guard let map = beatMap else { return say("no beat map: `l` needs bars") }
    guard let (_, frame) = audible(), let index = map.beatIndex(at: frame) else { return }
    var bars = map.beats[index].bar...map.beats[index].bar
    if let current = barLoop, let end = map.frames(ofBar: current.upperBound), end.upperBound == plan.range.upperBound {
      bars = current.lowerBound...min(map.lastBar, current.upperBound + 1)
    }
    guard let first = map.frames(ofBar: bars.lowerBound), let last = map.frames(ofBar: bars.upperBound) else { return }
    barLoop = bars
    let named = BarRange(start: BarPosition(bar: bars.lowerBound), end: BarPosition(bar: bars.upperBound))
    loop(first.lowerBound..<last.upperBound, label: named.label, bars: "\(named)")
  }

  private func jumpToSelection(_ number: Int) {
    do {
      let selections = try library.selections(of: song)
      guard number <= selections.count else {
        return say(selections.isEmpty ? "'\(song.title)' has no selections" : "there are only \(selections.count) selection(s)")
      }
      let selection = selections[number - 1]
      let range = try selection.span.frames(beatMap: beatMap)
      let next = jumpPlan(range: range, offset: 0, passes: .endless)
      var bars: String?
      if case .bars(let range) = selection.span { bars = "\(range)" }
      switchPart(PlayedPart(range: range, selection: selection, bars: bars))
      plan = next
      loopChanged = true
      rangeLabel = "'\(selection.name)'"
      barLoop = nil
      engine.jump(to: next, kind: .seek)
    } catch let failure as any PracticeFailure {
      say(failure.description)
    } catch {
      say("\(error)")
    }
  }

  private func handlePrompt(_ key: Key) {
    switch key {
    case .escape, .interrupt:
      prompt = nil
    case .enter:
      let name = (prompt ?? "").trimmingCharacters(in: .whitespaces)
      prompt = nil
      if !name.isEmpty { save(name) }
    case .backspace:
      prompt = String((prompt ?? "").dropLast())
    case .char(let c):
      prompt = (prompt ?? "") + String(c)
    default:
      break
    }
    line.soon()
  }

  /// Saves the loop as a selection: in bars when it starts and ends on bar lines.
  private func save(_ name: String) {
    var span = SelectionSpan.frames(plan.range)
    if let map = beatMap,
      let first = map.bars.first(where: { map.frames(ofBar: $0.number)?.lowerBound == plan.range.lowerBound }),
      let last = map.bars.first(where: { map.frames(ofBar: $0.number)?.upperBound == plan.range.upperBound }),
      last.number >= first.number
    {
      span = .bars(BarRange(start: BarPosition(bar: first.number), end: BarPosition(bar: last.number)))
    }
    do {
      let saved = try library.addSelection(to: song, name: name, span: span, note: nil, replace: false)
      ledger?.name(saved)
      screen?.setSelections(PlayerScreen.spans(of: song, library: library, beatMap: beatMap))
      rangeLabel = "'\(name)'"
      say("saved '\(name)' (\(span))")
    } catch let failure as any PracticeFailure {
      say(failure.description)
    } catch {
      say("\(error)")
    }
  }

  private func showKeys() {
    let text = """
      keys: space pause · ←/→ beat · ,/. or shift-←/→ bar · [/] speed ∓5
            {/} speed ∓1 · -/+ volume · m mute · </> transpose · c click
            a/b loop start/end · l loop bar · s save loop · 1-9,0 selection
            F focus bass/guitar/vocal/drums/treble/off · C centre cut
            L/R/M left/right/mono (again: both) · r restart · ? keys
            g/x pass clean/flubbed · q/Esc stop
            e edit the loop: ←/→ start by a beat, shift-←/→ by a bar, tab end, e done
      """
    if let screen {
      screen.showHelp(text.split(separator: "\n").map(String.init) + ["", "z/Z zoom in/out"])
      return
    }
    line.clear()
    Terminal.say(text)
  }

  // MARK: Status line

  private func draw() {
    let now = monotonicNanoseconds()
    if let screen { return drawScreen(screen, now: now) }
    guard line.due(now: now) else { return }
    if let prompt {
      line.show("save loop as: \(prompt)▏ (Enter saves, Esc cancels)")
    } else if let notice, notice.until > now {
      line.show(notice.text)
    } else {
      line.show(headedStatus(width: line.width))
    }
  }

  /// The status text after the heading, if there is one (`2/7 'Autumn Leaves' — solo · …`).
  private func headedStatus(width: Int) -> String {
    let heading = heading.map { $0 + " · " } ?? ""
    return heading + statusText(width: max(20, width - DisplayWidth.of(heading)))
  }

  /// The filters in a few characters for the narrow status line: `bass cut L`.
  private var shortFilterLabel: String? {
    let parts = [
      filter.focus?.rawValue, filter.centreCut > 0 ? "cut" : nil,
      filter.channel == .both ? nil : String(filter.channel.rawValue.prefix(1)).uppercased(),
    ].compactMap { $0 }
    return parts.isEmpty ? nil : parts.joined(separator: " ")
  }

  /// `bar 12.3/32 · pass 2/∞ · bars 9-16 · 75% · +0 st · vol 80% · click · focus bass · 0:41/3:12`,
  /// or a shorter form for a narrow terminal.
  func statusText(width: Int) -> String {
    guard let (event, frame) = audible() else { return "starting…" }
    var position: String?
    if let map = beatMap {
      if let index = map.beatIndex(at: frame) {
        position = "bar \(map.beats[index].bar).\(map.beats[index].beat)/\(map.lastBar)"
      } else {
        position = "bar -/\(map.lastBar)"
      }
    }
    let pass = event.pass == 0 ? "count-in" : "pass \(event.pass)/\(passesTotal.map(String.init) ?? "∞")"
    let time = "\(formatClock(Double(frame) / Double(sampleRate)))/\(formatClock(Double(totalFrames) / Double(sampleRate)))"
    let pitch = transpose == 0 ? "+0 st" : String(format: "%+g st", transpose)
    let sound = muted ? "muted" : "vol \(volume)"
    let state = clock.last?.paused == true ? "paused" : nil
    let full = [state, position, pass, rangeLabel, "\(speed)", pitch, sound, clickOn ? "click" : nil, filter.label, time]
      .compactMap { $0 }.joined(separator: " · ")
    if full.count < width { return full }
    let short = [
      state, position.map { String($0.dropFirst(4)) }, pass, "\(speed)", transpose == 0 ? nil : pitch,
      shortFilterLabel, time,
    ]
      .compactMap { $0 }.joined(separator: " ")
    return short
  }

  // MARK: Player screen and loop editing

  /// The screen's frame: the cursor at what is audible (the status line's clock), the loop
  /// as edited, and the status line's text (renewed ten times a second, as alone).
  private func drawScreen(_ screen: PlayerScreen, now: UInt64) {
    if line.due(now: now) {
      if let prompt {
        screenStatus = "save loop as: \(prompt)▏ (Enter saves, Esc cancels)"
      } else if let notice, notice.until > now {
        screenStatus = notice.text
      } else {
        screenStatus = headedStatus(width: Int(practice_terminal_columns(STDERR_FILENO)))
      }
    }
    screen.draw(
      cursor: audible()?.frame,
      loop: StripLoop(frames: plan.range, label: rangeLabel, editing: editing), status: screenStatus,
      now: now)
  }

  private func zoom(in inward: Bool) {
    guard let screen else { return }
    let changed = inward ? screen.zoomIn() : screen.zoomOut()
    if !changed { say(inward ? "zoomed in as far as it goes: \(screen.zoomSpan)" : "the whole song is in view") }
  }

  /// `e`: the arrows move the loop's start (`tab`: its end) until `e` again.
  private func toggleEditing() {
    editing = editing == nil ? .start : nil
    if screen == nil {
      say(editing == nil ? "loop editing done" : "editing the loop's start: ←/→ beat, shift bar, tab end, e done")
    }
  }

  /// Moves the edited end of the loop; the engine loops the new range at once.
  private func editLoop(by count: Int, unit: LoopEdit.Unit) {
    guard let edge = editing else { return }
    let edit = LoopEdit(beatMap: beatMap, sampleRate: sampleRate, totalFrames: totalFrames)
    guard let range = edit.moved(plan.range, edge: edge, by: count, unit: unit) else {
      return say("the loop's start must stay before its end")
    }
    guard range != plan.range else { return }
    barLoop = nil
    loop(range, label: editedLabel(range))
  }

  /// `bars 9-16` when the loop is whole bars, `9.3-12.2` when it is on beats, else times.
  private func editedLabel(_ range: Range<Int64>) -> String {
    guard let map = beatMap, let first = map.beatIndex(at: range.lowerBound),
      map.beats[first].frame == range.lowerBound, let last = map.beatIndex(at: range.upperBound - 1),
      map.frames(ofBeat: last).upperBound == range.upperBound
    else { return formatTimeRange(range, sampleRate: sampleRate) }
    let (a, b) = (map.beats[first], map.beats[last])
    let wholeBars =
      map.bars.contains { $0.beatIndices.lowerBound == first }
      && map.bars.contains { $0.beatIndices.upperBound - 1 == last }
    if wholeBars { return BarRange(start: BarPosition(bar: a.bar), end: BarPosition(bar: b.bar)).label }
    return "\(a.bar).\(a.beat)-\(b.bar).\(b.beat)"
  }
}

/// m:ss, or h:mm:ss, whole seconds (the status line's clock).
func formatClock(_ seconds: Double) -> String {
  let whole = Int(max(0, seconds))
  let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
  return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
}
