/// A setlist played in order: which entry is next, what each one asks of the player (a
/// `PlayRequest`, straight from the entry: no argument text), and the entries that could
/// not be played. The face plays each request, and tells the runner how it ended.
public struct SetlistRunner: Sendable {
  /// Where to go after an entry (a key, or the pause between two).
  public enum Move: Sendable, Equatable { case next, previous, quit }

  public let setlist: Setlist
  /// Bars of count-in before each entry (a setlist's own, over the selections').
  public var countIn: Int?
  /// The entry to play now (0-based); `entries.count` when the setlist is done.
  public private(set) var index: Int
  public private(set) var played = 0
  /// Entries that failed, in the order they did: their position (from 1), why, and whether
  /// they were played all the same (audio that ended early) or skipped. The setlist ends
  /// with the exit status of the first.
  public private(set) var failures: [(position: Int, failure: any PracticeFailure, played: Bool)] =
    []

  /// Why a setlist cannot start: the player words it.
  public enum Refusal: Error, Sendable, Equatable {
    case empty
    /// The position to start at, and how many entries there are.
    case noSuchPosition(Int, entries: Int)
  }

  /// Starts at `position` (from 1).
  public init(_ setlist: Setlist, from position: Int = 1, countIn: Int? = nil) throws(Refusal) {
    guard !setlist.entries.isEmpty else { throw .empty }
    guard (1...setlist.entries.count).contains(position) else {
      throw .noSuchPosition(position, entries: setlist.entries.count)
    }
    self.setlist = setlist
    self.countIn = countIn
    index = position - 1
  }

  public var entries: [SetlistEntry] { setlist.entries }
  public var isDone: Bool { index >= entries.count }
  /// The entry to play now, nil when done.
  public var current: SetlistEntry? { isDone ? nil : entries[index] }
  /// Its position, from 1.
  public var position: Int { index + 1 }

  /// What an entry asks: its selection (or the whole song), transpose, speed and repeats,
  /// and the setlist's count-in; the selection's own settings fill in the rest. Without
  /// `keys` to move on from it, an entry's loop plays as it would without the loop (a
  /// signal would stop the whole setlist, not the entry).
  public func request(for entry: SetlistEntry, keys: Bool = true) -> PlayRequest {
    var request = PlayRequest(
      part: entry.selection.map { .selection($0) } ?? .times(from: nil, to: nil))
    request.loopsUntilStopped = keys
    request.settings.transpose = entry.transpose.map(Double.init)
    request.settings.speed = entry.speed.map(Speed.init(clamping:))
    request.settings.passes = entry.repeats.map { .count($0) }
    request.settings.countIn = countIn
    return request
  }

  /// The entry now was played; `move` is where a key said to go (nil: on to the next).
  public mutating func played(move: Move?) {
    played += 1
    go(move ?? .next)
  }

  /// The entry now was played, but not as it should have been (its audio ended early):
  /// counted as played, and `failure` noted as an entry that failed.
  public mutating func played(move: Move?, despite failure: any PracticeFailure) {
    failures.append((position, failure, true))
    played(move: move)
  }

  /// The entry now was played and ended as `ending` says; `cutShort` when its audio ended
  /// early (noted as in `played(move:despite:)`). A play the player stopped with no key
  /// saying where to go ends the setlist. Returns whether the pause between two entries
  /// is due: the entry ran its course (no key moved on from it) and entries are left.
  public mutating func played(
    _ ending: PlayOutcome, move: Move?, cutShort failure: (any PracticeFailure)?
  ) -> Bool {
    let move = ending == .stopped && move == nil ? .quit : move
    if let failure { played(move: move, despite: failure) } else { played(move: move) }
    return move == nil && !isDone
  }

  /// The positions of the entries that could not be played, in the order they failed.
  public var skipped: [Int] { failures.filter { !$0.played }.map(\.position) }
  /// The positions of the entries played only to where their audio ends.
  public var cutShort: [Int] { failures.filter(\.played).map(\.position) }

  /// The entry now could not be played: noted, and the setlist goes on (or as `move` says).
  public mutating func failed(_ failure: any PracticeFailure, move: Move?) {
    failures.append((position, failure, false))
    go(move ?? .next)
  }

  /// After the pause between two entries: `previous` plays the one just played again.
  public mutating func afterPause(_ move: Move?) {
    switch move {
    case .next?, nil: break
    case .previous?: index = max(0, index - 1)
    case .quit?: index = entries.count
    }
  }

  private mutating func go(_ move: Move) {
    switch move {
    case .next: index += 1
    case .previous: index = max(0, index - 1)
    case .quit: index = entries.count
    }
  }
}
