import Foundation
import TestSupport
import Testing

/// Every bad input: the documented exit code, one line on stderr saying what to do, and
/// the library exactly as it was.
@Suite struct BadInputTests: RefusalSuite {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  init() throws {
    // A library with one song in it, so "unchanged" means something.
    _ = try cli.run(["add", CLI.fixture("sine-440.wav")])
  }

  /// Every command that reads a song says a missing file the same way (`add` used to say
  /// "cannot open … no such file").
  @Test func missingFile() throws {
    let nope = dir.file("nope.wav")
    let line = "practice: no such file '\(nope)'; check the path"
    for command in [
      ["add", nope], ["play", nope, "--device", "null"], ["render", nope, "-o", dir.file("o.wav")],
    ] {
      let result = try expectFailure(command, status: 66, message: "no such file")
      #expect(result.stderrLines.first == line, "\(command)")
    }
    #expect(!FileManager.default.fileExists(atPath: dir.file("o.wav")))
  }

  /// A command that fails on a library path where there was none leaves no file there; one
  /// that added a song before failing keeps the library it made.
  @Test func aFailedCommandLeavesNoNewLibrary() throws {
    let garbage = dir.file("garbage.wav")
    try Data("not audio".utf8).write(to: URL(fileURLWithPath: garbage))
    let commands: [[String]] = [
      ["add", dir.file("nope.wav")], ["add", garbage], ["play", garbage, "--device", "null"],
      ["show", "3"], ["beats", "detect", garbage],
    ]
    for (i, arguments) in commands.enumerated() {
      let fresh = CLI(database: dir.file("new-\(i).sqlite"))
      let result = try fresh.run(arguments)
      #expect(result.status != 0, "\(arguments)")
      for suffix in ["", "-wal", "-shm"] {
        #expect(
          !FileManager.default.fileExists(atPath: dir.file("new-\(i).sqlite") + suffix),
          "\(arguments) left new-\(i).sqlite\(suffix)")
      }
    }
    let partly = CLI(database: dir.file("partly.sqlite"))
    #expect(try partly.run(["add", garbage, CLI.fixture("sine-440.wav")]).status == 65)
    #expect(try partly.run(["list"]).stdout.contains("sine-440"))
  }

  /// A folder where a song is wanted is missing input (66, as a folder a decoder cannot read
  /// is): the command line is well formed, the audio file it names is not there.
  @Test func directory() throws {
    // `add` takes folders: one with no audio in it is missing input.
    try expectFailure(["add", dir.path], status: 66, message: "no audio files in")
    let line =
      "practice: '\(dir.path)' is a folder, not an audio file; give a file, a song id or a "
      + "title (`practice add` adds a folder's songs)"
    for command in [
      ["play", dir.path, "--device", "null"], ["render", dir.path, "-o", dir.file("o.wav")],
    ] {
      let result = try expectFailure(command, status: 66, message: "is a folder")
      #expect(result.stderrLines.first == line, "\(command)")
    }
    #expect(!FileManager.default.fileExists(atPath: dir.file("o.wav")))
    // The folder's songs are added by `add`, as its help says.
    let music = dir.file("music")
    try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: CLI.fixture("sine-440.wav"), toPath: music + "/a.wav")
    let added = try cli.run(["add", music])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stdout.contains("\ta"), "\(added.stdout)")
  }

  @Test func zeroByteFile() throws {
    let empty = dir.file("empty.wav")
    FileManager.default.createFile(atPath: empty, contents: Data())
    try expectFailure(["add", empty], status: 65, message: "the file is empty")
  }

  /// A named pipe, a device, a link to one: not files to read whole (`/dev/zero` never
  /// ends, a pipe blocks); one line says what the path is, exit 65, nothing stored.
  @Test func pipesAndDevicesAreNotFiles() throws {
    let fifo = dir.file("fifo.wav")
    #expect(mkfifo(fifo, 0o600) == 0)
    let link = dir.file("zero.wav")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/zero")
    for (path, what) in [
      (fifo, "it is a named pipe (FIFO), not a file"), ("/dev/zero", "it is a device, not a file"),
      (link, "it is a device, not a file"),
    ] {
      for command in [
        ["add", path], ["render", path, "-o", dir.file("out.wav")],
        ["play", path, "--device", "null"],
      ] {
        try expectFailure(command, status: 65, message: "'\(path)': \(what)")
      }
    }
  }

  /// A folder or a named pipe given as a beat or chord file: the advice asks for that kind
  /// of file, not for an audio file (it did: the check is the audio files' one).
  @Test func foldersAndPipesAsBeatAndChordFilesAskForThoseFiles() throws {
    let fifo = dir.file("beats.txt")
    #expect(mkfifo(fifo, 0o600) == 0)
    for (command, wanted) in [("beats", "a beat file"), ("chords", "a chord file")] {
      for (path, status) in [(dir.path, Int32(66)), (fifo, Int32(65))] {
        let result = try expectFailure(
          [command, "import", "1", path], status: status, message: "give the path of \(wanted)")
        #expect(!result.stderr.contains("audio"), "\(result.stderr)")
      }
    }
  }

  /// Files that are not sound, as they end up in a music folder or get renamed: a MIDI
  /// file (notes, not audio), a picture or a PDF named `.mp3`. One line says what the file
  /// is (and, for MIDI, how to make audio of it), exit 65, nothing stored.
  @Test func filesThatAreNotSoundSayWhatTheyAre() throws {
    // A format 0 MIDI file: one track, a note on and off.
    let midi = Data("MThd".utf8) + Data([0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0])
      + Data("MTrk".utf8) + Data([0, 0, 0, 12, 0, 0x90, 60, 100, 0x60, 0x80, 60, 0, 0, 0xFF, 0x2F, 0])
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(count: 200)
    let pdf = Data("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".utf8)
    for (name, bytes, what) in [
      ("song.mid", midi, "it is a MIDI file (notes for a synthesizer), not recorded sound; render it to audio first"),
      ("cover.mp3", png, "it is a PNG image, not recorded sound"),
      ("chart.mp3", pdf, "it is a PDF document, not recorded sound"),
    ] {
      let path = dir.file(name)
      try bytes.write(to: URL(fileURLWithPath: path))
      for command in [["add", path], ["render", path, "-o", dir.file("out.wav")]] {
        try expectFailure(command, status: 65, message: "'\(path)': \(what)")
      }
    }
  }

  /// A WAV whose data size is 0 though audio follows (a recorder that stopped before it
  /// wrote the size, a WAV written to a pipe): `ffmpeg -i` plays the audio to the end of
  /// the file, and so does practice.
  @Test func aWavWithoutItsDataSizePlaysToTheEndOfTheFile() throws {
    let (_, samples) = try Synth.read(CLI.fixture("sine-440.wav"))
    var data = try Data(contentsOf: URL(fileURLWithPath: CLI.fixture("sine-440.wav")))
    let at = try #require(data.range(of: Data("data".utf8))).lowerBound
    data.replaceSubrange((at + 4)..<(at + 8), with: Data(count: 4))
    data.replaceSubrange(4..<8, with: Data(count: 4))
    let zero = dir.file("zero-size.wav")
    try data.write(to: URL(fileURLWithPath: zero))
    let result = try cli.run(["render", zero, "-o", dir.file("zero-out.wav")])
    #expect(result.status == 0, "\(result.stderr)")
    let (_, out) = try Synth.read(dir.file("zero-out.wav"))
    #expect(out == samples)
  }

  /// A WAV with a header and no frames is a song, but not one to play, draw or detect beats
  /// or chords in (`view` said "--from 0:00.0 is at or past the end of the audio", exit 64,
  /// though no --from was typed).
  @Test func noFramesToPlay() throws {
    let empty = dir.file("no-frames.wav")
    try Synth.writeFloatWAV([], to: empty)
    #expect(try cli.run(["add", empty]).status == 0)
    for command in [
      ["play", empty, "--device", "null"], ["render", empty, "-o", dir.file("out.wav")],
      ["beats", "detect", empty], ["chords", "detect", empty], ["view", empty],
      ["view", empty, "-o", dir.file("out.png")],
    ] {
      try expectFailure(command, status: 65, message: "holds no audio (0 frames)")
    }
  }

  /// A header claiming a rate no audio has (a damaged ALAC box said 2 Hz; beat detection
  /// then failed as "a bug in practice") is refused when the file is opened.
  @Test func aSampleRateNoAudioHasIsDamage() throws {
    let slow = dir.file("two-hertz.wav")
    try Synth.writeFloatWAV([Float](repeating: 0.1, count: 400), to: slow, sampleRate: 2)
    for command in [
      ["add", slow], ["play", slow, "--device", "null"], ["beats", "detect", slow],
    ] {
      try expectFailure(command, status: 65, message: "sample rate is 2 Hz, which no audio has")
    }
    // A rate some audio has, but too low to detect beats in: said so, not called a bug.
    let low = dir.file("four-kilohertz.wav")
    try Synth.writeFloatWAV([Float](repeating: 0.1, count: 40000), to: low, sampleRate: 4000)
    try expectFailure(
      ["beats", "detect", low], status: 65,
      message: "beat detection needs audio at 8000 Hz or more, and this song is 4000 Hz")
  }

  @Test func randomBytesNamedWav() throws {
    let junk = dir.file("junk.wav")
    var generator = SeededRandom()
    FileManager.default.createFile(
      atPath: junk,
      contents: Data((0..<20000).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    let result = try expectFailure(
      ["render", junk, "-o", dir.file("o.wav")], status: 65, message: "cannot read audio from")
    #expect(result.stderr.contains("libsndfile: ") && result.stderr.contains("FFmpeg: "))
    #expect(!FileManager.default.fileExists(atPath: dir.file("o.wav")))
  }

  @Test func unreadableFile() throws {
    // Permissions do not bind root, so the command runs as `nobody` in a shared directory.
    let shared = dir.file("shared")
    try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
    chmod(dir.path, 0o755)
    chmod(shared, 0o777)
    let locked = shared + "/locked.wav"
    try Synth.write(Synth.sine(frequency: 440, seconds: 0.1), to: locked)
    chmod(locked, 0o000)
    let nobody = CLI(database: shared + "/lib.sqlite")
    let result = try nobody.run(["add", locked], asUser: "65534")
    #expect(result.status == 66, "\(result.stderr)")
    #expect(
      result.stderr
        == "practice: cannot open '\(locked)': permission denied; make the file readable (chmod +r)\n"
    )
  }

  @Test func truncatedWavPlaysWhatIsThere() throws {
    // libsndfile trusts the file size over a too-long header: the decodable frames play.
    let (_, samples) = try Synth.read(CLI.fixture("sine-440.wav"))
    let data = try Data(contentsOf: URL(fileURLWithPath: CLI.fixture("sine-440.wav")))
    let cut = dir.file("cut.wav")
    try data.prefix(44 + 2 * 30000 + 1).write(to: URL(fileURLWithPath: cut))
    let result = try cli.run(["render", cut, "-o", dir.file("cut-out.wav")])
    #expect(result.status == 0)
    let (_, out) = try Synth.read(dir.file("cut-out.wav"))
    #expect(out == Array(samples.prefix(30000)))
  }

  /// A float file with a glitch, NaN and infinite samples, renders with silence in their
  /// place, at speed 1 and through the time stretcher, where they would have turned the
  /// rest of the song into full-scale noise.
  @Test func samplesThatAreNotNumbersAreSilence() throws {
    var samples = Synth.sine(frequency: 440, seconds: 3, amplitude: 0.5)
    let glitch = 44100..<44110
    for i in glitch { samples[i] = i % 2 == 0 ? .nan : -.infinity }
    let song = dir.file("glitch.wav")
    try Synth.writeFloatWAV(samples, to: song)
    for speed in ["100%", "80%"] {
      let out = dir.file("glitch-\(speed.dropLast()).wav")
      let result = try cli.run(["render", song, "--speed", speed, "-o", out])
      #expect(result.status == 0, "\(result.stderr)")
      let (_, rendered) = try Synth.read(out)
      #expect(
        rendered.allSatisfy { $0.isFinite && abs($0) < 0.6 },
        "speed \(speed): peak \(rendered.map(abs).max() ?? 0)")
      if speed == "100%" {
        #expect(rendered[glitch].allSatisfy { $0 == 0 })
      }
    }
  }

  @Test(arguments: ["flac", "mp3"])
  func truncatedCompressedFilePlaysWhatDecodesThenWarns(ext: String) throws {
    let whole = dir.file("whole.\(ext)")
    try Synth.write(Synth.sine(frequency: 440, seconds: 3, amplitude: 0.5), to: whole)
    let data = try Data(contentsOf: URL(fileURLWithPath: whole))
    let cut = dir.file("cut.\(ext)")
    try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
    let result = try cli.run(["render", cut, "-o", dir.file("cut-out.wav")])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderrLines.count == 1, "\(result.stderr)")
    #expect(
      result.stderr.contains("warning: '\(cut)': the audio ends at "), "\(result.stderr)")
    #expect(result.stderr.contains("though the file says 0:03.0"), "\(result.stderr)")
    let (_, out) = try Synth.read(dir.file("cut-out.wav"))
    #expect(out.count > 44100 / 2 && out.count < 3 * 44100)
  }

  /// An MP3 missing only its last frame ends within the tenth of a second the file says:
  /// the warning says by how much, not two equal times.
  @Test func aFileCutInItsLastTenthSaysByHowMuch() throws {
    let whole = dir.file("whole.mp3")
    try Synth.write(Synth.sine(frequency: 440, seconds: 3, amplitude: 0.5), to: whole)
    let data = try Data(contentsOf: URL(fileURLWithPath: whole))
    let cut = dir.file("cut.mp3")
    try data.prefix(data.count - 300).write(to: URL(fileURLWithPath: cut))
    let result = try cli.run(["render", cut, "-o", dir.file("cut-out.wav")])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(
      result.stderr.range(
        of: #"the audio ends \d+ ms before the length the file says \(0:03\.0\)"#,
        options: .regularExpression) != nil, "\(result.stderr)")
  }

  @Test func impossibleRanges() throws {
    let song = CLI.fixture("sine-440.wav")
    try expectFailure(
      ["render", song, "--from", "1.5", "--to", "0.5", "-o", dir.file("x.wav")], status: 64,
      message: "is not before --to")
    try expectFailure(
      ["play", song, "--to", "3", "--device", "null"], status: 64,
      message: "past the end of the audio (0:02.0)")
    // An end that rounds to the time asked for is shown to the millisecond.
    try expectFailure(
      ["play", "1", "--to", "2.0004", "--device", "null"], status: 64,
      message: "past the end of the audio (2.000 s)")
    try expectFailure(
      ["play", song, "--from", "1:00", "--device", "null"], status: 64,
      message: "at or past the end")
    try expectFailure(["play", song, "--from", "1:75"], status: 64, message: "not a time")
    try expectFailure(
      ["play", song, "--repeat", "0"], status: 64,
      message: "--repeat 0: out of range; use 1 to 9999 passes")
    // A huge count would render for ever (and fill the disk): refused before anything runs.
    try expectFailure(
      ["render", song, "--repeat", "9223372036854775807", "-o", dir.file("x.wav")], status: 64,
      message: "--repeat 9223372036854775807: out of range")
    try expectFailure(
      ["play", song, "--repeat", "2", "--loop"], status: 64, message: "cannot be combined")
    try expectFailure(
      ["play", song, "--select", "a", "--from", "1", "--device", "null"], status: 64,
      message: "--select cannot be combined with --bars or --from/--to; use one")
    try expectFailure(
      ["play", song, "--select", "a", "--to", "1", "--device", "null"], status: 64,
      message: "--select cannot be combined with --bars or --from/--to; use one")
    try expectFailure(
      ["render", song, "--loop", "-o", dir.file("x.wav")], status: 64, message: "cannot --loop")
  }

  @Test(arguments: ["201%", "2.5", "-0.1", "+7dB", "loud"])
  func volumeOutOfRange(volume: String) throws {
    try expectFailure(
      ["play", CLI.fixture("sine-440.wav"), "--volume", volume], status: 64,
      message: "--volume \(volume): must be 0% to 200%")
  }

  @Test func unknownDevice() throws {
    try expectFailure(
      ["play", CLI.fixture("sine-440.wav"), "--device", "no_such_pcm"], status: 69,
      message: "audio device 'no_such_pcm': ALSA error")
  }

  @Test func badOutputFiles() throws {
    let song = CLI.fixture("sine-440.wav")
    try expectFailure(
      ["render", song, "-o", dir.file("x.xyz")], status: 64, message: "unknown output format")
    try expectFailure(
      ["render", song, "-o", dir.file("no/such/dir/x.wav")], status: 73, message: "does not exist")
    try expectFailure(["render", song, "-o", song], status: 64, message: "is the song itself")
  }

  /// A render target that cannot be created is exit 73 exactly (not 74, not 1), whether
  /// its directory is missing, is a file, or cannot be written; nothing is left behind.
  @Test func aRenderTargetThatCannotBeCreatedIs73() throws {
    let song = CLI.fixture("sine-440.wav")
    try expectFailure(
      ["render", "1", "-o", dir.file("missing/x.wav")], status: 73, message: "does not exist")
    FileManager.default.createFile(atPath: dir.file("plain"), contents: Data("x".utf8))
    try expectFailure(
      ["render", "1", "-o", dir.file("plain/x.wav")], status: 73, message: "cannot")

    // A directory the user may not write in (root may write anywhere: run as nobody, with
    // a library nobody may use).
    chmod(dir.path, 0o755)
    let shared = dir.file("shared")
    try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
    chmod(shared, 0o777)
    let nobody = CLI(database: shared + "/lib.sqlite")
    #expect(try nobody.run(["add", song]).status == 0)
    for name in try FileManager.default.contentsOfDirectory(atPath: shared) {
      chmod(shared + "/" + name, 0o666)
    }
    let readOnly = dir.file("ro")
    try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
    chmod(readOnly, 0o555)
    let before = try nobody.snapshot()
    let result = try nobody.run(["render", "1", "-o", readOnly + "/x.wav"], asUser: "65534")
    #expect(result.status == 73, "\(result.stderr)")
    #expect(result.stderrLines.count == 1, "\(result.stderr)")
    #expect(
      result.stderr.hasPrefix("practice: ") && result.stderr.contains("permission denied"),
      "\(result.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: readOnly).isEmpty)
    #expect(try nobody.snapshot() == before)
  }

  @Test func databaseInAReadOnlyDirectory() throws {
    let readOnly = dir.file("ro")
    try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
    chmod(dir.path, 0o755)
    chmod(readOnly, 0o555)
    for db in [readOnly + "/lib.sqlite", readOnly + "/sub/lib.sqlite"] {
      let result = try cli.run(["list", "--db", db], asUser: "65534")
      #expect(result.status == 73, "\(result.stderr)")
      #expect(result.stderrLines.count == 1)
      #expect(result.stderr.contains("pass a writable path with --db"))
      #expect(!FileManager.default.fileExists(atPath: db))
    }
  }

  @Test func databaseThatIsNotSQLite() throws {
    let notDB = dir.file("notes.sqlite")
    let text = Data(
      String(repeating: "these are my practice notes, not a database\n", count: 200).utf8)
    try text.write(to: URL(fileURLWithPath: notDB))
    let result = try cli.run(["list", "--db", notDB])
    #expect(result.status == 65)
    #expect(result.stderrLines.count == 1)
    #expect(result.stderr.contains("is not a practice library"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: notDB)) == text)
    #expect(!FileManager.default.fileExists(atPath: notDB + "-wal"))
  }

  @Test func unknownFlagsAreUsageErrors() throws {
    try expectFailure(
      ["play", CLI.fixture("sine-440.wav"), "--sped", "2"], status: 64,
      message: "'--sped' is not an option of 'practice play'; did you mean '--speed'?")
    // The option is named even where the command's own checks would fail on what follows
    // it (the parser reads '1' as a second note).
    try expectFailure(
      ["tone", "A4", "--secs", "1"], status: 64,
      message: "'--secs' is not an option of 'practice tone'; see `practice tone --help`")
    try expectFailure(
      ["--db", "elsewhere.sqlite", "beats", "detect", "x.wav", "--metre=3/4"], status: 64,
      message: "'--metre' is not an option of 'practice beats detect'; did you mean '--meter'?")
  }

  /// A number with an `h` where no option takes it (the parser read `-2h` as `-2 -h` and
  /// showed the help, exit 0); given to an option it is that option's to refuse.
  @Test func aNumberWithAnHIsNoRequestForHelp() throws {
    // After an option written with its value (--db=PATH), the next word is no value of it.
    for command in [
      ["select", "halve", "1", "-2h"], ["setlist", "rm", "gig", "-1h"],
      ["select", "halve", "1", "--db=" + dir.file("lib.sqlite"), "-2h"],
    ] {
      let result = try expectFailure(
        command, status: 64, message: "is neither a number practice reads nor an option")
      #expect(result.stdout.isEmpty, "\(command)")
    }
    try expectFailure(
      ["beats", "shift", "1", "--by", "-2h"], status: 64, message: "--by -2h: must be seconds")
  }
}

