import Foundation
import TestSupport
import Testing

/// Files as musicians have them: converted by the `ffmpeg` command at test time from a
/// synthetic source *through a lossy intermediate* (Ogg Vorbis, MP3), as real conversions
/// are, with the quirks real files have (timestamps with jitter, uneven packet durations,
/// moov at the end or the front, fragments). The reference is what `ffmpeg -i FILE -f wav`
/// decodes: `render` gives the same frames, within one packet in length and aligned to ±1
/// frame; a range is the same range of the whole render; a file cut short says where its
/// audio ended (one line, exit 65); damaged files never trap or hang.
@Suite struct ConvertedFileTests {
  let dir = TemporaryDirectory()
  var cli: CLI { CLI(database: dir.file("lib.sqlite")) }
  static let rate = 44100
  static let seconds = 6.0

  /// A stereo source no lag can fake: a rising sweep on the left, noise bursts on the right.
  static let source: [Float] = {
    let frames = Int(seconds * Double(rate))
    var samples = [Float](repeating: 0, count: frames * 2)
    var seed: UInt32 = 4242
    for i in 0..<frames {
      let t = Double(i) / Double(rate)
      samples[i * 2] = Float(0.4 * sin(2 * Double.pi * (150 * t + 300 * t * t)))
      seed = seed &* 1_103_515_245 &+ 12345
      let noise = Float(Int32(bitPattern: seed >> 1) % 20000) / 20000
      let inBurst = (i % (rate / 4)) < rate / 50
      samples[i * 2 + 1] = inBurst ? 0.3 * noise : Float(0.1 * sin(2 * Double.pi * 330 * t))
    }
    return samples
  }()

  /// Runs `ffmpeg -y ARGS OUT` (in the test's directory) and returns OUT's path.
  @discardableResult
  func ffmpeg(_ arguments: [String], _ output: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-v", "error", "-nostdin", "-y"] + arguments + [dir.file(output)]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "ffmpeg \(arguments) \(output) failed")
    return dir.file(output)
  }

  /// The lossy intermediate ("ogg" or "mp3") made from the synthetic source.
  func intermediate(_ kind: String) throws -> String {
    let wav = dir.file("source.wav")
    if !FileManager.default.fileExists(atPath: wav) {
      try Synth.write(ConvertedFileTests.source, to: wav, channels: 2)
    }
    let out = dir.file("source.\(kind)")
    if !FileManager.default.fileExists(atPath: out) {
      try ffmpeg(["-i", wav] + (kind == "ogg" ? ["-c:a", "libvorbis"] : ["-c:a", "libmp3lame"]),
        "source.\(kind)")
    }
    return out
  }

  /// A converted file, made as its `Case` says.
  struct Case: Sendable, CustomStringConvertible {
    let name: String
    /// "ogg" or "mp3": what it is converted from.
    let from: String
    let arguments: [String]
    /// The codec's packet, in frames: the length may differ from ffmpeg's by this much.
    let packet: Int
    /// Whether a range is bit-identical to the same range of the whole render (lossless).
    var exactRange = false
    /// A video track from lavfi's testsrc goes in first.
    var video = false
    /// Another input (a lavfi source) that goes in before the intermediate.
    var firstInput: [String] = []
    /// What is done to the file ffmpeg wrote, as people do to files.
    var then: Then = .nothing
    var description: String { name }
  }

  enum Then: Sendable {
    case nothing
    /// `cat a.mp3 a.mp3 > both.mp3`: the first Xing header's count covers half the file.
    case concatenatedWithItself
    /// A tagger's second ID3v2 tag (with padding) before the one ffmpeg wrote.
    case secondID3TagBefore
    /// The first audio page's packets moved onto the page the Vorbis headers end on, as
    /// some encoders wrote Ogg Vorbis (a released game soundtrack; ogginfo: "headers not
    /// correctly framed").
    case audioOnTheHeaderPage
  }

