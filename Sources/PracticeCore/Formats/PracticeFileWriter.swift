import Foundation

// Written by hand rather than with JSONEncoder: for a 10,000-song library with 5 M beats,
// Foundation's encoder on Linux (a boxed value per number) took most of `export --all`'s
// time. The output is the JSON JSONEncoder wrote (sorted keys, absent optionals omitted,
// slashes unescaped), so the format is unchanged.
extension PracticeFile: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("exported_at", exportedAt)
      o.field("format", format)
      o.field("setlists", setlists)
      o.field("songs", songs)
      o.field("version", version)
    }
  }

  /// The document as UTF-8 JSON with sorted keys.
  public func encoded() throws -> Data {
    var out = JSONWriter()
    out.bytes.reserveCapacity(
      4096 + songs.reduce(0) { $0 + 512 + 14 * ($1.beatMap?.frames.count ?? 0) })
    write(to: &out)
    if let problem = out.problem {
      throw PracticeError(.other, "cannot write the .practice file: \(problem)")
    }
    return Data(out.bytes)
  }
}

extension PracticeFile.SharedSong: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("album", ifPresent: album)
      o.field("artist", ifPresent: artist)
      o.field("beat_map", ifPresent: beatMap)
      o.field("bpm", ifPresent: bpm)
      o.field("chords", ifPresent: chords)
      o.field("content_hash", contentHash)
      o.field("duration", duration)
      o.field("frames", frames)
      o.field("key", ifPresent: key)
      o.field("note", ifPresent: note)
      o.field("ref", ref)
      o.field("sample_rate", sampleRate)
      o.field("selections", selections)
      o.field("tags", tags)
      o.field("title", title)
    }
  }
}

extension PracticeFile.SharedChords: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("ends", ends)
      o.field("key", ifPresent: key)
      o.field("labels", labels)
      o.field("source", source)
      o.field("starts", starts)
    }
  }
}

extension PracticeFile.SharedBeatMap: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("bar_lengths", ifPresent: barLengths)
      o.field("confidence", ifPresent: confidence)
      o.field("first_bar", firstBar)
      o.field("first_beat", firstBeat)
      o.field("frames", frames)
      o.field("positions", ifPresent: positions)
      o.field("sources", sources)
    }
  }
}

/// `["detected",412]`.
extension PracticeFile.SourceRun: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.bytes.append(UInt8(ascii: "["))
    out.string(source)
    out.bytes.append(UInt8(ascii: ","))
    out.int(Int64(count))
    out.bytes.append(UInt8(ascii: "]"))
  }
}

extension PracticeFile.SharedSelection: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("bars", ifPresent: bars)
      o.field("end_frame", ifPresent: endFrame)
      o.field("name", name)
      o.field("note", ifPresent: note)
      o.field("practice", ifPresent: practice)
      o.field("start_frame", ifPresent: startFrame)
    }
  }
}

extension PracticeFile.SharedPractice: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("click", ifPresent: click)
      o.field("count_in", ifPresent: countIn)
      o.field("every", ifPresent: every)
      o.field("gap", ifPresent: gap)
      o.field("goal", ifPresent: goal)
      o.field("passes", ifPresent: passes)
      o.field("ramp_to", ifPresent: rampTo)
      o.field("speed", ifPresent: speed)
      o.field("step", ifPresent: step)
      o.field("transpose", ifPresent: transpose)
      o.field("volume", ifPresent: volume)
    }
  }
}

extension PracticeFile.SharedSetlist: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("entries", entries)
      o.field("name", name)
    }
  }
}

extension PracticeFile.SharedEntry: JSONOutput {
  public func write(to out: inout JSONWriter) {
    out.object { o in
      o.field("key", ifPresent: key)
      o.field("note", ifPresent: note)
      o.field("repeats", ifPresent: repeats)
      o.field("selection", ifPresent: selection)
      o.field("song", song)
      o.field("speed", ifPresent: speed)
      o.field("transpose", ifPresent: transpose)
    }
  }
}
