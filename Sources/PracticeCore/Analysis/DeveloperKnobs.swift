import Foundation

// The developers' knobs, read from the environment (for comparison runs and training), and
// the one line a detection is summed up in.

extension BeatDetectionOptions {
  /// Options with the developers' knobs read from `environment`: `PRACTICE_BEAT_MODEL`
  /// (another `BeatModel`, for comparison; an unknown name is ignored),
  /// `PRACTICE_BEAT_FEATURES` and `PRACTICE_BEAT_OBSERVATIONS` (files to write what the
  /// beat network and the bar pointer hear, for training them), `PRACTICE_BEAT_DOUBT` (a
  /// file each detection appends its `MapDoubt` measures to, for fitting the warning),
  /// `PRACTICE_LEVEL_CHOICE` (how the song's level is questioned, `LevelChoice.Settings.parse`),
  /// `PRACTICE_DOWNBEAT_CUES` (how the bars' cues are weighed, `DownbeatFinder.Settings.parse`).
  public static func fromEnvironment(
    meter: Meter? = nil, minBPM: Double? = nil, maxBPM: Double = 220,
    model: BeatModel = .downbeats,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> BeatDetectionOptions {
    func path(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    let model = environment["PRACTICE_BEAT_MODEL"].flatMap(BeatModel.init(rawValue:)) ?? model
    var options = BeatDetectionOptions(meter: meter, minBPM: minBPM, maxBPM: maxBPM, model: model)
    options.featureDump = path("PRACTICE_BEAT_FEATURES")
    options.observationDump = path("PRACTICE_BEAT_OBSERVATIONS")
    options.doubtDump = path("PRACTICE_BEAT_DOUBT")
    options.levelChoice = LevelChoice.Settings.parse(environment["PRACTICE_LEVEL_CHOICE"])
    options.downbeatCues = DownbeatFinder.Settings.parse(environment["PRACTICE_DOWNBEAT_CUES"])
    return options
  }
}

extension ChordSettings {
  /// Settings with the developers' knob `PRACTICE_CHORD_SETTINGS` applied
  /// (`bassWeight=0.4,changeCost=0.3`, for bench/chords.py's tuning); unknown names and bad
  /// values are ignored.
  public static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> ChordSettings {
    var settings = ChordSettings()
    guard let text = environment["PRACTICE_CHORD_SETTINGS"] else { return settings }
    for pair in text.split(separator: ",") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      if parts.count == 2, let value = Double(parts[1]) {
        _ = settings.set(String(parts[0]).trimmingCharacters(in: .whitespaces), value)
      }
    }
    return settings
  }
}

extension LevelChoice.Settings {
  /// From the developers' knob `PRACTICE_LEVEL_CHOICE`: `off`, or comma-separated
  /// `hearing=network|onsets|both`, `up=0.8`, `down=0.3`, `threeTwo=3`, `three=0.5`,
  /// `force=up|three|threeTwo|down`, `prior=1.4`
  /// (the tempo prior's width in octaves), `measure=1`
  /// (both ratios worked out on every song, for `PRACTICE_BEAT_DOUBT`'s dump).
  /// Unknown names and bad values are ignored; without the knob, `standard`.
  static func parse(_ text: String?) -> LevelChoice.Settings {
    guard let text else { return standard }
    var s = LevelChoice.Settings()
    guard text != "off" else { return s }
    for pair in text.split(separator: ",") {
      let parts = pair.split(separator: "=", maxSplits: 1).map {
        String($0).trimmingCharacters(in: .whitespaces)
      }
      guard parts.count == 2 else { continue }
      switch parts[0] {
      case "hearing": s.hearing = LevelChoice.Hearing(rawValue: parts[1]) ?? s.hearing
      case "up": s.up = Double(parts[1]).flatMap { $0.isFinite ? $0 : nil }
      case "down": s.down = Double(parts[1]).flatMap { $0.isFinite ? $0 : nil }
      case "threeTwo": s.threeTwo = Double(parts[1]).flatMap { $0.isFinite ? $0 : nil }
      case "three": s.three = Double(parts[1]).flatMap { $0.isFinite ? $0 : nil }
      case "force": s.force = LevelChoice.Move(rawValue: parts[1])
      case "measure": s.measure = parts[1] == "1"
      case "prior": s.prior = Double(parts[1]).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
      default: break
      }
    }
    return s
  }
}

extension DownbeatFinder.Settings {
  /// From the developers' knob `PRACTICE_DOWNBEAT_CUES`: comma-separated `harmony=3`,
  /// `bass=1`, `accent=0.5`, `network=3`, `decides=0.2` or `decides=off` (`networkDecides`).
  /// Unknown names and bad values are ignored; without the knob, the defaults.
  static func parse(_ text: String?) -> DownbeatFinder.Settings {
    var s = DownbeatFinder.Settings()
    for pair in (text ?? "").split(separator: ",") {
      let parts = pair.split(separator: "=", maxSplits: 1).map {
        String($0).trimmingCharacters(in: .whitespaces)
      }
      if parts == ["decides", "off"] {
        s.networkDecides = nil
        continue
      }
      guard parts.count == 2, let value = Double(parts[1]), value.isFinite, value >= 0 else {
        continue
      }
      switch parts[0] {
      case "harmony": s.weights[0] = value
      case "bass": s.weights[1] = value
      case "accent": s.weights[2] = value
      case "network": s.networkWeight = value
      case "decides": s.networkDecides = value
      default: break
      }
    }
    return s
  }
}

extension BeatDetection {
  /// `song.flac: 412 beats, 103 bars, 4/4, 96–101 BPM`, with `4/4 (bar 9: 2 beats)` when a
  /// bar has another length.
  public func summary(name: String) -> String {
    let bars = map.bars.filter { $0.number >= 1 }.count
    let low = Int(tempoRange.lowerBound.rounded())
    let high = Int(tempoRange.upperBound.rounded())
    let tempo = low == high ? "\(low) BPM" : "\(low)–\(high) BPM"
    let odd = oddBars.map { "bar \($0.number): \($0.beats) beats" }
    let meter = odd.isEmpty ? "\(self.meter)" : "\(self.meter) (\(odd.joined(separator: ", ")))"
    return "\(name): \(map.beats.count) beats, \(bars) bars, \(meter), \(tempo)"
  }
}
