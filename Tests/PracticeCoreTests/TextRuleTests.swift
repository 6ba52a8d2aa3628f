import Testing

@testable import PracticeCore

/// The one rule for names and notes, and what every door that prints a tag or a name leans
/// on: which characters are controls (never shown raw) and how they are written instead.
@Suite struct TextRuleTests {
  @Test func controlsAreC0DelC1AndTheBidirectionalControls() {
    let controls: [UInt32] = [
      0x00, 0x07, 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9B, 0x9F, 0x202A, 0x202E, 0x2066, 0x2069,
    ]
    for value in controls {
      #expect(TextRule.isControl(Unicode.Scalar(value)!), "U+\(String(value, radix: 16))")
    }
    for value: UInt32 in [0x20, 0x7E, 0xA0, 0xE9, 0x2029, 0x202F, 0x2065, 0x206A, 0x3042] {
      #expect(!TextRule.isControl(Unicode.Scalar(value)!), "U+\(String(value, radix: 16))")
    }
    // Below U+0080 two hex digits, above four.
    #expect(TextRule.escape("\u{7}") == "\\x07" && TextRule.escape("\u{1B}") == "\\x1b")
    #expect(TextRule.escape("\u{7F}") == "\\x7f" && TextRule.escape("\u{9B}") == "\\u009b")
    #expect(TextRule.escape("\u{2069}") == "\\u2069")
    #expect(TextRule.problem("a\u{85}b")?.hasPrefix("holds a control character (U+0085)") == true)
    #expect(
      TextRule.problem("a\u{2069}")?.hasPrefix("holds a bidirectional control (U+2069)") == true)
  }

  /// The byte form of the rule (`controlBytes`, what `list --json` and the terminal door
  /// scan megabytes with) agrees with `isControl` on every scalar, each alone and between
  /// other text, and says how many bytes the control takes.
  @Test func theRuleReadOffUTF8BytesAgreesOnEveryScalar() {
    for value in UInt32(0)...0x10FFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let text = "a" + String(Character(scalar)) + "b"
      let expected = TextRule.isControl(scalar) ? String(scalar).utf8.count : 0
      let found = Array(text.utf8).withUnsafeBufferPointer { TextRule.controlBytes($0, at: 1) }
      if found != expected {
        Issue.record("U+\(String(value, radix: 16)): \(found) bytes, expected \(expected)")
      }
    }
    // A character cut off at the end of the bytes is not taken for a control.
    for cut: [UInt8] in [[0xC2], [0xE2, 0x80]] {
      #expect(cut.withUnsafeBufferPointer { TextRule.controlBytes($0, at: 0) } == 0)
    }
  }

  /// At most 4,096 bytes: a name of exactly that many is fine; cleaning a longer one keeps
  /// as many whole characters as fit in 4,096 bytes.
  @Test func namesAreAtMostTheirBytesAndCleaningCutsToThem() {
    let limit = TextRule.maximumBytes
    #expect(limit == 4096)
    #expect(TextRule.problem(String(repeating: "a", count: limit)) == nil)
    #expect(
      TextRule.problem(String(repeating: "a", count: limit + 1))
        == "is 4097 bytes long; names and notes are at most 4096")
    // A BEL then 4,095 letters: U+FFFD takes 3 bytes, so 4,093 letters fit beside it.
    let cleaned = TextRule.cleaned("\u{7}" + String(repeating: "a", count: limit - 1))
    #expect(cleaned == "\u{FFFD}" + String(repeating: "a", count: limit - 3))
    #expect(cleaned.utf8.count == limit)
  }
}
