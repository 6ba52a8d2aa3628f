import Foundation
import PracticeCore

/// The pause between two entries of `setlist play`: a status line counting down, and the
/// keys that end it.
public enum SetlistPause {
  /// Waits `seconds` (nil: until a key or, when stdin is not a terminal, a line) before
  /// entry `next`, saying so on a status line. With `keys`, n ends it, p goes back, q
  /// stops; Ctrl-C, SIGINT or SIGTERM stop too: the move, and whether a signal or Ctrl-C
  /// came.
  public static func wait(seconds: Double?, keys: Bool, next: String) throws
    -> (move: SetlistRunner.Move?, interrupted: Bool)
  {
    let status = isatty(STDERR_FILENO) == 1
    let until = seconds.map { monotonicNanoseconds() + UInt64($0 * 1e9) }
    let what = seconds.map { "pause \(String(format: "%g", $0)) s" } ?? "waiting for a key"
    if !status { Terminal.say("\(what) before \(next)") }
    var line = StatusLine()
    defer { if status { line.clear() } }
    let stop = StopFlag()
    let move: SetlistRunner.Move? = try KeyReader.withKeys(keys) { reader in
      Session.withSignals(stop: { stop.set() }) { signalled in
        while !signalled() {
          if let until, monotonicNanoseconds() >= until { return nil }
          if status && line.due() {
            let left = until.map { " \(Int((Double($0 &- monotonicNanoseconds()) / 1e9).rounded(.up))) s" }
            line.show(
              "\(what)\(left.map { ":" + $0 } ?? "") · next \(next) · "
                + (keys ? "n go · p back · q stop" : "Ctrl-C stops"))
          }
          for key in KeyReader.keys(reader, waiting: 50, idle: seconds == nil ? 0 : 20) {
            switch key {
            case .char("p"): return .previous
            case .char("q"), .escape: return .quit
            case .interrupt:
              stop.set()
              return .quit
            default: if seconds == nil || key == .char("n") { return .next }
            }
          }
          // Not a terminal and no time: a line (or the end of the input) goes on.
          if reader == nil, seconds == nil, KeyReader.readLine(waitingMilliseconds: 50) {
            return .next
          }
        }
        return .quit
      }
    }
    return (move, stop.isSet)
  }
}
