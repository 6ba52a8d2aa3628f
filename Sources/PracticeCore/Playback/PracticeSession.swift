import Foundation

/// A running practice session: one play of a song, with the engine and its sink, the pass
/// tracker, the log rows it owes and where it will be remembered to have stopped.
///
/// It takes commands (jump, loop, select, speed, mark, stop and the rest) from whoever
/// steers it: the keys of `play`, a setlist, later a control socket or a pedal; each
/// answers with a `Reply` for the face to word. What it was asked for (speed, pitch,
/// volume, loop) is the truth to show. Controller thread only.
public final class PracticeSession {
  /// What a command did, or why it did nothing: for the face to tell the player.
  public enum Reply: Sendable, Equatable {
    case done
    case speedAtLimit(Speed)
    case transposeAtLimit
    /// Clicks or bars need a beat map the song lacks.
    case noBeatMap
    case monoHasNoCentre
    case monoHasOneChannel
    case loopEndBeforeStart
    case loopStartAfterEnd
    case noSelections
    case onlySelections(Int)
    case noPassToMark
    case marked(pass: Int, PassMark)
    case saved(name: String, span: SelectionSpan)
    /// The library refused (a name taken, a selection that no longer fits): its words.
    case refused(String)
    /// The beat map was fixed (`fixMap`): how, the bars it now has, selections renamed.
    case mapFixed(MapFixDone, bars: String, renamed: Int)
    /// The fix asked for changes nothing (that beat starts a bar already).
    case mapUnchanged
    /// The change named `change` was taken back; the bars the map has again (nil: no map).
    case mapUndone(change: String, bars: String?)
  }

  /// What a fix of the beat map did, for the face to word.
  public enum MapFixDone: Sendable, Equatable {
    case downbeat(bar: Int)
    case shifted(frames: Int64)
    case doubled
    case halved
  }

  public let song: Song
  public let library: Library
  public let engine: PlaybackEngine
  public let setup: PlaySetup
  public let sampleRate: Int
  public let totalFrames: Int64
  /// The song's beat map; a fix (`fixMap`, `undoMapChange`) stores and takes a new one.
  public private(set) var beatMap: BeatMap?
  /// Passes the plan asked for; nil for a loop.
  public let passesTotal: Int?
  public let stereo: Bool

  /// The plan last sent (or the first), and how its range is shown.
  public private(set) var plan: PlaybackPlan
  public private(set) var label: String
  public private(set) var speed: Speed
  public private(set) var transpose: Double
  public private(set) var volume: Volume
  public private(set) var muted = false
  public private(set) var clickOn: Bool
  /// The filters asked for (focus, centre cut, channel).
  public private(set) var filter: PartFilter
  /// Whether a command changed the loop (a selection, a loop set or edited).
  public private(set) var loopChanged = false
  /// Position reports: what is audible, each pass's speed and mark.
  public private(set) var tracker: PlayTracker
  /// The log rows the play owes, one per part played.
  public private(set) var ledger: PlayLedger?
  public let started = Date()

  /// The centre cut switched on: the one asked for at the start, else 100 %.
  private let centreCutAmount: Double
  /// Bars looped by `loopBar`, so that a second one extends the loop.
  private var barLoop: ClosedRange<Int>?
  /// The last seek's target and when it was asked for.
  private var lastSeek: (frame: Int64, at: UInt64)?

  public init(song: Song, library: Library, setup: PlaySetup, engine: PlaybackEngine, info: SoundFileInfo) {
    self.song = song
    self.library = library
    self.setup = setup
    self.engine = engine
    sampleRate = info.sampleRate
    totalFrames = info.frames
    beatMap = setup.beatMap
    stereo = info.channels >= 2
    tracker = PlayTracker(sampleRate: info.sampleRate, totalFrames: info.frames)
    let plan = engine.plan
    self.plan = plan
    label = setup.label ?? formatTimeRange(plan.range, sampleRate: info.sampleRate)
    speed = plan.speed
    transpose = plan.transpose
    volume = plan.volume
    clickOn = plan.clicks?.enabled ?? false
    filter = plan.filter
    centreCutAmount = plan.filter.centreCut > 0 ? plan.filter.centreCut : 1
    if case .count(let n) = plan.passes { passesTotal = n } else { passesTotal = nil }
    ledger = song.id.map { PlayLedger(songID: $0, part: setup.part, transpose: plan.transpose) }
  }

  public var clock: AudibleClock { tracker.clock }

  /// Takes the engine's position reports (call often while it plays).
  public func takeEvents() {
    while let event = engine.events.pop() { tracker.take(event) }
  }

  /// Takes the position reports a caller read itself (the plain `play` loop).
  public func take(_ tracker: PlayTracker) { self.tracker = tracker }