@Suite struct BusyLibraryTests {
  @Test func aLibraryLockedByAnotherWriterIsBusy() throws {
    let dir = TemporaryDirectory()
    let cli = CLI(database: dir.file("lib.sqlite"))
    _ = try cli.run(["add", CLI.fixture("sine-440.wav")])
    let before = try cli.snapshot()
    // Another process holds the write lock for longer than the busy timeout.
    let locker = Process()
    locker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    locker.arguments = [
      "python3", "-c",
      """
      import sqlite3, sys, time
      db = sqlite3.connect(sys.argv[1], isolation_level=None)
      db.execute('BEGIN EXCLUSIVE')
      print('locked', flush=True)
      time.sleep(12)
      """, dir.file("lib.sqlite"),
    ]
    let out = Pipe()
    locker.standardOutput = out
    try locker.run()
    // SIGKILL: children of the test runner inherit a blocked SIGTERM.
    defer { kill(locker.processIdentifier, SIGKILL) }
    var seen = ""
    while !seen.contains("locked") {
      let data = out.fileHandleForReading.availableData
      if data.isEmpty { break }
      seen += String(decoding: data, as: UTF8.self)
    }
    let result = try cli.run(["add", CLI.fixture("chord.wav")])
    #expect(result.status == 75, "\(result.stderr)")
    #expect(result.stderrLines.count == 1)
    #expect(result.stderr.contains("is busy"))
    kill(locker.processIdentifier, SIGKILL)
    locker.waitUntilExit()
    #expect(try cli.snapshot() == before)
  }
}

