import Foundation
import PracticeCore
import TestSupport
import Testing

/// Chord labels (Harte and chart symbols), chord files, the key, and `ChordRecognizer` on
/// synthesised progressions with known chords on a known beat grid.
@Suite struct ChordLabelTests {
  @Test func harteLabelsReadAndWriteBack() throws {
    for label in [
      "C:maj", "A:min7", "C:maj/3", "Bb:7/b7", "F#:dim", "Eb:aug", "D:sus4", "G:sus2",
      "B:maj7/7", "E:min/b3", "Ab:hdim7", "C:dim7/bb7", "Db:min9", "G:7/5",
    ] {
      let chord = try #require(try Chord.parseHarte(label))
      #expect(chord.harte(flats: label.contains("#") ? false : nil) == label, "\(label)")
    }
    #expect(try Chord.parseHarte("N") == nil)
    // A bare root is a major triad; sharps and flats of one pitch are the same chord.
    #expect(try Chord.parseHarte("A") == Chord(root: 9, quality: .maj))
    #expect(try Chord.parseHarte("C#:min") == Chord.parseHarte("Db:min"))
    #expect(try Chord.parseHarte("C:maj/3")?.bassPitchClass == 4)
    #expect(try Chord.parseHarte("A:min/b3")?.bassPitchClass == 0)
  }

  @Test func badHarteLabelsSayWhy() {
    for (label, words) in [
      ("H:maj", "does not start with a note"), ("C:major", "not a shorthand"),
      ("C:(1,3,5)", "degree lists"), ("C:maj/x", "bass degree"), ("Cmaj", "not Harte syntax"),
    ] {
      #expect {
        _ = try Chord.parseHarte(label)
      } throws: { error in
        "\(error)".contains(words)
      }
    }
  }

  @Test func chartSymbols() throws {
    let cases: [(String, String)] = [
      ("C", "C:maj"), ("Am", "A:min"), ("G7", "G:7"), ("Cmaj7", "C:maj7"), ("F#m7", "F#:min7"),
      ("Bdim", "B:dim"), ("Caug", "C:aug"), ("Dsus4", "D:sus4"), ("C/E", "C:maj/3"),
      ("Am/C", "A:min/b3"), ("Bbm7b5", "Bb:hdim7"), ("E6", "E:maj6"),
    ]
    for (symbol, harte) in cases {
      let chord = try #require(try Chord.parseSymbol(symbol))
      #expect(chord == (try Chord.parseHarte(harte)), "\(symbol)")
      #expect(chord.symbol(flats: symbol.contains("#") ? false : nil) == symbol, "\(symbol)")
    }
    #expect(try Chord.parseSymbol("N") == nil)
  }

  @Test func transposingAndCapo() throws {
    let am7 = try #require(try Chord.parseHarte("A:min7"))
    #expect(am7.transposed(by: 2).symbol() == "Bm7")
    #expect(am7.transposed(by: -2).symbol() == "Gm7")
    let ce = try #require(try Chord.parseHarte("C:maj/3"))
    #expect(ce.transposed(by: 1).symbol(flats: true) == "Db/F")
    #expect(ce.transposed(by: 1).symbol(flats: false) == "C#/E#")
    #expect(Chord.prefersFlats(key: MusicalKey(parsing: "F")) == true)
    #expect(Chord.prefersFlats(key: MusicalKey(parsing: "E")) == false)
    #expect(Chord.prefersFlats(key: MusicalKey(parsing: "Dm")) == true)
  }

  /// A slash chord's bass is spelled as its interval above the root, whichever way the key
  /// spells its notes: the major third of D is F#, never Gb; the flat seventh of C is Bb.
  @Test func slashChordBassIsSpelledAsItsInterval() throws {
    let plain = ["D/F#", "A/C#", "C/E", "F/A", "G/B", "Bb/D", "Eb/G", "E/G#", "C7/Bb", "Am/C",
      "Bdim/F", "F#m/A", "Ab/C", "D7/C", "Gsus4/C", "B/D#"]
    for text in plain {
      let chord = try #require(try Chord.parseSymbol(text))
      #expect(chord.symbol() == text, "\(text)")
    }
    // In a flat key (Dm, F) and a sharp one (E, A) the bass follows the root as spelled.
    let d = try #require(try Chord.parseSymbol("D/F#"))
    #expect(d.symbol(flats: true) == "D/F#")
    #expect(try #require(try Chord.parseSymbol("A/C#")).symbol(flats: true) == "A/C#")
    #expect(try #require(try Chord.parseSymbol("E/G#")).symbol(flats: true) == "E/G#")
    #expect(try #require(try Chord.parseSymbol("Bb/D")).symbol(flats: false) == "A#/D")
    #expect(try #require(try Chord.parseSymbol("Db/F")).symbol(flats: true) == "Db/F")
    #expect(try #require(try Chord.parseSymbol("Gb/Bb")).symbol(flats: true) == "Gb/Bb")
    #expect(try #require(try Chord.parseSymbol("F#/A#")).symbol(flats: false) == "F#/A#")
  }

  /// Moved below C a root wraps (A down 10 is B); a minor key is spelled as its relative
  /// major (Fm as A♭ major: flats); ♯ and ♭ read as # and b; an augmented chord over its
  /// fifth writes the bass #5.
  @Test func chordsWrapAreSpelledByTheirKeyAndReadEverySharp() throws {
    #expect(Chord(root: 9, quality: .maj).transposed(by: -10) == Chord(root: 11, quality: .maj))
    #expect(Chord(root: 0, quality: .min).transposed(by: -1).pitchClasses == [11, 2, 6])
    #expect(Chord.prefersFlats(key: MusicalKey(parsing: "Fm")) == true)
    #expect(Chord.prefersFlats(key: MusicalKey(parsing: "Cm")) == true)
    #expect(Chord.prefersFlats(key: MusicalKey(parsing: "Em")) == false)
    #expect(try Chord.parseSymbol("F♯m") == Chord(root: 6, quality: .min))
    #expect(try Chord.parseSymbol("B♭7") == Chord(root: 10, quality: .dominant7))
    #expect(try Chord.parseHarte("C:aug/#5") == Chord(root: 0, quality: .aug, bass: 8))
    #expect(Chord(root: 0, quality: .aug, bass: 8).harte() == "C:aug/#5")
  }
}

