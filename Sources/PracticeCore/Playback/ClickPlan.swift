/// Where clicks sound, in output frames: a count-in before the first pass, and (with
/// `--click`) every beat of the beat map inside the range, every pass. Computed from the
/// beat map and the speed; the engine mixes them after the stretcher.
public struct ClickPlan: Sendable, Equatable {
  public struct Click: Sendable, Equatable {
    /// Output frame, from the start of the count-in (count-in clicks) or of a pass (beats).
    public var frame: Int64
    /// Downbeats are accented.
    public var accent: Bool
  }

  /// Count-in clicks, from output frame 0.
  public var countIn: [Click]
  /// Output frames of count-in before the first pass starts.
  public var countInFrames: Int64
  /// Beat clicks of one pass in *source* frames from the range start (the engine places
  /// them at the speed each is fed at).
  public var beats: [Click]
  /// Whether the beat clicks sound (`--click`); a live player can switch them on later.
  /// The count-in sounds either way.
  public var enabled: Bool
  /// The same followed by the beats of the gap bars after a pass (`--gap Nbar`).
  public var beatsWithGap: [Click]
  public var volume: Volume

  /// Builds the clicks for `range` of `beatMap` heard at `speed`: `countInBars` bars at the
  /// tempo and meter of the bar the range starts in, and every beat in the range if `click`.
  public init(
    beatMap: BeatMap, range: Range<Int64>, speed: Speed, countInBars: Int, click: Bool,
    gapBars: Int = 0, volume: Volume
  ) {
    let ratio = speed.timeRatio
    self.volume = volume
    enabled = click
    beats = beatMap.beats.filter { range.contains($0.frame) }.map {
      Click(frame: $0.frame - range.lowerBound, accent: $0.beat == 1)
    }
    // The bar the range starts in: its beat length and count set the count-in.
    let startBar = beatMap.bars.last { bar in beatMap.beats[bar.beatIndices.lowerBound].frame <= range.lowerBound }
      ?? beatMap.bars[0]
    let span = beatMap.frames(ofBar: startBar.number) ?? range
    let beatsPerBar = max(1, startBar.beatIndices.count)
    let beatFrames = Double(span.count) / Double(beatsPerBar) * ratio
    countIn = (0..<(countInBars * beatsPerBar)).map {
      Click(frame: Int64((Double($0) * beatFrames).rounded()), accent: $0 % beatsPerBar == 0)
    }
    countInFrames = Int64((Double(countInBars * beatsPerBar) * beatFrames).rounded())
    // Gap bars are counted like the first bar, in source frames after the range.
    let sourceBeat = Double(span.count) / Double(beatsPerBar)
    let rangeFrames = range.upperBound - range.lowerBound
    beatsWithGap =
      beats
      + (0..<(gapBars * beatsPerBar)).map {
        Click(frame: rangeFrames + Int64((Double($0) * sourceBeat).rounded()), accent: $0 % beatsPerBar == 0)
      }
  }

  /// Source frames of one bar where the range starts: the length of a `--gap 1bar`.
  public static func barFrames(beatMap: BeatMap, range: Range<Int64>) -> Int64 {
    let startBar = beatMap.bars.last { bar in beatMap.beats[bar.beatIndices.lowerBound].frame <= range.lowerBound }
      ?? beatMap.bars[0]
    return Int64(beatMap.frames(ofBar: startBar.number)?.count ?? 0)
  }
}
