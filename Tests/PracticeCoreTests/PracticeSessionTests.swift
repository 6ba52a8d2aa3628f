import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// The core session as the CLI drives it: opened on a device by name, run without keys
/// (passes announced as values), its books kept on the ending; and a selection's drill
/// jump, on the engine.
@Suite struct PracticeSessionTests {
  let dir = TemporaryDirectory()

  func setUp(seconds: Double = 1) throws -> (Library, Song) {
    let library = try Library(path: dir.file("lib.sqlite"))
    let path = dir.file("song.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: seconds), to: path)
    return (library, try library.add([SongScanner.scan(path)])[0])
  }

  /// ALSA's null PCM: two passes announced with their speeds, a log row with both passes
  /// and no time heard (no audible clock), and where it stopped remembered as finished.
  @Test func aPlayOnTheNullDeviceAnnouncesItsPassesAndKeepsItsBooks() throws {
    let (library, song) = try setUp()
    var request = PlayRequest(settings: .none)
    request.settings.passes = .count(2)
    request.settings.speed = Speed(clamping: 0.8)
    let session = try PracticeSession.open(
      song: song, library: library, request: request, device: "null", latency: .relaxed,
      deviceAdvice: "-"
    ) { _ in throw PracticeError(.missingInput, "no map") }
    #expect(!session.audibleClock && !session.live)
    #expect(session.statusText(width: 200) == "starting…")
    var starts: [PracticeSession.PassStart] = []
    let report = try session.run(waiting: .milliseconds(5), passStarted: { starts.append($0) })
    #expect(report.passesCompleted == 2 && !report.interrupted)
    #expect(starts.map(\.pass) == [1, 2] && starts.allSatisfy { $0.passes == 2 })
    #expect(starts.allSatisfy { $0.speed == Speed(clamping: 0.8) && $0.bar == nil && $0.time == 0 })

    let books = session.keepBooks(.completed, report: report)
    #expect(books.finished && books.notLogged == nil && books.notRemembered == nil)
    #expect(books.point?.finished == true && books.point?.frame == song.frames)
    let rows = try library.practiceLog(of: song, since: nil)
    #expect(rows.count == 1)
    #expect(rows.first?.passes == 2 && rows.first?.outcome == .completed)
    #expect(rows.first?.duration == 0, "no audible clock: no time heard")
    #expect(try library.resumePoint(of: song)?.finished == true)
  }

  /// `--resume` layers the remembered play under the request: without a part, its loop
  /// from where it stopped with the passes left (before the selection's own count); with a
  /// part, the part replaces the loop, and the speed and transpose remembered still hold.
  @Test func aResumeKeepsItsLoopUnlessAPartIsAskedFor() throws {
    let (library, song) = try setUp(seconds: 2)
    let riff = try library.addSelection(
      to: song, name: "riff", span: .frames(22050..<44100), note: nil, replace: false)
    try library.setPractice(
      SelectionPractice(settings: PracticeSettings(passes: .count(5))), of: riff)
    let builder = PlanBuilder(library: library, song: song, info: try song.openAudio().info) { _ in
      throw PracticeError(.missingInput, "no map")
    }
    var request = PlayRequest()
    request.resume = ResumePoint(
      songID: try #require(song.id), frame: 30_000, range: 22050..<44100, label: nil, bars: nil,
      selectionName: "riff", passesLeft: 3, speed: Speed(clamping: 0.8), transpose: -2,
      volume: .unity, finished: false, stoppedAt: Date())
    let resumed = try builder.build(request).plan
    #expect(resumed.range == 22050..<44100 && resumed.startOffset == 7950)
    #expect(resumed.passes == .count(3))
    #expect(resumed.speed == Speed(clamping: 0.8) && resumed.transpose == -2)
    request.part = .times(from: 1, to: 1.5)
    let moved = try builder.build(request).plan
    #expect(moved.range == 44100..<66150 && moved.startOffset == 0)
    #expect(moved.passes == .count(1))
    #expect(moved.speed == Speed(clamping: 0.8) && moved.transpose == -2)
  }

  /// A speed given past the selection's trainer target plays without the trainer; a step
  /// given with it asks for the trainer, and a step away from the target is refused.
  @Test func aSpeedPastTheTargetDropsTheTrainerUnlessAStepIsGiven() throws {
    let (library, song) = try setUp(seconds: 2)
    let riff = try library.addSelection(
      to: song, name: "riff", span: .frames(22050..<44100), note: nil, replace: false)
    let ladder = PracticeSettings(
      speed: Speed(clamping: 0.7), rampTo: Speed(clamping: 0.9), step: 0.05)
    try library.setPractice(SelectionPractice(settings: ladder), of: riff)
    let builder = PlanBuilder(library: library, song: song, info: try song.openAudio().info) { _ in
      throw PracticeError(.missingInput, "no map")
    }
    let fast = PlayRequest(
      part: .selection("riff"), settings: PracticeSettings(speed: Speed(clamping: 0.95)))
    let plan = try builder.build(fast).plan
    #expect(plan.ramp == nil && plan.speed == Speed(clamping: 0.95))
    let stepped = PlayRequest(
      part: .selection("riff"),
      settings: PracticeSettings(speed: Speed(clamping: 0.95), step: 0.05))
    #expect(throws: SettingsProblem.self) { try builder.build(stepped) }
  }

  /// A drill's books: the log keeps the trainer's slowest and fastest steps, and the resume
  /// point the speed reached; one stopped after a pass has the passes left.
  @Test func aDrillLogsAndRemembersTheSpeedItReached() throws {
    let (library, song) = try setUp(seconds: 0.5)
    var request = PlayRequest(settings: .none)
    request.settings.passes = .count(3)
    request.settings.speed = Speed(clamping: 0.7)
    request.settings.rampTo = Speed(clamping: 1)
    request.settings.step = 0.1
    let session = try PracticeSession.open(
      song: song, library: library, request: request, device: "null", latency: .relaxed,
      deviceAdvice: "-"
    ) { _ in throw PracticeError(.missingInput, "no map") }
    #expect(session.resumePoint(completed: 1, finished: false, live: false)?.passesLeft == 2)
    let report = try session.run(waiting: .milliseconds(5), passStarted: { _ in })
    #expect(report.passesCompleted == 3 && !report.interrupted)
    let books = session.keepBooks(.completed, report: report)
    #expect(books.point?.speed == Speed(clamping: 0.9))
    let rows = try library.practiceLog(of: song, since: nil)
    #expect(rows.map(\.slowest) == [Speed(clamping: 0.7)])
    #expect(rows.map(\.fastest) == [Speed(clamping: 0.9)])
  }

  /// The loop's ends move by commands (`perform`) only while editing: the start by a tenth
  /// of a second (no beat map), the end after `switchEditedEdge`; a move that would reverse
  /// the loop is refused and changes nothing.
  @Test func theLoopsEndsMoveByCommandsOnlyWhileEditing() throws {
    let (library, song) = try setUp(seconds: 3)
    var request = PlayRequest(part: .times(from: 1, to: 2))
    request.live = true
    let session = try PracticeSession.open(
      song: song, library: library, request: request, device: "null", latency: .keys,
      deviceAdvice: "-"
    ) { _ in throw PracticeError(.missingInput, "no map") }
    #expect(session.perform(.moveEditedEdge(by: 1, unit: .beat)) == .done)
    #expect(session.plan.range == 44100..<88200 && session.editing == nil)
    session.perform(.toggleEditing)
    #expect(session.editing == .start)
    #expect(session.perform(.moveEditedEdge(by: 1, unit: .beat)) == .done)
    #expect(session.plan.range == 48510..<88200 && session.loopChanged)
    session.perform(.switchEditedEdge)
    #expect(session.editing == .end)
    #expect(session.perform(.moveEditedEdge(by: -1, unit: .bar)) == .loopStartAfterEnd)
    #expect(session.perform(.moveEditedEdge(by: 1, unit: .bar)) == .done)
    #expect(session.plan.range == 48510..<132300)
    session.perform(.toggleEditing)
    #expect(session.editing == nil)
    #expect(session.perform(.toggleClick) == .noBeatMap)
  }

  /// A selection number outside the list (0 and below too, which no key sends) is refused
  /// with the count, not taken as an index.
  @Test func aSelectionNumberOutsideTheListIsRefused() throws {
    let (library, song) = try setUp(seconds: 3)
    var request = PlayRequest(part: .times(from: 1, to: 2))
    request.live = true
    let session = try PracticeSession.open(
      song: song, library: library, request: request, device: "null", latency: .keys,
      deviceAdvice: "-"
    ) { _ in throw PracticeError(.missingInput, "no map") }
    #expect(session.perform(.select(0)) == .noSelections)
    for (name, from) in [("a", 0), ("b", 1)] {
      _ = try library.addSelection(
        to: song, name: name, span: .frames(Int64(from * 44100)..<Int64(from * 44100 + 22050)),
        note: nil, replace: false)
    }
    for number in [0, -1, 3] {
      #expect(session.perform(.select(number)) == .onlySelections(2), "\(number)")
    }
    #expect(session.plan.range == 44100..<88200)
  }

  /// A device that will not open is the device's error, and nothing is logged.
  @Test func aDeviceThatWillNotOpenLogsNothing() throws {
    let (library, song) = try setUp()
    #expect(throws: (any Error).self) {
      try PracticeSession.open(
        song: song, library: library, request: PlayRequest(), device: "no-such-pcm-here",
        latency: .keys, deviceAdvice: "pick another"
      ) { _ in throw PracticeError(.missingInput, "no map") }
    }
    #expect(try library.practiceLog(of: song, since: nil).isEmpty)
  }