@Suite struct ChordFileTests {
  let rate = 44100

  func span(_ a: Double, _ b: Double, _ label: String) throws -> ChordSpan {
    ChordSpan(
      start: Int64(a * 44100), end: Int64(b * 44100), chord: try Chord.parseHarte(label))
  }

  @Test func labWritesAndReadsBack() throws {
    let spans = [
      try span(0, 0.5, "N"), try span(0.5, 2.5, "A:min7"), try span(2.5, 4.5, "D:7/3"),
      try span(4.5, 6, "N"),
    ]
    let text = ChordFiles.lab(spans, sampleRate: rate)
    #expect(text.hasPrefix("0\t0.5\tN\n0.5\t2.5\tA:min7\n2.5\t4.5\tD:7/3\n"), "\(text)")
    let back = try ChordFiles.read(text, path: "x.lab", sampleRate: rate, totalFrames: 6 * 44100)
    #expect(back == spans)
  }

  @Test func jsonHasTheKeyAndTheChords() throws {
    let spans = [try span(0, 2, "Bb:maj"), try span(2, 4, "F:7")]
    let text = ChordFiles.json(spans, key: MusicalKey(parsing: "Bb"), sampleRate: rate)
    #expect(
      text
        == #"{"key":"Bb major","chords":[{"start":0,"end":2,"label":"Bb:maj"},{"start":2,"end":4,"label":"F:7"}]}"#
        + "\n")
    let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    #expect((parsed?["chords"] as? [Any])?.count == 2)
  }

  @Test func gapsBecomeNAndTheEndIsCut() throws {
    let text = "1.0\t2.0\tC:maj\n2.0\t3.0\tC:maj\n4.0\t9.0\tG:maj\n"
    let spans = try ChordFiles.read(text, path: "x.lab", sampleRate: rate, totalFrames: 5 * 44100)
    #expect(spans.map { $0.harte() } == ["N", "C:maj", "N", "G:maj"])
    #expect(spans[1].end == 3 * 44100)
    #expect(spans[3].end == 220_500)
  }

  /// A chord may start a rounding (under a millisecond) before the one before it ends; the
  /// audio after the last chord is no chord.
  @Test func aMillisecondOverlapIsOneTimeAndTheRestIsNoChord() throws {
    let text = "0\t1.0005\tC:maj\n1.0\t2\tG:maj\n"
    let spans = try ChordFiles.read(text, path: "x.lab", sampleRate: rate, totalFrames: 3 * 44100)
    #expect(spans.map { $0.harte() } == ["C:maj", "G:maj", "N"])
    #expect(spans.map(\.start) == [0, 44122, 88200])
    #expect(spans.map(\.end) == [44122, 88200, 132300])
  }

  @Test func chordinoCSV() throws {
    let text = """
      "/music/song.wav",0.000000000,"N"
      ,0.371519274,"Am7"
      ,2.600000000,"D7/F#"
      ,4.000000000,"N"
      """
    let spans = try ChordFiles.read(text, path: "x.csv", sampleRate: rate, totalFrames: 6 * 44100)
    #expect(spans.map { $0.harte() } == ["N", "A:min7", "D:7/3", "N"])
    #expect(spans[1].start == Int64((0.371519274 * 44100).rounded()))
    // Sonic Visualiser's own export: time,label.
    let plain = try ChordFiles.read(
      "0.5,C\n1.5,G/B\n", path: "y.csv", sampleRate: rate, totalFrames: 3 * 44100)
    #expect(plain.map { $0.harte() } == ["N", "C:maj", "G:maj/3"])
  }

  @Test(arguments: [
    ("0\t1\tC:maj\n1\t2\tC:major\n", 2, "not a shorthand"),
    ("0\t1\tC:maj\n\n# note\n1\t2\n", 4, "has 2 fields"),
    ("0\t1\tC:maj\n2\t1.5\tG:maj\n", 2, "before it starts"),
    ("0\t2\tC:maj\n1\t3\tG:maj\n", 2, "before the chord before it ends"),
    ("0\tx\tC:maj\n", 1, "not times"),
    ("0\t1\tC:maj\n20\t21\tG:maj\n", 2, "after the end of the audio"),
    ("0\t1\tC:maj\n10\t11\tG:maj\n", 2, "after the end of the audio"),
    ("0\t1\tC:maj\n1\t1\tG:maj\n", 2, "before it starts"),
    ("0.5,C\nabc,G\n", 2, "no time"),
  ])
  func badLinesAreRefusedWithTheirNumber(text: String, line: Int, words: String) {
    #expect {
      _ = try ChordFiles.read(text, path: "t.lab", sampleRate: 44100, totalFrames: 10 * 44100)
    } throws: { error in
      guard let error = error as? DataFileError else { return false }
      return error.line == line && error.description.contains(words)
        && error.description.hasPrefix("chord file 't.lab' line \(line): ")
    }
  }
}

