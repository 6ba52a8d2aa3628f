import Foundation
import PracticeCore

// One libFuzzer binary, one harness per parser, chosen by $PRACTICE_FUZZ (see fuzz/README.md).
// A harness traps (precondition) when a parser breaks one of its own promises, so libFuzzer
// keeps the input like any other crash.

/// A temporary file each input is written to, for the parsers that read a path.
nonisolated(unsafe) var scratch = ""

func writeScratch(_ data: Data, ext: String) -> String {
  let path = scratch + "." + ext
  FileManager.default.createFile(atPath: path, contents: data)
  return path
}

/// Beat-map import: format detection by content and extension, every format's parser,
/// and the beat map it becomes. The first byte picks the extension.
func fuzzBeats(_ data: Data) {
  guard let first = data.first else { return }
  let exts = ["txt", "beats", "lab", "csv", "xml", "json", "xsc", "dat"]
  let path = writeScratch(data.dropFirst(), ext: exts[Int(first) % exts.count])
  let sampleRate = 44_100
  let totalFrames: Int64 = 44_100 * 600
  guard
    let read = try? BeatImport.read(
      path: path, format: nil, meter: .common, bar1: 1, totalFrames: totalFrames,
      sampleRate: sampleRate)
  else { return }
  let frames = read.map.beats.map(\.frame)
  precondition(!frames.isEmpty, "an empty beat map")
  precondition(zip(frames, frames.dropFirst()).allSatisfy { $0 < $1 }, "beats out of order")
  precondition(frames.allSatisfy { (0..<totalFrames).contains($0) }, "a beat outside the song")
  for loop in read.loops {
    precondition(!loop.frames.isEmpty && loop.frames.upperBound <= totalFrames, "a bad loop")
    precondition(TextRule.problem(loop.name) == nil, "a loop name the text rule refuses")
  }
}

/// Chord files (`.lab`, Chordino CSV) read into a chord track.
func fuzzChords(_ data: Data) {
  let path = writeScratch(data, ext: "lab")
  let totalFrames: Int64 = 44_100 * 600
  guard let spans = try? ChordFiles.read(path: path, sampleRate: 44_100, totalFrames: totalFrames)
  else { return }
  for span in spans {
    precondition(span.start < span.end && span.start >= 0, "an empty or negative span")
    precondition(span.end <= totalFrames, "a span past the end")
  }
  precondition(
    zip(spans, spans.dropFirst()).allSatisfy { $0.end <= $1.start }, "overlapping spans")
}

/// `.practice` files: what decodes must encode and decode to the same value.
func fuzzPracticeFile(_ data: Data) {
  guard let file = try? PracticeFile.decode(data, path: "fuzz.practice") else { return }
  let again: PracticeFile
  do { again = try PracticeFile.decode(try file.encoded(), path: "again.practice") } catch {
    preconditionFailure("a decoded file that does not read back: \(error)")
  }
  precondition(again == file, "a decoded file that reads back different: \(file) then \(again)")
}

/// A band repository's `index.json`: what decodes must encode and decode to the same entries.
func fuzzIndex(_ data: Data) {
  guard let index = try? RepositoryIndex.decode(data, source: "fuzz/index.json") else { return }
  let again: RepositoryIndex
  do { again = try RepositoryIndex.decode(index.encoded(), source: "again") } catch {
    preconditionFailure("a decoded index that does not read back: \(error)")
  }
  // The index is written sorted by file: the same entries, in that order.
  precondition(
    again.songs.count == index.songs.count && again.setlists.count == index.setlists.count
      && again.encoded() == index.encoded(),
    "a decoded index that reads back different: \(index) then \(again)")
  // Entries' file names are checked when each is pulled (one bad entry does not stop the
  // rest): not here.
}

/// The short texts typed on a command line or stored in files: each line of the input goes
/// through every parser; what parses must print to a text that parses to the same value.
func fuzzWords(_ data: Data) {
  let text = String(decoding: data, as: UTF8.self)
  for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(64) {
    let word = String(line)
    if let t = parseTime(word) { precondition(t.isFinite && t >= 0 && t <= maximumTime) }
    if let t = parseLookBack(word) { precondition(t.isFinite && t >= 0) }
    _ = parseSince(word, now: Date(timeIntervalSince1970: 1_800_000_000))
    if let range = BarRange(parsing: word) {
      precondition(BarRange(parsing: range.description) == range, "bars: \(range)")
    }
    if let range = BarRangeText(parsing: word) {
      precondition(BarRangeText(parsing: range.description) == range, "bars text: \(range)")
      _ = range.closed(lastBar: 200)
    }
    if let speed = Speed(parsing: word) {
      precondition(Speed.allowed.contains(speed.rate))
      _ = speed.description
    }
    if let volume = Volume(parsing: word) {
      precondition(Volume.allowed.contains(volume.gain))
      _ = volume.description
    }
    if let meter = Meter(parsing: word) {
      precondition(Meter(parsing: meter.description) == meter, "meter: \(meter)")
    }
    if let key = MusicalKey(parsing: word) {
      precondition(MusicalKey(parsing: key.description) == key, "key: \(key)")
      for step in [-13, -1, 1, 7, 25] { _ = key.transposed(by: step) }
    }
    if let note = Note.parse(word) {
      _ = note.description
      _ = note.frequency()
    }
    _ = parseToneFrequency(word)
    _ = ToneProblem(word, a4: 440)
    if let chord = try? Chord.parseHarte(word) { _ = chord.harte(flats: nil) }
    if let chord = try? Chord.parseSymbol(word) { _ = chord.harte(flats: true) }
    _ = PartFilter.EQ(parsing: word)
    _ = PartFilter.parseBand(word)
    _ = PartFilter.parseAmount(word)
    _ = TextRule.problem(word)
    let cleaned = TextRule.cleaned(word)
    precondition(TextRule.problem(cleaned) == nil || cleaned.isEmpty, "cleaned: \(cleaned)")
  }
}

let harnesses: [String: (Data) -> Void] = [
  "beats": fuzzBeats, "chords": fuzzChords, "practice": fuzzPracticeFile, "index": fuzzIndex,
  "words": fuzzWords,
]

/// libFuzzer's driver, for a program with a `main` of its own (SwiftPM's executables have one).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
  _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

nonisolated(unsafe) var harness: (Data) -> Void = { _ in }

@main
enum PracticeFuzz {
  static func main() {
    let name = ProcessInfo.processInfo.environment["PRACTICE_FUZZ"] ?? ""
    guard let chosen = harnesses[name] else {
      FileHandle.standardError.write(
        Data(
          "set PRACTICE_FUZZ to one of: \(harnesses.keys.sorted().joined(separator: ", "))\n".utf8))
      exit(2)
    }
    harness = chosen
    scratch = "\(FileManager.default.temporaryDirectory.path)/practice-fuzz-\(getpid())"
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(
      runFuzzerDriver(&argc, &argv) { bytes, count in
        harness(bytes.map { Data(bytes: $0, count: count) } ?? Data())
        return 0
      })
  }
}

/// The entry `-sanitize=fuzzer` links libFuzzer's own `main` against (ours runs instead, with
/// the same harness through `LLVMFuzzerRunDriver`); without it the link fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  harness(bytes.map { Data(bytes: $0, count: count) } ?? Data())
  return 0
}
