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
public final class LiveSession {
  /// The practice session the keys steer.
  let session: PracticeSession
  private var engine: PlaybackEngine { session.engine }
  private let keys: Bool
  private let status: Bool
  /// Naming a selection (`s`): what has been typed.
  private var prompt: String?
  /// A short message shown in place of the status line for a while.
  private var notice: (text: String, until: UInt64)?
  private var ending = PlayOutcome.completed
  private var line = StatusLine()
  /// With PRACTICE_TRACE set: when each key arrived (CLOCK_MONOTONIC ns), for bench/.
  private let tracing = ProcessInfo.processInfo.environment["PRACTICE_TRACE"] != nil
  private var keyTimes: [(key: Key, nanoseconds: UInt64)] = []
  /// The player screen, when the terminal has room for it (else the status line alone).
  private let screen: PlayerScreen?
  /// The status line's text for the screen, renewed when `line` says a redraw is due.
  private var screenStatus = ""
  /// Shown before the status line (`2/7 'Autumn Leaves' — solo` in a setlist).
  public var heading: String?
  /// Keys a caller adds (`n`/`p` in a setlist): called first; true ends the play as stopped.
  public var extraKey: ((Key) -> Bool)?

  public init(session: PracticeSession, keys: Bool, status: Bool, screen: PlayerScreen? = nil) {
    self.session = session
    self.screen = screen
    self.keys = keys
    self.status = status
  }

  /// Plays to the end, `q`, Ctrl-C or SIGTERM; the terminal is restored however it ends.
  public func run() throws -> (report: PlaybackReport, ending: PlayOutcome) {
    let report = try KeyReader.withKeys(keys) { reader in
      screen?.enter()
      defer {
        screen?.leave()
        if status && screen == nil { line.clear() }
      }
      // The screen's cursor moves up to 30 times a second; the status line alone, 10.
      let tick: Int32 = screen == nil ? 50 : 33
      return try Session.withSignals(engine) { signalled in
        defer { if signalled() { ending = .interrupted } }
        return try session.run(
          waiting: .milliseconds(0),
          step: {
            for key in KeyReader.keys(reader, waiting: tick, idle: tick) {
              if tracing, let reader { keyTimes.append((key, reader.arrived)) }
              handle(key)
            }
            session.takeEvents()
            if status { draw() }
          })
      }
    }
    for (key, nanoseconds) in keyTimes { Terminal.say("trace key \(key.name) ns \(nanoseconds)") }
    if report.interrupted && ending == .completed { ending = .interrupted }
    return (report, ending)
  }

