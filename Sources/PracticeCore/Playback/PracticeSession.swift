import Dispatch
import Foundation

/// A running practice session: one play of a song, with the engine and its sink, the pass
/// tracker, the log rows it owes and where it will be remembered to have stopped.
///
/// `open` makes it from a device name and a latency (keys read or not): it builds the plan
/// (`PlanBuilder`), opens the device and the engine; the face creates neither. `run` plays
/// it (a pass begun is reported as a `PassStart` value for the face to announce), and
/// `keepBooks` writes the log rows and the resume point on every ending: completed,
/// stopped, interrupted or failed.
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

  /// What the player (a key, later a pedal or a socket) asks of the session: one value per
  /// command, taken by `perform`.
  public enum Command: Sendable, Equatable {
    case togglePause, restart
    case moveBeats(Int), moveBars(Int)
    case changeSpeed(by: Double), changeVolume(by: Double), toggleMute
    case changeTranspose(by: Double)
    case toggleClick, cycleFocus, toggleCentreCut
    case chooseChannel(PartFilter.Channel)
    case setLoopStart, setLoopEnd, loopBar
    /// Editing the loop's ends on and off (`editing`); while on, which end moves.
    case toggleEditing, switchEditedEdge
    /// Moves the end being edited (nothing when not editing).
    case moveEditedEdge(by: Int, unit: LoopEdit.Unit)
    /// The song's selection by its number, from 1, played as its drill.
    case select(Int)
    case save(name: String)
    case mark(PassMark)
    /// Fixes the beat map where the music is heard; `summary` names it in the map's history.
    case fixMap(MapFix, summary: String)
    case undoMapChange
  }

  /// A fix of the beat map made where the music is heard (`fixMap`).
  public enum MapFix: Sendable, Equatable {
    /// The beat heard is a downbeat.
    case downbeat
    /// Every beat this many milliseconds later (negative: earlier).
    case shift(milliseconds: Int)
    /// Twice / half the beats from the beat heard to the end of the map.
    case double, halve
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
  /// The song's audio, as the engine reads it (its declared length, for a short stream).
  public let file: SoundFile
  /// What the play was asked for: a selection's drill is built from it (`select`).
  public let request: PlayRequest
  /// Whether what is heard is steered and shown as it plays (keys or a status line): the
  /// books then keep the speed and pitch asked for last, not the plan's.
  public let live: Bool
  /// Whether the device plays in real time (not ALSA's null PCM): time heard is credited
  /// only then.
  public let audibleClock: Bool
  public let sampleRate: Int
  public let totalFrames: Int64
  /// The song's beat map; a fix (`fixMap`, `undoMapChange`) stores and takes a new one.
  public private(set) var beatMap: BeatMap?
  /// Passes the plan (or the selection's drill) asked for; nil for a loop.
  public private(set) var passesTotal: Int?
  /// The engine's number of the first pass of what is playing now: the plan's (1), or that
  /// of the pass a selection's drill began in (`select`); passes are shown counted from it.
  public private(set) var firstPassNumber = 1
  /// The number of the play's last pass (nil for a loop): a selection's drill of 3 begun
  /// in pass 2 ends after pass 4.
  public var lastPass: Int? { passesTotal.map { firstPassNumber - 1 + $0 } }
  /// Passes completed before the drill began.
  private var completedBefore = 0
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
  /// The plan whose speed trainer sets the speed of each pass (its first pass is
  /// `firstPassNumber`); nil without a trainer, or once the keys set the speed.
  private var trainer: PlaybackPlan?
  /// The end of the loop that `moveEditedEdge` moves; nil when not editing.
  public private(set) var editing: LoopEdge?
  /// Bars looped by `loopBar`, so that a second one extends the loop.
  private var barLoop: ClosedRange<Int>?
  /// The last seek's target and when it was asked for.
  private var lastSeek: (frame: Int64, at: UInt64)?

  public init(
    song: Song, library: Library, request: PlayRequest, setup: PlaySetup, file: SoundFile,
    engine: PlaybackEngine, audibleClock: Bool
  ) {
    let info = file.info
    self.song = song
    self.library = library
    self.request = request
    self.setup = setup
    self.file = file
    self.engine = engine
    self.audibleClock = audibleClock
    live = request.live
    sampleRate = info.sampleRate
    totalFrames = info.frames
    beatMap = setup.beatMap
    stereo = info.channels >= 2
    tracker = PlayTracker(sampleRate: info.sampleRate, totalFrames: info.frames)
    let plan = engine.plan
    self.plan = plan
    label = setup.label ?? formatTimeRange(plan.range, sampleRate: info.sampleRate)
    speed = plan.speed
    trainer = plan.ramp == nil ? nil : setup.plan
    transpose = plan.transpose
    volume = plan.volume
    clickOn = plan.clicks?.enabled ?? false
    filter = plan.filter
    centreCutAmount = plan.filter.centreCut > 0 ? plan.filter.centreCut : 1
    if case .count(let n) = plan.passes { passesTotal = n } else { passesTotal = nil }
    ledger = song.id.map { PlayLedger(songID: $0, part: setup.part, transpose: plan.transpose) }
  }

  /// How soon the device must answer. With `keys`, a key must be heard within 100 ms: a
  /// short device buffer (and a live engine). Without, only a stop needs an answer (within
  /// about a period): a longer buffer wakes the render thread and the sound server half as
  /// often (bench/cpu-play.py).
  public enum Latency: Sendable {
    case keys, relaxed

    public var bufferMilliseconds: Int { self == .keys ? 50 : 200 }
  }

  /// Opens a session: `song`'s audio, the plan `request` builds (`missingBeatMap` gives the
  /// map a plan needs and the song lacks, or refuses), the ALSA PCM `device` at `latency`
  /// (`deviceAdvice`: what to do when it will not open), and the engine over them.
  public static func open(
    song: Song, library: Library, request: PlayRequest, device: String, latency: Latency,
    deviceAdvice: String, missingBeatMap: @escaping (Song) throws -> BeatMap
  ) throws -> PracticeSession {
    let file = try song.openAudio()
    let setup = try PlanBuilder(
      library: library, song: song, info: file.info, missingBeatMap: missingBeatMap
    ).build(request)
    let sink = try PCMDevice(
      name: device, sampleRate: file.info.sampleRate, channels: file.info.channels,
      encoding: .lossless(forBitDepth: file.info.bitDepth),
      maxBlockFrames: PlaybackEngine.blockFrames, bufferMilliseconds: latency.bufferMilliseconds,
      openAdvice: deviceAdvice)
    let engine = try PlaybackEngine(file: file, plan: setup.plan, sink: sink, live: latency == .keys)
    return PracticeSession(
      song: song, library: library, request: request, setup: setup, file: file, engine: engine,
      audibleClock: sink.hasAudibleClock)
  }

  public var clock: AudibleClock { tracker.clock }

  // MARK: Running

  /// A pass as it starts, for the face to announce: its number and the plan's count (nil
  /// for a loop), its speed, and where it starts (bar and beat when the song has a map).
  public struct PassStart: Sendable, Equatable {
    public var pass: Int
    public var passes: Int?
    public var speed: Speed
    public var bar: Int?
    public var beat: Int?
    /// Seconds into the source.
    public var time: Double
  }

  /// Starts the play and runs it until it ends or is stopped: after each wait of up to
  /// `waiting` for its end, the engine's reports are taken, `passStarted` hears of every
  /// pass begun since, and `step` runs (reading keys, drawing). Controller thread.
  public func run(
    waiting: DispatchTimeInterval, passStarted: ((PassStart) -> Void)? = nil,
    step: () -> Void = {}
  ) throws -> PlaybackReport {
    engine.start()
    var announced = 0
    var map: BeatMap??
    func announce() {
      takeEvents()
      guard let passStarted else { return }
      let started = engine.passesStarted.load(ordering: .acquiring)
      while announced < started {
        announced += 1
        // The beat map is read only when a pass is announced and the plan did not need it.
        if map == nil { map = .some(beatMap ?? (try? library.beatMap(for: song)) ?? nil) }
        passStarted(passStart(announced, map: map ?? nil))
      }
    }
    while !engine.waitForEnd(timeout: waiting) {
      announce()
      step()
    }
    let report = try engine.wait()
    announce()
    return report
  }

  /// Pass `pass` of the plan as it starts: at the range start (a resumed play's first pass
  /// where it resumes).
  private func passStart(_ pass: Int, map: BeatMap?) -> PassStart {
    let plan = setup.plan
    var total: Int?
    if case .count(let n) = plan.passes { total = n }
    var start = PassStart(
      pass: pass, passes: total, speed: plan.speed(forPass: pass - 1), bar: nil, beat: nil,
      time: Double(plan.range.lowerBound) / Double(sampleRate))
    if pass == 1 && plan.startOffset > 0 {
      let frame = plan.range.lowerBound + plan.startOffset
      let beat = map?.beatIndex(at: frame).map { map!.beats[$0] }
      (start.bar, start.beat, start.time) = (beat?.bar, beat?.beat, Double(frame) / Double(sampleRate))
    } else {
      let first = map?.beats.first { $0.frame >= plan.range.lowerBound }
      (start.bar, start.beat) = (first?.bar, first?.beat)
    }
    return start
  }

  /// The pass playing (from 1), or in a count-in the one it leads into: a drill's count-in
  /// (pass 0) comes in the middle of the pass it goes on in.
  public private(set) var passPlaying = 1

  /// Takes the engine's position reports (call often while it plays); while the speed
  /// trainer runs, the speed is that of its step audible now.
  public func takeEvents() {
    while let event = engine.events.pop() {
      tracker.take(event)
      if event.pass > 0 && !event.ended { passPlaying = event.pass }
    }
    if let trainer, let pass = audible()?.event.pass, pass >= firstPassNumber {
      speed = trainer.speed(forPass: pass - firstPassNumber)
    }
  }

  /// The event covering what is audible now, and the source frame audible.
  public func audible() -> (event: PlaybackEvent, frame: Int64)? { clock.audible() }

  // MARK: The status line

  /// What the status line shows now (`PlayerStatus`); nil before the first frame is heard.
  public func status() -> PlayerStatus? {
    guard let (event, frame) = audible() else { return nil }
    let place = beatMap.map { map in
      PlayerStatus.Place(
        beat: map.beatIndex(at: frame).map {
          BarPosition(bar: map.beats[$0].bar, beat: map.beats[$0].beat)
        },
        lastBar: map.lastBar)
    }
    let rate = Double(sampleRate)
    return PlayerStatus(
      paused: clock.last?.paused == true, place: place, pass: event.pass, lastPass: lastPass,
      label: label, speed: speed, transpose: transpose, volume: volume, muted: muted,
      click: clickOn, filter: filter, time: Double(frame) / rate,
      length: Double(totalFrames) / rate)
  }

  /// The status line at `width` columns (`PlayerStatus.text`), after `heading` if one is
  /// given; `starting…` before the first frame is heard.
  public func statusText(width: Int, heading: String? = nil) -> String {
    status()?.text(width: width, heading: heading)
      ?? (heading.map { $0 + " · " } ?? "") + PlayerStatus.starting
  }

  // MARK: Commands

  /// Does what `command` asks; what it did, or why it did nothing.
  @discardableResult
  public func perform(_ command: Command) -> Reply {
    switch command {
    case .togglePause: togglePause()
    case .restart: restart()
    case .moveBeats(let count): moveBeats(count)
    case .moveBars(let count): moveBars(count)
    case .changeSpeed(let step): return changeSpeed(by: step)
    case .changeVolume(let step): changeVolume(by: step)
    case .toggleMute: toggleMute()
    case .changeTranspose(let semitones): return changeTranspose(by: semitones)
    case .toggleClick: return toggleClick()
    case .cycleFocus: cycleFocus()
    case .toggleCentreCut: return toggleCentreCut()
    case .chooseChannel(let channel): return chooseChannel(channel)
    case .setLoopStart: setLoopStart()
    case .setLoopEnd: return setLoopEnd()
    case .loopBar: return loopBar()
    case .toggleEditing: editing = editing == nil ? .start : nil
    case .switchEditedEdge: editing = editing?.other
    case .moveEditedEdge(let count, let unit):
      guard let edge = editing else { return .done }
      return editLoop(edge, by: count, unit: unit)
    case .select(let number): return select(number)
    case .save(let name): return save(name)
    case .mark(let mark): return self.mark(mark)
    case .fixMap(let fix, let summary):
      return fixMap(summary: summary) { map, frame in
        switch fix {
        case .downbeat: return .downbeat(near: frame, within: 0.5)
        case .shift(let ms): return .shift(frames: Int64(map.sampleRate * ms / 1000))
        case .double: return .double(from: map.frame(steppingBeats: 0, from: frame), to: nil)
        case .halve: return .halve(from: map.frame(steppingBeats: 0, from: frame), to: nil)
        }
      }
    case .undoMapChange: return undoMapChange()
    }
    return .done
  }

  // MARK: Transport

  public func togglePause() {
    if clock.last?.paused == true { engine.send(.resume) } else { engine.send(.pause) }
  }

  public func stop() { engine.stop() }

  public func changeSpeed(by step: Double) -> Reply {
    let next = Speed(clamping: speed.rate + step)
    guard next != speed else { return .speedAtLimit(speed) }
    speed = next
    trainer = nil
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
    let pass = passPlaying
    next.firstPass = max(0, pass - firstPassNumber)
    return next
  }

  /// Passes left when the loop goes on (a counted plan keeps its count).
  private var remainingPasses: Passes {
    guard let total = passesTotal else { return .endless }
    return .count(max(1, total - ((clock.last?.passesCompleted ?? 0) - completedBefore)))
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
      part, pass: passPlaying,
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

  /// Plays the song's selection `number` (from 1, in song order) as its drill, from here:
  /// the plan `play --select` builds for it (the selection's settings under those given for
  /// this play: speed and trainer, repeats or loop, transpose, volume, clicks, gap, and its
  /// count-in first). The pass playing goes on in it (and is credited to it) as the drill's
  /// first; the speeds heard before the key are not the drill's.
  public func select(_ number: Int) -> Reply {
    do {
      let selections = try library.selections(of: song)
      guard number >= 1, number <= selections.count else {
        return selections.isEmpty ? .noSelections : .onlySelections(selections.count)
      }
      let selection = selections[number - 1]
      let range = try selection.span.frames(beatMap: beatMap)
      var asked = request
      asked.part = .selection(selection.name)
      asked.resume = nil
      let map = beatMap
      let drill = try PlanBuilder(library: library, song: song, info: file.info) { _ in
        guard let map else { throw PracticeError(.missingInput, "'\(self.song.title)' has no beat map") }
        return map
      }.build(asked).plan
      var bars: String?
      if case .bars(let span) = selection.span { bars = "\(span)" }
      let pass = passPlaying
      switchPart(PlayedPart(range: range, selection: selection, bars: bars))
      var next = drill
      next.range = range
      next.startOffset = 0
      next.firstPass = 0
      next.filter = filter
      plan = next
      trainer = next.ramp == nil ? nil : next
      loopChanged = true
      label = "'\(selection.name)'"
      barLoop = nil
      firstPassNumber = pass
      completedBefore = clock.last?.passesCompleted ?? 0
      tracker.countSpeeds(after: clock.last?.generation ?? 0, fromPass: pass)
      if case .count(let n) = next.passes { passesTotal = n } else { passesTotal = nil }
      speed = next.speed(forPass: 0)
      for step in next.trainerSpeeds(limit: 32) {
        engine.calibrate(speed: step, semitones: next.transpose)
      }
      if next.transpose != transpose {
        transpose = next.transpose
        engine.send(.setTranspose(transpose))
      }
      if next.volume != volume {
        volume = next.volume
        if !muted { engine.setVolume(volume) }
      }
      clickOn = next.clicks?.enabled ?? false
      engine.send(.setClick(clickOn))
      engine.jump(to: next, kind: .drill)
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

  /// What keeping the books came to: where the play stopped (nil for a song not stored)
  /// and what the library would not take (the play is not lost for it).
  public struct Books {
    public var point: ResumePoint?
    /// The play ran its course.
    public var finished: Bool
    public var notLogged: (any Error)?
    public var notRemembered: (any Error)?
    /// The log rows written, one for each part played (a range or selection changed at the
    /// keys starts another).
    public var logged: [PracticeEntry] = []
  }

  /// Keeps the books of a play that ended as `outcome` (`report`: the engine's, nil when it
  /// failed): the log rows with the time heard, and where it stopped, for `--resume`. A
  /// device with no audible clock (ALSA's null PCM, or one that took the audio faster than
  /// real time) is credited no time heard; the play, its passes and the audio played are
  /// logged.
  public func keepBooks(_ outcome: PlayOutcome, report: PlaybackReport?) -> Books {
    let ended = monotonicNanoseconds()
    let written = report?.framesWritten ?? engine.framesWritten.load(ordering: .relaxed)
    let completed = report?.passesCompleted ?? engine.passesEnded.load(ordering: .relaxed)
    let interrupted = report?.interrupted ?? true
    let heard = tracker.heardSeconds(
      written: written, interrupted: interrupted,
      firstFrameNanoseconds: engine.firstFrameNanoseconds.load(ordering: .relaxed),
      endNanoseconds: report?.interrupted == true ? (tracker.endEvent?.nanoseconds ?? ended) : ended,
      audibleClock: audibleClock)
    var books = Books(point: nil, finished: !interrupted)
    do {
      for entry in logEntries(
        outcome: outcome, completed: completed, heard: heard, written: written, live: live)
      {
        try library.log(entry)
        books.logged.append(entry)
      }
    } catch {
      books.notLogged = error
    }
    guard let point = resumePoint(completed: completed, finished: books.finished, live: live)
    else { return books }
    books.point = point
    do { try library.remember(point) } catch { books.notRemembered = error }
    return books
  }

  /// The beat sounding where a play stopped at `point` (the last frame heard, when it
  /// finished), when the song has a beat map.
  public func beat(stoppedAt point: ResumePoint) -> Beat? {
    let map = beatMap ?? (try? library.beatMap(for: song)) ?? nil
    let frame = point.finished ? max(point.range.lowerBound, point.frame - 1) : point.frame
    return map?.beatIndex(at: frame).map { map!.beats[$0] }
  }

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
