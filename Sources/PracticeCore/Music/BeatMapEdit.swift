/// What a change to a beat map does to the things stored in its bars (selections, the
/// resume point): `Library.storeBeatMap` follows this, and `undo` follows it back.
public enum BeatMapChangeKind: String, Sendable, CaseIterable {
  /// Another map (grid, import, detection, a whole song tapped): bar numbers stay as typed.
  case replaced
  /// The beats moved, the count kept (shift, nudge): a selection in bars moves with its bars.
  case moved
  /// The count changed, the beats' music kept (downbeat, meter, double, halve, a tapped
  /// span): a selection keeps its frames, and its bars are renamed to the new count.
  case recounted
}

// MARK: Fixes

/// Fixes to a wrong map, frames in, frames out, exact: every beat that is kept keeps its
/// frame; a beat put in lies at the integer midpoint `a + (b - a) / 2` of its neighbours.
/// Bars are counted again from bar lines (the index of each bar's first beat): bar 1 starts
/// at the first, the beats before it form the pickup bar 0 (a pickup as long as a bar
/// becomes whole bars first), and every bar after follows on. Edited maps carry no detection
/// confidence (it no longer says what was detected).
extension BeatMap {
  /// Each bar's line: the index of its first beat, or for a pickup that starts on a later
  /// beat, where its beat 1 would be (negative).
  var barLines: [Int] {
    bars.map { $0.beatIndices.lowerBound - (beats[$0.beatIndices.lowerBound].beat - 1) }
  }

  /// The number of the first bar that starts on its beat 1 (1, or 0 for a whole bar 0).
  var firstLineNumber: Int {
    bars.first { beats[$0.beatIndices.lowerBound].beat == 1 }?.number ?? 1
  }

  /// The bar's length as the meter has it: its beats, except that the pickup and a short
  /// last bar (cut by the end of the song) take their neighbour's.
  func nominalLength(ofBarAt position: Int) -> Int {
    let count = bars[position].beatIndices.count
    if position == 0, bars.count > 1, barLines[0] < 0 || count < bars[1].beatIndices.count {
      return max(count, bars[1].beatIndices.count)
    }
    if position == bars.count - 1, position > 0 {
      return max(count, bars[position - 1].beatIndices.count)
    }
    return count
  }

  /// The position in `bars` of the bar holding beat `index`.
  func barPosition(ofBeat index: Int) -> Int { beats[index].bar - firstBar }

  /// A map of `beats` counted from bar `lines` (indices, any order; those outside the beats
  /// are ignored): bar 1 starts at the first line, the beats before it are the pickup bar 0
  /// numbered back from the first bar's length, a pickup of a bar or more being cut into
  /// whole bars first. Confidences are dropped.
  static func counted(
    _ beats: [Beat], lines: [Int], firstNumber: Int = 1, totalFrames: Int64, sampleRate: Int
  ) throws -> BeatMap {
    let n = beats.count
    var starts = Array(Set(lines.filter { (0..<n).contains($0) })).sorted()
    if starts.isEmpty { starts = [0] }
    let first = max(1, (starts.count > 1 ? starts[1] : n) - starts[0])
    var inserted = 0
    while starts[0] >= first {
      starts.insert(starts[0] - first, at: 0)
      inserted += 1
    }
    let pickup = starts[0]
    // The first line keeps its number (0 only for a whole bar 0 with no pickup before it);
    // bars made of a long pickup come before it, from bar 1.
    let number =
      inserted == 0 ? max(pickup > 0 ? 1 : 0, firstNumber) : max(1, firstNumber - inserted)
    var out: [Beat] = []
    out.reserveCapacity(n)
    for i in 0..<pickup {
      out.append(
        Beat(frame: beats[i].frame, bar: 0, beat: first - pickup + i + 1, source: beats[i].source))
    }
    for (k, start) in starts.enumerated() {
      let end = k + 1 < starts.count ? starts[k + 1] : n
      for i in start..<end {
        out.append(
          Beat(frame: beats[i].frame, bar: number + k, beat: i - start + 1, source: beats[i].source)
        )
      }
    }
    return try BeatMap(beats: out, totalFrames: totalFrames, sampleRate: sampleRate)
  }