@Suite struct KeyTests {
  func spans(_ labels: [String]) throws -> [ChordSpan] {
    try labels.enumerated().map { i, label in
      ChordSpan(
        start: Int64(i) * 1000, end: Int64(i + 1) * 1000, chord: try Chord.parseHarte(label))
    }
  }

  @Test(arguments: [
    (["C:maj", "G:maj", "A:min", "F:maj", "C:maj"], "C"),
    (["A:min", "D:min", "E:7", "A:min"], "Am"),
    (["A:min", "F:maj", "C:maj", "G:maj", "A:min"], "Am"),
    (["E:min7", "A:min7", "D:7", "G:maj7", "C:maj7", "F#:dim", "B:7", "E:min"], "Em"),
    (["Bb:maj", "Eb:maj", "F:7", "Bb:maj"], "Bb"),
    (["D:maj", "A:maj/3", "B:min", "G:maj", "D:maj"], "D"),
    (["F#:min", "D:maj", "A:maj", "E:maj", "F#:min"], "F#m"),
  ])
  func keyOfAProgression(labels: [String], key: String) throws {
    #expect(KeyEstimator.key(of: try spans(labels))?.description == key)
  }

  /// A relative minor and major share their chords; where the song starts and ends tells
  /// them apart. Each chord a bar (1000 frames); `tail`: a short chord after the last one
  /// (a ringing release heard as another chord).
  @Test(arguments: [
    (["A:min", "F:maj", "C:maj", "G:maj"], "A:min", nil, "Am"),
    (["A:min7", "F:maj7", "C:maj", "G:maj"], "A:min7", nil, "Am"),
    (["A:min", "F:maj", "C:maj", "G:maj"], "A:min", "E:min", "Am"),
    (["C:maj", "G:maj", "A:min", "F:maj"], "C:maj", nil, "C"),
    (["C:maj7", "G:maj", "A:min7", "F:maj7"], "C:maj7", nil, "C"),
    (["C:maj", "G:maj", "A:min", "F:maj"], "C:maj", "E:min", "C"),
  ] as [([String], String, String?, String)])
  func relativeMinorOrMajorFromWhereTheSongRests(
    loop: [String], last: String, tail: String?, key: String
  ) throws {
    var all = try spans(Array(repeating: loop, count: 4).flatMap { $0 } + [last])
    if let tail {
      let end = all[all.count - 1].end
      all.append(ChordSpan(start: end, end: end + 300, chord: try Chord.parseHarte(tail)))
    }
    #expect(KeyEstimator.key(of: all)?.description == key)
  }

