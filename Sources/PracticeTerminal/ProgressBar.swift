import Foundation
import PracticeCore
import Synchronization

/// The CLI's one progress bar (`add`, `render`, `beats detect`): one line on stderr, only
/// when stderr is a terminal (never into a pipe or a file), redrawn through `StatusLine` (at
/// most ten times a second but always at 100 %, cut to the terminal's width), and erased when the work ends, when
/// an error line is about to be printed, and when Ctrl-C or SIGTERM ends the process.
///
/// What it shows is the core's `ProgressText`; the label (a file name) goes out escaped, like
/// everything through `Terminal`.
public final class ProgressBar: Sendable {
  private struct State {
    var line = StatusLine()
    /// Set once the process is ending by a signal: nothing is drawn after the erase.
    var ended = false
  }

  private let state = Mutex(State())

  /// The bar being drawn, so that a signal that ends the process erases it first.
  private static let current = Mutex<ProgressBar?>(nil)

  /// A bar, or nil when stderr is not a terminal (then there is nothing to draw).
  public init?() {
    guard isatty(STDERR_FILENO) == 1 else { return nil }
  }

  /// `fraction` (0–1) done, as a percentage.
  public func show(_ fraction: Double, _ label: String) {
    draw(ProgressText(fraction: fraction, label: label))
  }

  /// `done` of `total` items done, counted.
  public func show(done: Int, of total: Int, _ label: String) {
    draw(ProgressText(done: done, of: total, label: label))
  }

  /// Erases the bar (if it was drawn), so what follows starts on a clean line; a later
  /// `show` draws it again.
  public func clear() {
    state.withLock { $0.line.clear() }
    ProgressBar.current.withLock { if $0 === self { $0 = nil } }
  }

  /// Erases the bar being drawn, for good: called when a signal ends the process.
  static func eraseForExit() {
    guard let bar = current.withLock({ $0 }) else { return }
    bar.state.withLock {
      $0.line.clear()
      $0.ended = true
    }
  }

  private func draw(_ progress: ProgressText) {
    ProgressBar.current.withLock { $0 = self }
    state.withLock { state in
      // The end (100 %) is always drawn; steps on the way at most ten times a second.
      if progress.isDone { state.line.soon() }
      guard !state.ended, state.line.due() else { return }
      state.line.show(progress.text)
    }
  }
}
