import Foundation

/// The part of a song an overview shows: bars of its beat map, or times.
public enum OverviewWindow: Sendable, Equatable {
  /// Bars of the beat map (an open range runs to the last bar).
  case bars(BarRangeText)
  /// From and to, in seconds; nil: the start or the end of the audio.
  case times(from: Double?, to: Double?)

  /// The source frames in view, checked against the song's audio and beat map (a bar range
  /// needs one: the caller says what to do without it).
  public func frames(of song: Song, beatMap: BeatMap?) throws -> Range<Int64> {
    switch self {
    case .bars(let range):
      guard let beatMap else {
        throw PracticeError(.missingInput, "the song has no beat map, so there are no bars")
      }
      return try beatMap.frames(of: range)
    case .times(let from, let to):
      return try resolveTimeRange(
        from: from, to: to, sampleRate: song.sampleRate, frames: song.frames)
    }
  }
}

/// A song's selections placed for an overview, each in its palette colour (its place among
/// the song's selections); a selection that no longer fits (bars the map has lost, or no
/// map any more) is left out, with why.
public struct OverviewSpans: Sendable {
  public var spans: [OverviewContent.Span] = []
  public var undrawn: [(selection: Selection, failure: any PracticeFailure)] = []

  public init(_ selections: [Selection], beatMap: BeatMap?) {
    for (index, selection) in selections.enumerated() {
      do {
        let frames = try selection.span.frames(beatMap: beatMap)
        spans.append(.init(name: selection.name, frames: frames, colour: index))
      } catch let failure as any PracticeFailure {
        undrawn.append((selection, failure))
      } catch {
        undrawn.append((selection, PracticeError(.other, "\(error)")))
      }
    }
  }
}

extension OverviewContent {
  /// The same content with its texts (title, artist, selection names) passed through
  /// `escape`, so that a terminal layout counts the columns they will take when printed.
  public func escaped(_ escape: (String) -> String) -> OverviewContent {
    var content = self
    content.title = escape(title)
    content.artist = artist.map(escape)
    content.selections = selections.map {
      .init(name: escape($0.name), frames: $0.frames, colour: $0.colour)
    }
    return content
  }
}

extension Library {
  /// What `view` draws of `song`: its envelope (`summary`), beat map, the selections in
  /// `spans`, the frames in `window`, and its chords as they change, spelled for the song's
  /// set key (else the detected one).
  public func overviewContent(
    of song: Song, summary: WaveformSummary, beatMap: BeatMap?, spans: [OverviewContent.Span],
    window: Range<Int64>
  ) throws -> OverviewContent {
    let chords = try chordTrack(for: song).map { try $0.symbols(key: details(of: song).key) }
    return OverviewContent(
      title: song.title, artist: song.artist, summary: summary, beatMap: beatMap,
      selections: spans, window: window, chords: chords ?? [])
  }

  /// The song's selections as the player draws them, placed as `view` places them
  /// (`OverviewSpans`); one that cannot be placed, or a library that cannot say, is left out.
  public func playerSpans(of song: Song, beatMap: BeatMap?) -> [OverviewContent.Span] {
    OverviewSpans((try? selections(of: song)) ?? [], beatMap: beatMap).spans
  }

  /// What the player screen shows of `song` when a play starts: the whole song's envelope
  /// (its waveform summary, computed and kept when the library has none), `beatMap`, the
  /// selections (`playerSpans`), and its chord track with the song's set key (nil: the
  /// detected one) for the chord lane. A library that cannot say the chords costs only the
  /// lane. Texts as stored: the face escapes them (`OverviewContent.escaped`).
  public func playerContent(of song: Song, beatMap: BeatMap?) throws -> (
    content: OverviewContent, chords: (track: ChordTrack, key: MusicalKey?)?
  ) {
    let content = OverviewContent(
      title: song.title, artist: song.artist, summary: try waveformSummary(for: song).summary,
      beatMap: beatMap, selections: playerSpans(of: song, beatMap: beatMap),
      window: 0..<song.frames)
    let chords = (try? chordTrack(for: song)).flatMap { $0 }.map {
      (track: $0, key: (try? details(of: song).key) ?? nil)
    }
    return (content, chords)
  }
}
