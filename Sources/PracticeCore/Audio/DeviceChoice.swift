import Foundation

/// Which ALSA PCM a command opens: the one asked for by name, else the one its environment
/// variable names, else ALSA's "default". Playback (`play`, `resume`, `setlist play`,
/// `beats tap`, `tone`) reads `$PRACTICE_DEVICE`; capture (`tune`) reads `$PRACTICE_CAPTURE`.
public enum DeviceChoice: Sendable {
  case playback, capture

  /// The environment variable that names the device when none is asked for.
  public var environmentVariable: String {
    switch self {
    case .playback: "PRACTICE_DEVICE"
    case .capture: "PRACTICE_CAPTURE"
    }
  }

  /// The PCM name to open: `asked`, else the environment's, else "default".
  public func name(
    asked: String?, environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    asked ?? environment[environmentVariable] ?? "default"
  }
}
