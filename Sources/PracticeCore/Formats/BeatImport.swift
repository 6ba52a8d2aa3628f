import Foundation

/// Turns a parsed beat file into a song's beat map (and its loops into selections).
public enum BeatImport {
  /// The reason of the error a file of no format that can be told gets (the face words
  /// the advice with its option).
  public static let formatUnknown = "cannot tell its format"

  /// Reads and parses `path` (format `auto` when nil) for a song of `totalFrames` at
  /// `sampleRate`. Bars come from the file when it numbers every beat (json, bar.beat
  /// labels), from its downbeats when it marks them (mirex, Transcribe! measures), else
  /// from `meter` and `bar1`.
  public static func read(
    path: String, format: BeatFileFormat?, meter: Meter, bar1: Int, totalFrames: Int64,
    sampleRate: Int
  ) throws -> (map: BeatMap, loops: [(name: String, frames: Range<Int64>)]) {
    let data: [UInt8]
    do {
      try SoundFile.checkReadable(path, wanted: "a beat file")
      data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    } catch let error as SoundFileError {
      throw PracticeError(
        error.category, "cannot read beat file '\(path)': \(error.reason); \(error.advice)")
    } catch {
      throw PracticeError(
        .missingInput, "cannot read beat file '\(path)': \(error.localizedDescription)")
    }
    guard let format = format ?? BeatFiles.detect(path: path, data: data) else {
      throw DataFileError(
        .beat, path: path, line: nil, reason: formatUnknown,
        advice: "name its format: times, mirex, audacity, csv, xml, xsc or json")
    }
    let rate = Double(sampleRate)
    let file = try BeatFiles.parse(
      data, format: format, path: path, audioDuration: Double(totalFrames) / rate)
    let frames = file.beats.map { Int64(($0.time * rate).rounded()) }
    let map: BeatMap
    do {
      if file.beats.allSatisfy({ $0.bar != nil && $0.beatInBar != nil }) {
        map = try BeatMap(
          beats: zip(frames, file.beats).map {
            Beat(frame: $0, bar: $1.bar ?? 0, beat: $1.beatInBar ?? 1, source: .imported)
          }, totalFrames: totalFrames, sampleRate: sampleRate)
      } else {
        map = try BeatMap.placing(
          frames: frames, beatsInBar: file.beats.map(\.beatInBar), meter: meter, bar1: bar1,
          source: .imported, totalFrames: totalFrames, sampleRate: sampleRate)
      }
    } catch let error as PracticeError where error.category == .badData {
      throw DataFileError(
        .beat, path: path, line: nil, reason: error.message, advice: "fix the beat file")
    }
    let loops = file.loops.compactMap { loop -> (name: String, frames: Range<Int64>)? in
      let start = Int64((loop.start * rate).rounded())
      let end = min(totalFrames, Int64((loop.end * rate).rounded()))
      // Another program's name becomes a selection's: made to follow the one text rule.
      return start < end ? (TextRule.cleaned(loop.name), start..<end) : nil
    }
    return (map, loops)
  }
}
