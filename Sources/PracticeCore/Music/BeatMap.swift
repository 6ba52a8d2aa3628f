/// Where a beat came from.
public enum BeatSource: String, Sendable, CaseIterable {
  case imported, grid, detected, tapped
}

/// One beat: its source frame and its place in the bar.
public struct Beat: Sendable, Equatable {
  public var frame: Int64
  /// Bar number; 0 is a pickup before the first downbeat.
  public var bar: Int
  /// Beat within the bar, from 1 (the downbeat).
  public var beat: Int
  public var source: BeatSource
  /// How sure detection was of this beat, 0-1; nil for beats not detected, and for
  /// detected beats once the map is edited (it then no longer says what was detected).
  public var confidence: Double?

  public init(frame: Int64, bar: Int, beat: Int, source: BeatSource, confidence: Double? = nil) {
    self.frame = frame
    self.bar = bar
    self.beat = beat
    self.source = source
    self.confidence = confidence
  }
}

/// A song's beats and bars (../shared/DESIGN.md, "Positions and units"): bar k spans from
/// its first beat to the first beat of bar k+1; the last bar ends one beat-length after
/// its last beat, capped at the end of the audio. Meter changes are bars with another
/// number of beats. A pure value; positions are source frames.
public struct BeatMap: Sendable, Equatable {
  public let beats: [Beat]
  /// Length of the audio, which caps the last bar.
  public let totalFrames: Int64
  public let sampleRate: Int
  /// One entry per bar, in order: the bar number and its beats' index range.
  public let bars: [Bar]

  public struct Bar: Sendable, Equatable {
    public let number: Int
    /// Indices into `beats`.
    public let beatIndices: Range<Int>
  }

  /// Checks the beats: frames strictly increasing within the audio, bars numbered
  /// consecutively (an optional pickup bar 0, then 1, 2, …), beats numbered from 1 in a
  /// bar (a pickup may start later: its beats lead into bar 1).
  public init(beats: [Beat], totalFrames: Int64, sampleRate: Int) throws {
    guard !beats.isEmpty else { throw PracticeError(.badData, "a beat map needs at least one beat") }
    var bars: [Bar] = []
    var start = 0
    for (i, beat) in beats.enumerated() {
      guard beat.frame >= 0, beat.frame < totalFrames else {
        throw PracticeError(.badData, "beat \(i + 1) lies outside the audio")
      }
      if i > 0 {
        let previous = beats[i - 1]
        guard beat.frame > previous.frame else {
          throw PracticeError(.badData, "beat \(i + 1) is not after beat \(i)")
        }
        if beat.bar != previous.bar {
          guard beat.bar == previous.bar + 1, beat.beat == 1 else {
            throw PracticeError(
              .badData, "bar \(beat.bar) follows bar \(previous.bar) or does not start on beat 1")
          }
          bars.append(Bar(number: previous.bar, beatIndices: start..<i))
          start = i
        } else if beat.beat != previous.beat + 1 {
          throw PracticeError(.badData, "beat \(beat.beat) of bar \(beat.bar) follows beat \(previous.beat)")
        }
      } else {
        guard beat.bar >= 0, beat.beat >= 1, beat.bar == 0 || beat.beat == 1 else {
          throw PracticeError(.badData, "the first beat must start bar 0 (a pickup) or a bar's beat 1")
        }
      }
    }
    bars.append(Bar(number: beats[beats.count - 1].bar, beatIndices: start..<beats.count))
    self.beats = beats
    self.totalFrames = totalFrames
    self.sampleRate = sampleRate
    self.bars = bars
  }

