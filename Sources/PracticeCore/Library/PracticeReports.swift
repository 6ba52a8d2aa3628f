import Foundation

/// Why a song's progress has no chart, as values for the face to word.
public enum ProgressChartGap: Error, Equatable {
  /// The log has no play of the song (since the date asked).
  case noPlays
  /// Plays, but no pass marked clean: no clean top speed to draw.
  case noCleanPass
}

extension Library {
  /// `song`'s progress chart: the clean top speed of each day of each of its selections
  /// (and of the plays of none), from the plays started since `since` (nil: all).
  /// Throws `ProgressChartGap` when there is nothing to draw.
  public func progressChart(of song: Song, since: Date?) throws -> ProgressChartContent {
    let entries = try practiceLog(of: song, since: since, passes: true)
    guard !entries.isEmpty else { throw ProgressChartGap.noPlays }
    let content = ProgressChartContent(
      title: song.title, artist: song.artist, entries: entries,
      selectionNames: try selections(of: song).map(\.name))
    guard !content.series.isEmpty else { throw ProgressChartGap.noCleanPass }
    return content
  }

  /// Stores `items` (`practiceAgenda()`), in their order, as the setlist `name`: a routine of
  /// drills, each a song's selection; one of that name is replaced.
  public func storeAgenda(_ items: [AgendaItem], as name: String, now: Date = Date()) throws {
    try storeSetlist(
      named: name,
      entries: items.compactMap { item in
        item.song.id.map { SetlistEntry(songID: $0, selection: item.selection.name) }
      }, now: now)
  }
}

/// Why a song cannot be moved to another key by naming the key, as values.
public enum KeyChangeError: Error, Equatable {
  /// The song has no key: none set, none detected.
  case songHasNoKey
  /// The song is in `own`, whose mode differs from the key asked for.
  case modesDiffer(own: MusicalKey)
}

extension Library {
  /// The transposition that plays `song` in `target`: the semitones from its own key (set,
  /// else the one its chord track found), the nearest way (-5 to +6). Throws
  /// `KeyChangeError` without a key, or when the modes differ.
  public func transposition(of song: Song, to target: MusicalKey) throws -> Int {
    guard let own = try details(of: song).key ?? chordTrack(for: song)?.detectedKey else {
      throw KeyChangeError.songHasNoKey
    }
    guard let semitones = own.semitones(to: target) else {
      throw KeyChangeError.modesDiffer(own: own)
    }
    return semitones
  }
}
