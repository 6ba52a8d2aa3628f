/// A selection in bars that its song's beat map leaves without its passage: its bars are not
/// (all) in the map, or a change of the map made them play other music. A selection in bars
/// follows the map on purpose; this is what the face warns of, with how to get the passage
/// back.
public struct SelectionUpset: Sendable, Equatable {
  public enum Why: Sendable, Equatable {
    /// Its bars are not in the map, or not within the audio (or the song has no map).
    case noLongerFits
    /// Its start or end moved by half a beat or more: it played `old`, it plays `new`.
    case moved(old: Range<Int64>, new: Range<Int64>)
  }
  public var selection: Selection
  /// Its bars, as stored.
  public var range: BarRange
  public var why: Why

  /// The selections in bars, of `song`, that `map` leaves without their passage, in the
  /// order given. With `before` (the map `map` replaced or moved; nil after a recount, which
  /// renames bars to keep their music), those that fit both maps but whose start or end
  /// moved by half a beat of `map` (its median beat) or more are told too.
  public static func under(
    _ map: BeatMap?, before: BeatMap?, selections: [Selection], song: Song
  ) -> [SelectionUpset] {
    var upset: [SelectionUpset] = []
    var halfBeat: Int64 = 1
    if let map {
      let intervals = zip(map.beats.dropFirst(), map.beats).map { $0.frame - $1.frame }.sorted()
      halfBeat = max(1, intervals.isEmpty ? 0 : intervals[intervals.count / 2] / 2)
    }
    for selection in selections {
      guard case .bars(let range) = selection.span else { continue }
      guard selection.span.fits(beatMap: map, totalFrames: song.frames) else {
        upset.append(SelectionUpset(selection: selection, range: range, why: .noLongerFits))
        continue
      }
      // One that did not fit before had no passage to keep.
      guard let before, let old = try? selection.span.frames(beatMap: before),
        let new = try? selection.span.frames(beatMap: map),
        abs(new.lowerBound - old.lowerBound) >= halfBeat
          || abs(new.upperBound - old.upperBound) >= halfBeat
      else { continue }
      upset.append(SelectionUpset(selection: selection, range: range, why: .moved(old: old, new: new)))
    }
    return upset
  }
}

extension Library {
  /// The song's selections in bars that `map` (its map now) leaves without their passage
  /// (`SelectionUpset.under`), in song order; moves are told against `before`.
  public func selectionsUpset(
    of song: Song, by map: BeatMap?, before: BeatMap? = nil
  ) throws -> [SelectionUpset] {
    SelectionUpset.under(map, before: before, selections: try selections(of: song), song: song)
  }
}
