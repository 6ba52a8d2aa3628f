import Testing

@testable import PracticeCore

/// The progress bar's line as a value: the bar filled in thirtieths, the count, the label.
@Suite struct ProgressTextTests {
  @Test func aFractionFillsTheBarAndCountsPercent() {
    let third = ProgressText(fraction: 1.0 / 3, label: "song.flac")
    #expect(third.text == "[" + String(repeating: "#", count: 10) + String(repeating: ".", count: 20) + "] 33% song.flac")
    #expect(!third.isDone)
    #expect(ProgressText(fraction: 1, label: "a").text == "[" + String(repeating: "#", count: 30) + "] 100% a")
    // Nearly done is not done: 99.6 % counts 99 %, and 29.88 thirtieths fill 29.
    let nearly = ProgressText(fraction: 0.996, label: "a")
    #expect(nearly.text == "[" + String(repeating: "#", count: 29) + ".] 99% a" && !nearly.isDone)
  }

  @Test func itemsAreCounted() {
    let items = ProgressText(done: 412, of: 1000, label: "x")
    #expect(items.text == "[" + String(repeating: "#", count: 12) + String(repeating: ".", count: 18) + "] 412/1000 x")
    #expect(ProgressText(done: 3, of: 3, label: "x").isDone)
    #expect(ProgressText(done: 0, of: 0, label: "x").text.hasPrefix("[......"))
  }

  @Test func outOfRangeIsHeldToTheEnds() {
    #expect(ProgressText(fraction: 2, label: "x").text.contains("] 100% x"))
    #expect(ProgressText(fraction: -1, label: "x").text.contains("] 0% x"))
    #expect(ProgressText(fraction: .nan, label: "x").text.contains("] 0% x"))
    #expect(ProgressText(done: 5, of: 3, label: "x").isDone)
  }
}