  /// A selection's drill jump (`JumpKind.drill`) lets the plan's speed rule again: after
  /// a speed set from the keys (80 %), the drill at 100 % plays the source exactly, where a
  /// seek would have kept the 80 %.
  @Test func aDrillJumpTakesThePlansSpeedOverTheKeys() throws {
    let samples = (0..<60000).map { Float(Int16(truncatingIfNeeded: $0 &* 1 &- 32768)) / 32768 }
    let path = dir.file("counting.wav")
    try Synth.write(samples, to: path)
    let fade = Int(44100 * PlaybackEngine.fadeMilliseconds / 1000)
    for kind in [JumpKind.drill, .seek] {
      var drill = PlaybackPlan(range: 30000..<40000, passes: .count(1), volume: .unity, sampleRate: 44100)
      drill.seamFrames = 0
      let sink = ScriptedSink()
      let engine = try PlaybackEngine(
        file: try SoundFile(path: path),
        plan: PlaybackPlan(range: 0..<60000, passes: .count(1), volume: .unity, sampleRate: 44100),
        sink: sink, live: true)
      sink.onWrite = { [unowned engine] written in
        if written == 1024 { engine.send(.setSpeed(Speed(clamping: 0.8))) }
        if written == 8192 { engine.jump(to: drill, kind: kind) }
      }
      _ = try engine.run()
      let tail = Array(sink.samples.suffix(10000 - 2 * fade))
      let exact = tail == Array(samples[(30000 + 2 * fade)..<40000])
      #expect(exact == (kind == .drill), "\(kind)")
    }
  }
}
