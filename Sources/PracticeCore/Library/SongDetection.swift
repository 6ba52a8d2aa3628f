import Foundation

/// A song without a beat map where one was needed (exit 66); the face names the commands
/// that make one.
public struct NoBeatMap: PracticeFailure, Equatable {
  public var song: Song
  public var category: FailureCategory { .missingInput }
  public var description: String {
    "'\(song.title)' has no beat map, so there are no bars to count"
  }
  public init(song: Song) { self.song = song }
}

extension Library {
  /// Detects the song's beat map and stores it, replacing the map it has (kept in the
  /// history, `change`): the detection, and what storing it did (`BeatMapStored`).
  public func detectBeatMap(
    for song: Song, options: BeatDetectionOptions,
    change: BeatMapChange = BeatMapChange(.replaced, "beats detect"),
    progress: (Double) -> Void = { _ in }
  ) throws -> (found: BeatDetection, stored: BeatMapStored) {
    let found = try BeatDetector.detect(file: song.openAudio(), options: options, progress: progress)
    return (found, try storeBeatMap(found.map, for: song, change: change))
  }

  /// Stores tapped beats (`summary` names the change): into the song's map when it has one
  /// (`BeatMap.replacingSpan`: the span from the first to the last tap replaced, the rest
  /// kept and its bars counted on through it: a recount), else as its map. The map stored,
  /// the one the song had, and what storing did.
  public func storeTapped(
    _ result: TappedBeats.Result, downbeatsTapped: Bool, meter: Meter?, for song: Song,
    summary: String
  ) throws -> (map: BeatMap, old: BeatMap?, stored: BeatMapStored) {
    guard let old = try beatMap(for: song) else {
      let change = BeatMapChange(.replaced, summary)
      return (result.map, nil, try storeBeatMap(result.map, for: song, change: change))
    }
    let map = try old.replacingSpan(
      withTapped: result.map, downbeatsTapped: downbeatsTapped, meter: meter)
    return (map, old, try storeBeatMap(map, for: song, change: BeatMapChange(.recounted, summary)))
  }

  /// Finds the song's chords and key (on its beat map's beats when it has one) and stores
  /// them, replacing the chord track it has.
  public func detectChords(
    for song: Song, settings: ChordSettings, progress: (Double) -> Void = { _ in }
  ) throws -> ChordDetection {
    let beats = try beatMap(for: song)
    let found = try ChordRecognizer.detect(
      file: song.openAudio(), beats: beats, settings: settings, progress: progress)
    try replaceChordTrack(
      for: song,
      with: ChordTrack(
        spans: found.spans, source: .detected, detectedKey: found.key,
        tuningCents: found.tuningCents, onBeats: found.onBeats))
    return found
  }
}

/// Why detecting would overwrite what a person made, refused unless asked to replace it.
public enum DetectionRefusal: Error, Equatable {
  /// The song's stored `beats` are not as detection left them (imported, tapped, grid,
  /// edited): they say what kind of map it is.
  case beatsMadeByHand(song: Song, beats: [Beat])
  /// The song's chords were imported.
  case chordsImported(song: Song)
}

extension Library {
  /// Refuses (`DetectionRefusal`) the first of `songs` whose beat map detection would
  /// overwrite unless `replace`: checked before anything is detected, so nothing is half
  /// done. The stored beats decide, not the map: one that no longer fits a changed file is
  /// still detected again (or refused) by what kind it is.
  public func checkBeatDetection(of songs: [Song], replace: Bool) throws {
    guard !replace else { return }
    for song in songs {
      if let beats = try storedBeats(for: song), !beats.areAsDetected {
        throw DetectionRefusal.beatsMadeByHand(song: song, beats: beats)
      }
    }
  }

  /// Refuses (`DetectionRefusal.beatsMadeByHand`) tapping `song`'s beats unless `replace`
  /// when its stored beats were made another way than detection or tapping (imported, a
  /// grid, an edited detected map): checked before playing, so no tapping is wasted.
  public func checkBeatTapping(of song: Song, replace: Bool) throws {
    guard !replace, let beats = try storedBeats(for: song) else { return }
    if !(beats.contains { $0.source == .tapped } || beats.areAsDetected) {
      throw DetectionRefusal.beatsMadeByHand(song: song, beats: beats)
    }
  }

  /// Refuses (`DetectionRefusal`) the first of `songs` whose imported chords detection
  /// would overwrite unless `replace`.
  public func checkChordDetection(of songs: [Song], replace: Bool) throws {
    guard !replace else { return }
    for song in songs {
      if let track = try chordTrack(for: song), track.source == .imported {
        throw DetectionRefusal.chordsImported(song: song)
      }
    }
  }
}
