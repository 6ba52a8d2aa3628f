import Foundation
import TestSupport
import Testing

/// `practice beats detect`: exit codes, one-line errors, the --replace rule, summaries.
@Suite struct BeatDetectTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// A 4/4 piece with drums and chords at `bpm`, written as a 16-bit WAV.
  func song(
    _ name: String, bpm: Double = 110, beatsPerBar: Int = 4, bars: Int = 10,
    oddBar: (bar: Int, beats: Int)? = nil
  ) throws -> String {
    var piece = BeatSynth.Piece()
    piece.startBPM = bpm
    piece.endBPM = bpm
    piece.beatsPerBar = beatsPerBar
    piece.bars = bars
    piece.oddBar = oddBar
    let path = dir.file(name)
    try Synth.write(BeatSynth.render(piece).samples, to: path)
    return path
  }

  func exported(_ song: String) throws -> String {
    try cli.run(["beats", "export", song, "--format", "json"]).stdout
  }

  @Test func detectsAndSummarisesOneLinePerSong() throws {
    let a = try song("a.wav")
    let b = try song("b.wav", bpm: 140, beatsPerBar: 3)
    let result = try cli.run(["beats", "detect", a, b])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    let lines = result.stderrLines
    #expect(lines.count == 2, "\(lines)")
    let pattern = #/^(a|b)\.wav: \d+ beats, \d+ bars, [234]/4, \d+(–\d+)? BPM$/#
    #expect(lines.allSatisfy { $0.wholeMatch(of: pattern) != nil }, "\(lines)")
    #expect(lines[0].hasPrefix("a.wav: ") && lines[0].contains("4/4"))
    #expect(lines[1].hasPrefix("b.wav: ") && lines[1].contains("3/4"))
    // The map is stored like any other: export, show (with the confidence column).
    let mirex = try cli.run(["beats", "export", a, "--format", "mirex"]).stdout
    #expect(mirex.split(separator: "\n").count > 30)
    let show = try cli.run(["beats", "show", a])
    #expect(show.status == 0)
    let firstBar = show.stdout.split(separator: "\n")[0].split(separator: "\t")
    #expect(firstBar.count == 5, "\(firstBar)")
    #expect(try cli.run(["beats", "show", a, "--json"]).stdout.contains("\"confidence\":"))
    // Detecting again over a detected map needs no --replace.
    #expect(try cli.run(["beats", "detect", a, "--meter", "4/4"]).status == 0)
  }

  /// A first `play --bars` (and `render`, `select add --bars`) on a song without a beat map
  /// detects one, says so, stores it as `beats detect` would, and plays; the bars played are
  /// the detected map's. Detecting again changes nothing; `--no-detect` refuses.
  @Test func barsOnASongWithoutAMapDetectOneFirst() throws {
    let a = try song("a.wav", bpm: 120)
    let render = dir.file("bars.wav")
    let result = try cli.run(["render", a, "--bars", "3-4", "-o", render])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stderrLines
    #expect(
      lines.first == "'a' has no beat map yet; detecting one (as `practice beats detect` does)",
      "\(lines)")
    #expect(
      lines.contains { $0.wholeMatch(of: #/^a\.wav: \d+ beats, \d+ bars, 4/4, 120 BPM$/#) != nil },
      "\(lines)")
    // Stored as `beats detect` stores it: detecting again gives the same map.
    let stored = try exported(a)
    #expect(try cli.run(["beats", "detect", a]).status == 0)
    #expect(try exported(a) == stored)
    // Bars 3-4 of a 120 BPM 4/4 piece are 4 s long, and start on the map's bar 3.
    let (info, samples) = try Synth.read(render)
    #expect(abs(samples.count / info.channels - 4 * 44100) < 441, "\(samples.count) frames")
    // The second time, nothing is detected and nothing is said about it.
    let again = try cli.run(["render", a, "--bars", "3-4", "-o", dir.file("again.wav")])
    #expect(again.status == 0 && !again.stderr.contains("detecting"), "\(again.stderr)")
    // select add --bars detects too; --no-detect refuses with 66 and stores nothing.
    let b = try song("b.wav", bpm: 100)
    let refused = try cli.run(["select", "add", b, "verse", "--bars", "2-3", "--no-detect"])
    #expect(refused.status == 66 && refused.stderrLines.count == 1, "\(refused.stderr)")
    #expect(try cli.run(["beats", "show", b]).status == 66)
    let added = try cli.run(["select", "add", b, "verse", "--bars", "2-3"])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stderr.contains("detecting one"))
    #expect(try cli.run(["beats", "show", b]).status == 0)
  }

  /// Runs practice with its stderr on a pseudo-terminal; returns all it wrote there.
  func onTerminal(_ arguments: [String]) throws -> String {
    // A pseudo-terminal from /dev/ptmx: unlock its other end (TIOCSPTLCK) and ask its
    // number (TIOCGPTN), Linux's generic ioctl numbers; Swift's Glibc module has neither
    // unlockpt nor ptsname.
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0,
      ioctl(master, 0x8004_5430, &number) == 0
    else {
      throw PracticeTestError("no pseudo-terminal")
    }
    defer { close(master) }
    let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
    guard slave >= 0 else { throw PracticeTestError("cannot open /dev/pts/\(number)") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.binary)
    process.arguments = arguments
    process.environment = cli.environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
    try process.run()
    close(slave)
    // Read until the terminal hangs up (the process and its copy of the slave are gone).
    var output = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let n = read(master, &buffer, buffer.count)
      if n <= 0 { break }
      output.append(contentsOf: buffer[0..<n])
    }
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self)
  }

  /// A song that starts loud on a beat (the demo's pickup at 0:00.0; a piece whose bar 1
  /// starts on its first sample): that beat is where the file begins, so its onset cannot be
  /// heard; the map is right, and `beats show` marks no bar doubtful (it was `0.00?`).
  @Test func aBeatOnTheFirstSampleIsNotDoubtful() throws {
    var piece = BeatSynth.Piece()
    piece.leadIn = 0
    piece.bars = 8
    let onset = dir.file("onset.wav")
    try Synth.write(BeatSynth.render(piece).samples, to: onset)
    let demo = CLI.fixture("demo.wav")
    #expect(try cli.run(["beats", "detect", demo, onset]).status == 0)
    for (song, first) in [(demo, "0\t0:00.0\t1\t"), (onset, "1\t0:00.0\t4\t")] {
      let show = try cli.run(["beats", "show", song])
      #expect(show.status == 0, "\(show.stderr)")
      #expect(show.stdout.hasPrefix(first), "\(show.stdout)")
      #expect(!show.stdout.contains("?") && show.stderr.isEmpty, "\(show.stdout)\(show.stderr)")
    }
  }

  /// On a terminal each song's progress is one line redrawn in place, rising from 0 % to
  /// 100 %, then wiped for its summary line.
  /// A bar of another length is named in the summary, and `beats show` lists it.
  @Test func anOddBarIsNamed() throws {
    let a = try song("a.wav", bars: 16, oddBar: (bar: 7, beats: 2))
    let result = try cli.run(["beats", "detect", a])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderrLines.first?.wholeMatch(
        of: #/a\.wav: 62 beats, 16 bars, 4/4 \(bar 8: 2 beats\), 110 BPM/#) != nil,
      "\(result.stderr)")
    let show = try cli.run(["beats", "show", a]).stdout.split(separator: "\n")
    #expect(show.contains { $0.hasPrefix("8\t") && $0.split(separator: "\t")[2] == "2" }, "\(show)")
  }

  @Test func aProgressBarOnATerminal() throws {
    let a = try song("a.wav")
    let b = try song("b.wav", bpm: 140, beatsPerBar: 3)
    // The terminal turns each \n into \r\n.
    let output = try onTerminal(["beats", "detect", a, b])
    var cursor = output.startIndex
    for name in ["a.wav", "b.wav"] {
      let first = try #require(
        output.range(of: "% \(name)\u{1B}[K", range: cursor..<output.endIndex), "\(output)")
      let start = try #require(
        output.range(of: "\r[", options: .backwards, range: cursor..<first.lowerBound))
      let end = try #require(
        output.range(
          of: " \(name)\u{1B}[K\r\u{1B}[K\(name): ", range: start.upperBound..<output.endIndex),
        "\(output)")
      // Every draw of the bar between, its percentage rising.
      let drawn = output[start.lowerBound..<end.upperBound].components(separatedBy: "\r[")
        .dropFirst()
      let percents = drawn.compactMap { Int($0.split(separator: " ")[1].dropLast()) }
      #expect(percents.count == drawn.count && percents == percents.sorted(), "\(drawn)")
      #expect((percents.first ?? 100) <= 5 && percents.last == 100, "\(percents)")
      let summary = output[end.upperBound...].prefix { !$0.isNewline }
      #expect(summary.contains(" beats, ") && summary.hasSuffix(" BPM"), "\(summary)")
      cursor = end.upperBound
    }
  }

  /// A stereo file whose right channel is its left inverted (a miswired mono recording)
  /// was refused as silent; it is detected through one channel, like the same song in mono.
  @Test func channelsThatCancelAreNotSilence() throws {
    let straight = try song("mono.wav")
    let inverted = dir.file("inverted.wav")
    try Synth.write(Synth.read(straight).samples.flatMap { [$0, -$0] }, to: inverted, channels: 2)
    let result = try cli.run(["beats", "detect", straight, inverted])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stderrLines
    #expect(lines.count == 2 && lines[1].hasPrefix("inverted.wav: "), "\(lines)")
    #expect(
      lines[1].dropFirst("inverted.wav: ".count) == lines[0].dropFirst("mono.wav: ".count),
      "\(lines)")
    let mirex = { (song: String) in
      try self.cli.run(["beats", "export", song, "--format", "mirex"]).stdout
    }
    #expect(try mirex(inverted) == mirex(straight))
  }

  @Test func keepsAnotherMapUnlessReplaced() throws {
    let a = try song("a.wav")
    _ = try cli.run(["add", a])
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "100"]).status == 0)
    let before = try exported("1")
    let refused = try cli.run(["beats", "detect", "1"])
    #expect(refused.status == 64)
    #expect(refused.stderrLines.count == 1)
    #expect(
      refused.stderr.contains("--replace") && refused.stderr.contains("grid"), "\(refused.stderr)")
    #expect(try exported("1") == before)
    let replaced = try cli.run(["beats", "detect", "1", "--replace"])
    #expect(replaced.status == 0, "\(replaced.stderr)")
    #expect(try exported("1") != before)
    // An edited detected map is the musician's now.
    #expect(try cli.run(["beats", "shift", "1", "--by", "0.01"]).status == 0)
    let edited = try exported("1")
    let again = try cli.run(["beats", "detect", "1"])
    #expect(again.status == 64)
    #expect(again.stderr.contains("edited"))
    #expect(try exported("1") == edited)
  }

  /// The file was cut shorter after its beats were detected, so the stored map runs past
  /// its end. Detecting again still needs no --replace (the map was detected), and an
  /// imported map is still refused by kind, not by the error that it no longer fits.
  @Test func aMapThatNoLongerFitsItsChangedFileIsDetectedAgain() throws {
    let a = try song("a.wav")
    #expect(try cli.run(["beats", "detect", a]).status == 0)
    let (_, samples) = try Synth.read(a)
    try Synth.write(Array(samples.prefix(samples.count / 2)), to: a)
    #expect(try cli.run(["beats", "show", a]).stderr.contains("inconsistent"))
    let again = try cli.run(["beats", "detect", a])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try cli.run(["beats", "show", a]).status == 0)

    let b = try song("b.wav")
    let times = dir.file("b.txt")
    try (1...20).map { "\(Double($0) * 0.5)\n" }.joined().write(
      toFile: times, atomically: true, encoding: .utf8)
    #expect(try cli.run(["beats", "import", b, times, "--format", "times"]).status == 0)
    let (_, long) = try Synth.read(b)
    try Synth.write(Array(long.prefix(44100 * 5)), to: b)
    let refused = try cli.run(["beats", "detect", b])
    #expect(refused.status == 64 && refused.stderrLines.count == 1, "\(refused.stderr)")
    #expect(refused.stderr.contains("has an imported beat map; add --replace"), "\(refused.stderr)")
  }

  /// `beats detect` on 14 bars of drumless chords that swell in over 150 ms at a steady
  /// `bpm`, written to `name`: exit 0 and two lines on stderr (the summary and a warning),
  /// returned with the file's path.
  func detectSoftChords(
    _ name: String, bpm: Double, accompaniment: BeatSynth.Accompaniment,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> (path: String, lines: [String]) {
    var piece = BeatSynth.Piece()
    piece.startBPM = bpm
    piece.endBPM = bpm
    piece.bars = 14
    piece.drums = false
    piece.accompaniment = accompaniment
    piece.attack = 0.15
    let path = dir.file(name)
    try Synth.write(BeatSynth.render(piece).samples, to: path)
    let result = try cli.run(["beats", "detect", path])
    #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderrLines.count == 2, "\(result.stderrLines)", sourceLocation: sourceLocation)
    return (path, result.stderrLines)
  }

  /// Legato strings whose tremolo hides their beats (`BeatSynth`'s `bowedPad`): counted
  /// from the chord changes, with the summary line and a warning that says so. At 72 BPM:
  /// at 80 the beat network now counts them in half notes, and warns that the beat is
  /// unclear instead (a known loss, `tremblingLegatoChordsAreCountedFromTheirChanges`).
  @Test func beatsFromTheChordChangesAreSaidToBe() throws {
    let (_, lines) = try detectSoftChords("legato.wav", bpm: 72, accompaniment: .bowedPad)
    #expect(
      lines.first?.wholeMatch(of: #/legato\.wav: 5[5-7] beats, 1[45] bars, 4/4, 7[1-3]–7[2-4] BPM/#)
        != nil,
      "\(lines)")
    #expect(
      lines.last?.hasPrefix(
        "practice: warning: legato.wav: the onsets mark no steady beat, so the beats divide the bars "
          + "where the chords change") == true, "\(lines)")
  }

  /// Chords that swell in over 150 ms (organ, bowed strings), no drums: the beat network
  /// hears their beats weakly (about 0.27 of 1), but the map is right, and nothing else about
  /// it looks wrong (its downbeats stand out, the onsets half-way between the beats are weak,
  /// no beat is doubtful), so it is stored with the summary line alone. (The old warning,
  /// on the network's hearing alone, fired here; `MapDoubt`'s model does not, and the network
  /// hears the beats above `MapDoubtModel.faintHearing`.)
  @Test func aBeatTheNetworkHearsWeaklyButRightlyIsNotWarnedOf() throws {
    var piece = BeatSynth.Piece()
    piece.startBPM = 84
    piece.endBPM = 84
    piece.bars = 14
    piece.drums = false
    piece.accompaniment = .block
    piece.attack = 0.15
    let path = dir.file("swells.wav")
    try Synth.write(BeatSynth.render(piece).samples, to: path)
    let result = try cli.run(["beats", "detect", path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderrLines.count == 1, "\(result.stderrLines)")
    #expect(
      result.stderrLines.first?.wholeMatch(
        of: #/swells\.wav: 5[5-7] beats, 1[45] bars, 4/4, 8[3-5](–8[4-6])? BPM/#)
        != nil, "\(result.stderrLines)")
    let shown = try cli.run(["beats", "show", path])
    // The map was stored: `beats show` lists its bars.
    #expect(shown.status == 0 && shown.stdout.split(separator: "\n").count >= 14, "\(shown.stdout)")
  }

  /// A vamp on one chord, every beat alike and no drums: the beats are plain, but nothing
  /// marks the bar, so the map is stored with a second line saying bar 1 is a guess and
  /// naming the command (with the song's id) and the key that move the bar lines.
  @Test func barsNothingMarksAreSaidToBeAGuess() throws {
    var piece = BeatSynth.Piece()
    piece.startBPM = 110
    piece.endBPM = 110
    piece.drums = false
    piece.accompaniment = .unmarked
    let path = dir.file("vamp.wav")
    try Synth.write(BeatSynth.render(piece).samples, to: path)
    let result = try cli.run(["beats", "detect", path])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stderrLines
    #expect(lines.count == 2, "\(lines)")
    #expect(lines.first?.hasPrefix("vamp.wav: ") == true, "\(lines)")
    let guess = #/practice: warning: vamp\.wav: no beat of the bar stands out, so bar 1 \(at 0:0\d\.\d\) is a guess; if the 1 you hear falls on another beat, move the bar lines with `practice beats downbeat 1 --bar 1\.N` \(N: that beat\) or press d on it in the player/#
    #expect(lines.last?.wholeMatch(of: guess) != nil, "\(lines)")
    // The map is stored as any other, and a bar line moved there is taken.
    #expect(try cli.run(["beats", "downbeat", path, "--bar", "1.2"]).status == 0)
  }

  @Test func badAudioFailsWithOneLineAndKeepsTheMap() throws {
    let good = try song("good.wav")
    let silent = dir.file("silent.wav")
    try Synth.write([Float](repeating: 0, count: 44100 * 8), to: silent)
    let short = dir.file("short.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 2), to: short)
    _ = try cli.run(["add", silent, short])
    _ = try cli.run(["beats", "grid", silent, "--bpm", "90"])
    let before = try exported(silent)

    let one = try cli.run(["beats", "detect", short])
    #expect(one.status == 65)
    #expect(one.stderrLines.count == 1)
    #expect(one.stderr.contains("too short"), "\(one.stderr)")

    // Several songs: the good one is still detected; the exit code tells of the failure.
    let mixed = try cli.run(["beats", "detect", silent, good, "--replace"])
    #expect(mixed.status == 65)
    #expect(mixed.stderrLines.count == 2, "\(mixed.stderrLines)")
    #expect(mixed.stderrLines[0].contains("silent"))
    #expect(mixed.stderrLines[1].hasPrefix("good.wav: "))
    #expect(try exported(silent) == before)
    #expect(try cli.run(["beats", "show", good]).status == 0)

    // A song whose file has gone: the same advice as `play` gives.
    let moved = try song("moved.wav")
    _ = try cli.run(["add", moved])
    try FileManager.default.removeItem(atPath: moved)
    let gone = try cli.run(["beats", "detect", "moved"])
    #expect(gone.status == 66)
    #expect(
      gone.stderrLines.count == 1 && gone.stderr.contains("`practice add NEWPATH`"),
      "\(gone.stderr)")
  }

  /// Noise has no beat: `beats detect` refuses it as bad data (65) in one line saying so,
  /// stores no map, and leaves the library as it was.
  @Test func noiseIsRefusedWith65() throws {
    let noise = dir.file("noise.wav")
    try Synth.write(BeatSynth.noise(seconds: 12), to: noise)
    _ = try cli.run(["add", noise])
    let before = try cli.snapshot()
    let result = try cli.run(["beats", "detect", noise])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderrLines.count == 1, "\(result.stderr)")
    #expect(result.stderr.contains("sounds like noise"), "\(result.stderr)")
    #expect(try cli.run(["beats", "show", noise]).status == 66)
    #expect(try cli.snapshot() == before)
  }

  /// A held tone (a test tone) is refused as noise is: exit 65, one line, nothing stored.
  @Test func aHeldToneIsRefusedWith65() throws {
    let tone = dir.file("tone.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 12), to: tone)
    _ = try cli.run(["add", tone])
    let before = try cli.snapshot()
    let result = try cli.run(["beats", "detect", tone])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderrLines.count == 1, "\(result.stderr)")
    #expect(
      result.stderr.contains("tone.wav': it sounds like noise or a held sound"), "\(result.stderr)")
    #expect(try cli.run(["beats", "show", tone]).status == 66)
    #expect(try cli.snapshot() == before)
  }

  /// `--method network`: the beat network's beats and bars, stored as any detected map.
  @Test func theNetworkMethodMakesAMap() throws {
    let a = try song("a.wav", bpm: 128)
    let result = try cli.run(["beats", "detect", a, "--method", "network"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderrLines.first?.hasPrefix("a.wav: ") == true, "\(result.stderr)")
    #expect(result.stderr.contains("4/4"), "\(result.stderr)")
    #expect(try cli.run(["beats", "show", a]).status == 0)
  }

  @Test func badUsageIsRefusedBeforeAnything() throws {
    let a = try song("a.wav")
    for args in [
      ["--meter", "5/x"], ["--min-bpm", "300", "--max-bpm", "100"], ["--max-bpm", "1000"],
      ["--min-bpm", "nan"], ["--method", "magic"], ["--method", "network", "--max-bpm", "45"],
    ] {
      let result = try cli.run(["beats", "detect", a] + args)
      #expect(result.status == 64, "\(args): \(result.stderr)")
      #expect(result.stderrLines.count == 1, "\(args): \(result.stderr)")
    }
    let method = try cli.run(["beats", "detect", a, "--method", "magic"])
    #expect(
      method.stderr.contains("--method magic: use one of 'onsets' and 'network'"),
      "\(method.stderr)")
    // --method network's own slowest tempo, 40, is what the range is checked against.
    let range = try cli.run(["beats", "detect", a, "--method", "network", "--max-bpm", "45"])
    #expect(
      range.stderr.contains("the default --min-bpm 40.0 and --max-bpm 45.0"), "\(range.stderr)")
    #expect(try cli.run(["beats", "detect"]).status == 64)
    #expect(try cli.run(["beats", "detect", dir.file("missing.wav")]).status == 66)
    #expect(try cli.run(["beats", "show", a]).status == 66)
  }
}
