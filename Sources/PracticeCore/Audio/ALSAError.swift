import CALSA

/// An ALSA failure: its (negative) error code, `snd_strerror`'s text, the device and the call.
public struct ALSAError: PracticeFailure {
  public let code: Int32
  public let reason: String
  public let device: String
  public let operation: String
  public let advice: String

  public init(code: Int32, device: String, operation: String, advice: String) {
    self.code = code
    self.reason = String(cString: snd_strerror(code))
    self.device = device
    self.operation = operation
    self.advice = advice
  }

  public var category: FailureCategory { .deviceUnavailable }

  public var description: String {
    "audio device '\(device)': ALSA error \(code) (\(reason)) while \(operation); \(advice)"
  }
}
