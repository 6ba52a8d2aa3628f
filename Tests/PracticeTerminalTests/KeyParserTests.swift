import Testing

@testable import PracticeTerminal

/// Terminal bytes into keys: an escape sequence or a UTF-8 character that a read cut in two
/// is handed back whole, and read as one key once the rest comes. A cut right after the ESC
/// is the one the parser cannot tell from the Esc key: `KeyReader` waits 30 ms for more
/// before parsing bytes that end there.
@Suite struct KeyParserTests {
  /// Every split of `bytes` into two reads (but right after an ESC) gives the same keys as
  /// one read.
  private func splitEverywhere(_ bytes: [UInt8], expecting keys: [Key]) {
    #expect(KeyParser.parse(bytes).keys == keys)
    #expect(KeyParser.parse(bytes).rest.isEmpty)
    for cut in 1..<bytes.count where bytes[cut - 1] != 27 {
      let first = KeyParser.parse(Array(bytes[..<cut]))
      let second = KeyParser.parse(first.rest + bytes[cut...])
      #expect(first.keys + second.keys == keys, "cut after byte \(cut)")
      #expect(second.rest.isEmpty, "cut after byte \(cut)")
    }
  }

  @Test func arrowsAndShiftArrowsCutAnywhereAreOneKeyEach() {
    // ESC [ C, ESC [ 1 ; 2 D, ESC O A (application mode), ESC [ B.
    let bytes: [UInt8] = [27, 91, 67, 27, 91, 49, 59, 50, 68, 27, 79, 65, 27, 91, 66]
    splitEverywhere(bytes, expecting: [.right, .shiftLeft, .up, .down])
  }

  @Test func anArrowBetweenCharactersCutAnywhere() {
    let bytes: [UInt8] = Array("a".utf8) + [27, 91, 49, 59, 50, 67] + Array("q".utf8)
    splitEverywhere(bytes, expecting: [.char("a"), .shiftRight, .char("q")])
  }

  @Test func aUTF8CharacterCutAnywhereIsOneKey() {
    // é (2 bytes), ♪ (3), 🎸 (4): names typed at the `s` prompt.
    splitEverywhere(Array("é♪🎸".utf8), expecting: [.char("é"), .char("♪"), .char("🎸")])
  }

  @Test func anIncompleteSequenceAtTheEndIsHandedBack() {
    let parsed = KeyParser.parse([UInt8(ascii: "x"), 27, 91, 49, 59])
    #expect(parsed.keys == [.char("x")])
    #expect(parsed.rest == [27, 91, 49, 59])
  }

  @Test func aLoneEscapeAndControlKeys() {
    #expect(KeyParser.parse([27]).keys == [.escape])
    #expect(KeyParser.parse([UInt8(ascii: "a"), 27]).keys == [.char("a"), .escape])
    #expect(KeyParser.parse([27, 27, 91, 68]).keys == [.escape, .left])
    #expect(KeyParser.parse([3, 9, 13, 10, 127, 8]).keys == [
      .interrupt, .tab, .enter, .enter, .backspace, .backspace,
    ])
  }
}
