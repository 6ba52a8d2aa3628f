import Foundation

/// The longest time accepted (1,000 hours): far past any recording, and far from
/// overflowing a frame count at any sample rate.
public let maximumTime = 3_600_000.0

/// Parses a time written as seconds (`83.5`), minutes and seconds (`1:23.5`) or
/// hours, minutes and seconds (`1:02:03.5`) into seconds. Returns nil if malformed or
/// past `maximumTime`.
public func parseTime(_ text: String) -> Double? {
  // `-0` is zero, the start; any other negative time is none.
  if text.hasPrefix("-") { return parseTime(String(text.dropFirst())) == 0 ? 0 : nil }
  let parts = text.split(separator: ":", omittingEmptySubsequences: false)
  guard (1...3).contains(parts.count) else { return nil }
  var total = 0.0
  for (index, part) in parts.enumerated() {
    let isLast = index == parts.count - 1
    // Only the last field may have a fraction; every field must be plain digits.
    guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || (isLast && $0 == ".")) }),
      part.filter({ $0 == "." }).count <= 1, part != "."
    else { return nil }
    guard let value = Double(part) else { return nil }
    if index > 0 && value >= 60 { return nil }
    total = total * 60 + value
  }
  return total.isFinite && total <= maximumTime ? total : nil
}

/// Formats seconds as `m:ss.s` (or `h:mm:ss.s` past an hour), the way times are shown.
public func formatTime(_ seconds: Double) -> String {
  // Clamped (to 31,000 years), so that no number read from a file can trap the conversion.
  let shown = seconds.isFinite ? min(max(0, seconds), 1e12) : 0
  let tenths = Int((shown * 10).rounded())
  let hours = tenths / 36000
  let minutes = (tenths / 600) % 60
  let secs = (tenths / 10) % 60
  let fraction = tenths % 10
  let ss = secs < 10 ? "0\(secs)" : "\(secs)"
  if hours > 0 {
    let mm = minutes < 10 ? "0\(minutes)" : "\(minutes)"
    return "\(hours):\(mm):\(ss).\(fraction)"
  }
  return "\(minutes):\(ss).\(fraction)"
}

/// Seconds for messages and for commands to paste: at least 3 decimals, more when they
/// matter (`4.500`, `4.5001`); `parseTime` reads them back. A number past any time (a file
/// can hold 1e300) keeps Swift's shortest form, `1e+300`, not 300 digits.
public func formatSeconds(_ value: Double) -> String {
  guard value.isFinite, abs(value) < 1e9 else { return "\(value)" }
  var text = String(format: "%.9f", value)
  while text.hasSuffix("0"), let dot = text.firstIndex(of: "."),
    text.distance(from: dot, to: text.endIndex) > 4
  {
    text.removeLast()
  }
  return text
}

/// Formats a range of source frames as `m:ss.s–m:ss.s`.
public func formatTimeRange(_ frames: Range<Int64>, sampleRate: Int) -> String {
  let rate = Double(sampleRate)
  return
    "\(formatTime(Double(frames.lowerBound) / rate))–\(formatTime(Double(frames.upperBound) / rate))"
}

/// m:ss, or h:mm:ss, whole seconds (a status line's clock).
public func formatClock(_ seconds: Double) -> String {
  let whole = Int(max(0, seconds))
  let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
  return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
}

/// m:ss.mmm (a tap's time).
public func formatMilliseconds(_ seconds: Double) -> String {
  let millis = Int((max(0, seconds) * 1000).rounded())
  return String(format: "%d:%02d.%03d", millis / 60_000, millis / 1000 % 60, millis % 1000)
}

/// How long work took, for a person: `0.42 s`, `12.3 s`, `2:05.0`.
public func formatTaken(_ seconds: Double) -> String {
  guard seconds.isFinite, seconds >= 0 else { return "0 s" }
  if seconds < 10 { return String(format: "%.2f s", seconds) }
  if seconds < 60 { return String(format: "%.1f s", seconds) }
  return formatTime(seconds)
}

/// The furthest back `--since` looks: 100 years.
public let maximumLookBack: Double = 100 * 365 * 86_400

/// Parses a span back from now, `30m`, `12h`, `7d` or `2w`, into seconds. Returns nil if
/// malformed, negative or past `maximumLookBack` (so no later arithmetic can overflow).
public func parseLookBack(_ text: String) -> Double? {
  let units: [Character: Double] = ["m": 60, "h": 3600, "d": 86_400, "w": 604_800]
  guard let unit = text.last.flatMap({ units[$0] }), let count = parseDecimal(text.dropLast()),
    count >= 0, !text.hasPrefix("+")
  else { return nil }
  let seconds = count * unit
  return seconds <= maximumLookBack ? seconds : nil
}

/// Parses when a listing starts: a span back from `now` (`parseLookBack`) or a local date
/// (`2026-11-01`, years 1900 to 9999). Returns nil if it is neither.
public func parseSince(_ text: String, now: Date = Date()) -> Date? {
  if let seconds = parseLookBack(text) { return now.addingTimeInterval(-seconds) }
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.dateFormat = "yyyy-MM-dd"
  guard text.count == 10, let day = formatter.date(from: text),
    let year = Int(text.prefix(4)), (1900...9999).contains(year)
  else { return nil }
  return day
}

/// `2026-11-28 15:40` in local time (through the C library: no ICU for one line).
public func formatLocalClock(_ date: Date) -> String {
  var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
  var parts = tm()
  localtime_r(&seconds, &parts)
  return String(
    format: "%04d-%02d-%02d %02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
    Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min))
}
