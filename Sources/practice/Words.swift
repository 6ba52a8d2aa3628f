import PracticeCore

/// The core's failures in the CLI's words: what was wrong, said with the option the player
/// types (the core names no option; STYLE 17).
func worded(_ failure: any PracticeFailure) -> String {
  switch failure {
  case let error as RangeError: return worded(error)
  case let error as BeatMapEditError: return worded(error)
  case let problem as SettingsProblem: return worded(problem)
  case let error as AudioPathError: return worded(error)
  case let error as PracticeError:
    guard let remedy = error.remedy else { return error.message }
    return error.message + "; " + worded(remedy)
  default: return failure.description
  }
}

/// A path that is not an audio file, said the same way by every command that reads one.
func worded(_ error: AudioPathError) -> String {
  switch error {
  case .noSuchFile(let path): return "no such file '\(path)'; check the path"
  case .folder(let path):
    return "'\(path)' is a folder, not an audio file; give a file, a song id or a title "
      + "(`practice add` adds a folder's songs)"
  }
}

/// Why `--key TARGET` cannot be a transposition of `song` (a usage error, 64): it has no key,
/// or its mode differs.
func worded(_ error: KeyChangeError, key target: MusicalKey, song: Song) -> String {
  switch error {
  case .songHasNoKey:
    return "--key \(target): '\(song.title)' has no key to transpose from; set it with "
      + "`practice set \(song.id ?? 0) --key KEY` or find it with `practice chords detect "
      + "\(song.id ?? 0)`, or give --transpose"
  case .modesDiffer(let own):
    return "--key \(target): '\(song.title)' is in \(own), and "
      + "\(own.minor ? "a minor" : "a major") song moves to "
      + "\(own.minor ? "a minor" : "a major") key; give --transpose instead"
  }
}

/// Why detection or tapping would not overwrite what the song has, with the option that
/// lets it; `made` is what would replace it ("detected beats", "tapped beats", "detected
/// ones" for chords).
func worded(_ refusal: DetectionRefusal, replacingWith made: String) -> String {
  switch refusal {
  case .beatsMadeByHand(let song, let beats):
    return "'\(song.title)' has \(describeKind(of: beats)); add --replace to overwrite it "
      + "with \(made)"
  case .chordsImported(let song):
    return "'\(song.title)' has imported chords; add --replace to overwrite them with \(made)"
  }
}

/// "an imported beat map", "a beat map made with `beats grid`"…
func describeKind(of beats: [Beat]) -> String {
  switch beats[0].source {
  case .detected: return "an edited detected beat map"
  case .imported: return "an imported beat map"
  case .grid: return "a beat map made with `beats grid`"
  case .tapped: return "a tapped beat map"
  }
}

/// A range's failure as `--bars`, `--from`/`--to` or `--at` would have asked for it.
func worded(_ error: RangeError) -> String {
  switch error {
  case .barNotInSong(let bar, let range, let bars):
    return "--bars \(range): bar \(bar) is not in this song; it has \(bars)"
  case .beatNotInBar(let bar, let beats, let range):
    return "--bars \(range): bar \(bar) has beats \(beats.lowerBound)-\(beats.upperBound)"
  case .endsBeforeStart(let range):
    return "--bars \(range) ends before it starts; write the earlier bar first"
  case .startPastEnd(let start, let duration):
    return "--from \(formatTime(start)) is at or past the end of the audio "
      + "(\(formatTime(duration))); pick a time before it"
  case .endPastEnd(let end, let duration):
    return "--to \(formatTime(end)) is past the end of the audio "
      + "(\(RangeError.audioEnd(end: end, duration: duration))); pick a time up to it"
  case .startNotBeforeEnd(let start, let end):
    return "--from \(formatTime(start)) is not before --to \(formatTime(end)); "
      + "the range must be at least one frame long"
  case .positionFromOne(let position): return "--at \(position): positions count from 1"
  }
}

func worded(_ error: BeatMapEditError) -> String {
  switch error {
  case .firstDownbeatPastBeats(let bar1, let beats):
    return "--bar1 \(bar1) is past the \(beats) beats; pick 1-\(beats)"
  case .pickupLongerThanBar(let bar1, let meter):
    return "--bar1 \(bar1) leaves a pickup longer than a bar of \(meter); pick 1-\(meter.beats + 1)"
  case .barNotInSong(let bar, let bars):
    return "--from-bar \(bar) is not in this song; it has \(bars)"
  }
}

