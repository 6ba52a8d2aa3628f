import Foundation
import GRDB

/// A song's chords as stored: spans over its audio, where they came from and the key
/// detection heard.
public struct ChordTrack: Sendable, Equatable {
  public enum Source: String, Sendable { case detected, imported }

  public var spans: [ChordSpan]
  public var source: Source
  /// The key detection found; nil for an imported track or when no chord was heard.
  public var detectedKey: MusicalKey?
  /// Cents from A = 440 that detection measured; nil when not measured.
  public var tuningCents: Double?
  /// Whether the chords were decided per beat of the beat map.
  public var onBeats: Bool

  public init(
    spans: [ChordSpan], source: Source, detectedKey: MusicalKey? = nil, tuningCents: Double? = nil,
    onBeats: Bool = false
  ) {
    self.spans = spans
    self.source = source
    self.detectedKey = detectedKey
    self.tuningCents = tuningCents
    self.onBeats = onBeats
  }

  /// The chord sounding at `frame` (nil for N or outside the track).
  public func chord(at frame: Int64) -> Chord? {
    var lo = 0
    var hi = spans.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if spans[mid].end <= frame { lo = mid + 1 } else { hi = mid }
    }
    return lo < spans.count && spans[lo].start <= frame ? spans[lo].chord : nil
  }
}

extension Library {
  /// The song's chord track, or nil when it has none.
  public func chordTrack(for song: Song) throws -> ChordTrack? {
    guard let id = song.id else { return nil }
    return try read { db -> ChordTrack? in
      guard
        let row = try Row.fetchOne(
          db,
          sql: "SELECT source, detected_key, tuning_cents, on_beats FROM chord_track WHERE song_id = ?",
          arguments: [id])
      else { return nil }
      var spans: [ChordSpan] = []
      for chord in try Row.fetchAll(
        db,
        sql: "SELECT start_frame, end_frame, label FROM chord WHERE song_id = ? ORDER BY start_frame",
        arguments: [id])
      {
        let label: String = chord["label"]
        let parsed: Chord?
        do { parsed = try Chord.parseHarte(label) } catch {
          throw PracticeError(
            .badData,
            "the stored chords of song \(id) '\(song.title)' hold '\(label)', which is not a "
              + "chord label; detect or import them again")
        }
        spans.append(ChordSpan(start: chord["start_frame"], end: chord["end_frame"], chord: parsed))
      }
      return ChordTrack(
        spans: spans, source: ChordTrack.Source(rawValue: row["source"]) ?? .imported,
        detectedKey: (row["detected_key"] as String?).flatMap(MusicalKey.init(parsing:)),
        tuningCents: row["tuning_cents"], onBeats: (row["on_beats"] as Int? ?? 0) != 0)
    }
  }

  /// Replaces the song's chord track whole, in one transaction.
  public func replaceChordTrack(for song: Song, with track: ChordTrack, now: Date = Date()) throws {
    guard let id = song.id else { return }
    try write { db in
      try db.execute(sql: "DELETE FROM chord_track WHERE song_id = ?", arguments: [id])
      try db.execute(
        sql: """
          INSERT INTO chord_track (song_id, source, detected_key, tuning_cents, on_beats, updated_at)
          VALUES (?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          id, track.source.rawValue, track.detectedKey?.description, track.tuningCents,
          track.onBeats ? 1 : 0, Library.timestamp(now),
        ])
      let insert = try db.cachedStatement(
        sql: "INSERT INTO chord (song_id, start_frame, end_frame, label) VALUES (?, ?, ?, ?)")
      for span in track.spans {
        try insert.execute(arguments: [id, span.start, span.end, span.harte()])
      }
    }
  }

  /// Removes the song's chord track; false when it had none.
  @discardableResult
  public func removeChordTrack(for song: Song) throws -> Bool {
    guard let id = song.id else { return false }
    return try write { db in
      try db.execute(sql: "DELETE FROM chord_track WHERE song_id = ?", arguments: [id])
      return db.changesCount > 0
    }
  }
}

extension ChordTrack {
  /// The chord of every beat of `map`, bar by bar, each read a quarter into its beat (a
  /// change a little after the beat, in an imported track, still counts for it).
  public func chordsByBeat(of map: BeatMap) -> [(bar: Int, chords: [Chord?])] {
    map.bars.map { bar in
      (
        bar.number,
        bar.beatIndices.map { i in
          let span = map.frames(ofBeat: i)
          return chord(at: span.lowerBound + (span.upperBound - span.lowerBound) / 4)
        }
      )
    }
  }
}
