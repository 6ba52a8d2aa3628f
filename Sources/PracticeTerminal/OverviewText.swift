import CPlatform
import Foundation
import PracticeCore

/// `view` at the terminal: a song's overview drawn as text on stdout, in colour when stdout
/// is a colour terminal; the same styles colour the player screen.
public enum OverviewText {
  /// Draws `content` on stdout as `TextOverview` lays it out: `width` columns (nil: stdout's
  /// terminal's, else 80), kept within `widths`, and `height` rows of waveform.
  public static func print(
    _ content: OverviewContent, width: Int?, widths: ClosedRange<Int>, height: Int
  ) {
    let toTerminal = isatty(STDOUT_FILENO) == 1
    let columns = width ?? (toTerminal ? Int(practice_terminal_columns(STDOUT_FILENO)) : 80)
    // Names are escaped before the layout, so that the columns they take are the ones
    // printed; the door escapes again, which changes nothing.
    let overview = TextOverview(
      content.escaped { Terminal.escaped($0) },
      width: min(widths.upperBound, max(widths.lowerBound, columns)), height: height)
    let styles: ((TextStyle) -> String?)? = toTerminal && colourAllowed ? { sgr($0) } : nil
    Terminal.drawing(overview.lines, colour: styles)
  }

  /// Whether a terminal may be given colour: NO_COLOR unset or empty, and TERM not `dumb`.
  static var colourAllowed: Bool {
    let environment = ProcessInfo.processInfo.environment
    return (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
  }

  /// The SGR parameters of each style at a colour terminal.
  static func sgr(_ style: TextStyle) -> String? {
    switch style {
    case .plain: return nil
    case .title: return "1"
    case .barNumber: return "1"
    case .tick: return "2"
    case .doubtful: return "1;33"
    case .rms: return "36"
    case .peak: return "2;36"
    case .time: return "2"
    case .chord: return "1;35"
    case .loop: return "1;32"
    case .editing: return "1;7;32"
    case .cursor: return "1;97"
    case .selection(let index):
      let colours = ["33", "35", "31", "32", "93", "34"]
      return colours[index % colours.count]
    }
  }
}
