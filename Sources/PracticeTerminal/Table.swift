import Foundation
import PracticeCore

/// The lists the CLI prints (`TextTable` in the core lays them out).
public typealias Table = TextTable

extension TextTable {
  /// Prints the rows: as a table when stdout is a terminal, else as tab-separated records.
  public func print() {
    if isatty(STDOUT_FILENO) == 1 {
      Terminal.lines(lines(width: Table.terminalWidth()))
    } else {
      Terminal.records(rows)
    }
  }

  /// The lines for a terminal `width` columns wide, each measured as the door shows it.
  func lines(width: Int) -> [String] {
    layout(width: width) { Terminal.escaped($0) }
  }

  /// The terminal's width in columns (stdout's, else `$COLUMNS`, else 80).
  static func terminalWidth() -> Int {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      return Int(size.ws_col)
    }
    if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap({ Int($0) }),
      (1...10_000).contains(columns)
    {
      return columns
    }
    return 80
  }
}