  /// Places beat frames into bars. `beatsInBar` gives each beat's number where the
  /// source said so (1 = downbeat); where it did not, `meter` and `bar1` (the 1-based
  /// index of the first downbeat; earlier beats form the pickup bar 0) decide.
  public static func placing(
    frames: [Int64], beatsInBar: [Int?], meter: Meter, bar1: Int, source: BeatSource,
    totalFrames: Int64, sampleRate: Int
  ) throws -> BeatMap {
    let numbered = beatsInBar.contains { $0 != nil }
    var beats: [Beat] = []
    beats.reserveCapacity(frames.count)
    if numbered {
      // Every `1` starts a bar, numbered from 1; the beats before the first `1` form the
      // pickup bar 0, counting back from the number of its last beat (or the meter's).
      guard let firstDownbeat = beatsInBar.firstIndex(of: 1) else {
        throw PracticeError(.badData, "the beat numbers contain no downbeat (1)")
      }
      let lastPickupBeat = firstDownbeat > 0 ? (beatsInBar[firstDownbeat - 1] ?? meter.beats) : 0
      if lastPickupBeat < firstDownbeat {
        throw PracticeError(
          .badData, "the \(firstDownbeat) beats before the first downbeat are numbered as fewer")
      }
      var bar = 0
      var inBar = 0
      for (i, frame) in frames.enumerated() {
        if i < firstDownbeat {
          beats.append(
            Beat(frame: frame, bar: 0, beat: lastPickupBeat - (firstDownbeat - 1 - i), source: source))
          continue
        }
        if beatsInBar[i] == 1 {
          bar += 1
          inBar = 1
        } else {
          inBar += 1
        }
        beats.append(Beat(frame: frame, bar: bar, beat: inBar, source: source))
      }
    } else {
      guard bar1 >= 1, bar1 <= frames.count else {
        throw BeatMapEditError.firstDownbeatPastBeats(bar1: bar1, beats: frames.count)
      }
      let pickup = bar1 - 1
      for (i, frame) in frames.enumerated() {
        if i < pickup {
          beats.append(Beat(frame: frame, bar: 0, beat: meter.beats - pickup + i + 1, source: source))
        } else {
          let k = i - pickup
          beats.append(Beat(frame: frame, bar: k / meter.beats + 1, beat: k % meter.beats + 1, source: source))
        }
      }
      if pickup > meter.beats {
        throw BeatMapEditError.pickupLongerThanBar(bar1: bar1, meter: meter)
      }
    }
    return try BeatMap(beats: beats, totalFrames: totalFrames, sampleRate: sampleRate)
  }

  // MARK: Bars

  public var firstBar: Int { bars[0].number }
  public var lastBar: Int { bars[bars.count - 1].number }
  /// "bars 1-32", or "bars 0-32 (0 is the pickup)".
  public var barsDescription: String {
    (firstBar == lastBar ? "bar \(firstBar)" : "bars \(firstBar)-\(lastBar)")
      + (firstBar == 0 ? " (0 is the pickup)" : "")
  }

  func bar(_ number: Int) -> Bar? {
    let index = number - firstBar
    return bars.indices.contains(index) ? bars[index] : nil
  }

  /// The frame of beat `beat` (1-based) of bar `number`.
  public func frame(bar number: Int, beat: Int = 1) -> Int64? {
    guard let bar = bar(number) else { return nil }
    let index = bar.beatIndices.lowerBound + beatOffset(in: bar, beat: beat)
    return bar.beatIndices.contains(index) ? beats[index].frame : nil
  }

  /// Where beat `beat` of the bar sits among the bar's beats (a pickup starts late).
  private func beatOffset(in bar: Bar, beat: Int) -> Int {
    beat - beats[bar.beatIndices.lowerBound].beat
  }

  /// The end (exclusive) of the beat at `index`: the next beat, or one beat-length
  /// after the last beat, capped at the end of the audio.
  func endOfBeat(at index: Int) -> Int64 {
    if index + 1 < beats.count { return beats[index + 1].frame }
    let length = index > 0 ? beats[index].frame - beats[index - 1].frame : totalFrames - beats[index].frame
    return min(totalFrames, beats[index].frame + length)
  }

  /// The index of the beat sounding at `frame`: the last beat at or before it (nil before
  /// the first beat).
  public func beatIndex(at frame: Int64) -> Int? {
    var low = 0
    var high = beats.count
    while low < high {
      let mid = (low + high) / 2
      if beats[mid].frame <= frame { low = mid + 1 } else { high = mid }
    }
    return low > 0 ? low - 1 : nil
  }

  /// Where a step of `count` beats (negative: back) from `frame` lands: the beat that
  /// many from the one sounding, held to the first and last beat. Before the first beat,
  /// one step on is the first beat and a step back is frame 0.
  public func frame(steppingBeats count: Int, from frame: Int64) -> Int64 {
    let index = beatIndex(at: frame) ?? -1
    let target = index + count
    guard target >= 0 else { return index < 0 ? 0 : beats[0].frame }
    return beats[min(target, beats.count - 1)].frame
  }

  /// Where a step of `count` bars from `frame` lands: the first beat (a pickup's too) of
  /// the bar that many from the one sounding, held to the first and last bar. Before the
  /// first beat, one step on is the first bar and a step back is frame 0.
  public func frame(steppingBars count: Int, from frame: Int64) -> Int64 {
    let target: Int
    if let index = beatIndex(at: frame) {
      target = beats[index].bar + count
    } else {
      guard count > 0 else { return 0 }
      target = firstBar + count - 1
    }
    let held = bars[min(max(firstBar, target), lastBar) - firstBar]
    return beats[held.beatIndices.lowerBound].frame
  }

  /// The frames the beat at `index` spans.
  public func frames(ofBeat index: Int) -> Range<Int64> { beats[index].frame..<endOfBeat(at: index) }

  /// The frames a bar spans, `[first beat, first beat of the next bar)`.
  public func frames(ofBar number: Int) -> Range<Int64>? {
    guard let bar = bar(number) else { return nil }
    return beats[bar.beatIndices.lowerBound].frame..<endOfBeat(at: bar.beatIndices.upperBound - 1)
  }

