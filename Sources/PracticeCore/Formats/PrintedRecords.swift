import Foundation

// The JSON shapes the CLI prints (`--json`, `--progress json`, `tune --json`), one per record.
// Each spells its keys once, in the order printed; the CLI tests compare the bytes.

/// A song as `list --json` and `show --json` print it: every key always present (absent
/// tags are `null`), keys in sorted order.
public struct SongRecord: JSONOutput {
  public var song: Song
  public var details: SongDetails
  /// The key and tempo the text shows: set, else the chords' key and the beat map's tempo.
  public var known: KeyAndTempo

  public init(_ song: Song, details: SongDetails, known: KeyAndTempo) {
    self.song = song
    self.details = details
    self.known = known
  }

  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("added_at", song.addedAt)
      o.field("album", song.album)
      o.field("artist", song.artist)
      o.field("bpm", known.bpm.map { known.bpmFromBeatMap ? ($0 * 100).rounded() / 100 : $0 })
      o.field("bpm_source", known.bpm == nil ? nil : known.bpmFromBeatMap ? "beat map" : "set")
      o.field("channels", song.channels)
      o.field("content_hash", song.contentHash)
      o.field("duration", song.duration)
      o.field("format", song.format)
      o.field("frames", song.frames)
      o.field("id", song.id ?? 0)
      o.field("key", known.key?.description)
      o.field("key_source", known.key == nil ? nil : known.keyFromChords ? "chords" : "set")
      o.field("note", details.note)
      o.field("path", song.path)
      o.field("sample_rate", song.sampleRate)
      o.field("tags", details.tags)
      o.field("title", song.title)
      o.field("updated_at", song.updatedAt)
    }
  }
}

/// A selection placed in its song (`select list`): where it plays, and whether it still fits.
public struct SelectionRecord: JSONOutput {
  public var selection: Selection
  public var song: Song
  /// Where it plays in the song's frames; nil when the beat map cannot place its bars.
  public var frames: Range<Int64>?
  /// Placed, and within the song's audio.
  public var fits: Bool

  public init(_ selection: Selection, song: Song, beatMap: BeatMap?) {
    self.selection = selection
    self.song = song
    frames = try? selection.span.frames(beatMap: beatMap)
    fits = frames.map { $0.upperBound <= song.frames } ?? false
  }

  /// "bars 9-16 (0:16.5–0:32.5)" or "0:10.0–0:20.0"; the span as typed when it does not fit.
  public var spanText: String {
    guard fits, let frames else { return "\(selection.span)" }
    let times = formatTimeRange(frames, sampleRate: song.sampleRate)
    if case .bars(let range) = selection.span { return "\(range.label) (\(times))" }
    return times
  }

  public func write(to out: inout JSONWriter) {
    let rate = Double(song.sampleRate)
    out.object { o in
      if case .bars(let range) = selection.span {
        o.field("bars", range.description)
      } else {
        o.field("bars", String?.none)
      }
      o.field("fits", fits)
      o.field("from", frames.map { Double($0.lowerBound) / rate })
      o.field("name", selection.name)
      o.field("note", selection.note)
      o.field("song", song.title)
      o.field("song_id", selection.songID)
      o.field("to", frames.map { Double($0.upperBound) / rate })
    }
  }
}

/// A setlist as `setlist list --json` prints it: what the table shows, keys in sorted order.
extension Setlist: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("created_at", createdAt)
      o.field("entries", entries.count)
      o.field("id", id)
      o.field("name", name)
      o.field("updated_at", updatedAt)
    }
  }
}

/// A play as `log --json` prints it.
extension PracticeEntry: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("id", id ?? 0)
      o.field("song_id", songID)
      o.field("song", songTitle)
      o.field("selection", selectionName)
      o.field("bars", bars)
      o.field("start_frame", range.lowerBound)
      o.field("end_frame", range.upperBound)
      o.field("speed_min", slowest.rate)
      o.field("speed_max", fastest.rate)
      o.field("transpose", transpose)
      o.field("passes", passes)
      o.field("started_at", Timestamp(startedAt))
      o.field("ended_at", Timestamp(endedAt))
      o.field("duration", Rounded(duration, 3))
      o.field("outcome", outcome.rawValue)
      o.field("played", played.map { Rounded($0, 3) })
    }
  }
}

