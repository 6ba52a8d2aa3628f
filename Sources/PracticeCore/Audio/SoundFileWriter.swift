import CSndFile
import Foundation

/// The container and encoding a render is written in, picked from the output's extension.
public struct OutputFormat: Sendable, Equatable {
  /// libsndfile's format word (major type | subtype).
  public let format: Int32
  public let encoding: SampleEncoding
  /// The only sample rates the encoding takes (nil: any); `render` does not resample.
  public let sampleRates: [Int]?
  /// The encoding's name, for messages.
  public let name: String
  /// Written by `FFmpegWriter` (AAC in M4A), not libsndfile; `format` is then 0.
  public let throughFFmpeg: Bool

  public static let extensions = ["wav", "flac", "ogg", "oga", "opus", "mp3", "aiff", "aif", "m4a"]

  /// The format for `path`'s extension carrying a source of `bitDepth` bits; nil if the
  /// extension is not one `render` writes.
  public init?(path: String, bitDepth: Int) {
    let ext = (path as NSString).pathExtension.lowercased()
    let deep = bitDepth > 16
    var rates: [Int]? = nil
    throughFFmpeg = ext == "m4a"
    switch ext {
    case "wav":
      format = Int32(SF_FORMAT_WAV) | Int32(deep ? SF_FORMAT_PCM_24 : SF_FORMAT_PCM_16)
      encoding = deep ? .int32 : .int16
    case "aiff", "aif":
      format = Int32(SF_FORMAT_AIFF) | Int32(deep ? SF_FORMAT_PCM_24 : SF_FORMAT_PCM_16)
      encoding = deep ? .int32 : .int16
    case "flac":
      format = Int32(SF_FORMAT_FLAC) | Int32(deep ? SF_FORMAT_PCM_24 : SF_FORMAT_PCM_16)
      encoding = deep ? .int32 : .int16
    case "ogg", "oga":
      format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
      encoding = .float32
    case "opus":
      format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
      encoding = .float32
      rates = [8000, 12000, 16000, 24000, 48000]
    case "mp3":
      format = Int32(SF_FORMAT_MPEG) | Int32(SF_FORMAT_MPEG_LAYER_III)
      encoding = .float32
      rates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
    case "m4a":
      format = 0
      encoding = .float32
      rates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]
    default:
      return nil
    }
    sampleRates = rates
    name =
      ["oga": "Ogg Vorbis", "ogg": "Ogg Vorbis", "opus": "Opus", "aif": "AIFF", "m4a": "AAC (M4A)"][ext]
      ?? ext.uppercased()
  }

  /// Refuses a source rate the encoding cannot carry, before any work starts: a usage
  /// error that names the rates it takes and the formats that take any.
  public func check(sampleRate: Int, path: String) throws {
    guard let rates = sampleRates, !rates.contains(sampleRate) else { return }
    func kHz(_ rate: Int) -> String { String(format: "%g", Double(rate) / 1000) }
    let list = rates.map(kHz)
    let spoken =
      list.count > 1
      ? list.dropLast().joined(separator: ", ") + " or " + list[list.count - 1] : list.joined()
    throw PracticeError(
      .usage,
      "cannot write '\(path)': \(name) takes \(spoken) kHz and the song is "
        + "\(kHz(sampleRate)) kHz (render does not resample); "
        + "write .wav, .flac or .ogg instead")
  }
}

/// A file sink: writes the engine's output with libsndfile (`sf_open` for writing).
///
/// Writes to a hidden partial file beside the target and renames it into place on
/// `finish()`, so an interrupted or failed render never leaves a half-written file.
public final class SoundFileWriter: AudioFileSink {
  public let path: String
  public let sampleRate: Int
  public let channels: Int
  public let maxBlockFrames: Int
  private let encoding: SampleEncoding
  private let output: OutputFile
  private var handle: OpaquePointer?  // owned; render thread only after init
  private let int16Buffer: UnsafeMutablePointer<Int16>  // render thread only
  private let int32Buffer: UnsafeMutablePointer<Int32>  // render thread only

