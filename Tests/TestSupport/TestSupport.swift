import Foundation
import PracticeCore

/// A fresh directory under the system temp dir, removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
  public let path: String

  public init() {
    let base = FileManager.default.temporaryDirectory.path
    path = base + "/practice-test-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  public func file(_ name: String) -> String { path + "/" + name }

  /// A library `lib.sqlite` here holding one song: `a.wav`, `seconds` of a 440 Hz sine.
  public func libraryWithOneSong(seconds: Double = 4) throws -> (Library, Song) {
    let library = try Library(path: file("lib.sqlite"))
    try Synth.write(Synth.sine(frequency: 440, seconds: seconds), to: file("a.wav"))
    return (library, try library.resolve(file("a.wav")))
  }
}

/// Synthetic audio for tests: generated here, written and read back with PracticeCore.
public enum Synth {
  /// A sine, `amplitude` peak, starting at `phase` radians; interleaved, same in every channel.
  public static func sine(
    frequency: Double, seconds: Double, sampleRate: Int = 44100, channels: Int = 1,
    amplitude: Double = 0.5, phase: Double = 0
  ) -> [Float] {
    let frames = Int(seconds * Double(sampleRate))
    var samples = [Float](repeating: 0, count: frames * channels)
    for i in 0..<frames {
      let value = Float(amplitude * sin(2 * Double.pi * frequency * Double(i) / Double(sampleRate) + phase))
      for c in 0..<channels { samples[i * channels + c] = value }
    }
    return samples
  }

  /// Rounds every sample to the 16-bit grid, as a 16-bit file would hold it.
  public static func quantized16(_ samples: [Float]) -> [Float] {
    samples.map { Float((Double($0) * 32768).rounded()) / 32768 }
  }

  /// Writes interleaved samples to `path` in the format its extension names.
  public static func write(
    _ samples: [Float], to path: String, sampleRate: Int = 44100, channels: Int = 1,
    bitDepth: Int = 16, tags: (title: String, artist: String, album: String)? = nil
  ) throws {
    guard let format = OutputFormat(path: path, bitDepth: bitDepth) else {
      throw PracticeError(.usage, "unknown test format \(path)")
    }
    let block = 1024
    let writer = try SoundFileWriter(
      path: path, format: format, sampleRate: sampleRate, channels: channels, maxBlockFrames: block)
    if let tags { writer.setTags(title: tags.title, artist: tags.artist, album: tags.album) }
    try samples.withUnsafeBufferPointer { buffer in
      var frame = 0
      let frames = samples.count / channels
      while frame < frames {
        let n = min(block, frames - frame)
        try writer.write(buffer.baseAddress! + frame * channels, frames: n)
        frame += n
      }
    }
    try writer.finish()
  }

  /// Writes interleaved samples as a 32-bit float WAV, byte for byte: unlike `write`, any
  /// value goes into the file as it is (NaN and infinities too, as a glitching plug-in
  /// writes them).
  public static func writeFloatWAV(
    _ samples: [Float], to path: String, sampleRate: Int = 44100, channels: Int = 1
  ) throws {
    var data = Data()
    func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
    let bytes = samples.count * 4
    data.append(contentsOf: Array("RIFF".utf8))
    put(UInt32(36 + bytes))
    data.append(contentsOf: Array("WAVEfmt ".utf8))
    put(UInt32(16))
    put(UInt16(3))  // WAVE_FORMAT_IEEE_FLOAT
    put(UInt16(channels))
    put(UInt32(sampleRate))
    put(UInt32(sampleRate * channels * 4))
    put(UInt16(channels * 4))
    put(UInt16(32))
    data.append(contentsOf: Array("data".utf8))
    put(UInt32(bytes))
    for sample in samples { put(sample.bitPattern) }
    try data.write(to: URL(fileURLWithPath: path))
  }

  /// Reads a whole file back: its info and interleaved samples.
  public static func read(_ path: String) throws -> (info: SoundFileInfo, samples: [Float]) {
    let file = try SoundFile(path: path)
    var samples = [Float](repeating: 0, count: Int(file.info.frames) * file.info.channels)
    var total = 0
    samples.withUnsafeMutableBufferPointer { buffer in
      while total < Int(file.info.frames) {
        let n = file.read(
          into: buffer.baseAddress! + total * file.info.channels,
          frames: Int(file.info.frames) - total)
        if n <= 0 { break }
        total += n
      }
    }
    return (file.info, Array(samples.prefix(total * file.info.channels)))
  }
}

/// The result of running the built `practice` binary.
public struct CommandResult: Sendable {
  public let status: Int32
  public let stdout: String
  public let stderr: String

  public init(status: Int32, stdout: String, stderr: String) {
    self.status = status
    self.stdout = stdout
    self.stderr = stderr
  }

  /// Stderr's non-empty lines.
  public var stderrLines: [String] {
    stderr.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
  }
}

/// A started `practice` process.
public final class RunningCommand: @unchecked Sendable {
  public let process: Process
  private let out: Pipe
  private let err: Pipe
  private let errLock = NSLock()
  private var errData = Data()  // appended by the reader thread under `errLock`
  private let errDone = DispatchSemaphore(value: 0)

