import Foundation

/// What `practice show` prints of a song, one `key value` line a field: what the library
/// knows of its file, where `play --resume` continues, and its details (`set` prints those).
extension Library {
  /// Every field, in the order printed; `resume` only once the song was played (an empty
  /// one read as "resumes from nowhere").
  public func summary(of song: Song) throws -> [(key: String, value: String)] {
    let resume = try resumePoint(of: song).map { [("resume", resumeSummary($0, of: song))] } ?? []
    return [
      ("id", "\(song.id ?? 0)"), ("title", song.title), ("artist", song.artist ?? ""),
      ("album", song.album ?? ""), ("path", song.path),
      ("duration", formatTime(song.duration)), ("frames", "\(song.frames)"),
      ("sample_rate", "\(song.sampleRate)"), ("channels", "\(song.channels)"),
      ("format", song.format), ("content_hash", song.contentHash),
      ("added_at", formatLocalTime(stamp: song.addedAt)),
      ("updated_at", formatLocalTime(stamp: song.updatedAt)),
    ] + resume + (try detailFields(of: song, details: try details(of: song)))
  }

  /// `key Am` (or `key Am (chords)`), `bpm 96` (or `bpm 95.8 (beat map)`), `note …`,
  /// `tags gig, jazz`.
  public func detailFields(of song: Song, details: SongDetails) throws
    -> [(key: String, value: String)]
  {
    let known = try keyAndTempo(of: song)
    return [
      ("key", known.keyText + (known.keyFromChords ? " (chords)" : "")),
      ("bpm", known.bpmText + (known.bpmFromBeatMap ? " (beat map)" : "")),
      ("note", details.note ?? ""),
      ("tags", details.tags.joined(separator: ", ")),
    ]
  }

  /// Where a resumed play continues: `0:41.2 (bar 12.3) in bars 9-16, 3 passes left, speed
  /// 75%, transpose -2, volume 80%`; a play that ran to its end: `… (finished: from its
  /// start), …`.
  public func resumeSummary(_ point: ResumePoint, of song: Song) -> String {
    let rate = Double(song.sampleRate)
    let frame = point.startFrame(in: point.range)
    var place = formatTime(Double(frame) / rate)
    if let map = try? beatMap(for: song), let index = map.beatIndex(at: frame) {
      place += " (bar \(map.beats[index].bar).\(map.beats[index].beat))"
    }
    let loop = point.label ?? formatTimeRange(point.range, sampleRate: song.sampleRate)
    let left = point.finished ? "" : " left"
    let passes =
      point.passesLeft.map { $0 == 1 ? "1 pass\(left)" : "\($0) passes\(left)" } ?? "looped"
    return "\(place) in \(loop)\(point.finished ? " (finished: from its start)" : ""), \(passes), "
      + "speed \(point.speed), transpose \(PracticeSettings.formatSemitones(point.transpose)), "
      + "volume \(point.volume)"
  }
}

/// `96`, `95.5`: a number without a needless fraction.
public func formatNumber(_ value: Double) -> String {
  value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
}