  @Test func noChordsNoKey() throws {
    #expect(KeyEstimator.key(of: try spans(["N", "N"])) == nil)
  }
}

@Suite struct ChordRecognitionTests {
  let dir = TemporaryDirectory()

  /// Renders `steps`, writes them, and detects with the true beats as the beat map (or none).
  func detect(
    _ steps: [ChordSynth.Step], bpm: Double = 100, cents: Double = 0, onBeats: Bool = true,
    drums: Bool = false
  ) throws -> (ChordDetection, spans: [Range<Int64>], beats: [Int64]) {
    let (samples, beats, spans) = ChordSynth.render(steps, bpm: bpm, cents: cents, drums: drums)
    let path = dir.file("chords-\(UUID().uuidString).wav")
    try Synth.write(samples, to: path)
    let file = try SoundFile(path: path)
    var map: BeatMap? = nil
    if onBeats {
      map = try BeatMap(
        beats: beats.enumerated().map {
          Beat(frame: $1, bar: $0 / 4 + 1, beat: $0 % 4 + 1, source: .imported)
        }, totalFrames: file.info.frames, sampleRate: 44100)
    }
    return (try ChordRecognizer.detect(file: file, beats: map), spans, beats)
  }

  /// The label detected at the middle of each written chord.
  func labels(_ found: ChordDetection, _ spans: [Range<Int64>]) -> [String] {
    spans.map { span in
      let middle = (span.lowerBound + span.upperBound) / 2
      return found.spans.first { $0.start <= middle && middle < $0.end }?.harte() ?? "?"
    }
  }

