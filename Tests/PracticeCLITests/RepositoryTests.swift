import Foundation
import TestSupport
import Testing

/// A static web server on 127.0.0.1 (scripts/repo-server.py), started and stopped by the
/// test: it answers conditional requests (ETag, Last-Modified, 304) and logs each request.
final class RepoServer: @unchecked Sendable {
  let process = Process()
  let port: Int
  let log: String

  let scheme: String

  /// With `tls` (certificate, key), https.
  init(serving directory: String, log: String, tls: (String, String)? = nil) throws {
    self.log = log
    scheme = tls == nil ? "http" : "https"
    FileManager.default.createFile(atPath: log, contents: nil)
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments =
      [CLI.packageRoot + "/scripts/repo-server.py", directory, log]
      + (tls.map { [$0.0, $0.1] } ?? [])
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let chunk = out.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      line.append(chunk)
    }
    guard
      let port = Int(
        String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    else {
      process.terminate()
      throw CocoaError(.fileReadCorruptFile)
    }
    self.port = port
  }

  deinit {
    // SIGKILL: a signal the runner may block (SIGTERM) would leave the server running.
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  var url: String { "\(scheme)://127.0.0.1:\(port)" }

  /// `GET /index.json 304`, one per request so far.
  var requests: [String] {
    ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(
      String.init)
  }
}

/// A port on 127.0.0.1 with nothing listening (bound, read, closed).
func unusedPort() throws -> Int {
  let result = try runProgram(
    "/usr/bin/python3",
    [
      "-c",
      "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])",
    ],
    environment: ProcessInfo.processInfo.environment, directory: "/", scratch: "/tmp")
  return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 9
}

/// `repo publish`, `repo add/list/rm` and `pull` against a local web server and folders.
@Suite struct RepositoryTests {
  let dir = TemporaryDirectory()
  /// The band leader's library (publishes) and a member's (pulls).
  var leader: CLI { CLI(database: dir.file("leader.sqlite")) }
  var member: CLI { CLI(database: dir.file("member.sqlite")) }
  var repo: String { dir.file("repo") }

  /// Songs `titles` (8 s sines, their pitch from their index) added to both libraries; the
  /// leader gives each a grid at 120 BPM and a selection `verse`.
  func setUp(_ titles: [String] = ["Blue", "Green", "Red"]) throws {
    for (index, title) in titles.enumerated() {
      let path = dir.file("song\(index).wav")
      try Synth.write(
        Synth.sine(frequency: 220 + Double(index) * 55, seconds: 8, amplitude: 0.3), to: path,
        tags: (title, "The Band", ""))
      for cli in [leader, member] {
        let added = try cli.run(["add", path])
        #expect(added.status == 0, "\(added.stderr)")
      }
      #expect(try leader.run(["beats", "grid", "\(index + 1)", "--bpm", "120"]).status == 0)
      #expect(
        try leader.run(["select", "add", "\(index + 1)", "verse", "--bars", "1-2"]).status == 0)
    }
  }

