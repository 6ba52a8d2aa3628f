import Foundation

extension BeatFiles {
  /// Formats `export` can write.
  public static let exportFormats: [BeatFileFormat] = [.times, .mirex, .audacity, .csv, .json]

  /// Writes beats as `times` (one time per line), `mirex` (`time<TAB>beat`), `audacity`
  /// (`time<TAB>time<TAB>bar.beat`), `csv` (`time,bar.beat`) or `json`. Times have 9
  /// decimals, so `Int64((time * rate).rounded())` gives each frame back exactly.
  /// `xml` and `xsc` throw a usage error, as does a sample rate below 1.
  public static func export(
    _ beats: [(frame: Int64, bar: Int, beatInBar: Int)], sampleRate: Int, format: BeatFileFormat
  ) throws -> String {
    guard exportFormats.contains(format) else {
      throw PracticeError(.usage, "export supports times, mirex, audacity, csv, json")
    }
    guard sampleRate >= 1 else {
      throw PracticeError(.usage, "cannot export beats at sample rate \(sampleRate)")
    }
    if format == .json { return JSONBeatFormat.export(beats, sampleRate: sampleRate) }
    let rate = Double(sampleRate)
    var out = ""
    out.reserveCapacity(beats.count * 32)
    for beat in beats {
      let time = String(format: "%.9f", Double(beat.frame) / rate)
      switch format {
      case .times: out += "\(time)\n"
      case .mirex: out += "\(time)\t\(beat.beatInBar)\n"
      case .audacity: out += "\(time)\t\(time)\t\(beat.bar).\(beat.beatInBar)\n"
      case .csv: out += "\(time),\(beat.bar).\(beat.beatInBar)\n"
      case .xml, .xsc, .json: break
      }
    }
    return out
  }
}