/// One pass of a play, as `log --passes --json` prints it.
public struct PassLine: JSONOutput {
  public var entry: PracticeEntry
  public var record: PassRecord

  public init(_ entry: PracticeEntry, _ record: PassRecord) {
    self.entry = entry
    self.record = record
  }

  /// Every pass of `entries`, in order.
  public static func all(_ entries: [PracticeEntry]) -> [PassLine] {
    entries.flatMap { entry in entry.passRecords.map { PassLine(entry, $0) } }
  }

  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("log_id", entry.id ?? 0)
      o.field("song_id", entry.songID)
      o.field("song", entry.songTitle)
      o.field("selection", entry.selectionName)
      o.field("bars", entry.bars)
      o.field("started_at", Timestamp(entry.startedAt))
      o.field("pass", record.pass)
      o.field("speed", record.speed.rate)
      o.field("transpose", entry.transpose)
      o.field("mark", record.mark?.rawValue)
    }
  }
}

/// A song's or selection's sums as `stats --json` prints them.
extension PracticeTotal: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("song_id", songID)
      o.field("song", songTitle)
      o.field("selection", selectionName)
      o.field("plays", plays)
      o.field("passes", passes)
      o.field("seconds", Rounded(seconds, 3))
      o.field("fastest", fastest.rate)
      o.field("transposes", transposes)
      o.field("last_played", Timestamp(lastPlayed))
      o.field("clean_speed", cleanSpeed?.rate)
      o.field("clean_passes", cleanPasses)
      o.field("flubbed_passes", flubbedPasses)
      o.field("clean_ratio", cleanRatio.map { Rounded($0, 3) })
      o.field("goal", goal?.description)
      o.field("goal_speed", goalSpeed.map { Rounded($0, 3) })
      o.field("distance", distance.map { Rounded($0, 3) })
      o.field("goal_reached", goalReached)
      o.field("streak_days", streakDays)
    }
  }
}

/// A tuner reading as `tune --json` prints it: `{"t":1.253,"hz":82.013,"note":"E2",
/// "cents":-8.3,"level":-23.5}`; hz, note and cents null without a pitch.
public struct TunerLine: JSONOutput {
  public var reading: TunerReading
  public var a4: Double

  public init(_ reading: TunerReading, a4: Double) {
    self.reading = reading
    self.a4 = a4
  }

  public func write(to out: inout JSONWriter) {
    let pitch = reading.reading(a4: a4)
    out.object { o in
      o.field("t", Rounded(reading.time, 3))
      o.field("hz", pitch.map { Rounded($0.frequency, 3) })
      o.field("note", pitch?.note.description)
      o.field("cents", pitch.map { Rounded($0.cents, 1) })
      o.field("level", Rounded(reading.level, 1))
    }
  }
}

/// A concert-pitch estimate as `tune SONG --json` prints it: `{"a4":441.2,"cents":4.7}`.
public struct ConcertPitchLine: JSONOutput {
  public var a4: Double
  public var cents: Double

  public init(a4: Double, cents: Double) {
    self.a4 = a4
    self.cents = cents
  }

  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("a4", Rounded(a4, 2))
      o.field("cents", Rounded(cents, 1))
    }
  }
}

/// One bar of `beats show --json`: number, beats, tempo, its chords one a beat (with a chord
/// track), its lowest beat confidence and whether that is doubtful (detected maps), start.
public struct BarLine: JSONOutput {
  public var bar: Int
  public var beats: Int
  public var bpm: Double
  public var chords: [String]?
  public var confidence: Double?
  public var doubtful: Bool
  /// Seconds.
  public var start: Double

