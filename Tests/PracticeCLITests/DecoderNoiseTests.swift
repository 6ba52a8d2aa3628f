import Foundation
import TestSupport
import Testing

/// Damaged MP3s and M4As, made at test time by the `ffmpeg` command from a synthetic sine and
/// then cut or overwritten: neither libmpg123 (inside libsndfile) nor FFmpeg may write its own
/// notes to stderr, and a file that cannot be decoded is one line that says so.
@Suite struct DecoderNoiseTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }

  /// A 3-second stereo MP3 of a sine (LAME, with the ID3v2 tag and Xing header ffmpeg writes).
  func mp3(_ name: String) throws -> String {
    try encoded(name, ["-c:a", "libmp3lame", "-b:a", "128k"])
  }

  /// `name` encoded by ffmpeg with `codec` from a 3-second stereo sine, titled "Sine".
  func encoded(_ name: String, _ codec: [String]) throws -> String {
    let wav = dir.file(name + ".wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 3, channels: 2), to: wav, channels: 2)
    let path = dir.file(name)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments =
      ["-v", "error", "-nostdin", "-y", "-i", wav] + codec + ["-metadata", "title=Sine", path]
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    return path
  }

  func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  func write(_ bytes: [UInt8], _ path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  /// Where the audio starts: after the ID3v2 tag ffmpeg wrote.
  func audioStart(_ bytes: [UInt8]) throws -> Int {
    try #require(Array(bytes[0..<3]) == Array("ID3".utf8))
    let size = bytes[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
    return 10 + size
  }

  /// Deterministic noise bytes.
  func noise(_ count: Int, seed: UInt64) -> [UInt8] {
    var random = SeededRandom(seed: seed)
    return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
  }

  /// No line of libmpg123's own (`Note:`, `Warning:`, `[src/libmpg123/…] error:`).
  func expectNoLibraryNoise(_ stderr: String, sourceLocation: SourceLocation = #_sourceLocation) {
    for line in stderr.split(separator: "\n") {
      #expect(
        line.hasPrefix("practice: ") || line.hasPrefix("rendered "),
        "a line not from practice: \(line)", sourceLocation: sourceLocation)
    }
  }

  @Test func anMP3WhoseFramesAreGoneIsOneLineSayingSo() throws {
    let good = try bytes(try mp3("good.mp3"))
    let start = try audioStart(good)
    let zeroed = dir.file("zeroed.mp3")
    try write(Array(good[0..<start]) + [UInt8](repeating: 0, count: good.count - start), zeroed)
    let scrambled = dir.file("scrambled.mp3")
    try write(Array(good[0..<start]) + noise(good.count - start, seed: 22), scrambled)
    let before = try cli.snapshot()
    for path in [zeroed, scrambled] {
      for arguments in [["add", path], ["render", path, "-o", dir.file("out.wav")]] {
        let result = try cli.run(arguments)
        #expect(result.status == 65, "\(arguments): \(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
        #expect(
          result.stderr.hasPrefix("practice: cannot read audio from '\(path)': not a readable MP3 stream"),
          "\(result.stderr)")
        #expect(!result.stderr.contains("does not exist"))
        #expect(result.stdout.isEmpty)
      }
    }
    #expect(try cli.snapshot() == before)
    #expect(!FileManager.default.fileExists(atPath: dir.file("out.wav")))
  }

  @Test func aTruncatedMP3IsAddedWithoutTheDecodersNotes() throws {
    let good = try bytes(try mp3("whole.mp3"))
    let cut = dir.file("cut.mp3")
    // The Xing header still counts 3 s: libmpg123 warns "stream size off by more than 1%".
    try write(Array(good[0..<(try audioStart(good) + 3000)]), cut)
    let result = try cli.run(["add", cut])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == "1\tSine\n")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
  }

  @Test func anMP3DamagedInsideIsRenderedWithoutTheDecodersNotes() throws {
    var damaged = try bytes(try mp3("damaged.mp3"))
    let start = try audioStart(damaged)
    // Overwrite a byte in every 97 from a quarter in: headers and side data break.
    let junk = noise(damaged.count, seed: 7)
    for i in stride(from: start + damaged.count / 4, to: damaged.count, by: 97) {
      damaged[i] = junk[i]
    }
    let path = dir.file("inside.mp3")
    try write(damaged, path)
    let added = try cli.run(["add", path])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stderr.isEmpty, "\(added.stderr)")
    // What decodes is rendered; its audio ends before the header's length: one line, 65.
    let rendered = try cli.run(["render", path, "-o", dir.file("inside.wav")])
    #expect(rendered.status == 65, "\(rendered.stderr)")
    expectNoLibraryNoise(rendered.stderr)
    #expect(rendered.stderrLines.count == 1, "\(rendered.stderr)")
    #expect(rendered.stderr.contains("the audio ends at"), "\(rendered.stderr)")
  }

  @Test func aFolderWithADamagedMP3AddsTheRestWithOneLineForIt() throws {
    let folder = dir.file("album")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let good = try bytes(try mp3("album/1 good.mp3"))
    let start = try audioStart(good)
    try write(
      Array(good[0..<start]) + [UInt8](repeating: 0, count: 5000), folder + "/2 broken.mp3")
    try Synth.write(Synth.sine(frequency: 330, seconds: 0.5), to: folder + "/3 wave.wav")
    try FileManager.default.removeItem(atPath: folder + "/1 good.mp3.wav")
    let result = try cli.run(["add", folder])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stdout == "1\tSine\n2\t3 wave\n")
    #expect(result.stderrLines.count == 2, "\(result.stderr)")
    #expect(result.stderrLines.first?.contains("2 broken.mp3': not a readable MP3 stream") == true)
    #expect(result.stderrLines.last == "practice: added 2, refused 1 file (see above)")
  }

  @Test func damagedM4AsAreTalkedAboutOnlyByPractice() throws {
    // The moov atom first, so a cut or damaged mdat still opens.
    let whole = try bytes(try encoded("whole.m4a", ["-c:a", "aac", "-movflags", "+faststart"]))
    let mdat = try #require(
      (0..<(whole.count - 4)).first { Array(whole[$0..<($0 + 4)]) == Array("mdat".utf8) })
    var damaged = whole
    let junk = noise(whole.count, seed: 3)
    for i in stride(from: mdat + 2000, to: whole.count, by: 61) { damaged[i] = junk[i] }
    let paths = [dir.file("damaged.m4a"), dir.file("cut.m4a")]
    try write(damaged, paths[0])
    try write(Array(whole[0..<(mdat + 6000)]), paths[1])
    for path in paths {
      let rendered = try cli.run(["render", path, "-o", path + ".wav"])
      #expect(rendered.status == 65, "\(rendered.stderr)")
      expectNoLibraryNoise(rendered.stderr)
      // One line: where the audio ended, against the length the file declares.
      #expect(rendered.stderrLines.count == 1, "\(rendered.stderr)")
      #expect(rendered.stderr.contains("the audio ends at"), "\(rendered.stderr)")
    }
    // Without its moov atom (cut before it), it is one line and exit 65.
    let headless = dir.file("headless.m4a")
    try write(Array(whole[(mdat - 8)...]), headless)
    let refused = try cli.run(["add", headless])
    #expect(refused.status == 65, "\(refused.stderr)")
    #expect(refused.stderrLines.count == 1, "\(refused.stderr)")
    expectNoLibraryNoise(refused.stderr)
  }
}
