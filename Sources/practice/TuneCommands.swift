import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

/// `--a4`: concert pitch in Hz, 400-480 (shared by `tune` and `tone`).
struct ConcertPitchOption: ParsableArguments {
  @Option(
    name: .customLong("a4"), parsing: .unconditional,
    help: ArgumentHelp("Concert pitch: the frequency of A4 in Hz, 400 to 480.", valueName: "hz"),
    transform: plainDecimal)
  var hertz: Double = 440

  func validate() throws {
    guard ConcertPitch(hertz: hertz) != nil else {
      throw ValidationError("--a4 \(formatHertz(hertz)) is out of range; use 400 to 480 Hz")
    }
  }
}

struct Tune: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tune",
    abstract:
      "Listen through an ALSA capture device and show the pitch: note, cents and frequency.",
    discussion: """
      At a terminal one line on stderr is redrawn in place: the nearest note with its \
      octave, the cents off it with a needle, and the frequency (`E2  -12 ¢  ───●──|─── \
      82.01 Hz`); `—` when nothing is pitched. q or Esc stops, Ctrl-C stops with exit \
      130; the terminal is put back as it was. The device is --device, else \
      $PRACTICE_CAPTURE, else 'default'. With --json, one object per reading (every \
      11.6 ms at 44.1 kHz) on stdout: {"t":1.253,"hz":82.013,"note":"E2","cents":-8.3,\
      "level":-23.5}: t is seconds of audio since the capture started, level the newest \
      11 ms in dBFS; when nothing is pitched (silence, noise) hz, note and cents are \
      null. It stops on SIGINT (exit 130) or SIGTERM (exit 143), after --duration or when the reader \
      of stdout goes away (exit 0), or when the device is lost (exit 69). Pitch is aubio's YIN, refined to within a cent on \
      steady tones from 41 to 1,400 Hz; a new note reads within about 60 ms (85 ms below \
      86 Hz) plus the device's own delay (a 10 ms period).
      """)

  @Option(
    help: ArgumentHelp(
      "ALSA PCM to capture from (default: $PRACTICE_CAPTURE, else 'default').", valueName: "pcm"))
  var device: String?
  @OptionGroup var a4: ConcertPitchOption
  @Flag(help: "One JSON object per reading on stdout, for scripts.") var json = false
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Stop after this many seconds of audio.", valueName: "seconds"),
    transform: {
      // The range checked on the text, so the refusal shows what was typed (`-0`, not -0.0).
      try plainDecimal($0, in: Double.leastNonzeroMagnitude...86400, "use seconds above 0 (at most 86400)")
    })
  var duration: Double?

  func run() throws {
    let name = DeviceChoice.capture.name(asked: device)
    signal(SIGPIPE, SIG_IGN)
    defer { signal(SIGPIPE, SIG_DFL) }
    let tuner = try Tuner(
      device: name,
      deviceAdvice: "check the name with `arecord -L`, or pick another with --device or PRACTICE_CAPTURE")
    defer { tuner.stop() }
    let keys = isatty(STDIN_FILENO) == 1
    let status = !json && isatty(STDERR_FILENO) == 1
    Terminal.say(
      "listening on '\(name)' at \(tuner.device.sampleRate) Hz, A4 = \(formatHertz(a4.hertz)) Hz"
        + (keys ? "; q stops" : ""))
    let interrupted = try TunerScreen.listen(
      tuner, a4: a4.hertz, duration: duration, json: json, keys: keys, status: status)
    if interrupted { throw ExitCode(ExitStatus.interrupted) }
  }
}

