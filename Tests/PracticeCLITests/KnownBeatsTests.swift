import Foundation
import Testing
import TestSupport

/// A synthetic song with known beats, and beat files for it in every import format.
struct KnownSong: Sendable, CustomStringConvertible {
  let name: String
  /// (time in seconds, bar, beat in bar) of every beat.
  let beats: [(time: Double, bar: Int, beat: Int)]
  /// Constant meter (for formats without bar information), nil when the meter changes.
  let meter: Int?
  let seconds: Double
  static let rate = 44100

  var description: String { name }

  /// Builds beats from per-bar beat counts and a beat-interval function.
  init(_ name: String, bars: [Int], pickup: Int = 0, meter: Int?, start: Double = 0.25, interval: (Int) -> Double) {
    self.name = name
    self.meter = meter
    var list: [(Double, Int, Int)] = []
    var time = start
    var k = 0
    let full = bars.first ?? 4
    for p in 0..<pickup {
      list.append((time, 0, full - pickup + p + 1))
      time += interval(k)
      k += 1
    }
    for (index, count) in bars.enumerated() {
      for b in 1...count {
        list.append((time, index + 1, b))
        time += interval(k)
        k += 1
      }
    }
    beats = list
    seconds = time + 0.5
  }

  static let all: [KnownSong] = [
    KnownSong("steady-4-4-pickup", bars: [4, 4, 4, 4, 4], pickup: 1, meter: 4) { _ in 0.6 },
    KnownSong("waltz-3-4", bars: Array(repeating: 3, count: 6), meter: 3) { _ in 0.4 },
    KnownSong("jig-6-8", bars: Array(repeating: 6, count: 4), meter: 6) { _ in 0.25 },
    KnownSong("ritardando", bars: [4, 4, 4, 4], meter: 4) { k in 0.5 + 0.02 * Double(k) },
    KnownSong("meter-change", bars: [4, 4, 3, 3, 5], meter: nil) { _ in 0.45 },
  ]

  func frame(_ time: Double) -> Int64 { Int64((time * Double(KnownSong.rate)).rounded()) }

  /// Clicks on every beat (accented downbeats), mono.
  func audio() -> [Float] {
    var samples = [Float](repeating: 0, count: Int(seconds * Double(KnownSong.rate)))
    for beat in beats {
      let start = Int(frame(beat.time))
      let pitch = beat.beat == 1 ? 1500.0 : 1000.0
      for i in 0..<min(441, samples.count - start) {
        samples[start + i] = Float(0.6 * exp(-Double(i) / 90) * sin(2 * .pi * pitch * Double(i) / 44100))
      }
    }
    return samples
  }

  func t(_ time: Double) -> String { String(format: "%.6f", time) }