extension BadInputTests {
  /// sine-440 (song 1, 2 s) with a 120 BPM grid (bar 1, beats at 0, 0.5, 1, 1.5 s) and
  /// two selections.
  func withBeatsAndSelections() throws {
    #expect(try cli.run(["beats", "grid", "1", "--bpm", "120"]).status == 0)
    #expect(try cli.run(["select", "add", "1", "a", "--bars", "1"]).status == 0)
    #expect(try cli.run(["select", "add", "1", "b", "--from", "1.2", "--to", "1.8"]).status == 0)
  }

  @Test func badSelectionCommands() throws {
    try withBeatsAndSelections()
    try expectFailure(["select", "add", "1", "x"], status: 64, message: "say what to select")
    try expectFailure(
      ["select", "add", "1", "x", "--bars", "20"], status: 64,
      message: "bar 20 is not in this song; it has bar 1")
    try expectFailure(
      ["select", "add", "1", "x", "--bars", "1", "--from", "1"], status: 64,
      message: "cannot be combined")
    try expectFailure(
      ["select", "add", "1", "x", "--from", "1.5", "--to", "1"], status: 64,
      message: "is not before --to")
    try expectFailure(
      ["select", "add", "1", " ", "--bars", "1"], status: 64, message: "the name is empty")
    try expectFailure(
      ["select", "add", "1", "A", "--bars", "1"], status: 64,
      message: "already has a selection 'a'; use --replace")
    try expectFailure(
      ["select", "edit", "1", "a", "--rename", "B"], status: 64,
      message: "already a selection named 'B'")
    try expectFailure(
      ["select", "edit", "1", "a", "--rename", ""], status: 64, message: "--rename needs a name")
    try expectFailure(
      ["select", "move", "1", "a", "--by", "two"], status: 64,
      message: "--by two: must be a whole number of bars")
    try expectFailure(
      ["select", "move", "1", "a", "--by", "+1"], status: 64,
      message: "would leave the song's bar 1")
    try expectFailure(
      ["select", "move", "1", "b", "--by", "1"], status: 64,
      message: "made from times; move works on selections made of bars")
    try expectFailure(
      ["select", "double", "1", "b"], status: 64, message: "would run past the end of the song")
    #expect(try cli.run(["select", "add", "1", "c", "--bars", "1.3-1.4"]).status == 0)
    try expectFailure(
      ["select", "double", "1", "c"], status: 64,
      message: "doubled, bars 1.3-1.4 would run past the song's last beat")
    #expect(try cli.run(["select", "halve", "1", "c"]).status == 0)
    try expectFailure(
      ["select", "halve", "1", "c"], status: 64,
      message: "bar 1.3 is one beat; halve needs at least two")
    try expectFailure(
      // In song order: a (bar 1), c (bar 1, beat 3), b (from 1.2 s).
      ["select", "show", "1", "zz"], status: 66, message: "has no selection 'zz'; it has: a, c, b")
  }

