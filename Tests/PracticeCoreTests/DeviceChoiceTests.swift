import Testing

@testable import PracticeCore

/// The one choice of an ALSA device: the name asked for, else the environment's, else
/// "default"; playback and capture each read their own variable.
@Suite struct DeviceChoiceTests {
  @Test func theNameAskedForWinsOverTheEnvironment() {
    let environment = ["PRACTICE_DEVICE": "pulse", "PRACTICE_CAPTURE": "hw:1"]
    #expect(DeviceChoice.playback.name(asked: "null", environment: environment) == "null")
    #expect(DeviceChoice.capture.name(asked: "null", environment: environment) == "null")
  }

  @Test func eachChoiceReadsItsOwnVariable() {
    let environment = ["PRACTICE_DEVICE": "pulse", "PRACTICE_CAPTURE": "hw:1"]
    #expect(DeviceChoice.playback.name(asked: nil, environment: environment) == "pulse")
    #expect(DeviceChoice.capture.name(asked: nil, environment: environment) == "hw:1")
    #expect(DeviceChoice.capture.name(asked: nil, environment: ["PRACTICE_DEVICE": "pulse"]) == "default")
  }

  @Test func withoutEitherTheDefaultPCM() {
    #expect(DeviceChoice.playback.name(asked: nil, environment: [:]) == "default")
  }
}
