import Dispatch
import Foundation

/// A plan played into a file as fast as it goes (`render`): the plan `PlanBuilder` makes of
/// a request, the file's writer (tagged with the song's title, artist and album) and the
/// engine over it, all built here; the face parses, runs it and says what it delivered.
public final class PlanRenderer {
  /// Why a render was refused before it began, for the face to word.
  public enum Refusal: PracticeFailure, Equatable {
    /// The plan loops until stopped; `label` names its range (nil: the range as given).
    case endless(label: String?)
    /// The output is the song's own file.
    case outputIsSource
    /// No writer for the output's extension.
    case unknownFormat

    public var category: FailureCategory { .usage }

    public var description: String {
      switch self {
      case .endless(let label): return "\(label ?? "the range") loops until stopped"
      case .outputIsSource: return "the output is the song itself"
      case .unknownFormat: return "unknown output format"
      }
    }
  }

  public let song: Song
  public let setup: PlaySetup
  /// The song's audio, as the engine reads it (its declared length, for a short stream).
  public let file: SoundFile
  public let engine: PlaybackEngine
  public let sampleRate: Int
  /// Output frames the render writes: its passes and gaps, and the count-in (0: unknown).
  public let totalFrames: Int64

  private init(song: Song, setup: PlaySetup, file: SoundFile, engine: PlaybackEngine) {
    self.song = song
    self.setup = setup
    self.file = file
    self.engine = engine
    sampleRate = file.info.sampleRate
    totalFrames =
      (setup.plan.totalFrames(sampleRate: file.info.sampleRate) ?? 0)
      + (setup.plan.clicks?.countInFrames ?? 0)
  }

  /// Opens a render of `song` as `request` asks into the file at `output` (its extension
  /// picks the format; the source's rate, channels and bit depth): the plan (`noted` hears
  /// its notes as it is built; `missingBeatMap` gives a map the plan needs and the song
  /// lacks, or refuses), the writer and the engine. Refuses (`Refusal`) a plan that loops
  /// until stopped and an output that is the song's own file.
  public static func open(
    song: Song, library: Library, request: PlayRequest, output: String,
    noted: (PlayNote) -> Void = { _ in }, missingBeatMap: @escaping (Song) throws -> BeatMap
  ) throws -> PlanRenderer {
    let file = try song.openAudio()
    let info = file.info
    try OutputFormat(path: output, bitDepth: 16)?.check(sampleRate: info.sampleRate, path: output)
    let setup = try PlanBuilder(
      library: library, song: song, info: info, missingBeatMap: missingBeatMap
    ).build(request)
    setup.notes.forEach(noted)
    if setup.plan.passes == .endless { throw Refusal.endless(label: setup.label) }
    let target = SongScanner.absolutePath(output)
    if target == song.path { throw Refusal.outputIsSource }
    guard let format = OutputFormat(path: target, bitDepth: info.bitDepth) else {
      throw Refusal.unknownFormat
    }
    let sink: any AudioFileSink =
      format.throughFFmpeg
      ? try FFmpegWriter(
        path: target, sampleRate: info.sampleRate, channels: info.channels,
        maxBlockFrames: PlaybackEngine.blockFrames)
      : try SoundFileWriter(
        path: target, format: format, sampleRate: info.sampleRate, channels: info.channels,
        maxBlockFrames: PlaybackEngine.blockFrames)
    sink.setTags(title: song.title, artist: song.artist, album: song.album)
    let engine = try PlaybackEngine(file: file, plan: setup.plan, sink: sink)
    return PlanRenderer(song: song, setup: setup, file: file, engine: engine)
  }

  /// Runs the render to its end: after each wait of up to `waiting` for it, `progress`
  /// hears the share of the output written so far (0-1; not called when the length is
  /// unknown). Controller thread.
  public func run(waiting: DispatchTimeInterval, progress: ((Double) -> Void)? = nil) throws
    -> PlaybackReport
  {
    engine.start()
    while !engine.waitForEnd(timeout: waiting) {
      guard let progress, totalFrames > 0 else { continue }
      progress(Double(engine.framesWritten.load(ordering: .relaxed)) / Double(totalFrames))
    }
    return try engine.wait()
  }
}