  /// A selection name one slip away is suggested, as a mistyped title is; the list follows.
  @Test func aMistypedSelectionSuggestsTheNearest() throws {
    try withBeatsAndSelections()
    #expect(try cli.run(["select", "add", "1", "Verse", "--bars", "1"]).status == 0)
    try expectFailure(
      ["play", "1", "--select", "verze", "--device", "null"], status: 66,
      message: "has no selection 'verze'; did you mean 'Verse'? it has: ")
  }

  @Test func badBeatCommands() throws {
    try withBeatsAndSelections()
    let before = try cli.run(["beats", "export", "1"]).stdout
    try expectFailure(
      ["beats", "grid", "1", "--bpm", "0"], status: 64,
      message: "--bpm 0: must be 10-600 beats per minute")
    try expectFailure(
      ["beats", "grid", "1", "--bpm", "120", "--meter", "4/3"], status: 64, message: "--meter 4/3: "
    )
    try expectFailure(
      ["beats", "grid", "1", "--bpm", "120", "--start", "abc"], status: 64,
      message: "--start abc: not a time")
    try expectFailure(
      ["beats", "grid", "1", "--bpm", "120", "--start", "5"], status: 64,
      message: "is past the end of the audio (0:02.0)")
    try expectFailure(
      ["beats", "shift", "1", "--by", "nan"], status: 64,
      message: "--by nan: must be seconds, like 0.02 or -0.15, or milliseconds, like 20ms")
    try expectFailure(
      ["beats", "shift", "1", "--by", "-0.1"], status: 64,
      message: "moves 1 beat outside the audio")
    try expectFailure(
      ["beats", "meter", "1", "--meter", "3/4", "--from-bar", "9"], status: 64,
      message: "--from-bar 9 is not in this song; it has bar 1")
    try expectFailure(
      ["beats", "meter", "1", "--meter", "3/4", "--from-bar", "1", "--bar1", "2"], status: 64,
      message: "cannot be combined")
    let times = dir.file("t.txt")
    try "0.1\n0.2\n".write(toFile: times, atomically: true, encoding: .utf8)
    try expectFailure(
      ["beats", "import", "1", times, "--bar1", "5"], status: 64,
      message: "--bar1 5 is past the 2 beats")
    try expectFailure(
      ["beats", "export", "1", "--format", "xml"], status: 64,
      message: "--format xml: cannot be exported; use times, mirex, audacity, csv or json")
    // Each kind of value has one parser, whose message names the option and the value.
    for (arguments, message) in [
      (["import", "1", times, "--format", "midi"], "--format midi: not one of auto, times,"),
      (["shift", "1", "--by", "4000"], "--by 4000: must be less than an hour"),
      (["grid", "1", "--bpm", "120", "--bar1", "0"], "--bar1 0: must be a whole number of beats"),
      (["meter", "1", "--meter", "3/4", "--from-bar", "x"], "--from-bar x: must be a whole number"),
      (["downbeat", "1", "--bar", "9.x"], "--bar 9.x: not a beat; write bar.beat"),
      (["downbeat", "1", "--at", "-3"], "--at -3: before the start"),
      (["double", "1", "--bars", "9-x"], "--bars 9-x: not a bar range"),
      (["detect", "1", "--meter", "5/5"], "--meter 5/5: not a meter"),
      (["detect", "1", "--max-bpm", "401"], "--max-bpm 401: must be 20-400 beats per minute"),
    ] {
      try expectFailure(["beats"] + arguments, status: 64, message: message)
    }
    #expect(try cli.run(["beats", "export", "1"]).stdout == before, "the beat map is as it was")
  }