struct Tone: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tone",
    abstract: "Play reference tones: one note, or a string set one after another.",
    discussion: """
      Notes by name (A4, F#3, Bb2; A4 at --a4) or in hertz (440, 440Hz; 20 to 8000 Hz). \
      The tone is a sine with its second and third harmonics a quarter and a tenth as loud, \
      about -10 dBFS, faded in and out over 10 ms. With --duration each note sounds that \
      long, one after another. Without it, at a terminal, each note is a drone: space, \
      Enter or → moves to the next note, ← or Backspace back, q or Esc stops; with stdin \
      not a terminal each note sounds 2 s. Ctrl-C stops with exit 130. Plays through \
      --device, else $PRACTICE_DEVICE, else 'default', at 44.1 kHz.
      """)

  // Every word no option takes is a note: `-440` or `-1e300hz` is a frequency to refuse
  // (the parser read it as short flags: `-1e300hz` held `-h` and showed the help).
  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp("Notes or frequencies: A4, F#3, Bb2, 440, 440Hz.", valueName: "note"))
  var notes: [String]
  @OptionGroup var a4: ConcertPitchOption
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Seconds each note sounds (0.05 to 3600).", valueName: "seconds"),
    transform: { try plainDecimal($0, in: 0.05...3600, "use 0.05 to 3600 seconds") })
  var duration: Double?
  @OptionGroup var device: PlaybackDeviceOption

  func validate() throws {
    guard !notes.isEmpty else {
      throw ValidationError("give at least one note, such as A4, or a frequency, such as 440")
    }
    for note in notes {
      switch ToneProblem(note, a4: a4.hertz) {
      case nil: continue
      case .noteOutOfRange(let hertz):
        throw ValidationError(
          "'\(note)' is \(formatHertz(hertz)) Hz; tone plays 20 to 8000 Hz (E0 to B8 at A4 = 440)")
      case .aboveHighestNote:
        throw ValidationError(
          "'\(note)' is above G9, the highest note; tone plays 20 to 8000 Hz (E0 to B8 at A4 = 440)")
      case .notANote:
        throw ValidationError(
          "'\(note)' is not a note or a frequency; write a note such as A4, F#3 or Bb2, or hertz from 20 to 8000 such as 440 or 440Hz"
        )
      }
    }
  }

  func run() throws {
    let frequencies = notes.compactMap { parseToneFrequency($0, a4: a4.hertz) }
    let keys = isatty(STDIN_FILENO) == 1
    let status = isatty(STDERR_FILENO) == 1
    let name = device.name
    let seconds = duration ?? (keys ? nil : 2)
    let player = try TonePlayer(
      device: name, frequencies: frequencies, secondsEach: seconds, steered: keys,
      deviceAdvice: playbackDeviceAdvice)
    let labels = zip(notes, frequencies).map { toneLabel($0, hertz: $1) }
    let how = seconds.map { "\(formatHertz($0)) s each" } ?? "space next, ← back, q stops"
    Terminal.say("playing \(labels.joined(separator: ", ")) on '\(name)' (\(how))")
    let interrupted = try TunerScreen.play(player, labels: labels, keys: keys, status: status)
    if interrupted { throw ExitCode(ExitStatus.interrupted) }
  }
}

struct Tuning: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tuning",
    abstract: "Estimate a recording's concert pitch: the A4 its notes fit best.",
    discussion: """
      Prints `A4 = 436.2 Hz (-30 ¢)`: the A4 and its cents from 440, measured from the \
      frequencies of the recording's steady partials (a tuning a semitone or more away \
      looks like one in tune). On stderr, the --transpose that brings the recording to \
      A = 440 for playing along, or `in tune` when it is within the estimate's 3 cents \
      of uncertainty. A recording with no steady pitched notes (silence, \
      noise, drums) exits 65. --json prints {"a4":436.23,"cents":-30.1}.
      """)

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("File path, id or title.", valueName: "song")) var song: String
  @Flag(help: "Print a JSON object instead.") var json = false

  func run() throws {
    let song = try library.open().resolve(song)
    let file = try song.openAudio()
    let estimate = try ConcertPitchEstimator.estimate(file: file, name: song.path)
    if json {
      Terminal.json(ConcertPitchLine(a4: estimate.a4, cents: estimate.cents))
    } else {
      Terminal.data(
        "A4 = \(String(format: "%.1f", estimate.a4)) Hz (\(formatCents(estimate.cents)))\n")
    }
    guard let correction = ConcertPitch.correction(forCents: estimate.cents) else {
      let within = Int(ConcertPitch.estimateUncertainty)
      Terminal.say(
        "in tune with A4 = 440 Hz (within the estimate's ±\(within) ¢): play along as it is")
      return
    }
    Terminal.say(
      "to play along at A4 = 440 Hz: practice play … --transpose "
        + String(format: "%+.2f", correction))
  }
}