  /// The event covering what is audible now, and the source frame audible.
  public func audible() -> (event: PlaybackEvent, frame: Int64)? { clock.audible() }

  // MARK: Transport

  public func togglePause() {
    if clock.last?.paused == true { engine.send(.resume) } else { engine.send(.pause) }
  }

  public func stop() { engine.stop() }

  public func changeSpeed(by step: Double) -> Reply {
    let next = Speed(clamping: speed.rate + step)
    guard next != speed else { return .speedAtLimit(speed) }
    speed = next
    engine.send(.setSpeed(next))
    engine.calibrate(speed: next, semitones: transpose)
    return .done
  }

  public func changeTranspose(by semitones: Double) -> Reply {
    let range = PlaybackPlan.transposeRange
    let next = min(max(transpose + semitones, range.lowerBound), range.upperBound)
    guard next != transpose else { return .transposeAtLimit }
    transpose = next
    engine.send(.setTranspose(next))
    engine.calibrate(speed: speed, semitones: next)
    return .done
  }

  public func changeVolume(by step: Double) {
    volume = Volume(clamping: volume.gain + step)
    muted = false
    engine.setVolume(volume)
  }

  public func toggleMute() {
    muted.toggle()
    engine.setVolume(muted ? Volume(clamping: 0) : volume)
  }

  public func toggleClick() -> Reply {
    guard beatMap != nil, plan.clicks != nil else { return .noBeatMap }
    clickOn.toggle()
    engine.send(.setClick(clickOn))
    return .done
  }

  /// The next focus preset, after the last one none.
  public func cycleFocus() {
    let all = PartFilter.Focus.allCases
    if let focus = filter.focus, let index = all.firstIndex(of: focus) {
      filter.focus = index + 1 < all.count ? all[index + 1] : nil
    } else {
      filter.focus = all.first
    }
    engine.setFilter(filter)
  }

  public func toggleCentreCut() -> Reply {
    guard stereo else { return .monoHasNoCentre }
    filter.centreCut = filter.centreCut > 0 ? 0 : centreCutAmount
    engine.setFilter(filter)
    return .done
  }

  /// Plays `channel` (on both sides); the same again: both channels as recorded.
  public func chooseChannel(_ channel: PartFilter.Channel) -> Reply {
    guard stereo else { return .monoHasOneChannel }
    filter.channel = filter.channel == channel ? .both : channel
    engine.setFilter(filter)
    return .done
  }

  /// Marks the pass heard now (or the one just ended) clean or flubbed, for `stats`.
  public func mark(_ mark: PassMark) -> Reply {
    guard
      let pass = tracker.mark(mark, range: plan.range, earliest: ledger?.currentFirstPass ?? 1)
    else { return .noPassToMark }
    return .marked(pass: pass, mark)
  }

  // MARK: Jumps