  /// Twice the beats in `span` (indices): a beat put in after each, half-way to the next
  /// (after the map's last beat, half its beat-length on, if that is inside the audio). The
  /// meter is kept (`recounted`): a bar of N beats doubled becomes two bars of N.
  public func doubled(beats span: ClosedRange<Int>) throws -> BeatMap {
    try checkSpan(span)
    var out: [(beat: Beat, from: Int, old: Bool)] = []
    out.reserveCapacity(beats.count + span.count)
    for i in beats.indices {
      out.append((beats[i], i, true))
      guard span.contains(i) else { continue }
      let next: Int64
      if i + 1 < beats.count {
        next = beats[i + 1].frame
      } else if i > 0 {
        next = beats[i].frame + (beats[i].frame - beats[i - 1].frame)
      } else {
        next = totalFrames
      }
      let middle = beats[i].frame + (next - beats[i].frame) / 2
      if middle > beats[i].frame && middle < totalFrames {
        out.append((Beat(frame: middle, bar: 0, beat: 1, source: beats[i].source), i, false))
      }
    }
    return try recounted(out, span: span)
  }

  /// Half the beats in `span` (indices): every other one is left out, counting from the
  /// line of the bar the span starts in (from bar 1 when it starts in the pickup), so that
  /// beat is kept as the downbeat it is. The meter is kept (`recounted`): two bars of N
  /// halved become one bar of N; in bars of an odd number of beats, the downbeat of every
  /// other bar goes, as the music then has it.
  public func halved(beats span: ClosedRange<Int>) throws -> BeatMap {
    try checkSpan(span)
    guard span.count >= 2 else {
      throw PracticeError(.usage, "halving needs at least two beats, and that span has one")
    }
    let anchor = regionStart(span) ?? barLines[barPosition(ofBeat: span.lowerBound)]
    var out: [(beat: Beat, from: Int, old: Bool)] = []
    for i in beats.indices where !span.contains(i) || (i - anchor) % 2 == 0 {
      out.append((beats[i], i, true))
    }
    guard out.count >= 2 else {
      throw PracticeError(.usage, "halving would leave \(out.count) beat; a map needs at least two")
    }
    return try recounted(out, span: span)
  }

  /// The first beat of the bars a fix of `span` counts again: the line of the bar the span
  /// starts in, or bar 1's when it starts in the pickup (whose beats are then counted back
  /// from bar 1); nil when no bar starts on its beat 1.
  private func regionStart(_ span: ClosedRange<Int>) -> Int? {
    let lines = barLines
    let line = lines[barPosition(ofBeat: span.lowerBound)]
    return line >= 0 ? line : lines.first { $0 >= 0 }
  }

  /// The map of `out` (beats, each with the index of the beat of this map it is or follows,
  /// and whether it is that beat) after a fix of `span`: the bars before the span's bar and
  /// from the first bar line after the span keep their lines; between, the count goes on
  /// beat by beat, a bar line every N beats, N being the length of the bar each beat came
  /// from (so whole bars give whole bars, and a span that is not whole bars leaves a shorter
  /// bar before the first line after it).
  private func recounted(
    _ out: [(beat: Beat, from: Int, old: Bool)], span: ClosedRange<Int>
  ) throws -> BeatMap {
    let lines = barLines
    var isLine = [Bool](repeating: false, count: beats.count)
    for line in lines where line >= 0 { isLine[line] = true }
    let start = regionStart(span) ?? beats.count
    let end = lines.first { $0 > span.upperBound } ?? beats.count
    var newLines: [Int] = []
    var count = 0
    for (k, item) in out.enumerated() {
      if item.from >= start && item.from < end {
        if count == 0 { newLines.append(k) }
        count += 1
        if count >= nominalLength(ofBarAt: barPosition(ofBeat: item.from)) { count = 0 }
      } else if item.old && isLine[item.from] {
        newLines.append(k)
      }
    }
    return try BeatMap.counted(
      out.map(\.beat), lines: newLines, firstNumber: firstLineNumber, totalFrames: totalFrames,
      sampleRate: sampleRate)
  }

  /// The beat at `index` starts a bar, and every bar line moves with it by the same number
  /// of beats, before it too (the bars keep their lengths; a pickup becomes bar 0 where the
  /// beats before the first line are fewer than a bar). Nil when it is a downbeat already.
  public func withDownbeat(atBeat index: Int) throws -> BeatMap? {
    guard beats.indices.contains(index) else {
      throw PracticeError(
        .usage, "beat \(index + 1) is not in the map; it has \(beats.count) beats")
    }
    if beats[index].beat == 1 { return nil }
    var lines = barLines
    let offset = index - lines[barPosition(ofBeat: index)]
    // Lines before the first, a bar of the first full bar's length apart, so the beats that
    // come before the moved first line are counted in bars too.
    let length = nominalLength(ofBarAt: lines[0] < 0 && bars.count > 1 ? 1 : 0)
    while lines[0] + offset > 0 { lines.insert(lines[0] - max(1, length), at: 0) }
    return try BeatMap.counted(
      beats, lines: lines.map { $0 + offset }, firstNumber: firstLineNumber,
      totalFrames: totalFrames, sampleRate: sampleRate)
  }

