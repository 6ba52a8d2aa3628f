import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

struct View: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "view",
    abstract: "Draw a song: bar ruler, waveform, selections; in the terminal or as a picture.",
    discussion: """
      Prints, at the terminal's width: the title, a bar ruler (bar numbers at bar lines, \
      every bar or every 2, 4, 8, ... bars as space allows; a dot at each beat where beats \
      are 3 columns apart or more; `?` marks a doubtful bar of a detected map), the waveform (RMS in solid blocks, the peak above it shaded), each \
      selection as a labelled span (overlapping ones on separate rows), and the times at \
      both ends. Without a beat map the ruler is in minutes and seconds. Colour when stdout \
      is a terminal and NO_COLOR is not set; plain characters otherwise.

      The waveform comes from a summary of the song's loudness (peak and RMS every 50 ms) \
      kept in the library: computed from the file the first time a song is viewed (one \
      read of the whole file), and again when the file's content changes.

      With -o, the same overview is written as a PNG, SVG or PDF picture, with the title \
      and artist, for printing or sending.
      """)

  @OptionGroup var target: SongInLibrary

  @Option(
    help: ArgumentHelp(
      "Show only these bars, from the beat map: 9-16, 9, or 9.3-12.2.", valueName: "bars"),
    transform: Parse.openBars)
  var bars: BarRangeText?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Show from this time: 83.5, 1:23.5 or 1:02:03.5.", valueName: "time"),
    transform: Parse.time)
  var from: TypedTime?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Show up to this time, written like --from.", valueName: "time"),
    transform: Parse.timeOrEnd)
  var to: TypedTime?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Columns (20-1000; default: the terminal's width, else 80); with -o, the picture's width in pixels (PNG) or points (SVG, PDF), 200-10000.",
      valueName: "N"))
  var width: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Rows of waveform (1-40, default 4); with -o, the waveform's height in pixels or points (20-4000).",
      valueName: "H"))
  var height: Int?

  @Option(
    name: [.customShort("o"), .customLong("output")],
    help: ArgumentHelp(
      "Write a picture instead: FILE.png, FILE.svg or FILE.pdf.", valueName: "file"))
  var output: String?

  static let columnRange = 20...1000
  static let rowRange = 1...40
  static let pictureWidthRange = 200...10_000
  static let pictureHeightRange = 20...4000

  func validate() throws {
    try Parse.oneRange(bars: bars != nil, times: from != nil || to != nil)
    if let output {
      guard PictureFormat(path: output) != nil else {
        throw ValidationError(
          "-o '\(output)': the picture's name must end in .png, .svg or .pdf")
      }
      if let width, !View.pictureWidthRange.contains(width) {
        throw ValidationError(
          "--width \(width) is out of range for a picture; use 200 to 10000 pixels or points")
      }
      if let height, !View.pictureHeightRange.contains(height) {
        throw ValidationError(
          "--height \(height) is out of range for a picture; use 20 to 4000 pixels or points")
      }
    } else {
      if let width, !View.columnRange.contains(width) {
        throw ValidationError("--width \(width) is out of range; use 20 to 1000 columns")
      }
      if let height, !View.rowRange.contains(height) {
        throw ValidationError("--height \(height) is out of range; use 1 to 40 rows")
      }
    }
  }

  func run() throws {
    let (library, song) = try target.resolve()
    // Before the window: the whole of no audio is not a --from past its end.
    guard song.frames > 0 else { throw song.holdsNoAudio }
    let beatMap = try library.beatMap(for: song)
    let shown = bars.map(OverviewWindow.bars)
    if shown != nil, beatMap == nil { throw noBeatMap(song) }
    let window = try (shown ?? .times(from: from?.seconds, to: to?.end))
      .frames(of: song, beatMap: beatMap)
    let placed = OverviewSpans(try library.selections(of: song), beatMap: beatMap)
    for (selection, failure) in placed.undrawn {
      Terminal.warning(
        "selection '\(selection.name)' (\(selection.span)) is not drawn: \(failure.description)")
    }
    if let output {
      try OutputFile.checkFolder(of: output)
    }
    if try library.storedWaveformSummary(for: song) == nil, isatty(STDERR_FILENO) == 1 {
      Terminal.say("reading '\(song.title)' once for its waveform (kept in the library)")
    }
    // Kept only once the picture is written: a failed command leaves the library as it was.
    let (summary, computed) = try library.waveformSummary(for: song, store: output == nil)
    let content = try library.overviewContent(
      of: song, summary: summary, beatMap: beatMap, spans: placed.spans, window: window)
    if let output, let format = PictureFormat(path: output) {
      try OverviewPicture.write(
        content, to: output, format: format, width: width.map(Double.init),
        waveHeight: height.map(Double.init))
      if computed { try library.keepWaveformSummary(summary, for: song) }
      Terminal.say("wrote \(output)")
      return
    }
    OverviewText.print(content, width: width, widths: View.columnRange, height: height ?? 4)
  }
}