func worded(_ problem: SettingsProblem) -> String {
  switch problem {
  case .stepWithoutTarget:
    return "--step needs --ramp-to: --speed 70% --ramp-to 100% --step 5%"
  case .stepAwayFromTarget(let step, let target, let from):
    return "--step \(PracticeSettings.formatStep(step)) moves away from --ramp-to \(target) "
      + "(from \(from)); use a \(step > 0 ? "negative" : "positive") step"
  }
}

/// A filter's problem as `--eq`, `--band` or `--centre-cut` was written.
func worded(_ problem: PartFilter.Problem) -> String {
  switch problem {
  case .eqNotThreeGains(let eq):
    return "--eq '\(eq)' is not three gains; write LOW:MID:HIGH in dB, e.g. 6:0:-3"
  case .eqGainOutOfRange(let eq, let gain):
    // The gain as the user wrote it, without a trailing `.0`.
    return "--eq \(eq): \(String(format: "%g", gain)) dB is out of range; use -24 to 12 dB per band"
  case .notABand(let band):
    return "--band '\(band)' is not a band; write LOW-HIGH in Hz with LOW below HIGH, e.g. 80-400"
  case .bandOutOfRange(let band):
    return "--band \(band) is out of range; use edges from 20 to 20000 Hz"
  case .notAnAmount(let amount):
    return "--centre-cut '\(amount)' is not an amount; write 0% to 100% (default 100%)"
  case .amountOutOfRange(let amount):
    return "--centre-cut \(amount) is out of range; use 0% to 100%"
  }
}

func worded(_ remedy: Remedy) -> String {
  switch remedy {
  case .replaceOrRename: return "use --replace to overwrite it or pick another name"
  case .importPartially: return "or import the rest with --partial (nothing was imported)"
  case .anotherLibrary: return "pass another --db"
  case .writableLibrary: return "pass a writable path with --db or PRACTICE_DB"
  case .nameTheLibrary: return "give a file with --db or PRACTICE_DB"
  case .fasterStretcher: return "use --quality faster"
  }
}

/// `--speed 70% --ramp-to 100% …`: practice settings as the options that give them, in
/// the order `select set` takes them.
func options(of settings: PracticeSettings) -> [String] {
  var words: [String] = []
  switch settings.passes {
  case .count(let n)?: words += ["--repeat", "\(n)"]
  case .endless?: words.append("--loop")
  case nil: break
  }
  if let speed = settings.speed { words += ["--speed", "\(speed)"] }
  if let rampTo = settings.rampTo { words += ["--ramp-to", "\(rampTo)"] }
  if let step = settings.step { words += ["--step", PracticeSettings.formatStep(step)] }
  if let every = settings.every { words += ["--every", "\(every)"] }
  if let countIn = settings.countIn { words += ["--count-in", "\(countIn)"] }
  if let click = settings.click { words.append(click ? "--click" : "--no-click") }
  if let gap = settings.gap { words += ["--gap", gap] }
  if let transpose = settings.transpose {
    words += ["--transpose", PracticeSettings.formatSemitones(transpose)]
  }
  if let volume = settings.volume { words += ["--volume", "\(volume)"] }
  return words
}

/// What to do when the playback device cannot be opened, with the options that pick one.
let playbackDeviceAdvice =
  "check the name with `aplay -L`, or pick another with --device or PRACTICE_DEVICE"

/// An analysis warning with the options that act on it: the core says "other tempo
/// limits" and "the meter given" where the CLI has --min-bpm/--max-bpm and --meter.
func worded(warning: String) -> String {
  warning.replacingOccurrences(of: BeatDetector.tempoLimitsWords, with: "--min-bpm or --max-bpm")
    .replacingOccurrences(of: "or give the meter", with: "or give --meter")
    .replacingOccurrences(of: TappedBeats.meterWords, with: "--meter")
}

/// "1 entry", "3 entries": a setlist's or a repository's entries counted.
func entryCount(_ count: Int) -> String { count == 1 ? "1 entry" : "\(count) entries" }
