import Foundation

/// The `.practice` sharing file: songs' metadata, beat maps, selections and setlists as one
/// JSON document, never the audio. What a band member or a teacher imports into their own
/// library, where the songs are found again by content hash, then by title, artist and
/// duration. The README documents it; `version` changes when a reader of an older version
/// could misread a file.
public struct PracticeFile: Sendable, Equatable {
  public static let formatName = "practice"
  public static let currentVersion = 1

  public var format: String
  public var version: Int
  public var exportedAt: String
  public var songs: [SharedSong]
  public var setlists: [SharedSetlist]

  /// The beats of every song's map in the file (`export` says how many it wrote).
  public var beatCount: Int { songs.reduce(0) { $0 + ($1.beatMap?.frames.count ?? 0) } }
  /// The selections of every song in the file.
  public var selectionCount: Int { songs.reduce(0) { $0 + $1.selections.count } }

  public struct SharedSong: Sendable, Equatable {
    /// The number setlist entries in this file use for the song.
    public var ref: Int
    public var title: String
    public var artist: String?
    public var album: String?
    /// Seconds.
    public var duration: Double
    public var frames: Int64
    public var sampleRate: Int
    public var contentHash: String
    public var key: String?
    public var bpm: Double?
    public var note: String?
    public var tags: [String]
    public var beatMap: SharedBeatMap?
    public var selections: [SharedSelection]
    /// The song's chord track (`ChordStore.swift`); absent in files made before it.
    public var chords: SharedChords? = nil
  }

  /// A beat map in columns: `frames` (one per beat, in the song's sample rate), where the
  /// first beat sits (`first_bar`, `first_beat`), how many beats each bar has as runs of
  /// `[bars, beats per bar]`, the beats' sources as runs of `[source, count]`, and each
  /// beat's detection confidence to three decimals (null where there is none). A map whose
  /// numbering the runs cannot say carries `positions`, `[bar, beat]` per beat, instead.
  public struct SharedBeatMap: Sendable, Equatable {
    public var frames: [Int64]
    public var firstBar: Int
    public var firstBeat: Int
    public var barLengths: [[Int]]?
    public var positions: [[Int]]?
    public var sources: [SourceRun]
    public var confidence: [Double?]?
  }

  /// A chord track in columns: each chord's `starts` and `ends` (frames, in the song's
  /// sample rate) and Harte `labels` (`A:min7`, `N`), where it came from (`detected`,
  /// `imported`) and the key detection found.
  public struct SharedChords: Sendable, Equatable {
    public var source: String
    public var key: String?
    public var starts: [Int64]
    public var ends: [Int64]
    public var labels: [String]

    public init(source: String, key: String?, starts: [Int64], ends: [Int64], labels: [String]) {
      self.source = source
      self.key = key
      self.starts = starts
      self.ends = ends
      self.labels = labels
    }
  }

  /// `["detected", 412]`: that many beats in a row from one source.
  public struct SourceRun: Sendable, Equatable {
    public var source: String
    public var count: Int

    public init(source: String, count: Int) {
      self.source = source
      self.count = count
    }
  }

  /// A selection: `bars` (`9-16`, following the beat map) or `start_frame`/`end_frame`,
  /// and how it is practised (`select set`), absent when nothing was set.
  public struct SharedSelection: Sendable, Equatable {
    public var name: String
    public var bars: String?
    public var startFrame: Int64?
    public var endFrame: Int64?
    public var note: String?
    public var practice: SharedPractice?
  }

  /// A selection's practice settings and goal: speeds and the step as rates (0.7), the gap
  /// as written (`1bar`, `2s`), the goal as written (`100%`, `120bpm`); null where not set.
  public struct SharedPractice: Sendable, Equatable {
    public var speed: Double?
    public var rampTo: Double?
    public var step: Double?
    public var every: Int?
    public var countIn: Int?
    public var click: Bool?
    public var gap: String?
    public var transpose: Double?
    public var volume: Double?
    public var goal: String?
    /// Passes the selection plays: a count, 0 for a loop.
    public var passes: Int?
  }

  public struct SharedSetlist: Sendable, Equatable {
    public var name: String
    public var entries: [SharedEntry]
  }

  public struct SharedEntry: Sendable, Equatable {
    /// The `ref` of a song in this file.
    public var song: Int
    public var selection: String?
    public var key: String?
    public var transpose: Int?
    public var speed: Double?
    public var repeats: Int?
    public var note: String?
  }
}

// MARK: Beat maps in columns

extension PracticeFile.SharedBeatMap {
  public init(_ beats: [Beat]) {
    frames = beats.map(\.frame)
    firstBar = beats.first?.bar ?? 1
    firstBeat = beats.first?.beat ?? 1
    var sources: [PracticeFile.SourceRun] = []
    for beat in beats {
      if sources.last?.source == beat.source.rawValue {
        sources[sources.count - 1].count += 1
      } else {
        sources.append(.init(source: beat.source.rawValue, count: 1))
      }
    }
    self.sources = sources
    let rounded = beats.map { beat -> Beat in
      var beat = beat
      beat.confidence = beat.confidence.map { ($0 * 1000).rounded() / 1000 }
      return beat
    }
    confidence = beats.contains { $0.confidence != nil } ? rounded.map(\.confidence) : nil
    // Bar lengths: the highest beat number of each bar, as runs.
    var runs: [[Int]] = []
    var index = 0
    while index < beats.count {
      let bar = beats[index].bar
      var length = beats[index].beat
      while index < beats.count && beats[index].bar == bar {
        length = beats[index].beat
        index += 1
      }
      if let last = runs.last, last[1] == length {
        runs[runs.count - 1][0] += 1
      } else {
        runs.append([1, length])
      }
    }
    barLengths = runs
    positions = nil
    // A numbering the runs cannot reproduce (beats skipped inside a bar) is written out.
    if (try? self.beats()) != rounded {
      barLengths = nil
      positions = beats.map { [$0.bar, $0.beat] }
    }
  }

