import ArgumentParser
import Dispatch
import Foundation
import PracticeCore
import Synchronization

/// SIGINT and SIGTERM for the whole process, heard on one libdispatch source each.
///
/// libdispatch hears a signal through a signalfd, which sees only signals that no thread
/// takes, so both are blocked in the main thread before any other thread starts (threads
/// inherit the mask; libdispatch's own workers block them anyway). Installed later, a signal
/// could go to a thread started earlier and be lost: a `play --loop` went on after an early
/// Ctrl-C. During a session (`Session.withSignals`) a signal calls its stop; at any other
/// time it does what it would have done unheard: the process ends by it.
enum SignalGate {
  /// What a signal does now: nil outside a session.
  static let stopper = Mutex<(@Sendable () -> Void)?>(nil)
  nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []  // main thread, once

  /// First thing in `main`, before any thread starts.
  static func install() {
    var blocked = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGINT)
    sigaddset(&blocked, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &blocked, nil)
    sources = [SIGINT, SIGTERM].map { number in
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        if let stop = stopper.withLock({ $0 }) {
          stop()
        } else {
          // Outside a session: end by the signal, as an unhandled one would, with the
          // progress bar (if one is drawn) erased first.
          ProgressBar.eraseForExit()
          signal(number, SIG_DFL)
          var one = sigset_t()
          sigemptyset(&one)
          sigaddset(&one, number)
          pthread_sigmask(SIG_UNBLOCK, &one, nil)
          raise(number)
        }
      }
      source.resume()
      return source
    }
  }
}

/// Runs an engine to its end with Ctrl-C (and SIGTERM) turned into a clean stop.
enum Session {
  /// Runs `body` with SIGINT and SIGTERM turned into `engine.stop()`; `body` is told
  /// whether a signal came.
  static func withSignals<T>(
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

  /// A progress bar for a run whose output length is known (a render): output frames
  /// written of `totalFrames`.
  struct Progress {
    let bar: ProgressBar
    let totalFrames: Int64
    let label: String
  }

  /// Runs the engine to its end: pass lines from `announcer`, a bar from `progress`, then
  /// the report's warnings.
  static func run(
    _ engine: PlaybackEngine, song: Song, file: SoundFile, announcer: PassAnnouncer? = nil,
    progress: Progress? = nil, done: String = "played"
  ) throws -> PlaybackReport {
    var tracker = PlayTracker(sampleRate: file.info.sampleRate, totalFrames: file.info.frames)
    return try run(
      engine, song: song, file: file, announcer: announcer, progress: progress,
      tracker: &tracker, done: done)
  }

  /// Runs the engine to its end, announcing passes and drawing `progress`, with its position
  /// reports taken by `tracker` (what was heard, and where it stopped).
  static func run(
    _ engine: PlaybackEngine, song: Song, file: SoundFile, announcer: PassAnnouncer?,
    progress: Progress? = nil, tracker: inout PlayTracker, done: String = "played"
  ) throws -> PlaybackReport {
    let report = try withSignals(engine) { _ in
      engine.start()
      var announced = 0
      func announce() {
        while let event = engine.events.pop() { tracker.take(event) }
        guard let announcer else { return }
        let started = engine.passesStarted.load(ordering: .acquiring)
        while announced < started {
          announced += 1
          Terminal.say(announcer.line(pass: announced))
        }
      }
      func draw() {
        guard let progress, progress.totalFrames > 0 else { return }
        let written = engine.framesWritten.load(ordering: .relaxed)
        progress.bar.show(Double(written) / Double(progress.totalFrames), progress.label)
      }
      defer { progress?.bar.clear() }
      // A play wakes ten times a second (the event ring holds seconds, a pass line needs no
      // more); a render's progress bar fifty, to move smoothly.
      let look = DispatchTimeInterval.milliseconds(progress == nil ? 100 : 20)
      while !engine.waitForEnd(timeout: look) {
        announce()
        draw()
      }
      progress?.bar.clear()
      let report = try engine.wait()
      announce()
      return report
    }
    Session.report(report, engine: engine, song: song, file: file, done: done)
    return report
  }

  /// Set when a play or render warned that its audio ended early: the command then ends
  /// with exit 65 (bad data) once the rest of its work is done.
  static let endedEarly = Atomic<Bool>(false)

  /// The trace lines and the warnings a finished play or render owes the user.
  /// `done` says what became of the audio that decoded ("played", "rendered").
  static func report(
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
      let rate = Double(file.info.sampleRate)
      let declared = max(file.declaredFrames, file.info.frames)
      let reason = truncation.reason.map { " (\($0))" } ?? ""
      Terminal.warning(
        "'\(song.path)': the audio ends at \(formatTime(Double(truncation.frame) / rate)) "
          + "though the file says \(formatTime(Double(declared) / rate))\(reason); it is cut "
          + "short or damaged: what decodes was \(done), the rest is missing")
      endedEarly.store(true, ordering: .relaxed)
    }
    if report.underruns > 0 {
      Terminal.warning("\(report.underruns) underrun(s): the audio device ran dry and recovered")
    }
  }
}

/// `--progress`: how passes are announced on stderr.
enum ProgressFormat: String, ExpressibleByArgument, CaseIterable {
  case text, json
}

/// One stderr line per pass as it starts: `pass 3/8 bars 9-16 speed 80%`, or with
/// `--progress json` an object with the keys event, pass, passes, speed, bar, beat, time.
struct PassAnnouncer {
  let plan: PlaybackPlan
  let format: ProgressFormat
  /// "bars 9-16", "selection 'solo'", or the times.
  let label: String
  /// Bar and beat at the range start, when the song has a beat map.
  let bar: Int?
  let beat: Int?
  /// Range start in seconds of the source.
  let time: Double
  /// Where the first pass starts when not at the range start (a resumed play): its bar,
  /// beat and time.
  var firstPassStart: (bar: Int?, beat: Int?, time: Double)? = nil

  func line(pass: Int) -> String {
    let speed = plan.speed(forPass: pass - 1)
    var total: Int?
    if case .count(let n) = plan.passes { total = n }
    switch format {
    case .text:
      return "pass \(pass)\(total.map { "/\($0)" } ?? "") \(label) speed \(speed)"
    case .json:
      let here: (bar: Int?, beat: Int?, time: Double) = (bar, beat, time)
      let start = pass == 1 ? firstPassStart ?? here : here
      return PassEvent(
        pass: pass, passes: total, speed: speed.rate, bar: start.bar, beat: start.beat,
        time: start.time
      ).jsonText
    }
  }
}