  public init(
    bar: Int, beats: Int, bpm: Double, chords: [String]?, confidence: Double?, doubtful: Bool,
    start: Double
  ) {
    self.bar = bar
    self.beats = beats
    self.bpm = bpm
    self.chords = chords
    self.confidence = confidence
    self.doubtful = doubtful
    self.start = start
  }

  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("bar", bar)
      o.field("beats", beats)
      o.field("bpm", Rounded(bpm, 2))
      o.field("chords", ifPresent: chords)
      if let confidence {
        o.field("confidence", Rounded(confidence, 2))
        o.field("doubtful", doubtful)
      }
      o.field("start", Rounded(start, 6))
    }
  }
}

extension BarLine {
  /// Every bar of `map`, with `track`'s chords one a beat (spelled with flats or sharps as
  /// `flats` says) and, in a detected map, the lowest confidence of the bar's beats.
  public static func lines(of map: BeatMap, chords track: ChordTrack?, flats: Bool?) -> [BarLine] {
    let rate = Double(map.sampleRate)
    let chords = track.map { track in
      Dictionary(track.chordsByBeat(of: map).map { ($0.bar, $0.chords) }) { a, _ in a }
    }
    return map.bars.map { bar in
      let confidence = map.lowestConfidence(ofBar: bar.number)
      return BarLine(
        bar: bar.number, beats: bar.beatIndices.count, bpm: map.tempo(ofBar: bar.number) ?? 0,
        chords: chords?[bar.number].map { $0.map { $0?.symbol(flats: flats) ?? "N" } },
        confidence: confidence,
        doubtful: confidence.map { $0 < BeatDetector.lowConfidence } ?? false,
        start: Double(map.frames(ofBar: bar.number)?.lowerBound ?? 0) / rate)
    }
  }
}

/// `--progress json`'s line as a pass starts: `{"event":"pass","pass":3,"passes":8,
/// "speed":0.8,"bar":9,"beat":1,"time":20.5}` (passes null for a loop; bar and beat null
/// without a beat map).
public struct PassEvent: JSONOutput {
  public var pass: Int
  public var passes: Int?
  public var speed: Double
  public var bar: Int?
  public var beat: Int?
  /// Seconds of the source.
  public var time: Double

  public init(pass: Int, passes: Int?, speed: Double, bar: Int?, beat: Int?, time: Double) {
    self.pass = pass
    self.passes = passes
    self.speed = speed
    self.bar = bar
    self.beat = beat
    self.time = time
  }

  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("event", "pass")
      o.field("pass", pass)
      o.field("passes", passes)
      o.field("speed", speed)
      o.field("bar", bar)
      o.field("beat", beat)
      o.field("time", Rounded(time, 6))
    }
  }
}

/// `--progress json`'s last line: where the sound stopped, and whether the play finished.
public struct StopEvent: JSONOutput {
  public var frame: Int64
  /// Seconds of the source.
  public var time: Double
  public var bar: Int?
  public var beat: Int?
  public var finished: Bool

  public init(frame: Int64, time: Double, bar: Int?, beat: Int?, finished: Bool) {
    self.frame = frame
    self.time = time
    self.bar = bar
    self.beat = beat
    self.finished = finished
  }

  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("event", "stopped")
      o.field("frame", frame)
      o.field("time", Rounded(time, 6))
      o.field("bar", bar)
      o.field("beat", beat)
      o.field("finished", finished)
    }
  }
}

/// What `render --json` prints: the file written and its exact length.
public struct RenderRecord: JSONOutput {
  public var songID: Int64?
  public var output: String
  public var frames: Int64
  public var sampleRate: Int

  public init(songID: Int64?, output: String, frames: Int64, sampleRate: Int) {
    self.songID = songID
    self.output = output
    self.frames = frames
    self.sampleRate = sampleRate
  }

  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("song_id", songID)
      o.field("output", output)
      o.field("frames", frames)
      o.field("sample_rate", sampleRate)
      o.field("seconds", Rounded(Double(frames) / Double(max(sampleRate, 1)), 6))
    }
  }
}
