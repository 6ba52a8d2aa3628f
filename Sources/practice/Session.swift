import Dispatch
import Foundation
import PracticeCore

/// Runs an engine to its end with Ctrl-C (and SIGTERM) turned into a clean stop.
enum Session {
  static func run(_ engine: PlaybackEngine, song: Song, file: SoundFile) throws -> PlaybackReport {
    let signals = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { engine.stop() }
      source.resume()
      return source
    }
    defer {
      for source in signals { source.cancel() }
      signal(SIGINT, SIG_DFL)
      signal(SIGTERM, SIG_DFL)
    }
    let report = try engine.run()
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
      let rate = Double(file.info.sampleRate)
      Terminal.warning(
        "'\(song.path)' could be decoded only up to \(formatTime(Double(truncation.frame) / rate)) "
          + "of \(formatTime(file.info.duration))"
          + (truncation.reason.map { " (\($0))" } ?? "")
          + "; the file is truncated or damaged, what was decodable was played")
    }
    if report.underruns > 0 {
      Terminal.warning("\(report.underruns) underrun(s): the audio device ran dry and recovered")
    }
    return report
  }
}
