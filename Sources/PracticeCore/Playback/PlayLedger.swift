import Foundation

/// What part of a song a play was playing, as the practice log names it: the range, the
/// selection it was of, the bars it was given in.
public struct PlayedPart: Sendable, Equatable {
  public var range: Range<Int64>
  public var selection: Selection?
  /// The bars as given (`9-16`), when the range came from bars.
  public var bars: String?

  public init(range: Range<Int64>, selection: Selection? = nil, bars: String? = nil) {
    self.range = range
    self.selection = selection
    self.bars = bars
  }
}

/// The practice-log rows a play owes, kept as it plays: one for the part it started with
/// and one for each part the keys switched to (a selection's number, a loop set or edited),
/// each credited the passes that **ended** in it (or were marked and then stopped), their
/// marks, and its share of the time.
///
/// A pass the keys moved to another part goes on there and ends there, so it belongs to
/// that part: `play --bars 17-24 --loop`, then `3` (the solo) and `x`, logs the flubbed
/// pass for the solo. A part left before any pass ended in it (nor was marked) gives its
/// time to the part after it: a loop nudged beat by beat is one row, not one per nudge.
/// A controller-thread value.
public struct PlayLedger: Sendable {
  public let songID: Int64
  private var parts: [Part]

  struct Part: Sendable {
    var part: PlayedPart
    /// The first pass number that belongs to it: the one playing when it was switched to.
    var firstPass: Int
    /// Output frames written when it began.
    var outputStart: Int64
    var started: Date
    /// Semitones when it was left (the last one's is given at the end).
    var transpose: Double
  }

  public init(songID: Int64, part: PlayedPart, transpose: Double, started: Date = Date()) {
    self.songID = songID
    parts = [Part(part: part, firstPass: 1, outputStart: 0, started: started, transpose: transpose)]
  }

  /// The part playing now.
  public var current: PlayedPart { parts[parts.count - 1].part }

  /// The first pass that belongs to the part playing now: a mark given for an earlier
  /// pass (in the moments after a switch) is not this part's to give.
  public var currentFirstPass: Int { parts[parts.count - 1].firstPass }

  /// The keys switched to `part` while pass `pass` was playing (it goes on there), after
  /// `written` output frames, with the transpose `transpose` until now.
  public mutating func switchTo(
    _ part: PlayedPart, pass: Int, written: Int64, transpose: Double, at date: Date = Date()
  ) {
    parts[parts.count - 1].transpose = transpose
    parts.append(
      Part(
        part: part, firstPass: max(pass, parts[parts.count - 1].firstPass), outputStart: written,
        started: date, transpose: transpose))
  }

  /// The part playing now was saved as `selection` (`s`): its passes are the selection's.
  public mutating func name(_ selection: Selection) {
    parts[parts.count - 1].part.selection = selection
  }

  /// The rows, oldest first. `records` are the play's passes (`PlayTracker.passes`),
  /// `completed` how many passes ended, `heard` the seconds heard of `written` output
  /// frames; `speeds` the slowest and fastest of the whole play, for a part whose passes
  /// tell none; `transpose` where the play ended.
  public func entries(
    records: [PassRecord], completed: Int, outcome: PlayOutcome, heard: Double, written: Int64,
    sampleRate: Int, speeds: (slowest: Speed, fastest: Speed), transpose: Double,
    ended: Date = Date()
  ) -> [PracticeEntry] {
    // A pass stopped part-way that was marked counts as played: the musician judged it
    // (`g` then `q` logs one clean pass). `records` run to the last pass ended or marked.
    let completed = max(completed, records.map(\.pass).max() ?? 0)
    // Parts in which no pass ended and none was marked give their output (and their
    // start) to the next.
    var kept: [Part] = []
    var carried: Part?
    for (index, part) in parts.enumerated() {
      let next = index + 1 < parts.count ? parts[index + 1].firstPass : Int.max
      let owns = { (pass: Int) in pass >= part.firstPass && pass < next }
      let ended = completed >= part.firstPass && next > part.firstPass
      let marked = records.contains { owns($0.pass) && $0.mark != nil }
      if index + 1 < parts.count && !ended && !marked {
        carried = carried ?? part
        continue
      }
      var taken = part
      if let carried {
        taken.outputStart = carried.outputStart
        taken.firstPass = carried.firstPass
        taken.started = carried.started
      }
      carried = nil
      kept.append(taken)
    }
    // Each kept part runs from where the one before it ended; the first from the start.
    var rows: [PracticeEntry] = []
    for (index, part) in kept.enumerated() {
      let start = part.outputStart
      let end = index + 1 < kept.count ? kept[index + 1].outputStart : written
      let next = index + 1 < kept.count ? kept[index + 1].firstPass : Int.max
      let mine = records.filter { $0.pass >= part.firstPass && $0.pass < next }
      let passes = mine.filter { $0.pass <= completed }.count
      let output = max(0, end - start)
      let share = written > 0 ? Double(output) / Double(written) : (index == kept.count - 1 ? 1 : 0)
      var slowest = speeds.slowest
      var fastest = speeds.fastest
      if kept.count > 1, let low = mine.map(\.speed.rate).min(), let high = mine.map(\.speed.rate).max() {
        slowest = Speed(clamping: low)
        fastest = Speed(clamping: high)
      }
      let last = index == kept.count - 1
      var entry = PracticeEntry(
        songID: songID, selectionID: part.part.selection?.id,
        selectionName: part.part.selection?.name, bars: part.part.bars, range: part.part.range,
        slowest: slowest, fastest: fastest, passes: kept.count == 1 ? completed : passes,
        startedAt: part.started, endedAt: last ? ended : kept[index + 1].started,
        duration: heard * share, outcome: last ? outcome : .stopped)
      entry.passRecords = mine
      entry.transpose = last ? transpose : part.transpose
      entry.played = Double(output) / Double(max(1, sampleRate))
      rows.append(entry)
    }
    return rows
  }
}