  /// The beats this map describes; a `PracticeError(.badData)` saying what is wrong when
  /// the columns disagree.
  public func beats() throws -> [Beat] {
    let count = frames.count
    func bad(_ what: String) -> PracticeError { PracticeError(.badData, "its beat map \(what)") }
    guard count > 0 else { throw bad("has no beats") }
    let runs = sources.compactMap { run in
      BeatSource(rawValue: run.source).map { (source: $0, count: run.count) }
    }
    guard runs.count == sources.count, runs.allSatisfy({ (1...count).contains($0.count) }),
      runs.reduce(0, { $0 + $1.count }) == count
    else { throw bad("has sources that do not match its \(count) beats") }
    if let confidence, confidence.count != count {
      throw bad("has \(confidence.count) confidences for \(count) beats")
    }
    var sourceList: [BeatSource] = []
    sourceList.reserveCapacity(count)
    for run in runs { sourceList += repeatElement(run.source, count: run.count) }
    var numbers: [(bar: Int, beat: Int)] = []
    numbers.reserveCapacity(count)
    if let positions {
      guard positions.count == count, positions.allSatisfy({ $0.count == 2 }) else {
        throw bad("has positions that do not match its \(count) beats")
      }
      numbers = positions.map { ($0[0], $0[1]) }
    } else if let barLengths {
      guard barLengths.allSatisfy({ $0.count == 2 && $0[0] > 0 && (1...64).contains($0[1]) }),
        (0...1_000_000).contains(firstBar), (1...64).contains(firstBeat)
      else { throw bad("has malformed bar lengths") }
      var run = 0
      var left = barLengths.first?[0] ?? 0
      var bar = firstBar
      var beat = firstBeat
      for _ in 0..<count {
        guard run < barLengths.count, beat >= 1, beat <= barLengths[run][1] else {
          throw bad("has bar lengths that do not cover its beats")
        }
        numbers.append((bar, beat))
        if beat == barLengths[run][1] {
          bar += 1
          beat = 1
          left -= 1
          if left == 0 {
            run += 1
            left = run < barLengths.count ? barLengths[run][0] : 0
          }
        } else {
          beat += 1
        }
      }
    } else {
      throw bad("has neither bar lengths nor positions")
    }
    return (0..<count).map { i in
      Beat(
        frame: frames[i], bar: numbers[i].bar, beat: numbers[i].beat, source: sourceList[i],
        confidence: confidence?[i])
    }
  }
}

// MARK: Reading and writing

extension PracticeFile {
  /// Reads a `.practice` file; exit 65 naming the file and what is wrong.
  public static func read(_ path: String) throws -> PracticeFile {
    let data: Data
    do {
      // A directory, a fifo or a device (which report no size) is refused before reading.
      try SoundFile.checkReadable(path)
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch let error as SoundFileError {
      throw PracticeError(
        error.category, "cannot read '\(path)': \(error.reason); give a .practice file")
    } catch {
      let missing = !FileManager.default.fileExists(atPath: path)
      throw PracticeError(
        missing ? .missingInput : .io,
        missing ? "no such file '\(path)'; check the path" : "cannot read '\(path)'")
    }
    return try decode(data, path: path)
  }
}

// MARK: Selection practice

extension PracticeFile.SharedPractice {
  init?(_ practice: SelectionPractice) {
    guard !practice.isEmpty else { return nil }
    let s = practice.settings
    self.init(
      speed: s.speed?.rate, rampTo: s.rampTo?.rate, step: s.step, every: s.every,
      countIn: s.countIn, click: s.click, gap: s.gap, transpose: s.transpose,
      volume: s.volume?.gain, goal: practice.goal?.description,
      passes: s.passes.map(\.stored))
  }

  /// The settings and goal, or a reason they cannot be (a value out of its range).
  func selectionPractice() -> Result<SelectionPractice, PracticeError> {
    func bad(_ what: String) -> Result<SelectionPractice, PracticeError> {
      .failure(PracticeError(.badData, "its practice settings have \(what)"))
    }
    for (name, value) in [("speed", speed), ("ramp_to", rampTo)] {
      if let value, !Speed.allowed.contains(value) { return bad("\(name) \(value)") }
    }
    if let step, !PracticeSettings.allowsStep(step) { return bad("step \(step)") }
    if let every, !(1...9999).contains(every) { return bad("every \(every)") }
    if let countIn, !PracticeSettings.countInRange.contains(countIn) {
      return bad("count_in \(countIn)")
    }
    if let passes, !(0...9999).contains(passes) { return bad("passes \(passes)") }
    if let gap, PracticeSettings.parseGap(gap) == nil { return bad("gap '\(gap)'") }
    if let transpose, !PlaybackPlan.transposeRange.contains(transpose) {
      return bad("transpose \(transpose)")
    }
    if let volume, !Volume.allowed.contains(volume) { return bad("volume \(volume)") }
    let parsedGoal = goal.flatMap(PracticeGoal.init(parsing:))
    if let goal, parsedGoal == nil { return bad("goal '\(goal)'") }
    let settings = PracticeSettings(
      speed: speed.map(Speed.init(clamping:)), rampTo: rampTo.map(Speed.init(clamping:)),
      step: step, every: every, countIn: countIn, click: click, gap: gap, transpose: transpose,
      volume: volume.map(Volume.init(clamping:)),
      passes: passes.map(Passes.init(stored:)))
    if let problem = settings.problem { return bad(problem.description) }
    return .success(SelectionPractice(settings: settings, goal: parsedGoal))
  }
}