  /// A time before the start is read as a time wherever a time is asked for, and refused
  /// in one words (`select add --from -1` once said `Missing value for '--from <time>'`).
  @Test func aNegativeTimeIsATimeBeforeTheStart() throws {
    try withBeatsAndSelections()
    for arguments in [
      ["select", "add", "1", "c", "--from", "-1"], ["select", "add", "1", "c", "--to", "-0.5"],
      ["select", "edit", "1", "a", "--from", "-1", "--to", "1"],
      ["beats", "grid", "1", "--bpm", "120", "--start", "-1"],
      ["view", "1", "--from", "-1"], ["render", "1", "--from", "-1", "-o", dir.file("x.wav")],
      ["beats", "tap", "1", "--from", "-1"],
    ] {
      let option = arguments[arguments.firstIndex { $0.hasPrefix("--") && $0 != "--bpm" }!]
      let value = arguments[arguments.firstIndex(of: option)! + 1]
      _ = try expectFailure(
        arguments, status: 64,
        message: "\(option) \(value): before the start; times run from 0 to 1000:00:00")
    }
  }

  @Test func badClickAndCountInOptions() throws {
    try withBeatsAndSelections()
    let song = ["play", "1", "--device", "null"]
    try expectFailure(
      song + ["--count-in", "17"], status: 64,
      message: "--count-in 17: out of range; use 0 to 16 bars")
    try expectFailure(
      song + ["--click-volume", "300%"], status: 64,
      message: "--click-volume 300%: must be 0% to 200%")
    try expectFailure(
      ["render", "1", "--click", "--speed", "0.1", "-o", dir.file("x.wav")], status: 64,
      message: "--speed 0.1: must be 25% to 200%")
  }
}
