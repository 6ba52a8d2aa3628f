extension Library {
  /// Every selection of `song` (nil: of the whole library) placed in its song, in
  /// `selections(of:)`'s order (`select list`), each with its song's beat map.
  public func placedSelections(of song: Song?) throws -> [(
    record: SelectionRecord, map: BeatMap?
  )] {
    var songs: [Int64: (song: Song, map: BeatMap?)] = [:]
    var placed: [(record: SelectionRecord, map: BeatMap?)] = []
    for selection in try selections(of: song) {
      if songs[selection.songID] == nil, let owner = try self.song(id: selection.songID) {
        songs[selection.songID] = (owner, try beatMap(for: owner))
      }
      guard let (owner, map) = songs[selection.songID] else { continue }
      placed.append((SelectionRecord(selection, song: owner, beatMap: map), map))
    }
    return placed
  }
}
