import Foundation
import Testing

@testable import PracticeCore

/// Small values at their edges: the checked whole number nearest a file's value, a time as
/// m:ss.mmm past a minute, the speed trainer's step bounds and its count of passes, a
/// table's columns of one drop rank, the play line's trainer climbing or coming down.
@Suite struct EdgeValueTests {
  @Test func theNearestWholeNumberRoundsHalfAwayAndRefusesWhatIsNoNumber() {
    #expect(Int64(nearest: 2.6) == 3 && Int64(nearest: -2.6) == -3 && Int64(nearest: 2.5) == 3)
    #expect(Int64(nearest: 2.4) == 2 && Int64(nearest: -0.4) == 0)
    #expect(Int64(nearest: .nan) == nil && Int64(nearest: 1e300) == nil)
  }

  @Test func millisecondsAreRoundedAndTheSecondsWrapAtTheMinute() {
    #expect(formatMilliseconds(3.844761905) == "0:03.845")
    #expect(formatMilliseconds(83.5) == "1:23.500")
    #expect(formatMilliseconds(119.9996) == "2:00.000")
    #expect(formatMilliseconds(-1) == "0:00.000")
  }

  @Test func aStepRunsFromATenthOfAPointTo175PointsEitherWay() {
    #expect(PracticeSettings.parseStep("175%") == 1.75)
    #expect(PracticeSettings.parseStep("-175%") == -1.75)
    #expect(PracticeSettings.parseStep("175.1%") == nil)
    #expect(PracticeSettings.parseStep("0.1%") == 0.001)
    #expect(PracticeSettings.parseStep("-5%") == -0.05)
    #expect(PracticeSettings.parseStep("0.09%") == nil)
    // Compared to the millionth: a hair past an edge, as arithmetic leaves it, is the edge.
    #expect(PracticeSettings.allowsStep(1.75 + 1e-9) && PracticeSettings.allowsStep(0.001 - 1e-10))
  }

  /// 70% to 100% by 5 points is six steps and the target: seven passes, though 0.3 / 0.05
  /// comes out a hair over 6 in binary.
  @Test func aDrillCountsItsStepsAndTheTarget() throws {
    let drill = PracticeSettings(
      speed: try #require(Speed(parsing: "70%")), rampTo: try #require(Speed(parsing: "100%")),
      step: 0.05)
    #expect(drill.drillPasses == 7)
    var twice = drill
    twice.every = 2
    #expect(twice.drillPasses == 14)
  }

  /// Of two columns of the highest rank the last goes first; a column of rank 0 never goes
  /// (the line is cut at the edge instead).
  @Test func ofTwoColumnsOfOneRankTheLastIsLeftOutFirst() {
    let table = TextTable(
      columns: [.init("NAME"), .init("X", drop: 1), .init("Y", drop: 1)],
      rows: [["name", "xx", "yy"]])
    #expect(table.layout(width: 10) { $0 } == ["NAME  X", "name  xx"])
    #expect(table.layout(width: 5) { $0 } == ["NAME", "name"])
    let kept = TextTable(columns: [.init("NAME"), .init("ID")], rows: [["name", "12"]])
    #expect(kept.layout(width: 7) { $0 } == ["NAME  …", "name  …"])
  }

  /// The line names the speed the last pass reaches, whichever way the trainer goes.
  @Test func thePlayLineNamesTheTrainersLastSpeedUpOrDown() throws {
    func summary(from: String, to: String, step: Double, passes: Int) throws -> String {
      var plan = PlaybackPlan(range: 0..<44100, passes: .count(passes), volume: .unity, sampleRate: 44100)
      plan.speed = try #require(Speed(parsing: from))
      plan.ramp = PlaybackPlan.Ramp(target: try #require(Speed(parsing: to)), step: step, every: 1)
      return plan.summary(sampleRate: 44100)
    }
    let up = try summary(from: "70%", to: "100%", step: 0.1, passes: 3)
    #expect(up.contains(", speed 70% → 90%"), "\(up)")
    let down = try summary(from: "100%", to: "85%", step: -0.05, passes: 4)
    #expect(down.contains(", speed 100% → 85%"), "\(down)")
  }
}
