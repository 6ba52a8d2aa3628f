import Foundation
import GRDB

extension Library {
  /// The song's beat map, or nil if it has none.
  public func beatMap(for song: Song) throws -> BeatMap? {
    guard let id = song.id else { return nil }
    let beats = try read { db in
      try Row.fetchAll(
        db,
        sql: "SELECT frame, bar, beat, source, confidence FROM beat WHERE song_id = ? ORDER BY frame",
        arguments: [id]
      ).map { row in
        Beat(
          frame: row[0], bar: row[1], beat: row[2],
          source: BeatSource(rawValue: row[3]) ?? .imported, confidence: row[4])
      }
    }
    guard !beats.isEmpty else { return nil }
    do {
      return try BeatMap(beats: beats, totalFrames: song.frames, sampleRate: song.sampleRate)
    } catch let error as PracticeError {
      throw PracticeError(
        .badData,
        "the stored beat map of song \(id) '\(song.title)' is inconsistent (\(error.message)); "
          + "import or generate it again")
    }
  }

  /// Replaces the song's beat map in one transaction: all of the new one, or the old one.
  /// `loops` become selections in the same transaction; names the song already has are
  /// kept as they are and returned.
  @discardableResult
  public func replaceBeatMap(
    for song: Song, with map: BeatMap, loops: [(name: String, frames: Range<Int64>)] = [],
    now: Date = Date()
  ) throws -> [String] {
    guard let id = song.id else { return [] }
    let timestamp = Library.timestamp(now)
    return try write { db in
      try db.execute(sql: "DELETE FROM beat WHERE song_id = ?", arguments: [id])
      // Multi-row inserts: one statement execution per 200 beats, not per beat.
      let batch = 200
      func statement(rows: Int) throws -> Statement {
        try db.makeStatement(
          sql: "INSERT INTO beat (song_id, frame, bar, beat, source, confidence) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
      }
      let full = try statement(rows: batch)
      var start = 0
      while start < map.beats.count {
        let rows = min(batch, map.beats.count - start)
        var values: [DatabaseValue] = []
        values.reserveCapacity(rows * 6)
        for beat in map.beats[start..<(start + rows)] {
          values.append(id.databaseValue)
          values.append(beat.frame.databaseValue)
          values.append(beat.bar.databaseValue)
          values.append(beat.beat.databaseValue)
          values.append(beat.source.rawValue.databaseValue)
          values.append(beat.confidence.databaseValue)
        }
        try (rows == batch ? full : statement(rows: rows)).execute(arguments: StatementArguments(values))
        start += rows
      }
      var kept: [String] = []
      for loop in loops {
        if try Row.fetchOne(
          db, sql: "SELECT 1 FROM selection WHERE song_id = ? AND name = ?", arguments: [id, loop.name])
          != nil
        {
          kept.append(loop.name)
          continue
        }
        var selection = Selection(
          id: nil, songID: id, name: loop.name, span: .frames(loop.frames), note: nil,
          createdAt: timestamp, updatedAt: timestamp)
        try Library.insert(&selection, db)
      }
      return kept
    }
  }
}
