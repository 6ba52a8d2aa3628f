import Foundation

// Written by hand rather than with JSONEncoder: for a 10,000-song library with 5 M beats,
// Foundation's encoder on Linux (a boxed value per number) took most of `export --all`'s
// time. The output is the JSON JSONEncoder wrote (sorted keys, absent optionals omitted,
// slashes unescaped), so the format is unchanged.
extension PracticeFile {
  /// The document as UTF-8 JSON with sorted keys.
  public func encoded() throws -> Data {
    var out = JSONWriter()
    out.bytes.reserveCapacity(
      4096 + songs.reduce(0) { $0 + 512 + 14 * ($1.beatMap?.frames.count ?? 0) })
    out.object { o in
      o.field("exported_at") { $0.string(exportedAt) }
      o.field("format") { $0.string(format) }
      o.field("setlists") { w in w.array(setlists) { $0.write($1) } }
      o.field("songs") { w in w.array(songs) { $0.write($1) } }
      o.field("version") { $0.int(Int64(version)) }
    }
    if let problem = out.problem {
      throw PracticeError(.other, "cannot write the .practice file: \(problem)")
    }
    return Data(out.bytes)
  }
}

extension JSONWriter {
  fileprivate mutating func write(_ song: PracticeFile.SharedSong) {
    object { o in
      o.field("album", song.album) { $0.string($1) }
      o.field("artist", song.artist) { $0.string($1) }
      o.field("beat_map", song.beatMap) { $0.write($1) }
      o.field("bpm", song.bpm) { $0.number($1) }
      o.field("chords", song.chords) { $0.write($1) }
      o.field("content_hash") { $0.string(song.contentHash) }
      o.field("duration") { $0.number(song.duration) }
      o.field("frames") { $0.int(song.frames) }
      o.field("key", song.key) { $0.string($1) }
      o.field("note", song.note) { $0.string($1) }
      o.field("ref") { $0.int(Int64(song.ref)) }
      o.field("sample_rate") { $0.int(Int64(song.sampleRate)) }
      o.field("selections") { w in w.array(song.selections) { $0.write($1) } }
      o.field("tags") { w in w.array(song.tags) { $0.string($1) } }
      o.field("title") { $0.string(song.title) }
    }
  }

  fileprivate mutating func write(_ chords: PracticeFile.SharedChords) {
    object { o in
      o.field("ends") { w in w.array(chords.ends) { $0.int($1) } }
      o.field("key", chords.key) { $0.string($1) }
      o.field("labels") { w in w.array(chords.labels) { $0.string($1) } }
      o.field("source") { $0.string(chords.source) }
      o.field("starts") { w in w.array(chords.starts) { $0.int($1) } }
    }
  }

  fileprivate mutating func write(_ map: PracticeFile.SharedBeatMap) {
    func pairs(_ w: inout JSONWriter, _ rows: [[Int]]) {
      w.array(rows) { w, row in w.array(row) { $0.int(Int64($1)) } }
    }
    object { o in
      o.field("bar_lengths", map.barLengths) { pairs(&$0, $1) }
      o.field("confidence", map.confidence) { w, values in
        w.array(values) { w, value in
          if let value { w.number(value) } else { w.null() }
        }
      }
      o.field("first_bar") { $0.int(Int64(map.firstBar)) }
      o.field("first_beat") { $0.int(Int64(map.firstBeat)) }
      o.field("frames") { w in w.array(map.frames) { $0.int($1) } }
      o.field("positions", map.positions) { pairs(&$0, $1) }
      o.field("sources") { w in
        w.array(map.sources) { w, run in
          w.bytes.append(UInt8(ascii: "["))
          w.string(run.source)
          w.bytes.append(UInt8(ascii: ","))
          w.int(Int64(run.count))
          w.bytes.append(UInt8(ascii: "]"))
        }
      }
    }
  }

  fileprivate mutating func write(_ selection: PracticeFile.SharedSelection) {
    object { o in
      o.field("bars", selection.bars) { $0.string($1) }
      o.field("end_frame", selection.endFrame) { $0.int($1) }
      o.field("name") { $0.string(selection.name) }
      o.field("note", selection.note) { $0.string($1) }
      o.field("practice", selection.practice) { $0.write($1) }
      o.field("start_frame", selection.startFrame) { $0.int($1) }
    }
  }

  fileprivate mutating func write(_ practice: PracticeFile.SharedPractice) {
    object { o in
      o.field("click", practice.click) { $0.bool($1) }
      o.field("count_in", practice.countIn) { $0.int(Int64($1)) }
      o.field("every", practice.every) { $0.int(Int64($1)) }
      o.field("gap", practice.gap) { $0.string($1) }
      o.field("goal", practice.goal) { $0.string($1) }
      o.field("passes", practice.passes) { $0.int(Int64($1)) }
      o.field("ramp_to", practice.rampTo) { $0.number($1) }
      o.field("speed", practice.speed) { $0.number($1) }
      o.field("step", practice.step) { $0.number($1) }
      o.field("transpose", practice.transpose) { $0.number($1) }
      o.field("volume", practice.volume) { $0.number($1) }
    }
  }

  fileprivate mutating func write(_ setlist: PracticeFile.SharedSetlist) {
    object { o in
      o.field("entries") { w in
        w.array(setlist.entries) { w, entry in
          w.object { o in
            o.field("key", entry.key) { $0.string($1) }
            o.field("note", entry.note) { $0.string($1) }
            o.field("repeats", entry.repeats) { $0.int(Int64($1)) }
            o.field("selection", entry.selection) { $0.string($1) }
            o.field("song") { $0.int(Int64(entry.song)) }
            o.field("speed", entry.speed) { $0.number($1) }
            o.field("transpose", entry.transpose) { $0.int(Int64($1)) }
          }
        }
      }
      o.field("name") { $0.string(setlist.name) }
    }
  }
}