  static let cases: [Case] = [
    Case(name: "aac.m4a", from: "ogg", arguments: ["-c:a", "aac"], packet: 1024),
    Case(
      name: "faststart.m4a", from: "mp3", arguments: ["-c:a", "aac", "-movflags", "+faststart"],
      packet: 1024),
    Case(
      name: "fragmented.m4a", from: "ogg",
      arguments: ["-c:a", "aac", "-movflags", "frag_keyframe+empty_moov"], packet: 1024),
    Case(
      name: "uneven.m4a", from: "ogg",
      arguments: ["-c:a", "aac", "-bsf:a", "setts=ts=TS+if(eq(mod(N\\,3)\\,1)\\,3\\,0)"],
      packet: 1024),
    Case(name: "alac.m4a", from: "ogg", arguments: ["-c:a", "alac"], packet: 4096, exactRange: true),
    // Lossless formats whose demuxers seek only to an entry of their own index: a seek to
    // the start asked for one before the first, and the file was refused.
    Case(name: "song.wv", from: "ogg", arguments: [], packet: 0, exactRange: true),
    Case(name: "song.tta", from: "ogg", arguments: [], packet: 0, exactRange: true),
    Case(name: "opus.webm", from: "mp3", arguments: ["-c:a", "libopus"], packet: 960),
    // Ogg Opus as `ffmpeg -i song.ogg song.opus` writes it, and with the timestamp jitter a
    // conversion carries into its pages' granule positions (libsndfile dropped a packet
    // there and stopped reading).
    Case(name: "plain.opus", from: "ogg", arguments: [], packet: 960),
    // Ogg Vorbis with audio on its headers' page: libsndfile started a page later (the first
    // second of this file, 0.36 s of the soundtrack's).
    Case(
      name: "headerpage.ogg", from: "mp3", arguments: ["-c:a", "libvorbis"], packet: 0,
      then: .audioOnTheHeaderPage),
    Case(
      name: "uneven.opus", from: "ogg",
      arguments: ["-c:a", "libopus", "-bsf:a", "setts=ts=TS+if(eq(mod(N\\,3)\\,1)\\,3\\,0)"],
      packet: 960),
    Case(name: "jitter.mkv", from: "ogg", arguments: ["-c:a", "aac"], packet: 1024),
    // A start offset (`-output_ts_offset 1`, a stream cut from a longer one): Matroska's
    // durations and Ogg Opus's granule-based one are end times on the offset timeline, and
    // were taken for lengths (a second the audio "ended early": exit 65).
    Case(
      name: "offset.mka", from: "ogg", arguments: ["-c:a", "libvorbis", "-output_ts_offset", "1"],
      packet: 2048),
    Case(name: "offset.opus", from: "ogg", arguments: ["-output_ts_offset", "1"], packet: 960),
    Case(
      name: "video.mp4", from: "ogg",
      arguments: ["-map", "0:v", "-map", "1:a", "-c:v", "mpeg4", "-c:a", "aac", "-shortest"],
      packet: 1024, video: true),
    Case(name: "raw.aac", from: "mp3", arguments: ["-c:a", "aac", "-f", "adts"], packet: 1024),
    Case(name: "raw.ac3", from: "ogg", arguments: ["-c:a", "ac3"], packet: 1536),
    // VBR without a Xing header: its length can only be guessed from its first frame.
    Case(
      name: "noxing.mp3", from: "ogg",
      arguments: ["-c:a", "libmp3lame", "-q:a", "2", "-write_xing", "0"], packet: 1152),
    // WMA: its decoder holds the first packet back without saying so.
    Case(name: "song.wma", from: "ogg", arguments: [], packet: 2048),
    // Two MP3s joined by `cat` (as `lame` writes them, without ID3 tags): the first one's
    // Xing header counts only its own frames; ffmpeg (and mpg123, with a warning) see the
    // size does not match and read on.
    Case(
      name: "joined.mp3", from: "ogg", arguments: ["-c:a", "libmp3lame", "-id3v2_version", "0"],
      packet: 1152, then: .concatenatedWithItself),
    // The same with each MP3 as plain `ffmpeg -i x.wav x.mp3` writes it, ID3v2 tag first:
    // the second tag is demuxed as a packet (with the second file's Info frame) that does
    // not decode, as ffmpeg says ("Header missing"), yet its timestamp slot was counted in
    // the length (one packet more than decodes: a false "cut short") and in the placing
    // of every frame after it.
    Case(
      name: "tagged-joined.mp3", from: "ogg", arguments: ["-c:a", "libmp3lame"],
      packet: 1152, then: .concatenatedWithItself),
    // A tag written in front of a tag that holds a cover picture: the Xing header is
    // behind both.
    Case(
      name: "twotags.mp3", from: "ogg",
      arguments: [
        "-map", "1:a", "-map", "0:v", "-frames:v", "1", "-c:v", "png", "-c:a", "libmp3lame",
        "-id3v2_version", "3",
      ], packet: 1152, firstInput: ["-f", "lavfi", "-i", "testsrc=s=320x240:d=1"],
      then: .secondID3TagBefore),
    // Two sound tracks, the second marked as the default (a dub, a commentary): ffmpeg
    // plays the default one, and so do players.
    Case(
      name: "second-default.mkv", from: "mp3",
      arguments: [
        "-map", "0:a", "-map", "1:a", "-c:a", "libopus", "-disposition:a:0", "0",
        "-disposition:a:1", "default",
      ], packet: 960, firstInput: ["-f", "lavfi", "-i", "sine=frequency=220:duration=7"]),
  ]

  func make(_ file: Case) throws -> String {
    let input = try intermediate(file.from)
    let inputs =
      file.video
      ? ["-f", "lavfi", "-i", "testsrc=s=64x48:r=10:d=\(Int(ConvertedFileTests.seconds) + 1)",
        "-i", input]
      : file.firstInput + ["-i", input]
    let path = try ffmpeg(inputs + file.arguments, file.name)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    switch file.then {
    case .nothing: break
    case .concatenatedWithItself: try (bytes + bytes).write(to: URL(fileURLWithPath: path))
    case .secondID3TagBefore:
      // ID3v2.3, one TIT2 frame and 2 kB of padding; the size is syncsafe (7 bits a byte).
      let frame = Data("TIT2".utf8) + Data([0, 0, 0, 7, 0, 0, 0]) + Data("Tagged".utf8)
      let body = frame + Data(count: 2048)
      let size = (0..<4).map { UInt8((body.count >> (7 * (3 - $0))) & 0x7F) }
      try (Data("ID3".utf8) + Data([3, 0, 0] + size) + body + bytes)
        .write(to: URL(fileURLWithPath: path))
    case .audioOnTheHeaderPage:
      try ConvertedFileTests.audioOnTheHeaderPage([UInt8](bytes)).write(to: URL(fileURLWithPath: path))
    }
    return path
  }