  /// The file text in `format`, and the extra import arguments it needs; nil when the
  /// format cannot describe this song (times and xml carry no bars: a meter change
  /// cannot be said with --meter).
  func beatFile(_ format: String) -> (text: String, arguments: [String])? {
    let pickup = beats.filter { $0.bar == 0 }.count
    let placing = meter.map { ["--meter", "\($0)/4", "--bar1", "\(pickup + 1)"] }
    switch format {
    case "times":
      guard let placing else { return nil }
      return ("# \(name)\n" + beats.map { t($0.time) + "\n" }.joined(), placing)
    case "xml":
      guard let placing else { return nil }
      return ("<metadata><beats>" + beats.map { "<beat>\(t($0.time))</beat>" }.joined() + "</beats></metadata>\n", placing)
    case "mirex":
      return (beats.map { "\(t($0.time))\t\($0.beat)\n" }.joined(), [])
    case "audacity":
      return (beats.map { "\(t($0.time))\t\(t($0.time))\t\($0.bar).\($0.beat)\n" }.joined(), [])
    case "csv":
      return (beats.map { "\(t($0.time)),\($0.bar).\($0.beat)\n" }.joined(), [])
    case "json":
      let items = beats.map { "{\"time\":\(t($0.time)),\"frame\":\(frame($0.time)),\"bar\":\($0.bar),\"beat\":\($0.beat)}" }
      return ("{\"sample_rate\":\(KnownSong.rate),\"beats\":[" + items.joined(separator: ",\n") + "]}\n", [])
    case "xsc":
      // Transcribe! text layout: measures (M) on downbeats, beats (B) elsewhere.
      let markers = beats.map { beat -> String in
        let kind = beat.beat == 1 ? "M" : "B"
        let label = beat.beat == 1 ? "\(beat.bar)" : ""
        let h = Int(beat.time) / 3600, m = (Int(beat.time) / 60) % 60
        let s = beat.time - Double(h * 3600 + m * 60)
        return "\(kind),\(frame(beat.time)),0,\(label),0,\(h):\(String(format: "%02d", m)):\(String(format: "%06.3f", s))"
      }
      let frames = Int(seconds * Double(KnownSong.rate))
      let text = """
        Transcribe!,Linux,9,20,0,S,2

        SectionStart,Main
        SoundFileInfo,Wave Audio Data File WAV (Microsoft),16 bit PCM,1,\(frames * 2),\(KnownSong.rate),\(frames),\(seconds)
        SectionEnd,Main

        SectionStart,Markers
        Howmany,\(markers.count)
        \(markers.joined(separator: "\n"))
        SectionEnd,Markers

        SectionStart,Loops
        Howmany,0
        SectionEnd,Loops

        """
      return (text, [])
    default:
      return nil
    }
  }
}

@Suite struct KnownBeatsTests {
  static let formats = ["times", "mirex", "audacity", "csv", "xml", "json", "xsc"]

  @Test(arguments: KnownSong.all)
  func everyFormatGivesTheKnownBarsToTheFrame(song: KnownSong) throws {
    let dir = TemporaryDirectory()
    let cli = CLI(database: dir.file("lib.sqlite"))
    let audio = dir.file("\(song.name).wav")
    try Synth.write(song.audio(), to: audio)
    _ = try cli.run(["add", audio])
    let expected = song.beats.map { [song.frame($0.time), Int64($0.bar), Int64($0.beat)] }
    var imported = 0
    for format in KnownBeatsTests.formats {
      guard let (text, arguments) = song.beatFile(format) else { continue }
      let file = dir.file("beats.\(format == "audacity" ? "txt" : format)")
      try text.write(toFile: file, atomically: true, encoding: .utf8)
      let result = try cli.run(["beats", "import", "1", file, "--format", format] + arguments)
      #expect(result.status == 0, "\(song) \(format): \(result.stderr)")
      // Auto-detection picks the same format for all but the ambiguous text formats.
      if ["json", "xml", "xsc", "csv"].contains(format) {
        #expect(try cli.run(["beats", "import", "1", file] + arguments).status == 0, "\(song) auto \(format)")
      }
      let json = try cli.run(["beats", "export", "1", "--format", "json"]).stdout
      let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
      let beats = try #require(object["beats"] as? [[String: Any]])
      let got = beats.map { [($0["frame"] as? NSNumber)?.int64Value ?? -1, ($0["bar"] as? NSNumber)?.int64Value ?? -1, ($0["beat"] as? NSNumber)?.int64Value ?? -1] }
      #expect(got == expected, "\(song) \(format): beats differ")
      imported += 1
    }
    #expect(imported >= 5)

    // render --bars A-B is exactly the frames from the downbeat of A to the downbeat after B.
    let downbeat = { (bar: Int) in song.frame(song.beats.first { $0.bar == bar && $0.beat == 1 }!.time) }
    let result = try cli.run(["render", "1", "--bars", "2-3", "-o", dir.file("bars.wav")])
    #expect(result.status == 0, "\(result.stderr)")
    let (_, rendered) = try Synth.read(dir.file("bars.wav"))
    #expect(Int64(rendered.count) == downbeat(4) - downbeat(2), "\(song)")
    let (_, source) = try Synth.read(audio)
    let same = rendered == Array(source[Int(downbeat(2))..<Int(downbeat(4))])
    #expect(same, "\(song): the bars are not the source's frames")
  }
}
