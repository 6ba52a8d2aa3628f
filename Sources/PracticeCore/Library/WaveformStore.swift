import Foundation
import GRDB

extension Library {
  /// The song's stored waveform summary if it is current: computed from the content the
  /// song has now (same content hash and length) with today's coding; nil otherwise.
  public func storedWaveformSummary(for song: Song) throws -> WaveformSummary? {
    guard let id = song.id else { return nil }
    let row = try read { db in
      try Row.fetchOne(
        db,
        sql: """
          SELECT content_hash, coding, sample_rate, frames, bin_frames, envelope
          FROM waveform_summary WHERE song_id = ?
          """, arguments: [id])
    }
    guard let row, row["content_hash"] as String == song.contentHash,
      row["coding"] as String == WaveformSummary.coding,
      row["sample_rate"] as Int == song.sampleRate, row["frames"] as Int64 == song.frames
    else { return nil }
    let envelope: Data = row["envelope"]
    return WaveformSummary(
      sampleRate: row["sample_rate"], binFrames: row["bin_frames"], frames: row["frames"],
      codes: [UInt8](envelope))
  }

  /// Stores (or replaces) the song's waveform summary.
  public func storeWaveformSummary(_ summary: WaveformSummary, for song: Song, now: Date = Date())
    throws
  {
    guard let id = song.id else { return }
    try write { db in
      try db.execute(
        sql: """
          INSERT OR REPLACE INTO waveform_summary
            (song_id, content_hash, coding, sample_rate, frames, bin_frames, envelope, computed_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          id, song.contentHash, WaveformSummary.coding, summary.sampleRate, summary.frames,
          summary.binFrames, Data(summary.codes), Library.timestamp(now),
        ])
    }
  }

  /// The song's waveform summary: the stored one if current, else computed from the file
  /// now (one read of the whole file) and, when `store`, stored. A library that cannot be
  /// written still gets its summary, computed again next time. `computed` says whether it
  /// was (a caller that did not store it stores it with `keepWaveformSummary` once its
  /// command has succeeded).
  public func waveformSummary(for song: Song, store: Bool = true) throws -> (
    summary: WaveformSummary, computed: Bool
  ) {
    if let stored = try storedWaveformSummary(for: song) { return (stored, false) }
    let file = try song.openAudio()
    let summary = try WaveformSummary.compute(from: file)
    if store { try keepWaveformSummary(summary, for: song) }
    return (summary, true)
  }

  /// Stores a computed summary, unless the library is read-only (the picture is still
  /// right, only not kept).
  public func keepWaveformSummary(_ summary: WaveformSummary, for song: Song) throws {
    do {
      try storeWaveformSummary(summary, for: song)
    } catch let error as PracticeError where error.category == .cannotCreate {
    }
  }
}
