import Foundation
import Testing
import TestSupport

/// Real-time playback into a private PulseAudio null sink, started and stopped here,
/// through ALSA's `pulse` PCM; what arrived is recorded from the sink's monitor.
@Suite(.serialized) struct SoundServerTests {
  @Test func playsInRealTimeAndTheSinkHearsTheSource() throws {
    let dir = TemporaryDirectory()
    let server = try SoundServer(directory: dir.file("sound"))
    defer { server.stop() }
    var cli = CLI(database: dir.file("lib.sqlite"))
    cli.environment["PULSE_SERVER"] = server.address

    // One shell step records the sink's monitor around the play and times the play;
    // parecord is stopped with SIGKILL: children of the test runner inherit blocked
    // SIGINT/SIGTERM. It writes as it records, and 0.3 s of margin covers the tail.
    let capture = dir.file("heard.raw")
    let script = """
      parecord --device=practice_null.monitor --raw --format=s16le --rate=44100 \\
        --channels=2 --latency-msec=20 "$3" & rec=$!
      sleep 0.3
      start=$(date +%s%N)
      "$1" play "$2" --device pulse 2>"$4"; status=$?
      end=$(date +%s%N)
      sleep 0.3
      kill -KILL $rec; wait $rec 2>/dev/null
      echo "$status $(( (end - start) / 1000000 ))"
      """
    let outcome = try Shell.run(
      script, arguments: [CLI.binary, CLI.fixture("sine-440.wav"), capture, dir.file("play.err")],
      environment: cli.environment, directory: dir.path)
    let fields = outcome.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    try #require(fields.count == 2, "unexpected output: \(outcome)")
    let result = (status: Int32(fields[0]), stderr: (try? String(contentsOfFile: dir.file("play.err"), encoding: .utf8)) ?? "")
    let wall = Duration.milliseconds(fields[1])

    #expect(result.status == 0, "\(result.stderr)")
    // Two seconds of audio cannot play in less than two seconds, and should not take
    // much more than that plus the device buffer.
    #expect(wall >= .milliseconds(1950), "played too fast: \(wall)")
    #expect(wall <= .milliseconds(3500), "played too slowly: \(wall)")

    let (_, source) = try Synth.read(CLI.fixture("sine-440.wav"))
    let raw = try Data(contentsOf: URL(fileURLWithPath: capture))
    let heard: [Float] = raw.withUnsafeBytes { bytes in
      let shorts = bytes.bindMemory(to: Int16.self)
      return stride(from: 0, to: shorts.count - 1, by: 2).map { Float(Int16(littleEndian: shorts[$0])) / 32768 }
    }
    let onset = try #require(heard.firstIndex { abs($0) > 0.01 }, "the sink heard nothing")
    // Align on the first loud sample of the source, then compare the whole two seconds.
    let sourceOnset = try #require(source.firstIndex { abs($0) > 0.01 })
    let start = onset - sourceOnset
    #expect(start >= 0 && heard.count >= start + source.count, "the capture is too short")
    guard start >= 0, heard.count >= start + source.count else { return }
    let worst = zip(source, heard[start..<(start + source.count)]).map { abs($0 - $1) }.max()!
    #expect(worst <= 2.0 / 32768, "the sink heard something other than the source (max error \(worst))")
    let after = heard[(start + source.count)...].prefix(4410)
    #expect(after.allSatisfy { abs($0) < 0.01 }, "audio continued past the end of the song")
  }
}

/// The private PulseAudio server of scripts/sound-server.sh.
struct SoundServer {
  let directory: String
  let address: String

  init(directory: String) throws {
    self.directory = directory
    let result = try SoundServer.script("start", directory)
    guard result.status == 0,
      let line = result.stdout.split(separator: "\n").first(where: { $0.contains("PULSE_SERVER=") })
    else {
      throw PracticeTestError("sound server did not start: \(result.stderr)")
    }
    address = String(line.split(separator: "=", maxSplits: 1)[1])
  }

  func stop() { _ = try? SoundServer.script("stop", directory) }

  /// Runs scripts/sound-server.sh. Its output goes to files, not pipes: the daemons it
  /// starts inherit the descriptors and would hold a pipe open forever.
  private static func script(_ verb: String, _ directory: String) throws -> (
    status: Int32, stdout: String, stderr: String
  ) {
    let outPath = directory + ".\(verb).out"
    let errPath = directory + ".\(verb).err"
    FileManager.default.createFile(atPath: outPath, contents: nil)
    FileManager.default.createFile(atPath: errPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.packageRoot + "/scripts/sound-server.sh")
    process.arguments = [verb, directory]
    process.standardOutput = FileHandle(forWritingAtPath: outPath)
    process.standardError = FileHandle(forWritingAtPath: errPath)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    return (process.terminationStatus, out, err)
  }
}

/// Runs a bash script with output to a file, so no pipe can be held open by its children.
enum Shell {
  static func run(
    _ script: String, arguments: [String], environment: [String: String], directory: String
  ) throws -> String {
    let outPath = directory + "/shell-\(UUID().uuidString).out"
    FileManager.default.createFile(atPath: outPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script, "bash"] + arguments
    process.environment = environment
    process.standardOutput = FileHandle(forWritingAtPath: outPath)
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
  }
}

struct PracticeTestError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
