import Foundation

/// What the player's status line shows, as a value: where the play is and what was asked of
/// it. `text(width:)` is the line at a terminal's width, in its long form
/// (`bar 12.3/32 · pass 2/∞ · bars 9-16 · 75% · +0 st · vol 80% · click · focus bass ·
/// 0:41/3:12`) or, where that does not fit, its short one (`12.3/32 pass 2/∞ 75% -2 st bass
/// cut L 0:41/3:12`), which keeps the transpose when there is one. The CLI writes it.
public struct PlayerStatus: Sendable, Equatable {
  /// Where the play is in the beat map.
  public struct Place: Sendable, Equatable {
    /// The beat heard (bar and beat); nil before the first beat.
    public var beat: BarPosition?
    public var lastBar: Int

    public init(beat: BarPosition?, lastBar: Int) {
      self.beat = beat
      self.lastBar = lastBar
    }
  }

  public var paused: Bool
  /// nil: the song has no beat map.
  public var place: Place?
  /// The pass heard, from 1; 0 in a count-in.
  public var pass: Int
  /// The last pass; nil when the play loops until stopped.
  public var lastPass: Int?
  /// What is played: `bars 9-16`, a selection's name, a time range.
  public var label: String
  public var speed: Speed
  /// Semitones.
  public var transpose: Double
  public var volume: Volume
  public var muted: Bool
  public var click: Bool
  public var filter: PartFilter
  /// Seconds heard into the song, and the song's length.
  public var time: Double
  public var length: Double

  public init(
    paused: Bool, place: Place?, pass: Int, lastPass: Int?, label: String, speed: Speed,
    transpose: Double, volume: Volume, muted: Bool, click: Bool, filter: PartFilter,
    time: Double, length: Double
  ) {
    self.paused = paused
    self.place = place
    self.pass = pass
    self.lastPass = lastPass
    self.label = label
    self.speed = speed
    self.transpose = transpose
    self.volume = volume
    self.muted = muted
    self.click = click
    self.filter = filter
    self.time = time
    self.length = length
  }

  /// The line before the first frame is heard.
  public static let starting = "starting…"

  /// The line in fewer than `width` characters where the long form fits; else the short
  /// form (which the terminal may still cut). `heading` (a setlist's `2/7 'Title'`) comes
  /// first, the status after it in the columns left (at least 20).
  public func text(width: Int, heading: String? = nil) -> String {
    guard let heading else { return text(width: width) }
    return heading + " · " + text(width: max(20, width - DisplayWidth.of(heading + " · ")))
  }

  private func text(width: Int) -> String {
    // `12.3/32`; `-/32` before the first beat.
    let position = place.map { place in
      (place.beat.map { "\($0.bar).\($0.beat ?? 1)" } ?? "-") + "/\(place.lastBar)"
    }
    let pass =
      self.pass == 0 ? "count-in" : "pass \(self.pass)/\(lastPass.map(String.init) ?? "∞")"
    let time = "\(formatClock(self.time))/\(formatClock(length))"
    let pitch = transpose == 0 ? "+0 st" : String(format: "%+g st", transpose)
    let sound = muted ? "muted" : "vol \(volume)"
    let state = paused ? "paused" : nil
    let full = [
      state, position.map { "bar " + $0 }, pass, label, "\(speed)", pitch, sound,
      click ? "click" : nil, filter.label, time,
    ].compactMap { $0 }.joined(separator: " · ")
    if full.count < width { return full }
    // The filters in a few characters: `bass cut L`.
    let filters = [
      filter.focus?.rawValue, filter.centreCut > 0 ? "cut" : nil,
      filter.channel == .both ? nil : String(filter.channel.rawValue.prefix(1)).uppercased(),
    ].compactMap { $0 }
    return [
      state, position, pass, "\(speed)", transpose == 0 ? nil : pitch,
      filters.isEmpty ? nil : filters.joined(separator: " "), time,
    ].compactMap { $0 }.joined(separator: " ")
  }
}
