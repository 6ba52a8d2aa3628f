import Foundation

/// How a song that had no beat map got one (`Library.beatMap(for:detect:…)`).
public enum BeatMapFound: Sendable {
  /// Taken from the last fetched index of the band's repository of this name.
  case repository(String)
  /// Detected now and stored.
  case detected(BeatDetection)
}

extension Library {
  /// The song's beat map. When it has none: the one of a band's repository, if its last
  /// fetched index has one; else, with `detect`, one detected now and stored as `beats
  /// detect` stores one (`starting` is called before, `progress` with 0-1 as it goes), so
  /// that a first play of bars just plays. `found` tells how a map not stored was had.
  /// Without `detect` and a map, `NoBeatMap`.
  public func beatMap(
    for song: Song, detect: Bool, starting: () -> Void = {},
    progress: (Double) -> Void = { _ in }, found: (BeatMapFound) -> Void = { _ in }
  ) throws -> BeatMap {
    if let map = try beatMap(for: song) { return map }
    if let had = beatMapFromRepositories(for: song) {
      found(.repository(had.repository))
      return had.map
    }
    guard detect else { throw NoBeatMap(song: song) }
    starting()
    let detected = try detectBeatMap(
      for: song, options: .fromEnvironment(),
      change: BeatMapChange(.replaced, "a beat map detected on first use"), progress: progress
    ).found
    found(.detected(detected))
    return detected.map
  }
}
