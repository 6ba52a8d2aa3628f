import Foundation

/// What a play asks for, before the song's settings are layered under it: the part of the
/// song, the settings given for this play, and how it sounds. Made by the command line
/// (`play`, `render`, `resume`) and by `SetlistRunner` from a setlist entry alike; nothing
/// here is argument text.
public struct PlayRequest: Sendable {
  /// The part of the song to play.
  public enum Part: Sendable, Equatable {
    /// The whole song, or from a time to a time (either may be open: nil).
    case times(from: Double?, to: Double?)
    case bars(BarRangeText)
    /// A selection by name, played with its settings.
    case selection(String)
  }

  public var part: Part = .times(from: nil, to: nil)
  /// The settings given for this play: they override the selection's and a resume's.
  public var settings: PracticeSettings = .none
  public var quality: StretchQuality = .finer
  public var clickVolume: Volume = .unity
  public var filter: PartFilter = .none
  /// Keys may move by beats and switch clicks on: the beat map is read if there is one,
  /// and a click plan is made (clicks off) to switch on.
  public var live = false
  /// Where the last play stopped, to continue there (`--resume`).
  public var resume: ResumePoint?
  /// Whether a loop may play until it is stopped. False where nothing can end it but a
  /// signal that ends more than the play (a setlist's entry with no keys read): a loop
  /// then plays as it would without the loop, once, or a drill up to its target.
  public var loopsUntilStopped = true

  public init(part: Part = .times(from: nil, to: nil), settings: PracticeSettings = .none) {
    self.part = part
    self.settings = settings
  }

  /// Whether a part was asked for (a resume then keeps only its position).
  public var givesPart: Bool { part != .times(from: nil, to: nil) }
}

/// A plan and what a play needs beside it: the beat map if it was read, the selection
/// played, how the part is named.
public struct PlaySetup: Sendable {
  public var plan: PlaybackPlan
  public var beatMap: BeatMap?
  public var selection: Selection?
  /// "bars 9-16", "selection 'solo'", for the status line; nil for plain times.
  public var label: String?
  /// The bars played when the part came from bars (`9-16`), for the log.
  public var bars: String?
  /// What the player should be told; the face words it.
  public var notes: [PlayNote] = []

  /// The log's name for what is played.
  public var part: PlayedPart { PlayedPart(range: plan.range, selection: selection, bars: bars) }
}

/// Something a plan was built without, for the face to tell the player in its own words.
public enum PlayNote: Sendable, Equatable {
  /// A channel or a centre cut was asked of a mono song: played as it is.
  case monoHasNoChannels
  /// A loop that nothing could stop (`PlayRequest.loopsUntilStopped` false) plays this
  /// many passes instead.
  case loopPlaysPasses(Int)
}

/// Turns a `PlayRequest` into a `PlaybackPlan` for one song, layering the settings: the
/// defaults, then the selection's (`select set`), then how a resumed play was playing (its
/// loop, position, passes, speed, transpose and volume), then the request's own.
public struct PlanBuilder {
  public let library: Library
  public let song: Song
  public let info: SoundFileInfo
  /// Gives the song's beat map when the plan cannot do without one and the library has
  /// none (detecting one, or refusing): the caller's to decide and to report.
  public var missingBeatMap: (Song) throws -> BeatMap

  public init(
    library: Library, song: Song, info: SoundFileInfo,
    missingBeatMap: @escaping (Song) throws -> BeatMap
  ) {
    self.library = library
    self.song = song
    self.info = info
    self.missingBeatMap = missingBeatMap
  }