  /// The plan to jump with: the current one moved to `range` from `offset`, with the
  /// trainer's count carried on.
  private func jumpPlan(
    range: Range<Int64>, offset: Int64, passes: Passes, newMap: Bool = false
  ) -> PlaybackPlan {
    var next = plan
    if newMap && beatMap == nil { next.clicks = nil }
    if next.range != range || newMap, let map = beatMap {
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
  /// seek made so recently that it cannot be heard yet (so two bar steps move two bars).
  private func moveOrigin() -> Int64? {
    if let (frame, at) = lastSeek, monotonicNanoseconds() &- at < 250_000_000 { return frame }
    return audible()?.frame
  }

  /// Jumps to `frame` in the loop (its start when outside it).
  public func seek(to frame: Int64) {
    let range = plan.range
    let target = range.contains(frame) ? frame : range.lowerBound
    lastSeek = (target, monotonicNanoseconds())
    let next = jumpPlan(range: range, offset: target - range.lowerBound, passes: remainingPasses)
    plan = next
    engine.jump(to: next, kind: .seek)
  }

  public func moveBeats(_ count: Int) {
    guard let frame = moveOrigin() else { return }
    seek(to: beatMap?.frame(steppingBeats: count, from: frame) ?? frame + Int64(count * sampleRate))
  }

  public func moveBars(_ count: Int) {
    guard let frame = moveOrigin() else { return }
    seek(
      to: beatMap?.frame(steppingBars: count, from: frame) ?? frame + Int64(count * 5 * sampleRate))
  }

  public func restart() { seek(to: plan.range.lowerBound) }

  // MARK: Loops and selections

  /// The log's part is now `part`: the pass playing goes on there, and is credited there.
  private func switchPart(_ part: PlayedPart) {
    ledger?.switchTo(
      part, pass: max(1, clock.last?.pass ?? 1),
      written: engine.framesWritten.load(ordering: .relaxed), transpose: transpose)
  }

  /// Loops `range` from here on (playing on if we are inside it); `bars` names it in the
  /// log when it is whole bars.
  public func loop(_ range: Range<Int64>, label: String, bars: String? = nil) {
    guard range.count > 0 else { return }
    switchPart(PlayedPart(range: range, bars: bars))
    loopChanged = true
    let next = jumpPlan(range: range, offset: 0, passes: .endless)
    plan = next
    self.label = label
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

  /// The loop starts at the beat sounding now.
  public func setLoopStart() {
    guard let (beat, label) = currentBeat() else { return }
    let end = plan.range.upperBound > beat.lowerBound ? plan.range.upperBound : totalFrames
    barLoop = nil
    loop(beat.lowerBound..<end, label: "from \(label)")
  }

  /// The loop ends after the beat sounding now.
  public func setLoopEnd() -> Reply {
    guard let (beat, label) = currentBeat() else { return .done }
    guard beat.upperBound > plan.range.lowerBound else { return .loopEndBeforeStart }
    barLoop = nil
    loop(plan.range.lowerBound..<beat.upperBound, label: "to \(label)")
    return .done
  }

  /// Loops the bar sounding now; again, at the end of the loop: one bar more.
  public func loopBar() -> Reply {
    guard let map = beatMap else { return .noBeatMap }
    guard let (_, frame) = audible(), let index = map.beatIndex(at: frame) else { return .done }
    var bars = map.beats[index].bar...map.beats[index].bar
    if let current = barLoop, let end = map.frames(ofBar: current.upperBound),
      end.upperBound == plan.range.upperBound
    {
      bars = current.lowerBound...min(map.lastBar, current.upperBound + 1)
    }
    guard let first = map.frames(ofBar: bars.lowerBound), let last = map.frames(ofBar: bars.upperBound)
    else { return .done }
    barLoop = bars
    let named = BarRange(start: BarPosition(bar: bars.lowerBound), end: BarPosition(bar: bars.upperBound))
    loop(first.lowerBound..<last.upperBound, label: named.label, bars: "\(named)")
    return .done
  }

  /// Loops the song's selection `number` (from 1, in song order).
  public func select(_ number: Int) -> Reply {
    do {
      let selections = try library.selections(of: song)
      guard number <= selections.count else {
        return selections.isEmpty ? .noSelections : .onlySelections(selections.count)
      }
      let selection = selections[number - 1]
      let range = try selection.span.frames(beatMap: beatMap)
      let next = jumpPlan(range: range, offset: 0, passes: .endless)
      var bars: String?
      if case .bars(let span) = selection.span { bars = "\(span)" }
      switchPart(PlayedPart(range: range, selection: selection, bars: bars))
      plan = next
      loopChanged = true
      label = "'\(selection.name)'"
      barLoop = nil
      engine.jump(to: next, kind: .seek)
      return .done
    } catch let failure as any PracticeFailure {
      return .refused(failure.description)
    } catch {
      return .refused("\(error)")
    }
  }

  /// Saves the loop as a selection named `name`: in bars when it starts and ends on bar
  /// lines.
  public func save(_ name: String) -> Reply {
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
      label = "'\(name)'"
      return .saved(name: name, span: span)
    } catch let failure as any PracticeFailure {
      return .refused(failure.description)
    } catch {
      return .refused("\(error)")
    }
  }

  /// Moves the `edge` of the loop by `count` beats or bars; the engine loops the new range
  /// at once.
  public func editLoop(_ edge: LoopEdge, by count: Int, unit: LoopEdit.Unit) -> Reply {
    let edit = LoopEdit(beatMap: beatMap, sampleRate: sampleRate, totalFrames: totalFrames)
    guard let range = edit.moved(plan.range, edge: edge, by: count, unit: unit) else {
      return .loopStartAfterEnd
    }
    guard range != plan.range else { return .done }
    barLoop = nil
    loop(range, label: editedLabel(range))
    return .done
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

  // MARK: Fixing the beat map

  /// Fixes the song's beat map where the music is heard (`make` builds the fix from the map
  /// and the audible frame), stored as `beats` stores one (the map before kept for undo,
  /// selections following); the clicks, the loop and its name follow the new map.
  public func fixMap(summary: String, _ make: (BeatMap, Int64) -> BeatMapFix) -> Reply {
    guard let map = beatMap else { return .noBeatMap }
    guard let (_, frame) = audible() else { return .done }
    let fix = make(map, frame)
    do {
      let result = try library.fixBeatMap(of: song, fix, summary: summary)
      guard let after = result.after else { return .mapUnchanged }
      follow(after, from: map, kind: fix.kind)
      let renamed = result.followed.filter {
        if case .selection = $0.owner { true } else { false }
      }.count
      let done: MapFixDone
      switch fix {
      case .downbeat: done = .downbeat(bar: after.beats[after.nearestBeat(to: frame)].bar)
      case .shift(let frames): done = .shifted(frames: frames)
      case .double: done = .doubled
      case .halve: done = .halved
      }
      return .mapFixed(done, bars: after.barsDescription, renamed: renamed)
    } catch let failure as any PracticeFailure {
      return .refused(failure.description)
    } catch {
      return .refused("\(error)")
    }
  }

  /// The map before the last change back (`beats undo`).
  public func undoMapChange() -> Reply {
    let before = beatMap
    do {
      let undone = try library.undoBeatMapChange(for: song)
      if let before, let restored = undone.restored {
        follow(restored, from: before, kind: undone.change.kind)
      } else {
        follow(undone.restored, from: before, kind: .replaced)
      }
      return .mapUndone(change: undone.change.summary, bars: undone.restored?.barsDescription)
    } catch let failure as any PracticeFailure {
      return .refused(failure.description)
    } catch {
      return .refused("\(error)")
    }
  }

  /// Takes `after` as the song's map: a loop on beats moves with them after a move (its
  /// frames stay after a recount, its bars are named again), the clicks follow the new beats.
  private func follow(_ after: BeatMap?, from before: BeatMap?, kind: BeatMapChangeKind) {
    var range = plan.range
    if kind == .moved, let before, let after, before.beats.count == after.beats.count,
      let first = before.beats.firstIndex(where: { $0.frame == range.lowerBound }),
      let last = before.beats.indices.first(where: {
        before.frames(ofBeat: $0).upperBound == range.upperBound
      }),
      last >= first
    {
      range = after.beats[first].frame..<after.frames(ofBeat: last).upperBound
    }
    beatMap = after
    barLoop = nil
    if after == nil { clickOn = false }
    // A loop named by its bars (`bars 9-16`, `9.3-12.2`) is named again; times stay.
    if label.hasPrefix("bar") || (label.first?.isNumber == true && !label.contains(":")) {
      label = editedLabel(range)
    }
    let heard = audible()?.frame ?? range.lowerBound
    let offset = range.contains(heard) ? heard - range.lowerBound : 0
    let next = jumpPlan(range: range, offset: offset, passes: remainingPasses, newMap: true)
    plan = next
    engine.jump(to: next, kind: .playOn)
  }

  // MARK: The books

  /// The log rows for the play, ended as `outcome` after `written` output frames of which
  /// `heard` seconds were heard, `completed` passes ended.
  public func logEntries(
    outcome: PlayOutcome, completed: Int, heard: Double, written: Int64, live: Bool
  ) -> [PracticeEntry] {
    guard let ledger else { return [] }
    let original = setup.plan
    let records = tracker.passes(completed: completed) {
      live ? speed : original.speed(forPass: $0 - 1)
    }
    var slowest = tracker.slowest ?? original.speed
    var fastest = tracker.fastest ?? original.speed
    if !live {
      // The trainer's steps: the speeds of the passes started.
      let count = max(1, engine.passesStarted.load(ordering: .relaxed))
      let speeds = (0..<count).map { original.speed(forPass: $0).rate }
      slowest = Speed(clamping: speeds.min() ?? original.speed.rate)
      fastest = Speed(clamping: speeds.max() ?? original.speed.rate)
    }
    return ledger.entries(
      records: records, completed: completed, outcome: outcome, heard: heard, written: written,
      sampleRate: sampleRate, speeds: (slowest, fastest), transpose: live ? transpose : original.transpose)
  }

  /// Where the play stopped, to continue there (`--resume`); nil for a song not stored.
  public func resumePoint(completed: Int, finished: Bool, live: Bool) -> ResumePoint? {
    guard let songID = song.id else { return nil }
    let original = setup.plan
    let range = plan.range
    let frame =
      finished
      ? range.upperBound
      : (tracker.stoppedFrame(interrupted: true) ?? original.range.lowerBound + original.startOffset)
    var passesLeft: Int?
    if case .count(let total) = original.passes, !loopChanged {
      passesLeft = finished ? total : max(1, total - completed)
    }
    let passesStarted = max(1, engine.passesStarted.load(ordering: .relaxed))
    return ResumePoint(
      songID: songID, frame: frame, range: range,
      label: loopChanged ? label : setup.label,
      bars: loopChanged ? nil : setup.bars,
      selectionName: loopChanged ? nil : setup.selection?.name,
      passesLeft: passesLeft,
      speed: live ? speed : original.speed(forPass: passesStarted - 1),
      transpose: live ? transpose : original.transpose, volume: live ? volume : original.volume,
      finished: finished, stoppedAt: Date())
  }
}