  func publish(_ arguments: [String] = ["--all"]) throws -> CommandResult {
    let result = try leader.run(["repo", "publish", repo] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    return result
  }

  func index() throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: repo + "/index.json"))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  func entries() throws -> [[String: Any]] {
    try #require(try index()["songs"] as? [[String: Any]])
  }

  func beats(_ cli: CLI, _ song: String) throws -> String {
    try cli.run(["beats", "show", song]).stdout
  }

  // MARK: Publish

  @Test func publishWritesAnIndexAndOneFilePerSongAndAgainOnlyWhatChanged() throws {
    try setUp()
    _ = try leader.run(["setlist", "new", "Gig"])
    _ = try leader.run(["setlist", "add", "Gig", "1"])
    let first = try publish()
    #expect(first.stderr.contains("published 3 songs and 1 setlist"))
    #expect(first.stdout.split(separator: "\n").count == 4)
    let songs = try entries()
    #expect(songs.count == 3)
    for entry in songs {
      let file = try #require(entry["file"] as? String)
      #expect(FileManager.default.fileExists(atPath: repo + "/" + file))
      #expect(
        entry["version"] is String && entry["content_hash"] is String && entry["duration"] is Double
      )
      #expect(entry["artist"] as? String == "The Band")
    }
    #expect(Set(songs.compactMap { $0["title"] as? String }) == ["Blue", "Green", "Red"])
    #expect((try index()["setlists"] as? [[String: Any]])?.first?["name"] as? String == "Gig")
    #expect(try index()["format"] as? String == "practice-repository")
    let indexBefore = try Data(contentsOf: URL(fileURLWithPath: repo + "/index.json"))

    // Again, unchanged: nothing written, the index's bytes the same.
    let again = try publish()
    #expect(again.stdout.isEmpty)
    #expect(again.stderr.contains("0 files written, 4 unchanged; index.json unchanged"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: repo + "/index.json")) == indexBefore)

    // One song changed: its file and the index, nothing else; its version changed.
    let versions = Dictionary(
      uniqueKeysWithValues: songs.map { ($0["title"] as! String, $0["version"] as! String) })
    #expect(try leader.run(["beats", "grid", "Green", "--bpm", "90"]).status == 0)
    let changed = try publish(["Green"])
    #expect(changed.stdout.split(separator: "\n").count == 1)
    #expect(changed.stderr.contains("1 file written, 0 unchanged; index.json written"))
    let after = Dictionary(
      uniqueKeysWithValues: try entries().map { ($0["title"] as! String, $0["version"] as! String) }
    )
    #expect(after["Green"] != versions["Green"])
    #expect(after["Blue"] == versions["Blue"] && after["Red"] == versions["Red"])
    // No temporary file is left behind.
    let names = try FileManager.default.contentsOfDirectory(atPath: repo)
    #expect(!names.contains { $0.hasPrefix(".") }, "\(names)")
  }

  /// A title cannot make a file name that leaves the folder or carries control characters.
  @Test func publishedFileNamesAreSafe() throws {
    let path = dir.file("evil.wav")
    try Synth.write(
      Synth.sine(frequency: 330, seconds: 3, amplitude: 0.3), to: path,
      tags: ("../../etc/passwd\u{7}\u{1B}[31m" + String(repeating: "x", count: 300), "..", ""))
    #expect(try leader.run(["add", path]).status == 0)
    _ = try publish()
    let file = try #require(try entries().first?["file"] as? String)
    #expect(!file.contains("/") && !file.contains("..") && !file.hasPrefix("."))
    #expect(!file.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
    #expect(file.utf8.count <= 120 && file.hasSuffix(".practice"))
    #expect(FileManager.default.fileExists(atPath: repo + "/" + file))
    #expect(try FileManager.default.contentsOfDirectory(atPath: repo).count == 2)
  }

  // MARK: Subscribe

  @Test func repositoriesAreAddedListedAndRemoved() throws {
    let added = try member.run(["repo", "add", "band", "http://127.0.0.1:1/band/"])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(try member.run(["repo", "add", "teacher", "shared/lessons"], in: dir.path).status == 0)
    let list = try member.run(["repo", "list"])
    #expect(
      list.stdout
        == "band\thttp://127.0.0.1:1/band/\tnever\t0\nteacher\t\(dir.path)/shared/lessons\tnever\t0\n"
    )
    let twice = try member.run(["repo", "add", "BAND", "http://example.org/"])
    #expect(twice.status == 64 && twice.stderr.contains("already a repository named 'BAND'"))
    let ftp = try member.run(["repo", "add", "x", "ftp://example.org/"])
    #expect(ftp.status == 64 && ftp.stderrLines.count == 1)
    #expect(try member.run(["repo", "rm", "band"]).status == 0)
    let gone = try member.run(["repo", "rm", "band"])
    #expect(gone.status == 66 && gone.stderr.contains("'teacher'"))
    #expect(try member.run(["repo", "list"]).stdout.hasPrefix("teacher\t"))
  }

  // MARK: Pull

  @Test func pullAppliesEntriesAndASecondPullIsOneRequestAnswered304() throws {
    try setUp()
    _ = try publish()
    let server = try RepoServer(serving: repo, log: dir.file("requests.log"))
    #expect(try member.run(["repo", "add", "band", server.url + "/"]).status == 0)
    #expect(try beats(member, "Blue").isEmpty)
    let first = try member.run(["pull"])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stderr.contains("pulled 'band': index fetched; 3 entries applied; 0 current"))
    #expect(server.requests.count == 4 && server.requests[0] == "GET /index.json 200")
    #expect(try beats(member, "Blue") == (try beats(leader, "Blue")))
    #expect(try member.run(["select", "list", "Red"]).stdout.contains("verse"))

    let second = try member.run(["pull", "band"])
    #expect(second.status == 0, "\(second.stderr)")
    #expect(server.requests.count == 5 && server.requests.last == "GET /index.json 304")
    #expect(second.stderr.contains("index unchanged; 0 entries applied; 3 current"))
    #expect(try member.run(["repo", "list"]).stdout.hasSuffix("\t3\n"))
  }

  @Test func oneEntryChangedIsTwoRequests() throws {
    try setUp()
    _ = try publish()
    let server = try RepoServer(serving: repo, log: dir.file("requests.log"))
    _ = try member.run(["repo", "add", "band", server.url])
    #expect(try member.run(["pull"]).status == 0)
    let before = server.requests.count
    #expect(try leader.run(["beats", "grid", "Green", "--bpm", "100"]).status == 0)
    _ = try publish(["Green"])
    let pulled = try member.run(["pull"])
    #expect(pulled.status == 0, "\(pulled.stderr)")
    let requests = Array(server.requests.dropFirst(before))
    #expect(requests.count == 2, "\(requests)")
    #expect(
      requests.first == "GET /index.json 200" && requests.last?.hasSuffix(".practice 200") == true)
    #expect(pulled.stderr.contains("1 entry applied; 2 current"))
    #expect(try beats(member, "Green") == (try beats(leader, "Green")))
  }

  @Test func whatWasEditedHereIsKeptUnlessReplace() throws {
    try setUp()
    _ = try publish()
    _ = try member.run(["repo", "add", "band", repo])
    #expect(try member.run(["pull"]).status == 0)
    // The member edits Blue's map; the leader changes Blue and Red.
    #expect(try member.run(["beats", "grid", "Blue", "--bpm", "80"]).status == 0)
    let mine = try beats(member, "Blue")
    #expect(try leader.run(["beats", "grid", "Blue", "--bpm", "140"]).status == 0)
    #expect(try leader.run(["beats", "grid", "Red", "--bpm", "140"]).status == 0)
    _ = try publish()
    let pulled = try member.run(["pull"])
    #expect(pulled.status == 0, "\(pulled.stderr)")
    let kept = pulled.stderrLines.filter { $0.contains("kept") }
    #expect(
      kept.count == 1 && kept[0].contains("'Blue' (beat map)") && kept[0].contains("--replace"))
    #expect(try beats(member, "Blue") == mine)
    #expect(try beats(member, "Red") == (try beats(leader, "Red")))
    // Pulled again, still kept (the edit stands until --replace).
    #expect(try member.run(["pull"]).stderr.contains("index unchanged"))
    #expect(try beats(member, "Blue") == mine)
    let replaced = try member.run(["pull", "--replace"])
    #expect(replaced.status == 0, "\(replaced.stderr)")
    #expect(!replaced.stderr.contains("kept"))
    #expect(try beats(member, "Blue") == (try beats(leader, "Blue")))
  }

  func chords(_ cli: CLI, _ song: String) throws -> String {
    try cli.run(["chords", "export", song]).stdout
  }

  /// A .lab of `labels`, two seconds each.
  func lab(_ name: String, _ labels: [String]) throws -> String {
    let path = dir.file(name)
    try labels.enumerated().map { "\($0.offset * 2)\t\($0.offset * 2 + 2)\t\($0.element)\n" }
      .joined().write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// Chords as maps (issue 45): a track imported here since the last pull is kept, with
  /// one line, until --replace; a detected one, or one not edited since, is the repository's.
  @Test func chordsEditedHereAreKeptUnlessReplace() throws {
    try setUp()
    let first = try lab("first.lab", ["C:maj", "G:maj", "A:min", "F:maj"])
    for song in ["Blue", "Green", "Red"] {
      #expect(try leader.run(["chords", "import", song, first]).status == 0)
    }
    _ = try publish()
    _ = try member.run(["repo", "add", "band", repo])
    // Green's chords detected here before the first pull: the repository's replace them.
    let detected = try member.run(["chords", "detect", "Green"])
    #expect(detected.status == 0, "\(detected.stderr)")
    let pulledFirst = try member.run(["pull"])
    #expect(pulledFirst.status == 0 && !pulledFirst.stderr.contains("kept"), "\(pulledFirst.stderr)")
    let leaderFirst = try chords(leader, "Blue")
    #expect(leaderFirst.contains("G:maj"))
    #expect(try chords(member, "Green") == leaderFirst)
    #expect(try chords(member, "Blue") == leaderFirst)
    // The member edits Blue's chords; the leader changes Blue's and Red's.
    #expect(
      try member.run(["chords", "import", "Blue", try lab("mine.lab", ["C:maj", "E:min"])])
        .status == 0)
    let mine = try chords(member, "Blue")
    let second = try lab("second.lab", ["D:maj", "A:maj", "B:min", "G:maj"])
    for song in ["Blue", "Red"] {
      #expect(try leader.run(["chords", "import", song, second]).status == 0)
    }
    _ = try publish()
    let pulled = try member.run(["pull"])
    #expect(pulled.status == 0, "\(pulled.stderr)")
    let kept = pulled.stderrLines.filter { $0.contains("kept") }
    #expect(
      kept.count == 1 && kept[0].contains("'Blue' (chords)") && !kept[0].contains("'Red'")
        && kept[0].contains("--replace"), "\(pulled.stderr)")
    #expect(try chords(member, "Blue") == mine)
    #expect(try chords(member, "Red") == (try chords(leader, "Red")))
    #expect(try chords(member, "Red") != leaderFirst)
    let replaced = try member.run(["pull", "--replace"])
    #expect(replaced.status == 0, "\(replaced.stderr)")
    #expect(!replaced.stderr.contains("kept"))
    #expect(try chords(member, "Blue") == (try chords(leader, "Blue")))
  }

  @Test func pullOfNamedSongsOnly() throws {
    try setUp()
    _ = try publish()
    _ = try member.run(["repo", "add", "band", repo])
    let pulled = try member.run(["pull", "band", "Red"])
    #expect(pulled.status == 0, "\(pulled.stderr)")
    #expect(pulled.stderr.contains("1 entry applied"))
    #expect(try beats(member, "Blue").isEmpty && !(try beats(member, "Red").isEmpty))
  }

  /// A damaged entry, an entry naming a file outside the repository and an oversize one are
  /// refused one line each; the others apply; exit 65 with a summary.
  @Test func badEntriesAreRefusedAndTheRestApply() throws {
    try setUp(["Blue", "Green", "Red", "Gold"])
    _ = try publish()
    var index = try index()
    var songs = try #require(index["songs"] as? [[String: Any]])
    func file(_ title: String) -> String {
      songs.first { $0["title"] as? String == title }!["file"] as! String
    }
    // Green's file damaged; Red's entry names ../outside.practice; Gold's is 40 MiB.
    try Data("{\"format\":\"practice\",\"songs\":[".utf8).write(
      to: URL(fileURLWithPath: repo + "/" + file("Green")))
    try Data("{}".utf8).write(to: URL(fileURLWithPath: dir.file("outside.practice")))
    let gold = file("Gold")
    for i in songs.indices where songs[i]["title"] as? String == "Red" {
      songs[i]["file"] = "../outside.practice"
    }
    try Data(count: 40 * 1_048_576).write(to: URL(fileURLWithPath: repo + "/" + gold))
    index["songs"] = songs
    try JSONSerialization.data(withJSONObject: index).write(
      to: URL(fileURLWithPath: repo + "/index.json"))

    let server = try RepoServer(serving: repo, log: dir.file("requests.log"))
    _ = try member.run(["repo", "add", "band", server.url])
    let pulled = try member.run(["pull"])
    #expect(pulled.status == 65, "\(pulled.stderr)")
    let refused = pulled.stderrLines.filter { $0.contains("refused '") }
    #expect(refused.count == 3, "\(pulled.stderr)")
    #expect(
      refused.contains {
        $0.contains("'../outside.practice'") && $0.contains("leave the repository")
      })
    #expect(refused.contains { $0.contains(gold) && $0.contains("32 MiB limit") })
    #expect(refused.contains { $0.contains(file("Green")) && $0.contains("damaged") })
    #expect(pulled.stderrLines.last == "practice: 3 entries refused, 1 applied")
    #expect(!server.requests.contains { $0.contains("outside") })
    #expect(try beats(member, "Blue") == (try beats(leader, "Blue")))
    #expect(try beats(member, "Green").isEmpty && (try beats(member, "Red")).isEmpty)
    #expect(try beats(member, "Gold").isEmpty)
  }

  @Test func redirectsAreLimited() throws {
    try setUp(["Blue"])
    _ = try publish()
    let server = try RepoServer(serving: repo, log: dir.file("requests.log"))
    _ = try member.run(["repo", "add", "near", server.url + "/redirect/2"])
    _ = try member.run(["repo", "add", "far", server.url + "/redirect/7"])
    let near = try member.run(["pull", "near"])
    #expect(near.status == 0, "\(near.stderr)")
    let far = try member.run(["pull", "far"])
    #expect(far.status == 65 && far.stderr.contains("more than 5 redirects"), "\(far.stderr)")
    #expect(far.stderrLines.count == 1)
  }

  @Test func offlinePullSaysSoInOneLineAndChangesNothing() throws {
    try setUp()
    _ = try publish()
    _ = try member.run(["repo", "add", "band", "http://127.0.0.1:\(try unusedPort())/"])
    let before = try member.snapshot()
    let list = try member.run(["repo", "list"]).stdout
    let pulled = try member.run(["pull"])
    #expect(pulled.status == 69)
    #expect(pulled.stderrLines.count == 1 && pulled.stderr.contains("offline?"), "\(pulled.stderr)")
    #expect(try member.snapshot() == before && (try member.run(["repo", "list"]).stdout) == list)
    #expect(try beats(member, "Blue").isEmpty)
  }

  @Test func aFolderRepositoryIsReadDirectly() throws {
    try setUp()
    _ = try publish()
    _ = try member.run(["repo", "add", "band", "file://" + repo])
    let first = try member.run(["pull"])
    #expect(first.status == 0 && first.stderr.contains("3 entries applied"), "\(first.stderr)")
    #expect(
      try member.run(["pull"]).stderr.contains("index unchanged; 0 entries applied; 3 current"))
  }

  /// `render --bars` (as `play`) on a song without a map takes the repository's entry, from
  /// the index the last pull fetched, before it would detect one, and says so.
  @Test func barsWithoutAMapTakeTheRepositorysBeforeDetecting() throws {
    try setUp()
    _ = try publish()
    _ = try member.run(["repo", "add", "band", repo])
    // Pulled for Blue only: Green has no map here.
    #expect(try member.run(["pull", "band", "Blue"]).status == 0)
    #expect(try beats(member, "Green").isEmpty)
    let rendered = try member.run(["render", "Green", "--bars", "2", "-o", dir.file("bar2.wav")])
    #expect(rendered.status == 0, "\(rendered.stderr)")
    #expect(rendered.stderr.contains("'Green' had no beat map; took the one of repository 'band'"))
    #expect(!rendered.stderr.contains("detecting"))
    #expect(try beats(member, "Green") == (try beats(leader, "Green")))
    // Two seconds: bar 2 of a 120 BPM grid.
    #expect(try Synth.read(dir.file("bar2.wav")).samples.count == 88200)
  }

  /// A setlist is stored when all its songs are here; one changed here is kept until
  /// --replace; one naming a song this library lacks is left out with one line.
  @Test func setlistsArePulledWhenTheirSongsAreHere() throws {
    try setUp()
    for (name, songs) in [("Gig", ["Blue", "Red"]), ("Long", ["Green", "Gold"])] {
      _ = try leader.run(["setlist", "new", name])
      for song in songs { _ = try leader.run(["setlist", "add", name, song]) }
    }
    // Gold is only in the leader's library.
    let gold = dir.file("gold.wav")
    try Synth.write(
      Synth.sine(frequency: 500, seconds: 8, amplitude: 0.3), to: gold,
      tags: ("Gold", "The Band", ""))
    _ = try leader.run(["add", gold])
    _ = try leader.run(["setlist", "add", "Long", "Gold"])
    _ = try publish()
    _ = try member.run(["repo", "add", "band", repo])
    let pulled = try member.run(["pull"])
    #expect(pulled.status == 0, "\(pulled.stderr)")
    #expect(pulled.stderr.contains("setlists stored: 'Gig'"))
    #expect(pulled.stderr.contains("setlist 'Long' not stored: 1 song of it not in this library"))
    #expect(
      try member.run(["setlist", "show", "Gig"]).stdout
        == (try leader.run(["setlist", "show", "Gig"]).stdout))
    // Changed here, then by the leader: kept, then taken with --replace.
    _ = try member.run(["setlist", "add", "Gig", "Green"])
    _ = try leader.run(["setlist", "add", "Gig", "Blue", "--speed", "90%"])
    _ = try publish()
    let kept = try member.run(["pull"])
    #expect(kept.stderr.contains("'Gig' (setlist)"), "\(kept.stderr)")
    #expect(try member.run(["setlist", "show", "Gig"]).stdout.contains("Green"))
    #expect(try member.run(["pull", "--replace"]).status == 0)
    #expect(
      try member.run(["setlist", "show", "Gig"]).stdout
        == (try leader.run(["setlist", "show", "Gig"]).stdout))
  }

  /// A server whose certificate no authority signed is refused: TLS is verified.
  @Test func anUntrustedCertificateIsRefused() throws {
    try setUp(["Blue"])
    _ = try publish()
    let made = try runProgram(
      "/usr/bin/openssl",
      [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir.file("key.pem"), "-out",
        dir.file("cert.pem"), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
        "subjectAltName=IP:127.0.0.1",
      ], environment: ProcessInfo.processInfo.environment, directory: dir.path, scratch: dir.path)
    #expect(made.status == 0, "\(made.stderr)")
    let server = try RepoServer(
      serving: repo, log: dir.file("requests.log"), tls: (dir.file("cert.pem"), dir.file("key.pem"))
    )
    _ = try member.run(["repo", "add", "band", server.url])
    let before = try member.snapshot()
    let pulled = try member.run(["pull"])
    #expect(pulled.status == 1 && pulled.stderrLines.count == 1, "\(pulled.stderr)")
    #expect(pulled.stderr.contains("TLS failed") && pulled.stderr.contains("https://127.0.0.1"))
    #expect(try member.snapshot() == before && (try beats(member, "Blue")).isEmpty)
    #expect(server.requests.isEmpty)
  }
}
