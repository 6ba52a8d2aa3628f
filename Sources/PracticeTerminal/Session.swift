import CPlatform
import Dispatch
import Foundation
import PracticeCore
import Synchronization

/// SIGINT and SIGTERM for the whole process, heard by one thread of its own (sigwait).
///
/// Both are blocked in the main thread before any other thread starts (threads inherit the
/// mask), so that none is lost to a thread started earlier: a `play --loop` went on after an
/// early Ctrl-C. The thread is not a libdispatch source: under a low memory limit
/// libdispatch retries a worker thread it cannot create for ever, and a signal heard only
/// through it was never heard (`prlimit --as=100M practice list` hung through SIGTERM).
/// During a session (`Session.withSignals`) a signal calls its stop; at any other time it
/// does what it would have done unheard: the process ends by it.
public enum SignalGate {
  /// What a signal does now: nil outside a session.
  static let stopper = Mutex<(@Sendable () -> Void)?>(nil)
  /// The signal that stopped a session (SIGINT or SIGTERM), 0 before one came: the exit
  /// status says which (`ExitStatus.interrupted`).
  public static let heard = Atomic<Int32>(0)

  /// First thing in `main`, before any thread starts. Ends the process with one line (exit
  /// 1) when threads cannot be started (too little memory), where libdispatch would hang.
  public static func install() {
    // Three at once: libdispatch's first workers, with some room (one left a 103-109 MB
    // address space hanging later, in GRDB's queue).
    var error = practice_can_start_threads(3)
    if error == 0 { error = practice_signal_thread(heardSignal) }
    if error != 0 {
      Terminal.error(
        "cannot start a thread (\(String(cString: strerror(error)))): too little memory for "
          + "practice; raise the limit (ulimit -v, prlimit --as) or free memory, then try again")
      exit(1)
    }
  }

  /// On the signal thread.
  private static let heardSignal: @convention(c) (Int32) -> Void = { number in
    if let stop = SignalGate.stopper.withLock({ $0 }) {
      SignalGate.heard.store(number, ordering: .relaxed)
      stop()
    } else {
      // Outside a session: end by the signal, as an unhandled one would, with the
      // progress bar (if one is drawn) erased first.
      ProgressBar.eraseForExit()
      // Keys being read: the terminal as it was (`KeyReader`), the player screen left.
      practice_terminal_screen(STDERR_FILENO, 0)
      practice_terminal_restore()
      signal(number, SIG_DFL)
      var one = sigset_t()
      sigemptyset(&one)
      sigaddset(&one, number)
      pthread_sigmask(SIG_UNBLOCK, &one, nil)
      raise(number)
    }
  }
}

/// Runs an engine to its end with Ctrl-C (and SIGTERM) turned into a clean stop.
public enum Session {
  /// Runs `body` with SIGINT and SIGTERM turned into `engine.stop()`; `body` is told
  /// whether a signal came.
  public static func withSignals<T>(
    _ engine: PlaybackEngine, _ body: (_ signalled: () -> Bool) throws -> T
  ) rethrows -> T {
    try withSignals(stop: { engine.stop() }, body)
  }

  /// Runs `body` with SIGINT and SIGTERM turned into a call of `stop` (on another thread);
  /// `body` is told whether a signal came.
  static func withSignals<T>(
    stop: @escaping @Sendable () -> Void, _ body: (_ signalled: () -> Bool) throws -> T
  ) rethrows -> T {
    let signalled = Atomic<Bool>(false)
    SignalGate.stopper.withLock {
      $0 = {
        signalled.store(true, ordering: .relaxed)
        stop()
      }
    }
    defer { SignalGate.stopper.withLock { $0 = nil } }
    return try body { signalled.load(ordering: .relaxed) }
  }

  /// Set when a play or render warned that its audio ended early: the command then ends
  /// with exit 65 (bad data) once the rest of its work is done.
  public static let endedEarly = Atomic<Bool>(false)

  /// The trace lines and the warnings a finished play or render owes the user.
  /// `done` says what became of the audio that decoded ("played", "rendered").
  public static func report(
    _ report: PlaybackReport, engine: PlaybackEngine, song: Song, file: SoundFile,
    done: String = "played"
  ) {
    if ProcessInfo.processInfo.environment["PRACTICE_TRACE"] != nil {
      Terminal.say(
        "trace first-frame-ns \(engine.firstFrameNanoseconds.load(ordering: .relaxed)) "
          + "last-frame-ns \(engine.lastFrameNanoseconds.load(ordering: .relaxed)) "
          + "end-ns \(monotonicNanoseconds())")
      let times = engine.blockTimes
      Terminal.say(
        "trace blocks \(times.count) block-us p50 \(times.quantileNanoseconds(0.5) / 1000) "
          + "p99.9 \(times.quantileNanoseconds(0.999) / 1000) max \(times.maxNanoseconds / 1000)")
    }
    if let truncation = report.truncation {
      // One line: where the audio ended, against the length the file declares.
      let short = ShortAudio(
        truncation, declaredFrames: max(file.declaredFrames, file.info.frames),
        sampleRate: file.info.sampleRate)
      let reason = truncation.reason.map { " (\($0))" } ?? ""
      let (ends, says) = (formatTime(short.ends), formatTime(short.declared))
      let end =
        short.readsTheSame
        ? "the audio ends \(short.shortMilliseconds) ms before the length the file says (\(says))"
        : "the audio ends at \(ends) though the file says \(says)"
      Terminal.warning(
        "'\(song.path)': \(end)\(reason); it is cut short or damaged: what decodes was "
          + "\(done), the rest is missing")
      endedEarly.store(true, ordering: .relaxed)
    }
    if report.underruns > 0 {
      Terminal.warning("\(counted(report.underruns, "underrun")): the audio device ran dry and recovered")
    }
  }
}

/// `--progress`: how passes are announced on stderr (read from the command line by the CLI).
public enum ProgressFormat: String, CaseIterable, Sendable {
  case text, json
}

/// A pass as it starts, for stderr: `pass 3/8 bars 9-16 speed 80%` (`label` names the
/// range), or with `--progress json` an object with the keys event, pass, passes, speed,
/// bar, beat, time.
public func announcement(of start: PracticeSession.PassStart, label: String, format: ProgressFormat)
  -> String
{
  switch format {
  case .text:
    return "pass \(start.pass)\(start.passes.map { "/\($0)" } ?? "") \(label) speed \(start.speed)"
  case .json:
    return PassEvent(
      pass: start.pass, passes: start.passes, speed: start.speed.rate, bar: start.bar,
      beat: start.beat, time: start.time
    ).jsonText
  }
}
