import Foundation
import PracticeCore

/// `tune` and `tone` at a terminal: the keys they read (q or Esc stops, Ctrl-C stops with
/// exit 130) and the one status line they redraw on stderr, until the end, a key or a signal.
public enum TunerScreen {
  /// Listens through `tuner` (started here) until q, Esc, Ctrl-C, SIGINT or SIGTERM,
  /// `duration` seconds of audio, or a reader of stdout that went away: with `json` a line
  /// per reading on stdout, with `status` the readout (notes from `a4`) redrawn on stderr,
  /// with `keys` keys read from stdin. Stops the tuner and warns of audio the capture lost;
  /// true when interrupted.
  public static func listen(
    _ tuner: Tuner, a4: Double, duration: Double?, json: Bool, keys: Bool, status: Bool
  ) throws -> Bool {
    var line = StatusLine()
    defer { if status { line.clear() } }
    let stop = StopFlag()
    var interrupted = false
    var readout = TunerReadout(a4: a4, duration: duration)
    try KeyReader.withKeys(keys) { reader in
      try Session.withSignals(stop: { stop.set() }) { signalled in
        try tuner.start()
        while !stop.isSet {
          for key in KeyReader.keys(reader, waiting: 20, idle: 10) {
            switch key {
            case .char("q"), .escape: stop.set()
            case .interrupt:
              interrupted = true
              stop.set()
            default: break
            }
          }
          try tuner.poll { reading in
            // Past the duration, or a reader that went away (`| head`): over, like `q`.
            guard readout.take(reading),
              !json || write(TunerLine(reading, a4: readout.a4).jsonText + "\n")
            else {
              stop.set()
              return false
            }
            return !stop.isSet
          }
          if status, line.due() { line.show(readout.statusText) }
          if readout.isOver { stop.set() }
        }
        if signalled() { interrupted = true }
      }
    }
    tuner.stop()
    let lost = tuner.lostAudio
    if lost.overruns > 0 || lost.droppedFrames > 0 {
      Terminal.warning(
        "\(counted(lost.overruns, "overrun")), \(counted(lost.droppedFrames, "frame")) dropped: the capture fell behind and some audio was lost"
      )
    }
    return interrupted
  }

  /// Plays `player`'s notes (started here), `labels` naming them on the status line, until
  /// their end, q, Esc, Ctrl-C, SIGINT or SIGTERM; with `keys` space, Enter, → or n moves to
  /// the next note, ←, Backspace or p back. Warns of underruns; true when interrupted.
  public static func play(_ player: TonePlayer, labels: [String], keys: Bool, status: Bool)
    throws -> Bool
  {
    var line = StatusLine()
    defer { if status { line.clear() } }
    var interrupted = false
    try KeyReader.withKeys(keys) { reader in
      try Session.withSignals(stop: { player.stop() }) { signalled in
        player.start()
        while !player.waitForEnd(timeout: .milliseconds(0)) {
          for key in KeyReader.keys(reader, waiting: 50, idle: 50) {
            switch key {
            case .char(" "), .enter, .right, .char("n"): player.next()
            case .left, .backspace, .char("p"): player.previous()
            case .char("q"), .escape: player.stop()
            case .interrupt:
              interrupted = true
              player.stop()
            default: break
            }
          }
          if status, line.due() {
            let index = player.current.load(ordering: .relaxed)
            line.show("\(labels[index])  (\(index + 1)/\(labels.count))")
          }
        }
        if signalled() { interrupted = true }
        try player.wait()
      }
    }
    let underruns = player.underruns
    if underruns > 0 {
      Terminal.warning("\(counted(underruns, "underrun")): the audio device ran dry and recovered")
    }
    return interrupted
  }

  /// Writes `text` to stdout; false once the reader has gone (EPIPE; SIGPIPE is ignored
  /// while the tuner runs, so the terminal can be put back).
  static func write(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return Glibc.write(STDOUT_FILENO, base + done, buffer.count - done)
      }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return false }
      done += n
    }
    return true
  }
}
