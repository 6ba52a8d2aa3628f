import Foundation
import TestSupport
import Testing

/// How a play ended by a signal exits: after the same clean stop, 128 + the signal, as a
/// shell counts it (130 for SIGINT, 143 for SIGTERM), and the log says it was interrupted.
@Suite struct TerminationTests {
  let dir = TemporaryDirectory()

  /// Starts an endless `play --loop` on the null device (it runs as fast as it can), waits
  /// for its first pass on stderr, sends `signal`; the exit status and stderr.
  func stopped(by signal: Int32) throws -> (status: Int32, stderr: String, log: String) {
    let song = dir.file("tone-\(signal).wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: song)
    let cli = CLI(database: dir.file("lib-\(signal).sqlite"))
    let errPath = dir.file("err-\(signal)")
    FileManager.default.createFile(atPath: errPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.binary)
    process.arguments = ["play", song, "--device", "null", "--loop", "--progress", "json"]
    process.environment = cli.environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle(forWritingAtPath: errPath)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    func stderr() -> String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }
    for _ in 0..<1200 where !stderr().contains(#""event":"pass""#) && process.isRunning {
      usleep(50_000)
    }
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    return (process.terminationStatus, stderr(), try cli.run(["log"]).stdout)
  }

  @Test func sigtermExits143AfterACleanStop() throws {
    let result = try stopped(by: SIGTERM)
    #expect(result.status == 143, "\(result.stderr)")
    #expect(result.stderr.contains(#""event":"stopped""#), "\(result.stderr)")
    #expect(result.log.hasSuffix("\tinterrupted\n"), "\(result.log)")
  }

  @Test func sigintExits130() throws {
    let result = try stopped(by: SIGINT)
    #expect(result.status == 130, "\(result.stderr)")
    #expect(result.log.hasSuffix("\tinterrupted\n"), "\(result.log)")
  }
}
