import Foundation

/// A value with one JSON shape: what a `--json` prints, a `--progress json` event, a record
/// of the `.practice` file. Each shape spells its keys once, in `write(to:)`, into the one
/// `JSONWriter`; the CLI only chooses what to print.
public protocol JSONOutput {
  func write(to out: inout JSONWriter)
}

extension JSONOutput {
  /// One line of JSON that may reach a terminal (control characters escaped), without the
  /// newline.
  public var jsonText: String {
    var out = JSONWriter(escapesTerminalControls: true)
    write(to: &out)
    return out.text
  }
}

extension String: JSONOutput {
  public func write(to out: inout JSONWriter) { out.string(self) }
}

extension Int: JSONOutput {
  public func write(to out: inout JSONWriter) { out.int(Int64(self)) }
}

extension Int64: JSONOutput {
  public func write(to out: inout JSONWriter) { out.int(self) }
}

extension Double: JSONOutput {
  public func write(to out: inout JSONWriter) { out.number(self) }
}

extension Bool: JSONOutput {
  public func write(to out: inout JSONWriter) { out.bool(self) }
}

/// `null` for nil: the printed shapes keep every key.
extension Optional: JSONOutput where Wrapped: JSONOutput {
  public func write(to out: inout JSONWriter) {
    if let self { self.write(to: &out) } else { out.null() }
  }
}

extension Array: JSONOutput where Element: JSONOutput {
  public func write(to out: inout JSONWriter) { out.array(self) { $1.write(to: &$0) } }
}

extension JSONWriter {
  /// Writes `key` and `value` (nil as `null`) into the object being written.
  public mutating func field(_ key: StaticString, _ value: some JSONOutput) {
    field(key) { value.write(to: &$0) }
  }

  /// Writes `key` and `value` only when `value` is not nil (the `.practice` file leaves
  /// absent values out).
  public mutating func field<T: JSONOutput>(_ key: StaticString, ifPresent value: T?) {
    guard let value else { return }
    field(key) { value.write(to: &$0) }
  }
}

/// A number rounded to `places` decimals as it is printed: `Rounded(1.23456, 3)` is 1.235.
public struct Rounded: JSONOutput {
  public var value: Double
  public var places: Int

  public init(_ value: Double, _ places: Int) {
    self.value = value
    self.places = places
  }

  public func write(to out: inout JSONWriter) {
    let scale = [1.0, 10, 100, 1000, 10000, 100_000, 1_000_000][min(max(places, 0), 6)]
    out.number((value * scale).rounded() / scale)
  }
}

/// A number its maker formatted (`String(format: "%.9f", …)`, six decimals without trailing
/// zeros): written as it is. Only digits, sign, point and exponent: anything else is `null`
/// and a problem.
public struct FormattedNumber: JSONOutput {
  public var text: String

  public init(_ text: String) { self.text = text }

  public func write(to out: inout JSONWriter) {
    let allowed = text.utf8.allSatisfy { (0x30...0x39).contains($0) || "-+.eE".utf8.contains($0) }
    guard allowed, !text.isEmpty else {
      out.problem = out.problem ?? "'\(text)' is not a number"
      return out.null()
    }
    out.bytes.append(contentsOf: text.utf8)
  }
}

/// A moment as printed: `2026-11-28T15:30:00Z` (ISO 8601, UTC).
public struct Timestamp: JSONOutput {
  public var date: Date

  public init(_ date: Date) { self.date = date }

  public var text: String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: date)
  }

  public func write(to out: inout JSONWriter) { out.string(text) }
}
