/// How a passage is practised: the play options a selection can carry (`select set`), or a
/// play remembers for `--resume`. Each is optional: what is not set is left to the next
/// layer (the command line over a resume point over the selection over the defaults).
public struct PracticeSettings: Sendable, Equatable {
  /// How many passes: a number, or until stopped.
  public var passes: Passes?
  public var speed: Speed?
  /// The speed trainer: towards `rampTo` by `step` (a rate, 0.05 = five points) every
  /// `every` passes.
  public var rampTo: Speed?
  public var step: Double?
  public var every: Int?
  /// Bars of count-in, 0-16.
  public var countIn: Int?
  public var click: Bool?
  /// Silence between passes, as written: `2s`, `1bar` (see `PracticeSettings.parseGap`).
  public var gap: String?
  /// Semitones, -12 to 12.
  public var transpose: Double?
  public var volume: Volume?

  public init(
    speed: Speed? = nil, rampTo: Speed? = nil, step: Double? = nil, every: Int? = nil,
    countIn: Int? = nil, click: Bool? = nil, gap: String? = nil, transpose: Double? = nil,
    volume: Volume? = nil, passes: Passes? = nil
  ) {
    self.passes = passes
    self.speed = speed
    self.rampTo = rampTo
    self.step = step
    self.every = every
    self.countIn = countIn
    self.click = click
    self.gap = gap
    self.transpose = transpose
    self.volume = volume
  }

  public static let none = PracticeSettings()

  public var isEmpty: Bool { self == .none }

  /// These settings with every one `other` sets taken from `other`.
  public func overridden(by other: PracticeSettings) -> PracticeSettings {
    var result = self
    result.passes = other.passes ?? passes
    result.speed = other.speed ?? speed
    result.rampTo = other.rampTo ?? rampTo
    result.step = other.step ?? step
    result.every = other.every ?? every
    result.countIn = other.countIn ?? countIn
    result.click = other.click ?? click
    result.gap = other.gap ?? gap
    result.transpose = other.transpose ?? transpose
    result.volume = other.volume ?? volume
    return result
  }

  /// The passes a drill plays when no count is set: up to the target a step at a time,
  /// `every` passes at each speed, the target's included. nil without a trainer.
  public var drillPasses: Int? {
    guard let rampTo, let step = rampStep else { return nil }
    let distance = abs(rampTo.rate - (speed ?? .normal).rate)
    // At most 9999 passes: counted in Double, so that no step (one stored before steps were
    // bounded) makes a count past Int's range.
    let steps = max(0, min(9999, (distance / abs(step) - 1e-9).rounded(.up)))
    return min(9999, (Int(steps) + 1) * (every ?? 1))
  }

  /// The step the trainer takes without one given: five points towards the target.
  public static let defaultStep = 0.05

  /// The trainer's step: the one set, else `defaultStep` towards `rampTo`; nil without a
  /// target.
  public var rampStep: Double? {
    guard let rampTo else { return nil }
    if let step { return step }
    return rampTo.rate < (speed ?? .normal).rate ? -PracticeSettings.defaultStep : PracticeSettings.defaultStep
  }

  /// What is wrong with the settings taken together, or nil: a step needs a target to
  /// step towards, and must move towards it.
  public var problem: SettingsProblem? {
    if rampTo == nil, let step { return .stepWithoutTarget(step: step) }
    if let rampTo, let step, (rampTo.rate - (speed ?? .normal).rate) * step < 0 {
      return .stepAwayFromTarget(step: step, target: rampTo, from: speed ?? .normal)
    }
    return nil
  }

  /// The bars of click a count-in may have.
  public static let countInRange = 0...16

  /// `2s`, `1.5s` (up to 60 s) → seconds; `1bar`, `2bars` (up to 16) → bars; nil if malformed.
  public static func parseGap(_ text: String) -> (seconds: Double?, bars: Int?)? {
    if text.hasSuffix("bars") || text.hasSuffix("bar") {
      let number = text.hasSuffix("bars") ? text.dropLast(4) : text.dropLast(3)
      guard number.allSatisfy(\.isASCII), let bars = Int(number), (1...16).contains(bars) else {
        return nil
      }
      return (nil, bars)
    }
    guard text.hasSuffix("s"), let seconds = parseDecimal(text.dropLast()), seconds > 0,
      seconds <= 60
    else { return nil }
    return (seconds, nil)
  }

