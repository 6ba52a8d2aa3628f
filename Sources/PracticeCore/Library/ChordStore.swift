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

  /// The chords as a lane draws them: each chord's frames and its symbol `semitones`
  /// higher, spelled for `key` (the song's set key; nil: the detected one) moved as far;
  /// N left out.
  public func symbols(key: MusicalKey?, transposedBy semitones: Int = 0)
    -> [(frames: Range<Int64>, symbol: String)]
  {
    let flats = Chord.prefersFlats(key: (key ?? detectedKey)?.transposed(by: semitones))
    return spans.compactMap { span in
      span.chord.map { (span.start..<span.end, $0.transposed(by: semitones).symbol(flats: flats)) }
    }
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
    return try read { db in try Library.chordTrack(songID: id, title: song.title, db) }
  }

  static func chordTrack(songID id: Int64, title: String, _ db: Database) throws -> ChordTrack? {
    guard
      let row = try Row.fetchOne(
        db,
        sql:
          "SELECT source, detected_key, tuning_cents, on_beats FROM chord_track WHERE song_id = ?",
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
          "the stored chords of song \(id) '\(title)' hold '\(label)', which is not a "
            + "chord label; detect or import them again")
      }
      spans.append(ChordSpan(start: chord["start_frame"], end: chord["end_frame"], chord: parsed))
    }
    return ChordTrack(
      spans: spans, source: ChordTrack.Source(rawValue: row["source"]) ?? .imported,
      detectedKey: (row["detected_key"] as String?).flatMap(MusicalKey.init(parsing:)),
      tuningCents: row["tuning_cents"], onBeats: (row["on_beats"] as Int? ?? 0) != 0)
  }

  /// Replaces the song's chord track whole, in one transaction.
  public func replaceChordTrack(for song: Song, with track: ChordTrack, now: Date = Date()) throws {
    guard let id = song.id else { return }
    try write { db in try Library.replaceChordTrack(songID: id, with: track, now: now, db) }
  }

  static func replaceChordTrack(
    songID id: Int64, with track: ChordTrack, now: Date, _ db: Database
  ) throws {
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

  /// Removes the song's chord track; false when it had none.
  @discardableResult
  public func removeChordTrack(for song: Song) throws -> Bool {
    guard let id = song.id else { return false }
    return try write { db in
      try db.execute(sql: "DELETE FROM chord_track WHERE song_id = ?", arguments: [id])
      return db.changesCount > 0
    }
  }

  /// A `.practice` file's chords into a found song, as its beat map is: stored when the song
  /// has none (or with `replace`), frames scaled by `scale` (another sample rate) and cut
  /// at the song's end. Returns whether they were stored.
  static func importChords(
    _ shared: PracticeFile.SharedChords, into song: Song, replace: Bool, scale: Double,
    now: Date, _ db: Database
  ) throws -> Bool {
    guard let id = song.id else { return false }
    let has =
      try Bool.fetchOne(
        db, sql: "SELECT EXISTS (SELECT 1 FROM chord_track WHERE song_id = ?)", arguments: [id])
      ?? false
    guard !has || replace else { return false }
    var spans: [ChordSpan] = []
    for span in try shared.spans() {
      let start = scale == 1 ? span.start : Int64((Double(span.start) * scale).rounded())
      let end = min(
        song.frames, scale == 1 ? span.end : Int64((Double(span.end) * scale).rounded()))
      if end > start { spans.append(ChordSpan(start: start, end: end, chord: span.chord)) }
    }
    try replaceChordTrack(
      songID: id,
      with: ChordTrack(
        spans: spans, source: ChordTrack.Source(rawValue: shared.source) ?? .imported,
        detectedKey: shared.key.flatMap(MusicalKey.init(parsing:))),
      now: now, db)
    return true
  }
}

extension PracticeFile.SharedChords {
  /// A track in a `.practice` file's columns.
  init(_ track: ChordTrack) {
    self.init(
      source: track.source.rawValue, key: track.detectedKey?.description,
      starts: track.spans.map(\.start), ends: track.spans.map(\.end),
      labels: track.spans.map { $0.harte() })
  }

  /// The spans, checked: as many starts, ends and labels, each span inside the frame limit
  /// and after the one before, every label Harte's; a `PracticeError` says what is wrong.
  func spans() throws -> [ChordSpan] {
    guard starts.count == ends.count, starts.count == labels.count else {
      throw PracticeError(
        .badData,
        "its chords have \(starts.count) starts, \(ends.count) ends and \(labels.count) labels")
    }
    var spans: [ChordSpan] = []
    for i in starts.indices {
      guard starts[i] >= (spans.last?.end ?? 0), ends[i] > starts[i], ends[i] <= Library.framesLimit
      else { throw PracticeError(.badData, "its chord \(i + 1) has impossible frames") }
      do {
        spans.append(
          ChordSpan(start: starts[i], end: ends[i], chord: try Chord.parseHarte(labels[i])))
      } catch let error as ChordLabelError {
        throw PracticeError(.badData, "its chord \(i + 1): \(error.description)")
      }
    }
    return spans
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

extension Library {
  /// The song's key: the one set (`SongDetails.key`), else the one its chord track found.
  public func ownKey(of song: Song) throws -> MusicalKey? {
    try details(of: song).key ?? chordTrack(for: song)?.detectedKey
  }

  /// `beats show`'s rows: `map`'s bars, each with its chords when the song has a chord
  /// track (spelt with flats or sharps as the song's key prefers), and whether it has one.
  public func barLines(of song: Song, map: BeatMap) throws -> (bars: [BarLine], chords: Bool) {
    let track = try chordTrack(for: song)
    let flats = Chord.prefersFlats(key: try details(of: song).key ?? track?.detectedKey)
    return (BarLine.lines(of: map, chords: track, flats: flats), track != nil)
  }

  /// Stores chords read from a file as the song's chord track (source `imported`), with the
  /// key they suggest (`KeyEstimator`); returns the chords (not `N`) and that key.
  public func importChords(_ spans: [ChordSpan], for song: Song) throws -> (
    chords: Int, key: MusicalKey?
  ) {
    let key = KeyEstimator.key(of: spans)
    try replaceChordTrack(
      for: song, with: ChordTrack(spans: spans, source: .imported, detectedKey: key))
    return (spans.filter { $0.chord != nil }.count, key)
  }
}
