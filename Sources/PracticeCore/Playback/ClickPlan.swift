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

  /// Builds the clicks for `range` of `beatMap` heard at `speed`: `countInBars` bars
  /// counted up to the range's start (`Counting`), and every beat in the range if `click`.
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
    let counting = Counting(beatMap: beatMap, range: range)
    let perBar = counting.beatsPerBar
    let clicks = countInBars > 0 ? countInBars * perBar + counting.beatsBefore : 0
    let beatFrames = counting.beatFrames * ratio
    countIn = (0..<clicks).map {
      Click(frame: Int64((Double($0) * beatFrames).rounded()), accent: $0 % perBar == 0)
    }
    countInFrames = Int64((Double(clicks) * beatFrames).rounded())
    // Gap bars are counted like the first bar, in source frames after the range.
    let rangeFrames = range.upperBound - range.lowerBound
    beatsWithGap =
      beats
      + (0..<(gapBars * perBar)).map {
        Click(frame: rangeFrames + Int64((Double($0) * counting.beatFrames).rounded()), accent: $0 % perBar == 0)
      }
  }

  /// Source frames of one bar where the range starts: the length of a `--gap 1bar`.
  public static func barFrames(beatMap: BeatMap, range: Range<Int64>) -> Int64 {
    let counting = Counting(beatMap: beatMap, range: range)
    return Int64((Double(counting.beatsPerBar) * counting.beatFrames).rounded())
  }

  /// How a count-in counts into `range`: whole bars of the meter, then the beats of the
  /// range's first bar before its start, so the music comes in on its own beat (a pickup
  /// on beat 4 hears 1 2 3 4, 1 2 3; bars 9.3-12 hear 1 2 3 4, 1 2). The tempo is that of
  /// the bar the range starts in.
  struct Counting {
    /// Beats of a bar: the start bar's, or for a pickup the bar's after it.
    var beatsPerBar: Int
    /// One beat in source frames.
    var beatFrames: Double
    /// Beats of the start bar before the range's start (0 unless it starts on a beat).
    var beatsBefore: Int

    init(beatMap: BeatMap, range: Range<Int64>) {
      // The beat sounding at the start (the first, before it) and its bar.
      let index = beatMap.beatIndex(at: range.lowerBound)
      let startBar = index.flatMap { beatMap.bar(beatMap.beats[$0].bar) } ?? beatMap.bars[0]
      let span = beatMap.frames(ofBar: startBar.number) ?? range
      let count = max(1, startBar.beatIndices.count)
      beatFrames = Double(span.count) / Double(count)
      if startBar.number == 0, let next = beatMap.bar(1) {
        beatsPerBar = max(1, next.beatIndices.count)
      } else {
        beatsPerBar = count
      }
      if let index, beatMap.beats[index].frame == range.lowerBound {
        beatsBefore = min(max(0, beatMap.beats[index].beat - 1), beatsPerBar - 1)
      } else {
        beatsBefore = 0
      }
    }
  }
}