  /// An Ogg Vorbis file as ffmpeg writes it (identification header; comment and setup
  /// headers; then audio) with its first audio page merged into the headers' page, which
  /// takes that page's granule position; the pages after are numbered on, checksums anew.
  static func audioOnTheHeaderPage(_ bytes: [UInt8]) throws -> Data {
    var pages: [(head: [UInt8], lacing: [UInt8], body: [UInt8])] = []
    var at = 0
    while at + 27 <= bytes.count {
      let count = Int(bytes[at + 26])
      let lacing = Array(bytes[(at + 27)..<(at + 27 + count)])
      let size = lacing.reduce(0) { $0 + Int($1) }
      let start = at + 27 + count
      pages.append((Array(bytes[at..<(at + 27)]), lacing, Array(bytes[start..<(start + size)])))
      at = start + size
    }
    try #require(pages.count > 3 && pages[1].lacing.count + pages[2].lacing.count <= 255)
    pages[1].lacing += pages[2].lacing
    pages[1].body += pages[2].body
    pages[1].head.replaceSubrange(6..<14, with: pages[2].head[6..<14])
    pages.remove(at: 2)
    var out = Data()
    for (sequence, page) in pages.enumerated() {
      var head = page.head
      let number: [UInt8] = (0..<4).map { UInt8(truncatingIfNeeded: sequence >> (8 * $0)) }
      head.replaceSubrange(18..<22, with: number)
      head.replaceSubrange(22..<26, with: [0, 0, 0, 0])
      head[26] = UInt8(page.lacing.count)
      let whole: [UInt8] = head + page.lacing + page.body
      // Ogg's CRC-32: polynomial 0x04C11DB7, no reflection, initial value and final xor 0.
      var crc: UInt32 = 0
      for byte in whole {
        crc ^= UInt32(byte) << 24
        for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
      }
      let checksum: [UInt8] = (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * UInt32($0))) }
      out.append(contentsOf: whole[0..<22])
      out.append(contentsOf: checksum)
      out.append(contentsOf: whole[26...])
    }
    return out
  }

  /// What `ffmpeg -i PATH -f wav` decodes (16-bit, as `render` writes a lossy song).
  func reference(_ path: String) throws -> [Float] {
    let out = try ffmpeg(["-i", path, "-f", "wav"], (path as NSString).lastPathComponent + ".ref.wav")
    return try Synth.read(out).samples
  }

  /// The lag (in frames) of `got` against `want` on the left channel (the sweep) where they
  /// correlate best, over ±`range` frames, on 8192 frames from `start`.
  func bestLag(_ got: [Float], _ want: [Float], start: Int, range: Int = 1500) -> Int {
    var best = (lag: 0, score: -Double.infinity)
    for lag in -range...range {
      var sum = 0.0
      for i in start..<(start + 8192) {
        let j = i + lag
        guard j >= 0, j * 2 < got.count, i * 2 < want.count else { continue }
        sum += Double(want[i * 2]) * Double(got[j * 2])
      }
      if sum > best.score { best = (lag, sum) }
    }
    return best.lag
  }

  /// The power of `got - want` over that of `want` on their common part after the first
  /// `skipping` samples (a lossy decoder's state after a seek converges there).
  func relativeError(
    _ got: some Collection<Float>, _ want: some Collection<Float>, skipping: Int
  ) -> Double {
    var error = 0.0
    var power = 0.0
    for (a, b) in zip(got.dropFirst(skipping), want.dropFirst(skipping)) {
      error += Double((a - b) * (a - b))
      power += Double(b * b)
    }
    return power > 0 ? error / power : error > 0 ? .infinity : 0
  }

  /// The largest difference of two sample arrays over their common part.
  func largestDifference(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Float {
    zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
  }

  @Test(arguments: cases)
  func rendersWhatFFmpegDecodes(file: Case) throws {
    let path = try make(file)
    let want = try reference(path)
    let out = dir.file("whole-\(file.name).wav")
    let result = try cli.run(["render", path, "-o", out])
    #expect(result.status == 0, "\(file.name): \(result.stderr)")
    #expect(result.stderrLines.count == 1, "\(file.name): \(result.stderr)")
    let got = try Synth.read(out).samples
    // As long as ffmpeg's decode, within one packet (ffmpeg keeps the end padding the
    // container declares; `render` removes it).
    #expect(abs(got.count - want.count) / 2 <= file.packet, "\(file.name): \(got.count / 2) frames against ffmpeg's \(want.count / 2)")
    // Aligned: a file that declares its priming loses it in both decodes; one that does not
    // (raw streams, AAC in Matroska) keeps it in both.
    for start in [ConvertedFileTests.rate, got.count / 2 - ConvertedFileTests.rate] {
      let lag = bestLag(got, want, start: start)
      #expect(abs(lag) <= 1, "\(file.name) is \(lag) frames off ffmpeg at frame \(start)")
      if lag == 0 {
        let span = (start * 2)..<((start + 8192) * 2)
        #expect(largestDifference(got[span], want[span]) <= 2.0 / 32768, "\(file.name) at \(start)")
      }
    }
    // The song's length is the decoded one.
    let listed = try cli.run(["show", path])
    #expect(listed.stdout.contains("frames \(got.count / 2)\n"), "\(file.name): \(listed.stdout)")
  }

  /// A 5.1 file in Ogg Vorbis or Opus (`ffmpeg -i film.mkv film.ogg` keeps the six
  /// channels) comes out as every other surround file does: stereo, left speakers on the
  /// left. Vorbis orders its channels L, C, R, Ls, Rs, LFE; read in WAV's order (L, R, C,
  /// LFE, Ls, Rs) the centre played on the right and the right on the centre. A 5.1 WAV
  /// (WAVE_FORMAT_EXTENSIBLE with its channel mask, as ffmpeg writes it) or FLAC is mixed
  /// the same way: libsndfile gave all six channels, and a render wrote six.
  @Test(arguments: [
    "surround.ogg", "surround.opus", "surround.m4a", "surround-mask.wav", "surround.flac",
  ])
  func surroundSoundIsMixedToStereoWithEachSpeakerOnItsSide(name: String) throws {
    // One tone a speaker, in WAV's order: FL, FR, FC, LFE, BL, BR.
    let tones = [300.0, 500.0, 700.0, 60.0, 900.0, 1100.0]
    let rate = ConvertedFileTests.rate
    let frames = rate * 2
    var samples = [Float](repeating: 0, count: frames * 6)
    for (channel, tone) in tones.enumerated() {
      let wave = Synth.sine(frequency: tone, seconds: 2, sampleRate: rate, amplitude: 0.2)
      for i in 0..<frames { samples[i * 6 + channel] = wave[i] }
    }
    let source = dir.file("surround.wav")
    try Synth.write(samples, to: source, sampleRate: rate, channels: 6)
    let path = try ffmpeg(["-i", source], name)
    let out = dir.file("\(name).wav")
    let result = try cli.run(["render", path, "-o", out])
    #expect(result.status == 0, "\(name): \(result.stderr)")
    let (info, got) = try Synth.read(out)
    #expect(info.channels == 2, "\(name): \(info.channels) channels")
    guard info.channels == 2 else { return }
    func level(_ tone: Double, _ channel: Int) -> Double {
      ToneAnalysis.amplitude(
        got, channels: 2, channel: channel, frequency: tone, sampleRate: info.sampleRate,
        start: info.sampleRate / 2, frames: info.sampleRate / 2)
    }
    // Front and back left only on the left, their right ones only on the right, the centre
    // on both.
    for (tone, side) in [(300.0, 0), (900.0, 0), (500.0, 1), (1100.0, 1)] {
      #expect(level(tone, side) > 0.03, "\(name): \(tone) Hz on its side \(level(tone, side))")
      #expect(level(tone, 1 - side) < 0.005, "\(name): \(tone) Hz on the other side")
    }
    #expect(level(700, 0) > 0.02 && level(700, 1) > 0.02, "\(name): the centre")
  }

  @Test(arguments: cases)
  func aRangeIsTheSameRangeOfTheWholeRender(file: Case) throws {
    let path = try make(file)
    let whole = dir.file("w-\(file.name).wav")
    #expect(try cli.run(["render", path, "-o", whole]).status == 0)
    let (info, all) = try Synth.read(whole)
    let rate = Double(info.sampleRate)
    // A joined file: a range in its second half too.
    let joined = all.count / 2 > Int(8 * rate) ? [("7.2345", "8.5")] : []
    for (from, to) in [("1.2345", "2.5"), ("0", "0.4"), ("4.1", "5.5")] + joined {
      let out = dir.file("r-\(from)-\(file.name).wav")
      let result = try cli.run(["render", path, "--from", from, "--to", to, "-o", out])
      #expect(result.status == 0, "\(file.name) \(from)-\(to): \(result.stderr)")
      let range = try Synth.read(out).samples
      let first = Int((Double(from)! * rate).rounded())
      let last = Int((Double(to)! * rate).rounded())
      #expect(range.count == 2 * (last - first), "\(file.name) \(from)-\(to)")
      let want = all[(2 * first)..<(2 * last)]
      if file.exactRange {
        #expect(Array(range) == Array(want), "\(file.name) \(from)-\(to)")
      } else {
        // A lossy decoder's state after a seek converges on, but is not bit for bit, that of
        // a decode from the start (and AAC's noise substitution draws other noise): the
        // frames are in place and agree closely.
        let start = min(2048, range.count / 2 - 8192)
        if start >= 0 {
          #expect(bestLag(range, Array(want), start: start, range: 48) == 0, "\(file.name) \(from)")
        }
        let error = relativeError(range, want, skipping: 4096)
        #expect(error <= 0.01, "\(file.name) \(from)-\(to): \(error)")
      }
    }
  }

  /// Files cut short at several points (an interrupted download or copy): what decodes
  /// renders (as much as ffmpeg decodes of it, within a packet), and one warning says
  /// where the audio ended; exit 65. `add` lists the decoded length.
  @Test(arguments: [
    Case(name: "cut-faststart.m4a", from: "ogg", arguments: ["-c:a", "aac", "-movflags", "+faststart"], packet: 1024),
    Case(name: "cut-fragmented.m4a", from: "mp3", arguments: ["-c:a", "aac", "-movflags", "frag_keyframe+empty_moov"], packet: 1024),
    Case(name: "cut-alac.m4a", from: "ogg", arguments: ["-c:a", "alac", "-movflags", "+faststart"], packet: 4096),
    Case(name: "cut-opus.webm", from: "ogg", arguments: ["-c:a", "libopus"], packet: 960),
    Case(name: "cut-song.mp3", from: "ogg", arguments: ["-c:a", "libmp3lame"], packet: 1152),
    Case(name: "cut-song.flac", from: "mp3", arguments: ["-c:a", "flac"], packet: 4608),
  ])
  func aFileCutShortSaysWhereItsAudioEnded(file: Case) throws {
    let whole = try make(file)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    for fraction in [0.3, 0.55, 0.8] {
      let name = "\(Int(fraction * 100))-\(file.name)"
      let cut = dir.file(name)
      try bytes.prefix(Int(Double(bytes.count) * fraction)).write(to: URL(fileURLWithPath: cut))
      let want = try reference(cut)
      let out = dir.file("out-\(name).wav")
      let result = try cli.run(["render", cut, "-o", out])
      #expect(result.status == 65, "\(name): \(result.stderr)")
      #expect(result.stderrLines.count == 1, "\(name): \(result.stderr)")
      let line = result.stderrLines.first ?? ""
      #expect(line.contains("'\(cut)': the audio ends at "), "\(name): \(line)")
      #expect(line.contains("though the file says 0:06.0"), "\(name): \(line)")
      let (info, got) = try Synth.read(out)
      #expect(abs(got.count - want.count) / 2 <= file.packet, "\(name): \(got.count / 2) against \(want.count / 2)")
      // The time it names is where the rendered audio ends (to the tenth of a second).
      let ended = String(format: "0:%04.1f", Double(got.count / 2) / Double(info.sampleRate))
      #expect(line.contains("the audio ends at \(ended) "), "\(name): \(line), \(ended)")
      // Listed at its decoded length; a position past it is past the end.
      let shown = try cli.run(["show", cut])
      #expect(shown.stdout.contains("frames \(got.count / 2)\n"), "\(name): \(shown.stdout)")
      let late = try cli.run(["render", cut, "--from", "5.9", "-o", dir.file("late.wav")])
      #expect(late.status == 64, "\(name): \(late.stderr)")
      #expect(late.stderrLines.count == 1)
    }
  }

  /// A 5.1 Ogg Vorbis file as `ffmpeg -i film.wav film.ogg` writes it: libavformat's
  /// packet durations for it fall short of the pages' granule positions (448 samples now
  /// and then), and a seek placed by counting them landed late: the length measured near
  /// the end came out short (28.9 s of 30) and a range was the audio of a later time.
  @Test func aSurroundOggIsAsLongAsItDecodesAndItsRangesLandInPlace() throws {
    let file = Case(
      name: "surround-long.ogg", from: "mp3",
      arguments: ["-af", "pan=5.1|c0=c0|c1=c1|c2=c0|c3=c1|c4=c0|c5=c1", "-c:a", "libvorbis"],
      packet: 2048)
    let path = try make(file)
    let (reference, want) = try Synth.read(
      try ffmpeg(["-i", path, "-f", "wav"], "surround-long.ref.wav"))
    let out = dir.file("surround-long.wav")
    let result = try cli.run(["render", path, "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    let got = try Synth.read(out).samples.count / 2
    let decoded = want.count / reference.channels
    #expect(abs(got - decoded) <= file.packet, "\(got) frames against ffmpeg's \(decoded)")
    try aRangeIsTheSameRangeOfTheWholeRender(file: file)
    // A range on the last page (stamped back from its end-trimmed granule: 3,072 samples
    // off after a seek) is that range of the whole render too.
    let all = try Synth.read(out).samples
    let rate = Double(ConvertedFileTests.rate)
    let from = Double(got) / rate - 0.25
    let late = dir.file("surround-late.wav")
    let ranged = try cli.run(["render", path, "--from", String(format: "%.4f", from), "-o", late])
    #expect(ranged.status == 0, "\(ranged.stderr)")
    let range = try Synth.read(late).samples
    let first = Int((Double(String(format: "%.4f", from))! * rate).rounded())
    let error = relativeError(range, all[(2 * first)...], skipping: 4096)
    #expect(error <= 0.01, "the last 0.25 s: \(error)")
  }

  /// Two songs joined with `cat` in Ogg (Vorbis, Opus): a chained Ogg file, whose second
  /// link starts with its own headers. It plays whole, song after song, each as its own
  /// file decodes (what oggdec and opusdec play): libsndfile played the first song only,
  /// and libavformat, which reads the links as one stream whose timestamps start again,
  /// gave 30 s of the wrong song. A range after the join is that range of the whole.
  @Test(arguments: ["ogg", "opus"])
  func aChainedOggPlaysEverySongInTurn(kind: String) throws {
    // The second song: a falling sweep on the right, a steady tone on the left.
    let frames = ConvertedFileTests.rate * 4
    var second = [Float](repeating: 0, count: frames * 2)
    for i in 0..<frames {
      let t = Double(i) / Double(ConvertedFileTests.rate)
      second[i * 2] = Float(0.2 * sin(2 * Double.pi * 523 * t))
      second[i * 2 + 1] = Float(0.3 * sin(2 * Double.pi * (2000 * t - 150 * t * t)))
    }
    let secondWav = dir.file("second.wav")
    try Synth.write(second, to: secondWav, channels: 2)
    let codec = kind == "ogg" ? ["-c:a", "libvorbis"] : ["-c:a", "libopus"]
    let one = try ffmpeg(["-i", try intermediate("mp3")] + codec, "one.\(kind)")
    let two = try ffmpeg(["-i", secondWav] + codec, "two.\(kind)")
    let joined = dir.file("joined.\(kind)")
    try (try Data(contentsOf: URL(fileURLWithPath: one))
      + Data(contentsOf: URL(fileURLWithPath: two))).write(to: URL(fileURLWithPath: joined))
    let want = try reference(one) + reference(two)
    let whole = dir.file("joined-\(kind).wav")
    let result = try cli.run(["render", joined, "-o", whole])
    #expect(result.status == 0 && result.stderrLines.count == 1, "\(kind): \(result.stderr)")
    let (info, got) = try Synth.read(whole)
    #expect(got.count == want.count, "\(kind): \(got.count / 2) frames, the songs \(want.count / 2)")
    #expect(largestDifference(got[...], want[...]) <= 2.0 / 32768, "\(kind)")
    let listed = try cli.run(["show", joined])
    #expect(listed.stdout.contains("frames \(got.count / 2)\n"), "\(kind): \(listed.stdout)")
    // Ranges across and after the join, and in the first song after a seek into the second.
    let rate = Double(info.sampleRate)
    let oneLength = Double(try reference(one).count / 2) / rate
    for (from, to) in [(oneLength + 0.5, oneLength + 1.7), (oneLength - 0.3, oneLength + 0.3), (1.0, 1.5)] {
      let out = dir.file("range-\(kind)-\(from).wav")
      let arguments = ["--from", String(format: "%.4f", from), "--to", String(format: "%.4f", to)]
      let ranged = try cli.run(["render", joined] + arguments + ["-o", out])
      #expect(ranged.status == 0, "\(kind) \(from): \(ranged.stderr)")
      let range = try Synth.read(out).samples
      let first = Int((Double(String(format: "%.4f", from))! * rate).rounded())
      let slice = got[(2 * first)..<min(got.count, 2 * first + range.count)]
      #expect(bestLag(range, Array(slice), start: 4096, range: 48) == 0, "\(kind) \(from)")
      let error = relativeError(range, slice, skipping: 8192)
      #expect(error <= 0.01, "\(kind) \(from): \(error)")
    }
  }

  /// A chained Ogg file whose second link has another sample rate (44.1 kHz, then 48 kHz):
  /// the first is played, and the play says in one warning where it stopped and why, as for
  /// any audio that ends early (exit 65); it ended silently, "rendered … 0:02.0 long". (ffprobe
  /// reads one 44.1 kHz stream of the last link's length, 3.27 s; `ffmpeg -i` decodes 5 s, the
  /// 48 kHz link played at 44.1 kHz.)
  @Test func aChainedOggWhoseNextLinkHasAnotherRateSaysWhereItStopped() throws {
    let one = try ffmpeg(
      ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=2", "-c:a", "libvorbis"],
      "rate-one.ogg")
    let two = try ffmpeg(
      ["-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=3", "-c:a", "libvorbis"],
      "rate-two.ogg")
    let joined = dir.file("rates.ogg")
    try (try Data(contentsOf: URL(fileURLWithPath: one))
      + Data(contentsOf: URL(fileURLWithPath: two))).write(to: URL(fileURLWithPath: joined))
    for (command, done) in [
      (["render", joined, "-o", dir.file("rates.wav")], "rendered to '\(dir.file("rates.wav"))'"),
      (["play", joined, "--device", "null"], "played"),
    ] {
      let result = try cli.run(command)
      #expect(result.status == 65, "\(command): \(result.stderr)")
      let warnings = result.stderrLines.filter { $0.hasPrefix("practice: warning:") }
      #expect(
        warnings == [
          "practice: warning: '\(joined)': the audio ends at 0:02.0 though the file says 0:05.0 "
            + "(its stream 2 of 2 is at 48000 Hz, not 44100 Hz as the first; it and those after "
            + "it are not played); it is cut short or damaged: what decodes was \(done), the "
            + "rest is missing"
        ], "\(command): \(result.stderr)")
    }
    #expect(try Synth.read(dir.file("rates.wav")).samples.count == 2 * 44100)
  }

  /// `ffmpeg -i song.wav song.m4a` writes the index (moov box) after the audio: a copy or
  /// download cut short has the audio and no index, and nothing can be played. The line
  /// says that, not "is it an audio file?".
  @Test func anM4AWhoseIndexWasNeverWrittenSaysSo() throws {
    let whole = try make(Case(name: "index-last.m4a", from: "ogg", arguments: [], packet: 1024))
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    let cut = dir.file("index-cut.m4a")
    try bytes.prefix(bytes.count * 9 / 10).write(to: URL(fileURLWithPath: cut))
    for command in [["add", cut], ["render", cut, "-o", dir.file("index-out.wav")]] {
      let result = try cli.run(command)
      #expect(result.status == 65, "\(command): \(result.stderr)")
      #expect(result.stderrLines.count == 1, "\(command): \(result.stderr)")
      #expect(
        result.stderr.contains("'\(cut)': an MP4/M4A file whose index (moov box) is missing"),
        "\(result.stderr)")
      #expect(result.stderr.contains("copy or download it again"), "\(result.stderr)")
    }
    #expect(try cli.run(["list"]).stdout.isEmpty)
  }

  /// A WMA cut short (a download stopped half-way) states its length in its ASF header;
  /// libavformat drops that length when the file is not the size the header says and
  /// guesses one from the bit rate, so the half that is there rendered without a word.
  /// It renders, and says the rest is missing. (An Ogg or a raw AC-3 stream states no
  /// length: cut, it renders what there is, as ffmpeg does.)
  @Test func aWMACutShortSaysSo() throws {
    let whole = try make(Case(name: "whole.wma", from: "ogg", arguments: [], packet: 2048))
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    let cut = dir.file("cut.wma")
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
    let result = try cli.run(["render", cut, "-o", dir.file("cut-wma.wav")])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(
      result.stderr.contains("warning: '\(cut)': the audio ends at "), "\(result.stderr)")
    // The header's length: 6 s less a millisecond or two of ASF's rounding.
    #expect(
      result.stderr.range(of: "though the file says 0:0(5\\.9|6\\.0);", options: .regularExpression)
        != nil, "\(result.stderr)")
    let rendered = try Synth.read(dir.file("cut-wma.wav")).samples.count / 2
    #expect(rendered > ConvertedFileTests.rate * 2 && rendered < ConvertedFileTests.rate * 4)
    // The whole file still renders without a word.
    let plain = try cli.run(["render", whole, "-o", dir.file("whole-wma.wav")])
    #expect(plain.status == 0 && plain.stderrLines.count == 1, "\(plain.stderr)")
  }

  /// `play` of a file cut short plays what decodes to the end, says where the audio ended
  /// (the last line) and exits 65; a range that ends before the cut plays without a word.
  @Test func playOfAFileCutShortEndsWithTheWarning() throws {
    let whole = try make(
      Case(name: "play.m4a", from: "ogg", arguments: ["-c:a", "aac", "-movflags", "+faststart"],
        packet: 1024))
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    let cut = dir.file("play-cut.m4a")
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
    let early = try cli.run(["play", cut, "--from", "0.5", "--to", "1.5", "--device", "null"])
    #expect(early.status == 0, "\(early.stderr)")
    #expect(!early.stderr.contains("warning"), "\(early.stderr)")
    let played = try cli.run(["play", cut, "--from", "2", "--device", "null"])
    #expect(played.status == 65, "\(played.stderr)")
    #expect(
      played.stderrLines.last?.contains("'\(cut)': the audio ends at 0:0") == true,
      "\(played.stderr)")
    #expect(played.stderrLines.filter { $0.contains("warning") }.count == 1, "\(played.stderr)")
    // `resume` of a play that ran to its end plays its range again: to the cut, and says so.
    let resumed = try cli.run(["resume", "--device", "null"])
    #expect(resumed.status == 65, "\(resumed.stderr)")
    #expect(resumed.stderrLines.last?.contains("the audio ends at") == true, "\(resumed.stderr)")
  }

  /// In `setlist play`, an entry cut short plays to where its audio ends with the one
  /// warning (the file and the time) and the setlist ends with 65, as `play` does; the
  /// other entries play, and all are counted as played.
  @Test func aSetlistEntryCutShortEndsTheSetlistWith65() throws {
    let whole = try make(
      Case(name: "gig.m4a", from: "ogg", arguments: ["-c:a", "aac", "-movflags", "+faststart"],
        packet: 1024))
    let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
    let cut = dir.file("gig-cut.m4a")
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
    for arguments in [
      ["add", CLI.fixture("sine-440.wav")], ["add", cut], ["setlist", "new", "gig"],
      ["setlist", "add", "gig", "1"], ["setlist", "add", "gig", "2"],
      ["setlist", "add", "gig", "1"],
    ] {
      let result = try cli.run(arguments)
      try #require(result.status == 0, "\(arguments): \(result.stderr)")
    }
    let result = try cli.run(["setlist", "play", "gig", "--device", "null"])
    #expect(result.status == 65, "\(result.stderr)")
    let warnings = result.stderrLines.filter { $0.contains("warning") }
    #expect(warnings.count == 1, "\(result.stderr)")
    #expect(warnings.first?.contains("'\(cut)': the audio ends at 0:0") == true, "\(result.stderr)")
    #expect(result.stderrLines.contains("3/3 'sine-440'"), "\(result.stderr)")
    #expect(result.stderrLines.last == "setlist 'gig': played 3 entries", "\(result.stderr)")
    let log = try cli.run(["log", "--json"])
    let plays = try #require(
      try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
    #expect(plays.compactMap { $0["song_id"] as? Int }.sorted() == [1, 1, 2])
  }

  /// Runs `statement` on the library with Python's sqlite3, as an older practice left it.
  func update(_ statement: String) throws {
    let sql = Process()
    sql.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    sql.arguments = [
      "-c",
      "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()",
      cli.database, statement,
    ]
    try sql.run()
    sql.waitUntilExit()
    #expect(sql.terminationStatus == 0)
  }

  /// A length stored shorter than what decodes (by a version that trusted a guess, or by
  /// another decoder) is not taken at play: the song plays whole, without a warning.
  @Test func aStoredLengthThatAudioDecodesPastIsNotTaken() throws {
    let path = try make(Case(name: "stale.m4a", from: "ogg", arguments: ["-c:a", "aac"], packet: 1024))
    #expect(try cli.run(["add", path]).status == 0)
    let whole = dir.file("stale-whole.wav")
    #expect(try cli.run(["render", path, "-o", whole]).status == 0)
    let frames = try Synth.read(whole).samples.count / 2
    try update("UPDATE song SET frames = frames / 2, duration = duration / 2")
    let out = dir.file("stale-again.wav")
    let result = try cli.run(["render", path, "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stderr.contains("warning"), "\(result.stderr)")
    #expect(try Synth.read(out).samples.count / 2 == frames)
  }

  /// A library made before practice read the audio on an Ogg Vorbis file's headers' page
  /// (session 22) kept the length libsndfile decoded, a page short at the start, and its
  /// beats were placed on that decode: they sit that much early. `show` and `beats show`
  /// say so in one line with the seconds and what to do; a song measured as it decodes now
  /// gets no line.
  @Test func aSongMeasuredBeforeTheHeaderPageWasReadIsWarnedOf() throws {
    let path = try make(
      Case(
        name: "old.ogg", from: "mp3", arguments: ["-c:a", "libvorbis"], packet: 0,
        then: .audioOnTheHeaderPage))
    #expect(try cli.run(["add", path]).status == 0)
    // Beats that lay in the shorter decode (libsndfile's 5 s).
    let beats = dir.file("old.beats")
    try (1...9).map { "\(Double($0) / 2)\n" }.joined().write(
      toFile: beats, atomically: true, encoding: .utf8)
    #expect(try cli.run(["beats", "import", path, beats]).status == 0)
    let commands = [["show", path], ["show", path, "--json"], ["beats", "show", path]]
    for command in commands {
      let now = try cli.run(command)
      #expect(now.status == 0 && now.stderr.isEmpty, "\(command): \(now.stderr)")
    }
    // As a library made before stored it: libsndfile's 220440 frames of the 264600.
    try update("UPDATE song SET frames = frames - 44160")
    for command in commands {
      let old = try cli.run(command)
      #expect(old.status == 0, "\(command): \(old.stderr)")
      #expect(
        old.stderrLines == [
          "practice: warning: 'old' was measured by a practice that skipped the first 1.00 s of "
            + "this Ogg file (audio on its headers' page): its beat map, chords and selections in "
            + "times sit 1.00 s early; `practice add` it again after `touch`, then `practice "
            + "beats shift 1 --by 1.00` and `practice chords detect 1 --replace`"
        ], "\(command): \(old.stderr)")
    }
  }

  /// Only a file with audio on an Ogg headers' page is told of: a WAV whose stored length
  /// falls short of what it decodes is not.
  @Test func aFileWithoutAudioOnAHeadersPageIsNotWarnedOf() throws {
    let path = dir.file("plain.wav")
    try Synth.write(Synth.sine(frequency: 440, seconds: 2), to: path)
    #expect(try cli.run(["add", path]).status == 0)
    try update("UPDATE song SET frames = frames - 44160")
    for command in [["show", path], ["show", path, "--json"]] {
      let shown = try cli.run(command)
      #expect(shown.status == 0 && shown.stderr.isEmpty, "\(command): \(shown.stderr)")
    }
  }

  /// The same file cut at several points and with the same seeded mutations: bytes flipped,
  /// MP4 box sizes and Matroska element sizes smashed. Every render ends within the time
  /// limit by itself, with one line: exit 65 (what was wrong, or where the audio ended), or
  /// exit 0 where the damage fell in audio data a decoder plays through.
  @Test(arguments: ["fuzz.m4a", "fuzz.webm"])
  func damagedFilesEndWithOneLine(name: String) throws {
    let path = try ffmpeg(
      ["-i", try intermediate("ogg")]
        + (name.hasSuffix("m4a")
          ? ["-c:a", "aac", "-movflags", "+faststart"] : ["-c:a", "libopus"]), name)
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    // Where the container's structure is: box types, EBML element IDs.
    let markers: [[UInt8]] =
      name.hasSuffix("m4a")
      ? ["moov", "trak", "mdia", "minf", "stbl", "stsz", "stco", "stts", "stsc", "mdat", "elst"]
        .map { Array($0.utf8) }
      : [[0x18, 0x53, 0x80, 0x67], [0x16, 0x54, 0xAE, 0x6B], [0x1F, 0x43, 0xB6, 0x75],
        [0xAE], [0xA3], [0x1C, 0x53, 0xBB, 0x6B]]
    var places: [(at: Int, size: Int)] = []
    for marker in markers {
      var i = 0
      var found = 0
      while i + marker.count <= bytes.count, found < 3 {
        if Array(bytes[i..<(i + marker.count)]) == marker {
          places.append((i, marker.count))
          found += 1
        }
        i += 1
      }
    }
    var seed: UInt64 = 0x5eed_0042
    func random(_ bound: Int) -> Int {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((seed >> 33) % UInt64(max(1, bound)))
    }
    var mutations: [(String, [UInt8])] = []
    for k in 0..<4 {
      mutations.append(("cut-\(k)", Array(bytes.prefix(16 + random(bytes.count - 16)))))
    }
    for k in 0..<4 {
      var flipped = bytes
      for _ in 0..<(1 + random(24)) { flipped[random(flipped.count)] ^= UInt8(1 + random(255)) }
      mutations.append(("flip-\(k)", flipped))
    }
    for k in 0..<8 where !places.isEmpty {
      var smashed = bytes
      let place = places[random(places.count)]
      if name.hasSuffix("m4a") {
        // The 32-bit size before the box type.
        let at = place.at - 4
        guard at >= 0 else { continue }
        let size: [UInt8] =
          [[0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 9]][k % 4]
        for j in 0..<4 { smashed[at + j] = size[j] }
      } else {
        // The size's first byte after the element ID (its length marker and top bits).
        let at = place.at + place.size
        guard at < smashed.count else { continue }
        smashed[at] = [0x01, 0xFF, 0x80, 0x08][k % 4]
      }
      mutations.append(("smash-\(k)", smashed))
    }
    #expect(mutations.count >= 14)
    var refused = 0
    for (label, mutated) in mutations {
      let damaged = dir.file("\(label)-\(name)")
      try Data(mutated).write(to: URL(fileURLWithPath: damaged))
      let run = try cli.start(["render", damaged, "-o", dir.file("d.wav")])
      let ended = run.wait(timeout: 60) { !run.process.isRunning }
      if !ended { run.process.terminate() }
      let result = run.finish()
      #expect(ended, "\(label) of \(name) did not end")
      #expect(run.process.terminationReason == .exit, "\(label) of \(name): killed by a signal")
      #expect([0, 65].contains(result.status), "\(label) of \(name): \(result.status) \(result.stderr)")
      #expect(result.stderrLines.count == 1, "\(label) of \(name): \(result.stderr)")
      if result.status == 0 {
        #expect(result.stderr.hasPrefix("rendered "), "\(label) of \(name): \(result.stderr)")
      } else {
        refused += 1
      }
    }
    // Every cut at least ends early.
    #expect(refused >= 4, "\(refused) of \(mutations.count)")
  }
}