  /// `5%` or `0.05` → a rate step; nil if malformed or not `allowsStep`.
  public static func parseStep(_ text: String) -> Double? {
    let percent = text.hasSuffix("%")
    guard let value = parseDecimal(percent ? text.dropLast() : Substring(text)) else { return nil }
    let step = percent ? value / 100 : value
    return allowsStep(step) ? step : nil
  }

  /// A step of a tenth of a point to 175 points, either way: a smaller one is shown as
  /// `0%` and would take more passes than a drill plays.
  public static func allowsStep(_ step: Double) -> Bool {
    (0.001...1.75).contains((abs(step) * 1e6).rounded() / 1e6)
  }

  /// A step as points: `5%`, `-2.5%`.
  public static func formatStep(_ step: Double) -> String {
    let points = (step * 1000).rounded() / 10
    return points == points.rounded() ? "\(Int(points))%" : "\(points)%"
  }

  /// Semitones with a sign: `+2`, `-0.5`, `0`.
  public static func formatSemitones(_ value: Double) -> String {
    let text = value == value.rounded() ? "\(Int(value))" : "\(value)"
    return value > 0 ? "+" + text : text
  }
}

/// How a selection is practised: its settings (`select set`) and its goal.
public struct SelectionPractice: Sendable, Equatable {
  public var settings: PracticeSettings
  public var goal: PracticeGoal?

  public init(settings: PracticeSettings = .none, goal: PracticeGoal? = nil) {
    self.settings = settings
    self.goal = goal
  }

  public var isEmpty: Bool { settings.isEmpty && goal == nil }
}

/// What is wrong with practice settings taken together, as values for the face to word.
public enum SettingsProblem: PracticeFailure, Equatable {
  /// A trainer step with no target to step towards.
  case stepWithoutTarget(step: Double)
  /// A step that moves away from its target, from the speed it starts at.
  case stepAwayFromTarget(step: Double, target: Speed, from: Speed)

  public var category: FailureCategory { .usage }

  public var description: String {
    switch self {
    case .stepWithoutTarget(let step):
      return "a trainer step (\(PracticeSettings.formatStep(step))) needs a target speed"
    case .stepAwayFromTarget(let step, let target, let from):
      return "a step of \(PracticeSettings.formatStep(step)) moves away from the target \(target) "
        + "(from \(from)); use a \(step > 0 ? "negative" : "positive") step"
    }
  }
}

/// When a passage counts as learned: a clean pass at a speed (`100%`) or, with a beat map,
/// at a tempo (`120bpm`).
public enum PracticeGoal: Sendable, Equatable, CustomStringConvertible {
  case speed(Speed)
  case tempo(Double)

  /// Parses `100%`, `0.9` or `120bpm`; nil if malformed (a tempo from 20 to 400 BPM).
  public init?(parsing text: String) {
    let lower = text.lowercased()
    if lower.hasSuffix("bpm") {
      guard let bpm = parseDecimal(lower.dropLast(3)), (20...400).contains(bpm) else {
        return nil
      }
      self = .tempo(bpm)
    } else if let speed = Speed(parsing: text) {
      self = .speed(speed)
    } else {
      return nil
    }
  }

  public var description: String {
    switch self {
    case .speed(let speed): return "\(speed)"
    case .tempo(let bpm):
      return bpm == bpm.rounded() ? "\(Int(bpm))bpm" : "\((bpm * 10).rounded() / 10)bpm"
    }
  }

  /// `100%`, or `120bpm (96%)` with the speed that reaches a tempo goal (`speed`, when known).
  public func text(reachedAt speed: Double?) -> String {
    guard case .tempo = self, let speed else { return description }
    return "\(self) (\(Speed(clamping: speed)))"
  }

  /// The speed that reaches the goal, given the passage's own tempo at 100 % (BPM; needed
  /// for a tempo goal). nil when a tempo goal has no tempo to divide by.
  public func speed(passageBPM: Double?) -> Double? {
    switch self {
    case .speed(let speed): return speed.rate
    case .tempo(let bpm):
      guard let passageBPM, passageBPM > 0 else { return nil }
      return bpm / passageBPM
    }
  }
}

extension BeatMap {
  /// The median tempo (BPM) of the beats in `frames`, from the intervals between them; nil
  /// with fewer than two beats there.
  public func medianBPM(in frames: Range<Int64>) -> Double? {
    let inside = beats.filter { frames.contains($0.frame) }.map(\.frame)
    return BeatMap.tempo(interval: BeatMap.medianInterval(frames: inside), sampleRate: sampleRate)
  }
}
