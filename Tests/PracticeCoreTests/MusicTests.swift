import PracticeCore
import Testing

@Suite struct TimeParsingTests {
  @Test(arguments: [
    ("83.5", 83.5), ("0", 0), ("1:23.5", 83.5), ("1:02:03.5", 3723.5), ("10:00", 600),
    ("0:59.999", 59.999),
  ])
  func parsesTimes(text: String, seconds: Double) {
    #expect(parseTime(text) == seconds)
  }

  @Test(arguments: [
    "", "-1", "1:75", "1:2:3:4", "abc", "1.2.3", "1:", ":30", ".", "1e3", "nan", "inf", "1:-5",
    "99999999999999999999", "3600001", "1:60", "0:60.0", "1:60:00",
  ])
  func rejectsMalformedTimes(text: String) {
    #expect(parseTime(text) == nil)
  }

  /// `--since 30m`: a span back from now; none is zero, not refused.
  @Test func parsesLookBacks() {
    #expect(parseLookBack("0d") == 0)
    #expect(parseLookBack("30m") == 1800)
    #expect(parseLookBack("2w") == 1_209_600)
    for bad in ["-1d", "+1d", "1y", "d", ""] { #expect(parseLookBack(bad) == nil, "\(bad)") }
  }

  @Test func formatsTimes() {
    #expect(formatTime(83.5) == "1:23.5")
    #expect(formatTime(0) == "0:00.0")
    #expect(formatTime(3723.46) == "1:02:03.5")
  }
}

/// `--speed`: a rate or a percentage; a plain number from 25 up is a percentage.
@Suite struct SpeedValueTests {
  @Test(arguments: [
    ("0.75", 0.75), ("75%", 0.75), ("75", 0.75), ("25", 0.25), ("0.25", 0.25), ("2", 2.0),
    ("200", 2.0), ("25%", 0.25), ("200%", 2.0),
  ])
  func parsesRatesAndPercentages(text: String, rate: Double) throws {
    #expect(try #require(Speed(parsing: text), "\(text)").rate == rate)
  }

  @Test(arguments: ["24", "0.24", "2.01", "201", "24%", "", "%", "fast"])
  func refusesSpeedsOutsideTheRange(text: String) {
    #expect(Speed(parsing: text) == nil)
  }

  /// A speed reads back as the percentage typed, to a tenth of a point.
  @Test func readsAsAPercentage() throws {
    #expect(try #require(Speed(parsing: "75%")).description == "75%")
    #expect(try #require(Speed(parsing: "75.5%")).description == "75.5%")
    #expect(Speed(clamping: 0.7 + 0.1 + 0.1).description == "90%")
  }
}

@Suite struct VolumeTests {
  @Test(arguments: [("80%", 0.8), ("0.8", 0.8), ("0%", 0), ("200%", 2), ("2", 2), ("100%", 1)])
  func parsesVolumes(text: String, gain: Double) throws {
    let volume = try #require(Volume(parsing: text))
    #expect(abs(volume.gain - gain) < 1e-12)
  }

  @Test func parsesDecibels() throws {
    #expect(abs(try #require(Volume(parsing: "-6dB")).gain - 0.501187) < 1e-6)
    #expect(try #require(Volume(parsing: "0dB")).gain == 1)
    #expect(Volume(parsing: "+6dB") != nil)  // 199.5 %
  }

  @Test(arguments: ["201%", "2.5", "-0.1", "+7dB", "loud", "", "%", "nan", "inf"])
  func rejectsOutOfRangeOrMalformed(text: String) {
    #expect(Volume(parsing: text) == nil)
  }
}

@Suite struct TimeRangeTests {
  @Test func defaultsToTheWholeAudio() throws {
    #expect(try resolveTimeRange(from: nil, to: nil, sampleRate: 100, frames: 1000) == 0..<1000)
  }

  @Test func convertsSecondsToFrames() throws {
    #expect(try resolveTimeRange(from: 1.5, to: 2.25, sampleRate: 100, frames: 1000) == 150..<225)
    #expect(try resolveTimeRange(from: nil, to: 10, sampleRate: 100, frames: 1000) == 0..<1000)
  }

  @Test func rejectsImpossibleRanges() {
    // What was wrong, as values (the CLI words them with --from and --to).
    for (from, to, error) in [
      (5.0, 4.0, RangeError.startNotBeforeEnd(start: 5, end: 4)),
      (3.0, 3.0, .startNotBeforeEnd(start: 3, end: 3)), (10.0, nil, .startPastEnd(start: 10, duration: 10)),
      (nil, 10.5, .endPastEnd(end: 10.5, duration: 10)), (11, 12, .startPastEnd(start: 11, duration: 10)),
    ] as [(Double?, Double?, RangeError)] {
      #expect(throws: error) {
        try resolveTimeRange(from: from, to: to, sampleRate: 100, frames: 1000)
      }
    }
  }
}

/// The transposition `tuning` suggests: none inside the estimate's uncertainty.
@Suite struct ConcertPitchCorrectionTests {
  @Test func noCorrectionWithinTheUncertainty() {
    for cents in [0.0, 2, -2, 3, -3] {
      #expect(ConcertPitch.correction(forCents: cents) == nil, "\(cents)")
    }
    #expect(ConcertPitch.correction(forCents: -30) == 0.3)
    #expect(ConcertPitch.correction(forCents: 3.5) == -0.035)
  }
}
