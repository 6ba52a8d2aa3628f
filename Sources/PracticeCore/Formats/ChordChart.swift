import Foundation

/// What `chords show` prints of a song's chord track: the key shown, and the chords per bar
/// (one a beat) or per change, moved by a transposition and a capo (shapes to finger).
public struct ChordChart: JSONOutput {
  public var track: ChordTrack
  public var beatMap: BeatMap?
  public var sampleRate: Int
  /// The key set with `practice set --key`; the detected key stands in without it.
  public var setKey: MusicalKey?
  public var capo: Int
  /// Semitones the chords sound moved by.
  public var transpose: Int

  public init(
    track: ChordTrack, beatMap: BeatMap?, sampleRate: Int, setKey: MusicalKey?, capo: Int,
    transpose: Int
  ) {
    self.track = track
    self.beatMap = beatMap
    self.sampleRate = sampleRate
    self.setKey = setKey
    self.capo = capo
    self.transpose = transpose
  }

  /// The song's own key: set, else detected.
  public var ownKey: MusicalKey? { setKey ?? track.detectedKey }
  /// Semitones the shown chords are moved by (the transposition less the capo).
  public var shift: Int { transpose - capo }
  public var shownKey: MusicalKey? { ownKey.map { $0.transposed(by: shift) } }
  private var flats: Bool? { Chord.prefersFlats(key: shownKey) }

  /// The key that sounds: the song's own moved by the transposition.
  public var playedKey: MusicalKey? { ownKey.map { $0.transposed(by: transpose) } }

  /// The key line as a musician reads it: the key that sounds first, then where it came
  /// from and the shapes' key under a capo. `Am (detected)`, `Bb`, `Bb — transposed -2
  /// from C (detected)`, `C (detected) — shapes in A with capo 3`, or `unknown`.
  public var keyText: String {
    guard let own = ownKey, let played = playedKey, let shown = shownKey else { return "unknown" }
    let origin = setKey == nil ? " (detected)" : ""
    var text =
      transpose == 0
      ? "\(played)\(origin)"
      : "\(played) — transposed \(String(format: "%+d", transpose)) from \(own)\(origin)"
    if capo != 0 {
      text += (transpose == 0 ? " — " : "; ") + "shapes in \(shown) with capo \(capo)"
    }
    return text
  }

  /// A chord as shown: `Am7`, `N` for no chord.
  public func symbol(_ chord: Chord?) -> String {
    chord?.transposed(by: shift).symbol(flats: flats) ?? "N"
  }

  /// Each bar with its chords one a beat, `.` where the chord stays (`Am7 . D7 .`); nil
  /// without a beat map.
  public var barRows: [(bar: Int, chords: String)]? {
    beatMap.map { map in
      track.chordsByBeat(of: map).map { ($0.bar, Chord.beatCells($0.chords.map(symbol))) }
    }
  }

  /// Each chord change: its start in seconds and its symbol.
  public var changes: [(start: Double, symbol: String)] {
    track.spans.map { (Double($0.start) / Double(sampleRate), symbol($0.chord)) }
  }

  public func write(to out: inout JSONWriter) {
    let rate = Double(sampleRate)
    func seconds(_ frame: Int64) -> Rounded { Rounded(Double(frame) / rate, 3) }
    out.object { o in
      // The keys by what they are, as the key line names them: the song's own (and where
      // it came from), the one that sounds, the one the shapes are fingered in.
      o.field("song_key", ownKey.map(ChordFiles.longName))
      let source: String? = ownKey == nil ? nil : setKey == nil ? "detected" : "set"
      o.field("key_source", source)
      o.field("sounding_key", playedKey.map(ChordFiles.longName))
      o.field("shapes_key", shownKey.map(ChordFiles.longName))
      o.field("capo", capo)
      o.field("transpose", transpose)
      if let map = beatMap {
        o.field("bars") {
          $0.array(track.chordsByBeat(of: map)) { w, bar in
            w.object { b in
              b.field("bar", bar.bar)
              b.field("start", seconds(map.frames(ofBar: bar.bar)?.lowerBound ?? 0))
              b.field("beats", bar.chords.map(symbol))
            }
          }
        }
      }
      o.field("chords") {
        $0.array(track.spans) { w, span in
          w.object { c in
            c.field("start", seconds(span.start))
            c.field("end", seconds(span.end))
            c.field("label", span.chord?.transposed(by: shift).harte(flats: flats) ?? "N")
            c.field("symbol", symbol(span.chord))
          }
        }
      }
    }
  }
}

extension Chord {
  /// A bar's chord symbols, one a beat, `.` where the chord stays: `Am7 . D7 .`.
  public static func beatCells(_ symbols: [String]) -> String {
    var cells: [String] = []
    var previous: String? = nil
    for name in symbols {
      cells.append(name == previous ? "." : name)
      previous = name
    }
    return cells.joined(separator: " ")
  }
}
