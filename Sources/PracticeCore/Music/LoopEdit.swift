import Foundation

/// Which end of a loop is being moved.
public enum LoopEdge: Sendable, Equatable {
  case start, end

  public var other: LoopEdge { self == .start ? .end : .start }
}

/// Moving one end of a loop on the player screen: by beats or bars of the beat map, or by
/// tenths of a second (a beat's step) and whole seconds (a bar's) without one.
public struct LoopEdit: Sendable {
  public let beatMap: BeatMap?
  public let sampleRate: Int
  public let totalFrames: Int64

  public init(beatMap: BeatMap?, sampleRate: Int, totalFrames: Int64) {
    self.beatMap = beatMap
    self.sampleRate = sampleRate
    self.totalFrames = totalFrames
  }

  public enum Unit: Sendable { case beat, bar }

  /// `loop` with `edge` moved `count` units (negative: back), or nil when the move would
  /// leave the loop empty or reversed. The steps land on the grid: the beats (or bars'
  /// first beats) with the top and the end of the song, so an end between two beats moves
  /// to the nearer one in the direction asked.
  public func moved(_ loop: Range<Int64>, edge: LoopEdge, by count: Int, unit: Unit) -> Range<
    Int64
  >? {
    var frame = edge == .start ? loop.lowerBound : loop.upperBound
    for _ in 0..<abs(count) { frame = step(frame, forward: count > 0, unit: unit) }
    let moved = edge == .start ? (frame, loop.upperBound) : (loop.lowerBound, frame)
    guard moved.0 < moved.1 else { return nil }
    return moved.0..<moved.1
  }

  /// The next point of the grid after `frame` (or before it).
  func step(_ frame: Int64, forward: Bool, unit: Unit) -> Int64 {
    guard let map = beatMap else {
      let size = Int64(unit == .beat ? sampleRate / 10 : sampleRate)
      return min(totalFrames, max(0, frame + (forward ? size : -size)))
    }
    let points: [Int64] =
      unit == .beat
      ? map.beats.map(\.frame) : map.bars.map { map.beats[$0.beatIndices.lowerBound].frame }
    let grid = [0] + points + [totalFrames]
    if forward { return grid.first { $0 > frame } ?? totalFrames }
    return grid.last { $0 < frame } ?? 0
  }
}