  /// Tempo of a bar in beats per minute, from its span and beat count.
  public func tempo(ofBar number: Int) -> Double? {
    guard let bar = bar(number), let span = frames(ofBar: number), span.count > 0 else { return nil }
    return Double(bar.beatIndices.count) * 60 * Double(sampleRate) / Double(span.count)
  }


  /// Resolves a bar range to source frames, exactly: bar A starts at its downbeat's frame.
  public func frames(of range: BarRange) throws -> Range<Int64> {
    let indices = try beatIndices(of: range)
    return beats[indices.lowerBound].frame..<endOfBeat(at: indices.upperBound)
  }

  /// Resolves bars as typed (`9-` through the last bar) to source frames; a bar or beat the
  /// map lacks is refused with the range as it was asked for.
  public func frames(of text: BarRangeText) throws -> Range<Int64> {
    do {
      return try frames(of: text.closed(lastBar: lastBar))
    } catch RangeError.barNotInSong(let bar, _, let bars) {
      throw RangeError.barNotInSong(bar: bar, range: text, bars: bars)
    } catch RangeError.beatNotInBar(let bar, let beats, _) {
      throw RangeError.beatNotInBar(bar: bar, beats: beats, range: text)
    }
  }

  /// The beats a bar range covers, first to last.
  public func beatIndices(of range: BarRange) throws -> ClosedRange<Int> {
    func check(_ position: BarPosition) throws -> Bar {
      guard let bar = bar(position.bar) else {
        throw RangeError.barNotInSong(
          bar: position.bar, range: BarRangeText(range), bars: barsDescription)
      }
      if let beat = position.beat {
        let offset = beatOffset(in: bar, beat: beat)
        guard offset >= 0, offset < bar.beatIndices.count else {
          let first = beats[bar.beatIndices.lowerBound].beat
          throw RangeError.beatNotInBar(
            bar: position.bar, beats: first...(first + bar.beatIndices.count - 1),
            range: BarRangeText(range))
        }
      }
      return bar
    }
    let startBar = try check(range.start)
    let endBar = try check(range.end)
    let startIndex = startBar.beatIndices.lowerBound + (range.start.beat.map { beatOffset(in: startBar, beat: $0) } ?? 0)
    let endIndex = endBar.beatIndices.lowerBound
      + (range.end.beat.map { beatOffset(in: endBar, beat: $0) } ?? (endBar.beatIndices.count - 1))
    guard endIndex >= startIndex, beats[startIndex].frame < endOfBeat(at: endIndex) else {
      throw RangeError.endsBeforeStart(range)
    }
    return startIndex...endIndex
  }

  /// The beat at `index` as `bar.beat`.
  public func position(ofBeat index: Int) -> BarPosition {
    BarPosition(bar: beats[index].bar, beat: beats[index].beat)
  }
}

// MARK: Edits

extension BeatMap {
  /// Every beat moved by `frames` (negative: earlier); bar numbers stay. Fails, rather
  /// than dropping beats, if one would leave the audio.
  public func shifted(byFrames frames: Int64) throws -> BeatMap {
    let moved = beats.map { Beat(frame: $0.frame + frames, bar: $0.bar, beat: $0.beat, source: $0.source) }
    let outside = moved.filter { $0.frame < 0 || $0.frame >= totalFrames }.count
    if outside > 0 {
      throw PracticeError(
        .usage,
        "that shift moves \(outside == 1 ? "1 beat" : "\(outside) beats") outside the audio; "
          + "shift less, or import the beats again")
    }
    return try BeatMap(beats: moved, totalFrames: totalFrames, sampleRate: sampleRate)
  }

  /// Bars counted again in `meter` from bar `fromBar` on (earlier bars keep theirs);
  /// with `bar1`, the whole map is counted again with the K-th beat as the first downbeat.
  public func rebarred(meter: Meter, fromBar: Int?, bar1: Int?) throws -> BeatMap {
    if let bar1 {
      return try BeatMap.placing(
        frames: beats.map(\.frame), beatsInBar: Array(repeating: nil, count: beats.count),
        meter: meter, bar1: bar1, source: beats[0].source, totalFrames: totalFrames,
        sampleRate: sampleRate)
    }
    let first = fromBar ?? max(firstBar, 1)
    guard let bar = bar(first) else {
      throw BeatMapEditError.barNotInSong(bar: first, bars: barsDescription)
    }
    let kept = Array(beats[..<bar.beatIndices.lowerBound])
    let counted = beats[bar.beatIndices.lowerBound...].enumerated().map { k, beat in
      Beat(frame: beat.frame, bar: first + k / meter.beats, beat: k % meter.beats + 1, source: beat.source)
    }
    return try BeatMap(beats: kept + counted, totalFrames: totalFrames, sampleRate: sampleRate)
  }
}