  /// The map with the span `tapped` covers replaced by its beats, the rest kept: the beats
  /// of this map within half a tapped beat of the first and last tap go. Bars in the span
  /// come from the tapped downbeats when some were tapped; otherwise the count before the
  /// span goes on through it in `meter` (else the bar before it), or, with no bar before,
  /// counts back from the first bar after. The bars after the span keep their lines.
  public func replacingSpan(
    withTapped tapped: BeatMap, downbeatsTapped: Bool, meter: Meter?
  ) throws -> BeatMap {
    let t = tapped.beats
    guard t.count >= 2 else {
      throw PracticeError(.usage, "a tapped span needs at least two beats")
    }
    let low = t[0].frame - (t[1].frame - t[0].frame) / 2
    let high = t[t.count - 1].frame + (t[t.count - 1].frame - t[t.count - 2].frame) / 2
    let lines = barLines
    let before = 0..<(beats.firstIndex { $0.frame >= low } ?? beats.count)
    let after = (beats.firstIndex { $0.frame > high } ?? beats.count)..<beats.count
    var out = Array(beats[before])
    let spanStart = out.count
    out += t
    let spanEnd = out.count
    out += beats[after]
    var newLines = lines.filter { before.contains($0) }
    let afterLines = lines.filter { after.contains($0) }.map { spanEnd + $0 - after.lowerBound }
    if downbeatsTapped {
      newLines += tapped.barLines.filter { $0 >= 0 }.map { spanStart + $0 }
    } else {
      var length = meter?.beats ?? 4
      if meter == nil {
        if let last = before.last {
          length = nominalLength(ofBarAt: barPosition(ofBeat: last))
        } else if let first = after.first {
          length = nominalLength(ofBarAt: barPosition(ofBeat: first))
        }
      }
      length = max(1, length)
      if let last = newLines.last {
        var at = last + length
        while at < spanEnd {
          newLines.append(at)
          at += length
        }
      } else if let next = afterLines.first {
        var at = next - length
        while at >= 0 {
          newLines.append(at)
          at -= length
        }
      } else {
        var at = spanStart
        while at < spanEnd {
          newLines.append(at)
          at += length
        }
      }
    }
    return try BeatMap.counted(
      out, lines: newLines + afterLines, firstNumber: firstLineNumber, totalFrames: totalFrames,
      sampleRate: sampleRate)
  }

  private func checkSpan(_ span: ClosedRange<Int>) throws {
    guard span.lowerBound >= 0, span.upperBound < beats.count else {
      throw PracticeError(.usage, "that span is outside the map's \(beats.count) beats")
    }
  }

  // MARK: Finding beats

  /// The beats from `start` (inclusive) to `end` (exclusive), nil for the map's ends; nil
  /// when no beat lies between.
  public func beatIndices(from start: Int64?, to end: Int64?) -> ClosedRange<Int>? {
    let first = beats.firstIndex { $0.frame >= (start ?? Int64.min) }
    let last = beats.lastIndex { $0.frame < (end ?? Int64.max) }
    guard let first, let last, first <= last else { return nil }
    return first...last
  }

  /// The beat nearest `frame` (the earlier of two as near).
  public func nearestBeat(to frame: Int64) -> Int {
    guard let index = beatIndex(at: frame) else { return 0 }
    guard index + 1 < beats.count else { return index }
    return frame - beats[index].frame <= beats[index + 1].frame - frame ? index : index + 1
  }

  /// The length of the beat at `index`: to the next beat, or from the one before for the
  /// last.
  public func beatLength(at index: Int) -> Int64 {
    if index + 1 < beats.count { return beats[index + 1].frame - beats[index].frame }
    return index > 0
      ? beats[index].frame - beats[index - 1].frame : totalFrames - beats[index].frame
  }

  // MARK: Renaming bars

  /// The bars of this map that cover `frames` (found in another count of the same beats):
  /// whole bars when the frames start and end on bar lines, else `bar.beat` at both ends.
  /// Edges that fall between beats go to the nearest beat. Nil for a map without beats.
  public func barRange(covering frames: Range<Int64>) -> BarRange? {
    guard !beats.isEmpty else { return nil }
    let first = nearestBeat(to: frames.lowerBound)
    // The beat whose end lies nearest the range's end.
    var last = first
    var best = Int64.max
    let around = beatIndex(at: frames.upperBound) ?? 0
    for j in max(first, around - 2)...min(beats.count - 1, max(first, around + 1)) {
      let distance = abs(endOfBeat(at: j) - frames.upperBound)
      if distance < best {
        best = distance
        last = j
      }
    }
    let whole =
      bars[barPosition(ofBeat: first)].beatIndices.lowerBound == first
      && bars[barPosition(ofBeat: last)].beatIndices.upperBound - 1 == last
    let start = BarPosition(bar: beats[first].bar, beat: whole ? nil : beats[first].beat)
    let end = BarPosition(bar: beats[last].bar, beat: whole ? nil : beats[last].beat)
    return BarRange(start: start, end: end)
  }
}

