import Foundation
import Testing
import TestSupport

@testable import PracticeCore

@Suite struct SharingTests {
  @Test func keysParseAndTransposeTheNearestWay() throws {
    let am = try #require(MusicalKey(parsing: "Am"))
    #expect(am.minor && am.tonic == 9 && am.description == "Am")
    #expect(MusicalKey(parsing: "A minor") == am && MusicalKey(parsing: "amin") == am)
    #expect(MusicalKey(parsing: "Bb")?.tonic == 10 && MusicalKey(parsing: "Bb")?.minor == false)
    #expect(MusicalKey(parsing: "C#m")?.tonic == 1 && MusicalKey(parsing: "Db")?.tonic == 1)
    #expect(MusicalKey(parsing: "AM")?.minor == false)
    #expect(MusicalKey(parsing: "E♭maj")?.description == "Eb")
    for bad in ["", "H", "Amx", "A###", "m", "1"] { #expect(MusicalKey(parsing: bad) == nil, "\(bad)") }
    let bm = try #require(MusicalKey(parsing: "Bm"))
    #expect(am.semitones(to: bm) == 2)
    #expect(bm.semitones(to: am) == -2)
    #expect(am.semitones(to: try #require(MusicalKey(parsing: "Em"))) == -5)
    #expect(am.semitones(to: try #require(MusicalKey(parsing: "D#m"))) == 6)
    #expect(am.semitones(to: try #require(MusicalKey(parsing: "C"))) == nil)
    // At most two sharps or flats.
    #expect(MusicalKey(parsing: "Cbb")?.tonic == 10 && MusicalKey(parsing: "F##")?.tonic == 7)
  }

  /// A transposed key is spelled as keys are written (`G#m`, `Ab`); whole octaves keep the
  /// spelling typed.
  @Test func transposedKeysAreSpelledAsWritten() throws {
    let em = try #require(MusicalKey(parsing: "Em"))
    #expect(em.transposed(by: 4).description == "G#m")
    #expect(em.transposed(by: -3).description == "C#m")
    #expect(try #require(MusicalKey(parsing: "E")).transposed(by: 4).description == "Ab")
    let aSharp = try #require(MusicalKey(parsing: "A#"))
    #expect(aSharp.transposed(by: 12).description == "A#")
    #expect(aSharp.transposed(by: -24).description == "A#")
    #expect(aSharp.transposed(by: 0).description == "A#")
  }

  /// Pickup, a meter change, an incomplete last bar and confidences survive the columns;
  /// a numbering the runs cannot say is written out per beat.
  @Test func beatMapsRoundTripThroughColumns() throws {
    var beats: [Beat] = []
    var frame: Int64 = 1000
    func add(_ bar: Int, _ beat: Int, _ source: BeatSource = .detected, _ confidence: Double? = 0.8123) {
      beats.append(Beat(frame: frame, bar: bar, beat: beat, source: source, confidence: confidence))
      frame += 22050
    }
    add(0, 3); add(0, 4)
    for bar in 1...3 { for beat in 1...4 { add(bar, beat) } }
    for bar in 4...5 { for beat in 1...3 { add(bar, beat, .tapped, nil) } }
    add(6, 1); add(6, 2)
    let shared = PracticeFile.SharedBeatMap(beats)
    #expect(shared.positions == nil)
    #expect(shared.barLengths == [[4, 4], [2, 3], [1, 2]])
    let back = try shared.beats()
    #expect(back.map(\.frame) == beats.map(\.frame))
    #expect(back.map(\.bar) == beats.map(\.bar) && back.map(\.beat) == beats.map(\.beat))
    #expect(back.map(\.source) == beats.map(\.source))
    #expect(back[0].confidence == 0.812 && back[15].confidence == nil)
    // A bar that skips a beat number.
    var skipping = beats
    skipping[3].beat = 3
    let written = PracticeFile.SharedBeatMap(skipping)
    #expect(written.positions != nil && written.barLengths == nil)
    #expect(try written.beats().map(\.beat) == skipping.map(\.beat))
    // Through JSON and back.
    let file = PracticeFile(
      format: "practice", version: 1, exportedAt: "2026-11-26T00:00:00Z",
      songs: [
        .init(
          ref: 1, title: "t", artist: nil, album: nil, duration: 1, frames: 10_000_000,
          sampleRate: 44100, contentHash: "h", key: "Am", bpm: 96, note: nil, tags: [],
          beatMap: shared, selections: [])
      ], setlists: [])
    #expect(try PracticeFile.decode(try file.encoded(), path: "x") == file)
  }

  @Test func inconsistentColumnsAreBadData() throws {
    var map = PracticeFile.SharedBeatMap([Beat(frame: 0, bar: 1, beat: 1, source: .grid)])
    map.frames = []
    #expect(throws: PracticeError.self) { try map.beats() }
    map.frames = [0, 10]
    #expect(throws: PracticeError.self) { try map.beats() }  // sources say 1 beat
    map.sources = [.init(source: "grid", count: 2)]
    map.barLengths = [[1, 0]]
    #expect(throws: PracticeError.self) { try map.beats() }
    map.barLengths = nil
    #expect(throws: PracticeError.self) { try map.beats() }
  }

  /// The hand-written writer says what JSONEncoder said: the same JSON value, read back
  /// equal, for text that needs escaping, absent optionals and numbers of every kind.
  @Test func theWriterWritesSortedKeysAndLeavesAbsentValuesOut() throws {
    let beats = (0..<9).map { i in
      Beat(
        frame: Int64(i) * 22050 + 7, bar: 1 + i / 4, beat: 1 + i % 4,
        source: i < 5 ? .detected : .tapped,
        confidence: i == 3 ? nil : [0.5, 0.123, 1, 0.001, 0, 0.999, 0.1, 0.25, 0.07][i])
    }
    let file = PracticeFile(
      format: "practice", version: 1, exportedAt: "2026-11-26T00:00:00Z",
      songs: [
        .init(
          ref: 1, title: "Quote \" back\\slash / tab\t nl\n \u{1} é 日本", artist: nil,
          album: "A", duration: 600.0123456789, frames: 26_460_000, sampleRate: 44100,
          contentHash: "fnv1a64s:0123", key: "Am", bpm: 96.5, note: "capo 2", tags: ["gig", "jazz"],
          beatMap: PracticeFile.SharedBeatMap(beats),
          selections: [
            .init(
              name: "verse", bars: "9-16", startFrame: nil, endFrame: nil, note: nil,
              practice: .init(
                speed: 0.75, rampTo: 1, step: 0.05, every: 2, countIn: 1, click: true, gap: "1bar",
                transpose: -0.5, volume: 0.8, goal: "100%")),
            .init(name: "intro", bars: nil, startFrame: 0, endFrame: 441_000, note: "n", practice: nil),
          ]),
        .init(
          ref: 2, title: "t", artist: "b", album: nil, duration: 1e-7, frames: 0, sampleRate: 8000,
          contentHash: "h", key: nil, bpm: 1.0 / 3, note: nil, tags: [], beatMap: nil, selections: []),
      ],
      setlists: [
        .init(
          name: "gig",
          entries: [
            .init(song: 1, selection: "verse", key: "Bm", transpose: 2, speed: 0.9, repeats: 2, note: nil),
            .init(song: 2, selection: nil, key: nil, transpose: -3, speed: nil, repeats: nil, note: "x"),
          ])
      ])
    let written = try file.encoded()
    let parsed = try JSONSerialization.jsonObject(with: written) as? NSDictionary
    #expect(parsed?.allKeys.count == 5)
    #expect(!String(decoding: written, as: UTF8.self).contains("\\/"))
    #expect(try PracticeFile.decode(written, path: "x") == file)
    #expect(String(decoding: written, as: UTF8.self).contains("\"confidence\":[0.5,0.123,1,null,0,0.999,0.1,0.25,0.07]"))
    var infinite = file
    infinite.songs[1].bpm = .infinity
    #expect(throws: PracticeError.self) { try infinite.encoded() }
  }

  /// The writer and the reader each spell every key once: a file with every optional field
  /// set comes back equal, so a key spelled differently on one side is lost and fails here.
  @Test func everyFieldSurvivesTheWriterAndTheReader() throws {
    let beats = (0..<6).map {
      Beat(frame: Int64($0) * 100, bar: 1 + $0 / 3, beat: 1 + $0 % 3, source: .tapped, confidence: 0.5)
    }
    var map = PracticeFile.SharedBeatMap(beats)
    map.positions = beats.map { [$0.bar, $0.beat] }
    let practice = PracticeFile.SharedPractice(
      speed: 0.7, rampTo: 1, step: 0.05, every: 2, countIn: 1, click: false, gap: "2s",
      transpose: 1.5, volume: 0.9, goal: "120bpm", passes: 0)
    let file = PracticeFile(
      format: "practice", version: 1, exportedAt: "2026-12-01T00:00:00Z",
      songs: [
        .init(
          ref: 7, title: "T", artist: "A", album: "L", duration: 1.5, frames: 600, sampleRate: 400,
          contentHash: "h", key: "Bm", bpm: 120, note: "n", tags: ["x"], beatMap: map,
          selections: [
            .init(name: "s", bars: "1-2", startFrame: 3, endFrame: 9, note: "m", practice: practice)
          ],
          chords: .init(source: "imported", key: "Bm", starts: [0], ends: [600], labels: ["B:min"]))
      ],
      setlists: [
        .init(
          name: "g",
          entries: [
            .init(song: 7, selection: "s", key: "Cm", transpose: 1, speed: 0.8, repeats: 3, note: "e")
          ])
      ])
    #expect(try PracticeFile.decode(try file.encoded(), path: "x") == file)
  }

  /// The hand-written reader: unknown keys skipped at every level, escapes, nulls, numbers
  /// written any JSON way, and the nearest double for every number the writer writes.
  @Test func theReaderReadsAnyJSONSpellingOfAFile() throws {
    let text = #"""
      { "new_key": {"deep": [1, [2, {"x": null}], "s\"", true, false, -1.5e-3]},
        "format" : "practice", "version": 1.0, "exported_at": "caf\u00e9 \ud83c\udfb8 a\/b\n",
        "setlists": [{"name": "gig", "entries": [{"song": 1e0, "transpose": -2, "key": null}]}],
        "songs": [ {"ref": 1, "title": "t", "artist": null, "duration": 0.1, "frames": 10,
          "sample_rate": 44100, "content_hash": "h", "tags": ["a"], "selections": [],
          "beat_map": {"frames": [0, 5], "first_bar": 1, "first_beat": 1,
            "bar_lengths": [[1, 2]], "sources": [["grid", 2]], "confidence": [null, 0.25],
            "later": "ignored"}} ] }
      """#
    let file = try PracticeFile.decode(Data(text.utf8), path: "x")
    #expect(file.exportedAt == "café 🎸 a/b\n")
    #expect(file.version == 1 && file.setlists[0].entries[0].song == 1)
    #expect(file.setlists[0].entries[0].transpose == -2 && file.setlists[0].entries[0].key == nil)
    #expect(file.songs[0].duration == 0.1 && file.songs[0].artist == nil)
    #expect(file.songs[0].beatMap?.confidence == [nil, 0.25])
    // Numbers: the nearest double, as the standard library rounds them.
    var generator = SeededRandom()
    var values: [Double] = [0, -0.0, 1e-7, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, 1.0 / 3]
    for _ in 0..<2000 {
      values.append(Double.random(in: -1e6...1e6, using: &generator))
      values.append((Double.random(in: 0...1, using: &generator) * 1000).rounded() / 1000)
    }
    for value in values {
      for written in ["\(value)", String(format: "%.17g", value), String(format: "%.3f", value)] {
        let bytes = Array(written.utf8)
        let read = try bytes.withUnsafeBufferPointer { buffer in
          var reader = JSONReader(buffer)
          return try reader.double()
        }
        #expect(read == Double(written), "\(written)")
      }
    }
  }

  /// A damaged file is refused in one line that names the file, the byte offset with its
  /// line and column, the place in the document and what was expected there.
  @Test func theReaderSaysWhereAFileIsDamaged() throws {
    func message(_ text: String) -> String {
      do {
        _ = try PracticeFile.decode(Data(text.utf8), path: "f.practice")
        return "read"
      } catch let error as PracticeError {
        #expect(error.category == .badData)
        return error.message
      } catch {
        return "\(error)"
      }
    }
    let head = "{\"format\":\"practice\",\"version\":1,\"exported_at\":\"x\",\"setlists\":[],"
    let wrongType = message(head + "\"songs\":[{\"ref\":\"one\"}]}")
    #expect(
      wrongType == "'f.practice': at byte 81 (line 1, column 82) in songs[0].ref: expected an "
        + "integer, found '\"'; the file is damaged", "\(wrongType)")
    let onLine3 = message(head + "\n\"songs\":\n[{\"ref\":1,\"title\":\"t\",\"duration\":1,}]}")
    #expect(onLine3.contains("(line 3, column 36) in songs[0]: expected a key in double quotes"), "\(onLine3)")
    #expect(message(head + "\"songs\":[{\"ref\":1}]}").contains("songs[0].title is missing"))
    #expect(message(head + "\"songs\":[{\"ref\":99999999999999999999}]}").contains("at most 64 bits"))
    #expect(message(head + "\"songs\":[]} x").contains("expected the end of the file, found 'x'"))
    #expect(message(head + "\"songs\":[], \"n\": \"\u{1}\"}").contains("control character"))
    #expect(message(head + "\"songs\":[], \"n\": 1e999}").contains("a number a double can hold"))
    let twice = message(head + "\"songs\":[], \"songs\":[]}")
    #expect(
      twice.contains("expected a key not given before ('songs' repeats), found ':'"), "\(twice)")
    // Cut anywhere, the file says where it ends and what it expected; it never traps.
    let whole = try PracticeFile(
      format: "practice", version: 1, exportedAt: "x",
      songs: [
        .init(
          ref: 1, title: "t \u{e9}\n", artist: "a", album: nil, duration: 1.5, frames: 100,
          sampleRate: 44100, contentHash: "h", key: "Am", bpm: 96, note: nil, tags: ["g"],
          beatMap: PracticeFile.SharedBeatMap([Beat(frame: 7, bar: 1, beat: 1, source: .grid)]),
          selections: [])
      ], setlists: []
    ).encoded()
    for cut in 1..<whole.count {
      let said = message(String(decoding: whole.prefix(cut), as: UTF8.self))
      #expect(
        said.contains("is not a .practice file")
          || (said.contains("at byte ") && said.contains("expected")), "\(cut): \(said)")
    }
    // Nested past any sense, inside a key this version skips.
    let deep = head + "\"songs\":[], \"n\": " + String(repeating: "[", count: 100_000) + "}"
    #expect(message(deep).contains("at most 512 arrays and objects"))
  }

  /// A bar of 64 beats (the most a bar may have) is written as a run and read back; one of
  /// 65 is refused (planted bug M199).
  @Test func barsOfUpTo64BeatsRoundTrip() throws {
    let beats = (1...64).map { Beat(frame: Int64($0) * 1000, bar: 1, beat: $0, source: .grid) }
    let shared = PracticeFile.SharedBeatMap(beats)
    #expect(shared.barLengths == [[1, 64]])
    #expect(try shared.beats().map(\.beat) == Array(1...64))
    var longer = shared
    longer.frames.append(65_000)
    longer.sources = [.init(source: "grid", count: 65)]
    longer.barLengths = [[1, 65]]
    #expect(throws: PracticeError.self) { try longer.beats() }
  }

  /// A selection's settings from a file: a trainer's step of 0 is refused (it would never
  /// reach its target), 0 passes is a loop (planted bugs M201, M202).
  @Test func sharedSettingsRefuseAStepOfZeroAndTakeZeroPassesAsALoop() throws {
    var still = PracticeFile.SharedPractice()
    still.rampTo = 1
    still.step = 0
    guard case .failure(let error) = still.selectionPractice() else {
      Issue.record("a step of 0 was taken")
      return
    }
    #expect(error.message == "its practice settings have step 0.0")
    var looped = PracticeFile.SharedPractice()
    looped.passes = 0
    #expect(try looped.selectionPractice().get().settings.passes == .endless)
  }

  /// A file of version 0, which no practice writes, is refused naming its version (planted
  /// bug M205).
  @Test func aVersionNoPracticeWritesIsRefused() throws {
    let text =
      "{\"format\":\"practice\",\"version\":0,\"exported_at\":\"x\",\"songs\":[],\"setlists\":[]}"
    do {
      _ = try PracticeFile.decode(Data(text.utf8), path: "f.practice")
      Issue.record("a file of version 0 was read")
    } catch let error as PracticeError {
      #expect(error.category == .badData)
      #expect(
        error.message == "'f.practice' says it is of version 0, which no practice writes; the "
          + "file is damaged or was edited by hand")
    }
  }

  /// A file cut before its version (written last) is a damaged .practice file: the message
  /// says where it ends, not that it is no .practice file (planted bug M203).
  @Test func aFileCutBeforeItsVersionSaysWhereItEnds() throws {
    let whole = try PracticeFile(
      format: "practice", version: 1, exportedAt: "x", songs: [], setlists: []
    ).encoded()
    let text = String(decoding: whole, as: UTF8.self)
    let version = try #require(text.range(of: "\"version\""))
    do {
      _ = try PracticeFile.decode(Data(text[..<version.lowerBound].utf8), path: "f.practice")
      Issue.record("a cut file was read")
    } catch let error as PracticeError {
      #expect(error.message.hasPrefix("'f.practice': at byte "), "\(error.message)")
      #expect(error.message.hasSuffix("; the file is damaged"), "\(error.message)")
    }
  }
}
