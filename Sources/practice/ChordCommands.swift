import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

struct Chords: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chords",
    abstract: "Find, show, export and import a song's chords and key.",
    subcommands: [ChordsDetect.self, ChordsShow.self, ChordsExport.self, ChordsImport.self])
}

struct ChordsDetect: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "detect",
    abstract: "Find the chords and the key of songs' audio and store them with the songs.",
    discussion: """
      Chords change on the beat map's beats when the song has one (`beats detect` makes \
      it), on their own times otherwise; the beat map is not changed. The vocabulary: \
      major, minor, 7, maj7, m7, dim, aug, sus2, sus4 and N (no chord), with the bass of \
      inversions (C/E) where it is heard. One summary line per song on stderr. A song with \
      no harmony heard (drums, noise) is stored as N with a note (exit 0). Chords that were \
      imported are kept unless --replace is given.
      """)

  @OptionGroup var target: SongsInLibrary
  @Flag(help: "Replace chords that were imported.") var replace = false

  func run() throws {
    let (library, resolved) = try target.resolve()
    do {
      try library.checkChordDetection(of: resolved, replace: replace)
    } catch let refusal as DetectionRefusal {
      throw PracticeError(.usage, worded(refusal, replacingWith: "detected ones"))
    }
    let settings = ChordSettings.fromEnvironment()
    try detectEach(resolved, in: library) { song, name, bar in
      let found = try library.detectChords(for: song, settings: settings) { bar?.show($0, name) }
      bar?.clear()
      Terminal.say(found.summary(name: name))
      if let note = found.note { Terminal.warning("\(name): \(note)") }
    }
  }
}

/// The song's chord track, or exit 66 saying how to make one.
func requireChordTrack(_ library: Library, _ song: Song) throws -> ChordTrack {
  guard let track = try library.chordTrack(for: song) else {
    throw PracticeError(
      .missingInput,
      "'\(song.title)' has no chords; find them with `practice chords detect \(song.id ?? 0)` "
        + "or read them with `practice chords import \(song.id ?? 0) FILE`")
  }
  return track
}

struct ChordsShow: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract: "Show the song's chords bar by bar (a table; tab-separated when piped).",
    discussion: """
      The first line is the key: `key Am (detected)` until `practice set SONG --key` gives \
      one. Then one line per bar, a chord or `.` (the same chord) per beat: `17  Am7 . D7 .`; \
      without a beat map, one line per chord with its start time. With --capo the chords \
      are the shapes to finger; with --transpose or --key, the chords sounding after the \
      transposition. The key line names the key that sounds, then the shapes' key: \
      `key D (detected) — shapes in C with capo 2`. --json names the keys apart: song_key \
      (with key_source, set or detected), sounding_key (after --transpose or --key) and \
      shapes_key (the chords' key under --capo), then capo, transpose, bars and chords.
      """)

  @OptionGroup var target: SongInLibrary
  @Option(
    help: ArgumentHelp("Show the shapes to finger with a capo at fret N (0-11).", valueName: "N"),
    transform: Parse.count(in: 0...11, "frets"))
  var capo: Int = 0
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Show the chords transposed by ST semitones (-12 to 12).", valueName: "st"),
    transform: Parse.count(in: -12...12, "semitones"))
  var transpose: Int = 0
  @Option(
    help: ArgumentHelp("Show the chords transposed to this key.", valueName: "key"),
    transform: Parse.key)
  var key: MusicalKey?
  @Flag(help: "Print JSON instead.") var json = false

  func validate() throws {
    if key != nil && transpose != 0 {
      throw ValidationError("give --key or --transpose, not both")
    }
  }

  func run() throws {
    let (library, song) = try target.resolve()
    let track = try requireChordTrack(library, song)
    // --key as play's: the semitones from the song's own key (set, else detected).
    let semitones = try key.map { try transposition(of: song, to: $0, in: library) }
    let chart = ChordChart(
      track: track, beatMap: try library.beatMap(for: song), sampleRate: song.sampleRate,
      setKey: try library.details(of: song).key, capo: capo, transpose: semitones ?? transpose)
    if json {
      Terminal.json(chart)
      return
    }
    let piped = isatty(STDOUT_FILENO) != 1
    if piped {
      Terminal.records([["key", chart.keyText]])
    } else {
      Terminal.lines(["key \(chart.keyText)"])
    }
    Table.chords(chart).print()
  }
}

extension ChordFileFormat: ExpressibleByArgument {}

struct ChordsExport: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Write the song's chords: lab (start<TAB>end<TAB>Harte label) or json.",
    discussion: """
      lab is what mir_eval and Sonic Visualiser read (`0.5<TAB>2.5<TAB>A:min7`); json is \
      {"key": "Bb major", "chords": [{"start": …, "end": …, "label": …}]}. To stdout, or to \
      FILE with -o.
      """)

  @OptionGroup var target: SongInLibrary
  @Option(help: ArgumentHelp("lab or json.", valueName: "format")) var format: ChordFileFormat =
    .lab
  @Option(name: .shortAndLong, help: ArgumentHelp("Write to FILE.", valueName: "file")) var output:
    String?

  func run() throws {
    let (library, song) = try target.resolve()
    let track = try requireChordTrack(library, song)
    let key = try library.ownKey(of: song)
    let text = ChordFiles.export(track, as: format, key: key, sampleRate: song.sampleRate)
    if let output {
      try OutputFile.write(Data(text.utf8), to: output)
    } else {
      Terminal.data(text)
    }
  }
}

struct ChordsImport: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Read a song's chords from a .lab file or Chordino's CSV, replacing its own.",
    discussion: """
      .lab: `start<TAB>end<TAB>label` lines, Harte labels (C:maj, A:min7, C:maj/3, N). \
      Chordino's CSV: a time and a chord name (C, Am7, F#m, C/E, N) per change, as Sonic \
      Visualiser or sonic-annotator writes it. A line that cannot be read is refused with \
      its number (exit 65), and nothing is stored.
      """)

  @OptionGroup var target: SongInLibrary
  @Argument(help: ArgumentHelp("Chord file.", valueName: "file")) var file: String

  func run() throws {
    let (library, song) = try target.resolve()
    let spans = try ChordFiles.read(
      path: file, sampleRate: song.sampleRate, totalFrames: song.frames)
    let (chords, key) = try library.importChords(spans, for: song)
    Terminal.say(
      "'\(song.title)': \(chords) chords imported" + (key.map { ", key \($0) from them" } ?? ""))
  }
}