extension BarRange {
  /// Where a range stored in bars stands after the map changed from `old` to `new` by a
  /// change of `kind`: after a recount, the bars that cover the frames it covered in `old`;
  /// otherwise the same bars (they moved with the beats). Nil when it is unchanged (its bars
  /// cover the same frames in both), or cannot be placed in `old`.
  public func following(from old: BeatMap, to new: BeatMap, kind: BeatMapChangeKind) -> BarRange? {
    guard kind == .recounted, let frames = try? old.frames(of: self),
      (try? new.frames(of: self)) != frames, let renamed = new.barRange(covering: frames)
    else { return nil }
    return renamed
  }
}

/// One fix to a wrong map, as the `beats` commands and the player's keys ask for it:
/// positions are source frames, resolved against the map when it is applied.
public enum BeatMapFix: Sendable, Equatable {
  /// Every beat moved by this many frames (negative: earlier).
  case shift(frames: Int64)
  /// Twice / half the beats from `from` (inclusive) to `to` (exclusive); nil: the map's ends.
  case double(from: Int64?, to: Int64?)
  case halve(from: Int64?, to: Int64?)
  /// The beat nearest `near` starts a bar; it must lie within `within` of a beat-length of
  /// it (0.5 takes the nearest whatever the distance).
  case downbeat(near: Int64, within: Double)

  public var kind: BeatMapChangeKind {
    if case .shift = self { return .moved }
    return .recounted
  }

  /// The fixed map; nil when the fix changes nothing (the beat is a downbeat already).
  public func applied(to map: BeatMap) throws -> BeatMap? {
    let rate = Double(map.sampleRate)
    func span(_ from: Int64?, _ to: Int64?) throws -> ClosedRange<Int> {
      guard let span = map.beatIndices(from: from, to: to) else {
        let first = formatTime(Double(map.beats[0].frame) / rate)
        let last = formatTime(Double(map.beats[map.beats.count - 1].frame) / rate)
        let asked =
          "\(from.map { formatTime(Double($0) / rate) } ?? "the start")–\(to.map { formatTime(Double($0) / rate) } ?? "the end")"
        throw PracticeError(
          .usage, "no beat lies in \(asked); the map's beats run \(first)–\(last)")
      }
      return span
    }
    switch self {
    case .shift(let frames):
      return try map.shifted(byFrames: frames)
    case .double(let from, let to):
      return try map.doubled(beats: span(from, to))
    case .halve(let from, let to):
      return try map.halved(beats: span(from, to))
    case .downbeat(let frame, let within):
      let index = map.nearestBeat(to: frame)
      let distance = abs(map.beats[index].frame - frame)
      if Double(distance) > within * Double(map.beatLength(at: index)) {
        let beat = map.beats[index]
        throw PracticeError(
          .usage,
          "\(formatTime(Double(frame) / rate)) is \(Int((Double(distance) / rate * 1000).rounded())) ms "
            + "from the nearest beat, \(beat.bar).\(beat.beat) at "
            + "\(formatMilliseconds(Double(beat.frame) / rate)); "
            + "give the time of a beat, or its bar.beat")
      }
      return try map.withDownbeat(atBeat: index)
    }
  }
}

extension BeatMapFix {
  /// A bar starts at the beat `position` of `map` as the map counts it now (that beat
  /// exactly); nil when the map has no such beat.
  public static func downbeat(at position: BarPosition, on map: BeatMap) -> BeatMapFix? {
    map.frame(bar: position.bar, beat: position.beat ?? 1).map { .downbeat(near: $0, within: 0) }
  }

  /// A bar starts at the beat heard `seconds` into the audio: the beat within a quarter of a
  /// beat-length of it.
  public static func downbeat(atSeconds seconds: Double, sampleRate: Int) -> BeatMapFix {
    .downbeat(near: Int64((seconds * Double(sampleRate)).rounded()), within: 0.25)
  }

  /// Every beat moved by `seconds` (negative: earlier), to the nearest frame.
  public static func shift(seconds: Double, sampleRate: Int) -> BeatMapFix {
    .shift(frames: Int64((seconds * Double(sampleRate)).rounded()))
  }

  /// The frame a `downbeat` fix starts a bar near; nil for the other fixes.
  public var downbeatFrame: Int64? {
    guard case .downbeat(let near, _) = self else { return nil }
    return near
  }
}