  @Test func triadsAndSeventhsOnTheBeats() throws {
    let steps: [ChordSynth.Step] = [
      .chord(60, [0, 4, 7]), .chord(57, [0, 3, 7, 10]), .chord(62, [0, 4, 7, 10]),
      .chord(55, [0, 4, 7, 11]), .chord(65, [0, 4, 7]), .chord(64, [0, 3, 7]),
      .chord(58, [0, 4, 7, 10]), .chord(60, [0, 4, 7]),
    ]
    let (found, spans, beats) = try detect(steps, cents: 25)
    #expect(
      labels(found, spans) == [
        "C:maj", "A:min7", "D:7", "G:maj7", "F:maj", "E:min", "Bb:7", "C:maj",
      ])
    #expect(found.onBeats)
    #expect(abs(found.tuningCents - 25) < 4, "\(found.tuningCents)")
    #expect(found.key?.description == "C")
    #expect(found.note == nil)
    // Every change inside the music is on a beat; silence before and after is N.
    for span in found.spans.dropFirst() where span.start < beats.last! {
      #expect(beats.contains(span.start), "a change at \(span.start) is not on a beat")
    }
    #expect(found.spans.first?.chord == nil && found.spans.last?.chord == nil)
  }

  @Test func dimAugAndSus() throws {
    let steps: [ChordSynth.Step] = [
      .chord(59, [0, 3, 6]), .chord(60, [0, 4, 8]), .chord(62, [0, 5, 7]), .chord(62, [0, 2, 7]),
      .chord(62, [0, 4, 7]),
    ]
    let (found, spans, _) = try detect(steps)
    #expect(labels(found, spans) == ["B:dim", "C:aug", "D:sus4", "D:sus2", "D:maj"])
  }

  @Test func inversionsFromTheBass() throws {
    let steps: [ChordSynth.Step] = [
      .chord(60, [0, 4, 7]), .chord(60, [0, 4, 7], bass: 4), .chord(65, [0, 4, 7]),
      .chord(67, [0, 4, 7, 10], bass: 7), .chord(60, [0, 4, 7]),
    ]
    let (found, spans, _) = try detect(steps)
    #expect(labels(found, spans) == ["C:maj", "C:maj/3", "F:maj", "G:7/5", "C:maj"])
  }

  @Test func withoutABeatMapTheChangesAreNearTheTruth() throws {
    let steps: [ChordSynth.Step] = [
      .chord(57, [0, 3, 7]), .chord(62, [0, 3, 7]), .chord(64, [0, 4, 7, 10]),
      .chord(57, [0, 3, 7]),
    ]
    let (found, spans, _) = try detect(steps, bpm: 90, onBeats: false)
    #expect(!found.onBeats)
    #expect(labels(found, spans) == ["A:min", "D:min", "E:7", "A:min"])
    #expect(found.key?.description == "Am")
    let changes = found.spans.filter { $0.chord != nil }.map(\.start).dropFirst()
    for (change, truth) in zip(changes, spans.dropFirst().map(\.lowerBound)) {
      #expect(abs(change - truth) < Int64(0.25 * 44100), "\(change) vs \(truth)")
    }
  }

  @Test func withDrums() throws {
    let steps: [ChordSynth.Step] = [
      .chord(67, [0, 4, 7]), .chord(64, [0, 3, 7]), .chord(60, [0, 4, 7]),
      .chord(62, [0, 4, 7, 10]),
      .chord(67, [0, 4, 7]),
    ]
    let (found, spans, _) = try detect(steps, bpm: 120, drums: true)
    #expect(labels(found, spans) == ["G:maj", "E:min", "C:maj", "D:7", "G:maj"])
    #expect(found.key?.description == "G")
  }

  /// One recording converted the ordinary way (`ffmpeg -ar`) is heard as one: the same
  /// chords at the same times (a millisecond apart at most), the same key and tuning, on its
  /// beat map and without one.
  @Test func oneRecordingAtThreeRatesGetsOneChordSequence() throws {
    let steps: [ChordSynth.Step] = [
      .chord(57, [0, 3, 7]), .chord(65, [0, 4, 7, 11]), .chord(60, [0, 4, 7], bass: 4),
      .chord(67, [0, 4, 7, 10]), .chord(62, [0, 3, 7, 10]), .chord(64, [0, 4, 7]),
      .chord(57, [0, 3, 7]),
    ]
    let (samples, beats, _) = ChordSynth.render(steps, bpm: 104, cents: -18, drums: true)
    let original = dir.file("44100.wav")
    try Synth.write(samples, to: original)
    func detect(_ path: String, onBeats: Bool) throws -> ChordDetection {
      let file = try SoundFile(path: path)
      let rate = file.info.sampleRate
      let map = try BeatMap(
        beats: beats.enumerated().map {
          Beat(
            frame: Int64((Double($1) * Double(rate) / 44100).rounded()), bar: $0 / 4 + 1,
            beat: $0 % 4 + 1, source: .imported)
        }, totalFrames: file.info.frames, sampleRate: rate)
      return try ChordRecognizer.detect(file: file, beats: onBeats ? map : nil)
    }
    let bases = try [true, false].map { try detect(original, onBeats: $0) }
    for rate in [22050, 48000] {
      let path = dir.file("\(rate).wav")
      let ffmpeg = try runProgram(
        "/usr/bin/ffmpeg",
        ["-v", "error", "-nostdin", "-y", "-i", original, "-ar", "\(rate)", path],
        environment: ProcessInfo.processInfo.environment, directory: dir.path, scratch: dir.path)
      #expect(ffmpeg.status == 0, "\(ffmpeg.stderr)")
      for (onBeats, base) in zip([true, false], bases) {
        let found = try detect(path, onBeats: onBeats)
        let context = "\(rate) Hz, \(onBeats ? "on the beats" : "no beat map")"
        #expect(found.spans.map(\.chord) == base.spans.map(\.chord), "\(context)")
        let apart = zip(found.spans, base.spans).map {
          abs(Double($0.start) / Double(rate) - Double($1.start) / 44100)
        }
        #expect(
          (apart.max() ?? 1) <= 0.001, "\(context): changes up to \(apart.max() ?? 1) s apart")
        #expect(found.spans.last?.end == (try SoundFile(path: path).info.frames), "\(context)")
        #expect(found.key == base.key, "\(context)")
        #expect(abs(found.tuningCents - base.tuningCents) < 0.5, "\(context)")
      }
    }
  }

  @Test func drumsOnlyIsNoChord() throws {
    var piece = BeatSynth.Piece()
    piece.chords = false
    let path = dir.file("drums.wav")
    try Synth.write(BeatSynth.render(piece).samples, to: path)
    let found = try ChordRecognizer.detect(file: SoundFile(path: path), beats: nil)
    #expect(found.spans.allSatisfy { $0.chord == nil })
    #expect(found.key == nil)
    #expect(found.note != nil)
  }

  @Test func silenceAndShortFilesAreRefused() throws {
    for (name, samples) in [
      ("silence.wav", [Float](repeating: 0, count: 44100 * 5)),
      ("short.wav", ToneSynth.sine(440, seconds: 1)),
    ] {
      let path = dir.file(name)
      try Synth.write(samples, to: path)
      #expect {
        _ = try ChordRecognizer.detect(file: SoundFile(path: path), beats: nil)
      } throws: { error in
        (error as? ChordDetectionError)?.category == .badData
      }
    }
  }
}