  // MARK: Keys

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
    if let action = PlayerKeys.action(
      for: key, editing: session.editing != nil, screen: screen != nil)
    {
      perform(action)
    }
    line.soon()
  }

  private func perform(_ action: PlayerAction) {
    switch action {
    case .session(let command):
      tell(session.perform(command), about: command)
      // On the screen the loop shows what is edited; alone, the status line says it.
      if command == .toggleEditing && screen == nil {
        say(
          session.editing == nil
            ? "loop editing done" : "editing the loop's start: ←/→ beat, shift bar, tab end, e done")
      }
    case .namePrompt: prompt = ""
    case .showKeys: showKeys()
    case .zoom(let inward): zoom(in: inward)
    case .stop:
      ending = .stopped
      engine.stop()
    case .interrupt:
      ending = .interrupted
      engine.stop()
    }
  }

  /// Tells the player what `command` did, in words.
  private func tell(_ reply: PracticeSession.Reply, about command: PracticeSession.Command) {
    switch reply {
    case .done: break
    case .speedAtLimit(let speed): say("speed is at its limit, \(speed)")
    case .transposeAtLimit: say("transpose is at its limit")
    case .noBeatMap:
      switch command {
      case .loopBar: say("no beat map: `l` needs bars")
      case .fixMap: say("no beat map: nothing to fix (make one with `practice beats detect`)")
      default: say("no beat map: no clicks (make one with `practice beats grid` or `beats import`)")
      }
    case .monoHasNoCentre: say("a mono recording has no centre to cut")
    case .monoHasOneChannel: say("a mono recording has one channel")
    case .loopEndBeforeStart: say("the loop end must come after its start")
    case .loopStartAfterEnd: say("the loop's start must stay before its end")
    case .noSelections: say("'\(session.song.title)' has no selections")
    case .onlySelections(let count):
      say(count == 1 ? "there is only 1 selection" : "there are only \(count) selections")
    case .noPassToMark: say("no pass to mark yet")
    case .marked(let pass, let mark): say("pass \(pass): \(mark.rawValue)")
    case .saved(let name, let span):
      screen?.setSelections(
        PlayerScreen.spans(of: session.song, library: session.library, beatMap: session.beatMap))
      say("saved '\(name)' (\(span))")
    case .refused(let words): say(words)
    case .mapFixed(let done, let bars, let renamed):
      showMap()
      let selections = renamed == 0 ? "" : " · \(renamed) selection\(renamed == 1 ? "" : "s") renamed"
      switch done {
      case .downbeat(let bar): say("bar \(bar) starts here: \(bars)\(selections) · u undoes")
      case .shifted(let frames):
        let ms = abs(frames) * 1000 / Int64(session.sampleRate)
        say("beats \(ms) ms \(frames < 0 ? "earlier" : "later")\(selections) · u undoes")
      case .doubled: say("twice the beats from here: \(bars)\(selections) · u undoes")
      case .halved: say("half the beats from here: \(bars)\(selections) · u undoes")
      }
    case .mapUnchanged: say("that beat is a downbeat already")
    case .mapUndone(let change, let bars):
      showMap()
      say("undid `\(change)`: " + (bars.map { "\($0) again" } ?? "no beat map again"))
    }
  }

  /// The screen takes the session's beat map, loop and selections (after a fix).
  private func showMap() {
    screen?.setBeatMap(
      session.beatMap, loop: session.plan.range,
      selections: PlayerScreen.spans(of: session.song, library: session.library, beatMap: session.beatMap))
  }

  private func say(_ text: String) {
    notice = (text, monotonicNanoseconds() + 2_000_000_000)
  }

  private func handlePrompt(_ key: Key) {
    switch key {
    case .escape, .interrupt:
      prompt = nil
    case .enter:
      let name = (prompt ?? "").trimmingCharacters(in: .whitespaces)
      prompt = nil
      if !name.isEmpty { tell(session.perform(.save(name: name)), about: .save(name: name)) }
    case .backspace:
      prompt = String((prompt ?? "").dropLast())
    case .char(let c):
      prompt = (prompt ?? "") + String(c)
    default:
      break
    }
    line.soon()
  }

  private func showKeys() {
    // Wrapped a column short of the terminal's width (76 where it cannot be read).
    let columns = Int(practice_terminal_columns(STDERR_FILENO))
    let width = columns > 0 ? max(20, columns - 1) : 76
    if let screen {
      screen.showHelp(PlayerKeys.overlay(screen: true, width: width))
      return
    }
    line.clear()
    // A line each: `say` escapes a newline within a line.
    for text in PlayerKeys.overlay(screen: false, width: width) { Terminal.say(text) }
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
    session.statusText(width: width, heading: heading)
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
      cursor: session.audible()?.frame,
      loop: StripLoop(frames: session.plan.range, label: session.label, editing: session.editing),
      // The chords sounding: a transpose between semitones shows the nearer one.
      transpose: Int(session.transpose.rounded()),
      status: screenStatus,
      now: now)
  }

  private func zoom(in inward: Bool) {
    guard let screen else { return }
    let changed = inward ? screen.zoomIn() : screen.zoomOut()
    if !changed { say(inward ? "zoomed in as far as it goes: \(screen.zoomSpan)" : "the whole song is in view") }
  }
}