  init(process: Process, out: Pipe, err: Pipe) {
    self.process = process
    self.out = out
    self.err = err
    // Read stderr on its own thread so a full pipe never blocks the child.
    Thread { [self] in
      let handle = err.fileHandleForReading
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        errLock.withLock { errData.append(chunk) }
      }
      errDone.signal()
    }.start()
  }

  /// What the process has written to stderr so far.
  public var stderrSoFar: String {
    errLock.withLock { String(decoding: errData, as: UTF8.self) }
  }

  /// Polls `condition` every 20 ms until it holds (true) or `timeout` seconds pass (false):
  /// for a test that must act only once the process has reached a point it can see, however
  /// slowly a loaded machine got it there.
  public func wait(timeout: Double = 30, until condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if condition() { return true }
      usleep(20_000)
    }
    return condition()
  }

  /// Waits for the process to exit and returns what it printed.
  public func finish() -> CommandResult {
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    errDone.wait()
    return CommandResult(
      status: process.terminationStatus,
      stdout: String(decoding: outData, as: UTF8.self),
      stderr: stderrSoFar)
  }
}

/// Runs the built `practice` with a private database and environment.
public struct CLI: Sendable {
  public let database: String
  public var environment: [String: String]

  /// The package root, from this file's location.
  public static let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  public static var binary: String {
    ProcessInfo.processInfo.environment["PRACTICE_BIN"]
      ?? packageRoot + "/.build/debug/practice"
  }

  public static func fixture(_ name: String) -> String { packageRoot + "/fixtures/" + name }

  public init(database: String, environment: [String: String] = [:]) {
    self.database = database
    var env = ProcessInfo.processInfo.environment
    env["PRACTICE_DB"] = database
    env.removeValue(forKey: "PRACTICE_DEVICE")
    env.removeValue(forKey: "PRACTICE_TRACE")
    for (key, value) in environment { env[key] = value }
    self.environment = env
  }

  /// Runs `practice args…` to completion in `directory` (default: the package root).
  @discardableResult
  public func run(
    _ arguments: [String], in directory: String? = nil, asUser user: String? = nil
  ) throws -> CommandResult {
    try start(arguments, in: directory, asUser: user).finish()
  }

  /// Starts `practice args…` and returns at once; `finish()` waits and collects output.
  /// `asUser` runs it as that user through setpriv (for permission tests run as root).
  public func start(
    _ arguments: [String], in directory: String? = nil, asUser user: String? = nil
  ) throws -> RunningCommand {
    let process = Process()
    if let user {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
      process.arguments = [
        "--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--", CLI.binary,
      ] + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: CLI.binary)
      process.arguments = arguments
    }
    process.environment = environment
    process.currentDirectoryURL = URL(fileURLWithPath: directory ?? CLI.packageRoot)
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return RunningCommand(process: process, out: out, err: err)
  }

  /// Runs `practice args…` with stderr on a pseudo-terminal (`script(1)`) and stdout into
  /// `stdoutFile`; returns the exit status and every byte written to the terminal (escape
  /// sequences and carriage returns included), from the start of the session to its end.
  public func runInTerminal(_ arguments: [String], stdoutFile: String) throws -> (
    status: Int32, terminal: String
  ) {
    func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    let typescript = stdoutFile + ".typescript"
    let command = ([CLI.binary] + arguments).map(quoted).joined(separator: " ") + " > "
      + quoted(stdoutFile)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    process.arguments = ["-q", "-e", "-c", command, typescript]
    process.environment = environment
    process.currentDirectoryURL = URL(fileURLWithPath: CLI.packageRoot)
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let bytes = (try? Data(contentsOf: URL(fileURLWithPath: typescript))) ?? Data()
    return (process.terminationStatus, String(decoding: bytes, as: UTF8.self))
  }

  /// The library as `list --json` prints it and every row of every table (`sqlite3 .dump`,
  /// ids, the sequence of ids and the waveform summaries included), to check a command left
  /// it exactly as it was. Empty when there is no library file.
  public func snapshot() throws -> String {
    guard FileManager.default.fileExists(atPath: database) else { return "" }
    let listed = try run(["list", "--json"]).stdout
    let scratch = (database as NSString).deletingLastPathComponent
    let dump = try runProgram(
      "/usr/bin/sqlite3", ["-readonly", database, ".dump"], environment: [:], directory: scratch,
      scratch: scratch)
    return listed + "\n" + dump.stdout + dump.stderr
  }
}

/// Runs `executable` to completion in `directory`, stdin from /dev/null, stdout and stderr
/// captured through files in `scratch` (so that a full pipe never blocks it).
public func runProgram(
  _ executable: String, _ arguments: [String], environment: [String: String],
  directory: String, scratch: String
) throws -> CommandResult {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  process.environment = environment
  process.currentDirectoryURL = URL(fileURLWithPath: directory)
  let out = scratch + "/run-\(UUID().uuidString).out"
  let err = scratch + "/run-\(UUID().uuidString).err"
  FileManager.default.createFile(atPath: out, contents: nil)
  FileManager.default.createFile(atPath: err, contents: nil)
  process.standardOutput = FileHandle(forWritingAtPath: out)
  process.standardError = FileHandle(forWritingAtPath: err)
  process.standardInput = FileHandle.nullDevice
  try process.run()
  process.waitUntilExit()
  defer {
    try? FileManager.default.removeItem(atPath: out)
    try? FileManager.default.removeItem(atPath: err)
  }
  return CommandResult(
    status: process.terminationStatus,
    stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
    stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
}