  public init(
    path: String, format: OutputFormat, sampleRate: Int, channels: Int, maxBlockFrames: Int
  ) throws {
    let url = URL(fileURLWithPath: path)
    let directory = url.deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw SoundFileError(
        category: .cannotCreate, reason: "directory '\(directory)' does not exist", path: path,
        operation: "create", advice: "create the directory first or pick another path")
    }
    var info = SF_INFO()
    info.samplerate = Int32(sampleRate)
    info.channels = Int32(channels)
    info.format = format.format
    guard sf_format_check(&info) != 0 else {
      throw SoundFileError(
        category: .usage,
        reason: "this format cannot hold \(channels) channel(s) at \(sampleRate) Hz", path: path,
        operation: "create",
        advice: "pick another extension (.wav and .flac take any rate)")
    }
    // Written through an OutputFile: a hidden partial file created exclusively, flushed and
    // renamed into place by `finish()`.
    let output = try OutputFile(path: path)
    // libsndfile does not close the descriptor (close_desc 0): the OutputFile does.
    guard let handle = sf_open_fd(output.descriptor, Int32(SFM_WRITE), &info, 0) else {
      let reason = String(cString: sf_strerror(nil))
      output.abandon()
      throw SoundFileError(
        category: .cannotCreate, reason: reason, path: path, operation: "create",
        advice: "pick a writable location with -o")
    }
    self.path = path
    self.output = output
    self.handle = handle
    self.sampleRate = sampleRate
    self.channels = channels
    self.maxBlockFrames = maxBlockFrames
    self.encoding = format.encoding
    self.int16Buffer = .allocate(capacity: maxBlockFrames * channels)
    self.int32Buffer = .allocate(capacity: maxBlockFrames * channels)
  }

  deinit {
    abort()
    int16Buffer.deallocate()
    int32Buffer.deallocate()
  }

  /// Sets title, artist and album tags (`sf_set_string`); call before the first write.
  /// Formats without tags ignore them.
  public func setTags(title: String?, artist: String?, album: String?) {
    guard let handle else { return }
    for (kind, value) in [(SF_STR_TITLE, title), (SF_STR_ARTIST, artist), (SF_STR_ALBUM, album)] {
      if let value { _ = sf_set_string(handle, Int32(kind), value) }
    }
  }

  public func write(_ samples: UnsafePointer<Float>, frames: Int) throws {
    guard let handle else { return }
    precondition(frames <= maxBlockFrames, "block larger than the sink was built for")
    let count = frames * channels
    let written: sf_count_t
    switch encoding {
    case .int16:
      SampleConversion.toInt16(samples, int16Buffer, count: count)
      written = sf_writef_short(handle, int16Buffer, sf_count_t(frames))
    case .int32:
      SampleConversion.toInt32(samples, int32Buffer, count: count)
      written = sf_writef_int(handle, int32Buffer, sf_count_t(frames))
    case .float32:
      written = sf_writef_float(handle, samples, sf_count_t(frames))
    }
    if written != sf_count_t(frames) {
      throw SoundFileError(
        handle: handle, path: path, operation: "write", category: .io,
        advice: "check the free space on the disk")
    }
  }

  public func pendingFrames() -> Int { 0 }

  public func finish() throws {
    guard let handle else { return }
    self.handle = nil
    let closeResult = sf_close(handle)
    guard closeResult == 0 else {
      output.abandon()
      throw SoundFileError(
        category: .io, reason: String(cString: sf_error_number(closeResult)), path: path,
        operation: "finish writing", advice: "check the free space and permissions of the target directory")
    }
    try output.commit()
  }

  public func abort() {
    guard let handle else { return }
    self.handle = nil
    sf_close(handle)
    output.abandon()
  }
}
