import CPlatform
import Foundation
import PracticeCore

/// One line on stderr, redrawn in place (`\r`, erase to the end of the line): at most ten
/// times a second, only when its text changed, cut to the terminal's width so it never
/// wraps or scrolls. Used only when stderr is a terminal.
struct StatusLine {
  private var lastDraw: UInt64 = 0
  private var drawn = ""

  /// Whether a redraw is due (a tenth of a second since the last one, or `forced`).
  mutating func due(now: UInt64 = monotonicNanoseconds()) -> Bool {
    guard now &- lastDraw >= 100_000_000 else { return false }
    lastDraw = now
    return true
  }

  /// Redraws at the next `due` whatever the time (after a key changed something).
  mutating func soon() { lastDraw = 0 }

  /// The terminal's width, for a text that has a shorter form.
  var width: Int { Int(practice_terminal_columns(STDERR_FILENO)) }

  mutating func show(_ text: String) {
    let line = Terminal.shown(text, width: width)
    guard line != drawn else { return }
    Terminal.redraw(shown: line)
    drawn = line
  }

  /// Erases the line, so that what follows starts on a clean one.
  mutating func clear() {
    if !drawn.isEmpty { Terminal.eraseLine() }
    drawn = ""
  }
}