  public func build(_ request: PlayRequest) throws -> PlaySetup {
    var loaded: BeatMap??
    func beatMap() throws -> BeatMap? {
      if let loaded { return loaded }
      let map = try library.beatMap(for: song)
      loaded = .some(map)
      return map
    }
    // A map the plan cannot do without: the caller's when the song has none.
    func neededBeatMap() throws -> BeatMap {
      if let map = try beatMap() { return map }
      let map = try missingBeatMap(song)
      loaded = .some(map)
      return map
    }
    let given = request.settings
    let resume = request.resume
    // A part asked for replaces the remembered loop; the rest of the resume point holds.
    let resumedLoop = request.givesPart ? nil : resume
    var range: Range<Int64>
    var chosen: Selection?
    var label: String?
    var barsText: String?
    if case .selection(let name) = request.part {
      chosen = try library.selection(named: name, of: song)
      label = "selection '\(name)'"
    } else if let name = resumedLoop?.selectionName {
      // The selection the last play was of, if it is still there.
      chosen = try? library.selection(named: name, of: song)
    }
    if let resumed = resumedLoop {
      guard resumed.range.upperBound <= info.frames else {
        throw PracticeError(
          .usage,
          "the remembered range \(formatTimeRange(resumed.range, sampleRate: info.sampleRate)) "
            + "is past the end of '\(song.title)' (\(formatTime(info.duration))); play it with a range"
        )
      }
      range = resumed.range
      label = resumed.label
      barsText = resumed.bars
    } else if case .selection = request.part, let selection = chosen {
      let map = try beatMap()
      do {
        range = try selection.span.frames(beatMap: map)
      } catch let error as any PracticeFailure {
        throw PracticeError(
          .usage,
          "selection '\(selection.name)' (\(selection.span)) cannot be played: \(error.description)")
      }
      if case .bars(let bars) = selection.span { barsText = "\(bars)" }
    } else if case .bars(let text) = request.part {
      let map = try neededBeatMap()
      let closed = text.closed(lastBar: map.lastBar)
      range = try map.frames(of: text)
      // `69-` runs to the end of the audio, past the last bar line (a chord ringing on).
      if text.end == nil { range = range.lowerBound..<max(range.upperBound, info.frames) }
      label = closed.label
      barsText = "\(closed)"
    } else {
      var from: Double?
      var to: Double?
      if case .times(let start, let end) = request.part { (from, to) = (start, end) }
      range = try resolveTimeRange(
        from: from, to: to, sampleRate: info.sampleRate, frames: info.frames)
    }
    var settings = PracticeSettings.none
    if let chosen { settings = try library.practice(of: chosen).settings }
    if let resumed = resume {
      settings = settings.overridden(
        by: PracticeSettings(
          speed: resumed.speed, transpose: resumed.transpose, volume: resumed.volume))
    }
    settings = settings.overridden(by: given)
    // A speed (given, or remembered by a resume) already past the trainer's target plays
    // without the trainer: there is nothing left to ramp.
    if given.rampTo == nil, given.step == nil, settings.problem != nil {
      settings.rampTo = nil
      settings.step = nil
    }
    if let problem = settings.problem { throw problem }
    let speed = settings.speed ?? .normal
    let countIn = settings.countIn ?? 0
    let click = settings.click ?? false
    // Passes: given, else where a resumed play left off, else the selection's, else a
    // drill's way up to its target, else once.
    let resumedPasses = resumedLoop.map { $0.passesLeft.map { Passes.count($0) } ?? .endless }
    var notes: [PlayNote] = []
    var passes: Passes =
      given.passes ?? resumedPasses ?? settings.passes
      ?? settings.drillPasses.map { .count($0) } ?? .count(1)
    if passes == .endless, !request.loopsUntilStopped {
      let count = settings.drillPasses ?? 1
      passes = .count(count)
      notes.append(.loopPlaysPasses(count))
    }
    var plan = PlaybackPlan(
      range: range, passes: passes, volume: settings.volume ?? .unity, sampleRate: info.sampleRate)
    if let resume { plan.startOffset = resume.startFrame(in: range) - range.lowerBound }
    let gapSpec = settings.gap.flatMap(PracticeSettings.parseGap)
    if countIn > 0 || click || gapSpec?.bars != nil {
      let map = try neededBeatMap()
      if countIn > 0 || click || request.live {
        plan.clicks = ClickPlan(
          beatMap: map, range: range, speed: speed, countInBars: countIn, click: click,
          gapBars: gapSpec?.bars ?? 0, volume: request.clickVolume)
      }
      if let bars = gapSpec?.bars {
        plan.gap = .bars(count: bars, barFrames: ClickPlan.barFrames(beatMap: map, range: range))
      }
    }
    if let seconds = gapSpec?.seconds { plan.gap = .seconds(seconds) }
    if let rampTo = settings.rampTo, let step = settings.rampStep {
      plan.ramp = PlaybackPlan.Ramp(target: rampTo, step: step, every: settings.every ?? 1)
    }
    if request.live, !(countIn > 0 || click || gapSpec?.bars != nil), let map = try beatMap() {
      plan.clicks = ClickPlan(
        beatMap: map, range: range, speed: speed, countInBars: 0, click: false,
        volume: request.clickVolume)
    }
    plan.speed = speed
    plan.transpose = settings.transpose ?? 0
    plan.quality = request.quality
    plan.filter = request.filter
    if info.channels < 2 && (plan.filter.channel != .both || plan.filter.centreCut > 0) {
      notes.append(.monoHasNoChannels)
      plan.filter.channel = .both
      plan.filter.centreCut = 0
    }
    return PlaySetup(
      plan: plan, beatMap: loaded ?? nil, selection: chosen, label: label, bars: barsText,
      notes: notes)
  }
}
