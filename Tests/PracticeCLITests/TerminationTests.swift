import Foundation
import TestSupport
import Testing

/// How a play ended by a signal exits: after the same clean stop, 128 + the signal, as a
/// shell counts it (130 for SIGINT, 143 for SIGTERM), and the log says it was interrupted.
@Suite struct TerminationTests {
  let dir = TemporaryDirectory()

  /// Starts an endless `play --loop` on the null device (it runs as fast as it can), waits
  /// for its first pass on stderr, sends `signal`; the exit status, stderr and the log.
  func stopped(by signal: Int32) throws -> (status: Int32, stderr: String, log: String) {
    let song = dir.file("tone-\(signal).wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 1), to: song)
    let cli = CLI(database: dir.file("lib-\(signal).sqlite"))
    let play = try cli.start(["play", song, "--device", "null", "--loop", "--progress", "json"])
    _ = play.wait(timeout: 60) {
      play.stderrSoFar.contains(#""event":"pass""#) || !play.process.isRunning
    }
    kill(play.process.processIdentifier, signal)
    let result = play.finish()
    return (result.status, result.stderr, try cli.run(["log"]).stdout)
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
