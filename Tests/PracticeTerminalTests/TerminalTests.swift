import PracticeCore
import Testing

@testable import PracticeTerminal

/// The door to the terminal: what comes from a file is shown escaped, and a status line is
/// cut to the terminal's width.
@Suite struct TerminalTests {
  @Test func controlCharactersAreShownEscaped() {
    #expect(Terminal.escaped("a\u{1B}]0;title\u{7}b") == "a\\x1b]0;title\\x07b")
    #expect(Terminal.escaped("\u{0}\u{1F}\u{7F}") == "\\x00\\x1f\\x7f")
    // C1 (CSI, NEL) and the bidirectional controls.
    #expect(Terminal.escaped("x\u{9B}2J\u{85}") == "x\\u009b2J\\u0085")
    #expect(Terminal.escaped("abc\u{202E}def\u{2066}") == "abc\\u202edef\\u2066")
    // Tab and newline split no line or record; kept where the layout is the program's own.
    #expect(Terminal.escaped("a\tb\nc") == "a\\x09b\\x0ac")
    #expect(Terminal.escaped("a\tb\nc", keepingLayout: true) == "a\tb\nc")
    // A backslash doubled, so `\x1b` always means an ESC; not in the program's own JSON.
    #expect(Terminal.escaped("C:\\x1b") == "C:\\\\x1b")
    #expect(Terminal.escaped("\"a\\n\"", keepingLayout: true) == "\"a\\n\"")
    // What needs no escape comes back as it was.
    let plain = "Autumn Leaves — solo ♪ 枯葉 é"
    #expect(Terminal.escaped(plain) == plain)
  }

  @Test func bytesThatAreNotUTF8AreShownAsHex() {
    // `caf\xe9.wav` from a Latin-1 system, and a lone continuation byte and ESC among them.
    let name = PathBytes.string([0x63, 0x61, 0x66, 0xE9, 0x2E, 0x77, 0x61, 0x76])
    #expect(Terminal.escaped(name) == "caf\\xe9.wav")
    let mixed = PathBytes.string([0x80, 0x1B, 0x41, 0xFF])
    #expect(Terminal.escaped(mixed) == "\\x80\\x1bA\\xff")
    // Text the program wrote whole keeps the carried byte for its own escape (JSON's
    // writer writes `\xe9` itself): a private-use character, never a control.
    #expect(Terminal.escaped(name, keepingLayout: true) == name)
  }

  /// The status line at 40, 80 and 120 columns: never as wide as the terminal (its last
  /// column stays free, so it never wraps), escaped, and a text that fits left whole.
  @Test func theStatusLineFitsTheWidth() {
    let long =
      "2/7 'Autumn Leaves \u{1B}[2J' — solo · pass 3/8 bars 9-16 · speed 80% · 枯葉 枯葉 枯葉 "
      + String(repeating: "♪ beat ", count: 30)
    for width in [40, 80, 120] {
      let shown = Terminal.shown(long, width: width)
      #expect(DisplayWidth.of(shown) <= width - 1, "width \(width)")
      #expect(DisplayWidth.of(shown) >= width - 2, "width \(width): cut short")
      #expect(Terminal.escaped(long).hasPrefix(shown), "width \(width)")
      #expect(!shown.contains("\u{1B}"))
      let short = "pass 1 · bars 9-16"
      #expect(Terminal.shown(short, width: width) == short)
    }
  }
}
