import Foundation
import PracticeCore

/// `beats tap` at a terminal: the keys turned into taps (`TapPlay` places them), and a status
/// line (taps, tempo, the bar.beat placed). Runs on the main thread; the terminal is
/// restored however it ends.
public final class TapSession {
  private let play: TapPlay
  private let status: Bool
  private var interrupted = false
  private var line = StatusLine()

  public init(play: TapPlay, status: Bool) {
    self.play = play
    self.status = status
  }

  /// Plays until the end, `q`, or Ctrl-C; whether it was interrupted.
  public func run() throws -> (report: PlaybackReport, interrupted: Bool) {
    defer { line.clear() }
    let report = try KeyReader.withKeys(
      true, refusal: (.usage, "beats tap needs a terminal")
    ) { reader in
      try Session.withSignals(play.engine) { signalled in
        defer { if signalled() { interrupted = true } }
        return try play.run {
          // Waits up to 20 ms for keys; each is placed at the moment it was read, from the
          // freshest report before it.
          let keys = reader?.read(waitingMilliseconds: 20) ?? []
          if !keys.isEmpty { play.takeEvents() }
          for key in keys { handle(key, at: reader?.arrived ?? 0) }
          if status { draw() }
        }
      }
    }
    return (report, interrupted)
  }

  private func handle(_ key: Key, at nanoseconds: UInt64) {
    switch key {
    case .char(" "): play.tap(downbeat: false, at: nanoseconds)
    case .char("d"), .char("D"), .enter: play.tap(downbeat: true, at: nanoseconds)
    case .backspace: play.untap()
    case .char("q"), .escape: play.engine.stop()
    case .interrupt:
      interrupted = true
      play.engine.stop()
    default: return
    }
    line.soon()
  }

  /// The status line, at most ten times a second.
  private func draw() {
    let now = monotonicNanoseconds()
    guard line.due(now: now) else { return }
    line.show(play.statusText(at: now))
  }
}
