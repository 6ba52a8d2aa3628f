import Foundation
import TestSupport
import Testing

/// `make install` puts the binary, practice(1) and the completions where `man` and the
/// shells look under a prefix; `make uninstall` takes exactly those away. The debug binary
/// is installed (BINARY=), so no release build is needed.
@Suite struct InstallTests {
  let dir = TemporaryDirectory()

  func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:])
    throws -> CommandResult
  {
    try runProgram(
      executable, arguments,
      environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
      directory: CLI.packageRoot, scratch: dir.path)
  }

  /// Every regular file under `root`, relative to it, sorted.
  func files(under root: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: root)
    var found: [String] = []
    while let next = enumerator?.nextObject() as? String {
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: root + "/" + next, isDirectory: &isDirectory),
        !isDirectory.boolValue
      {
        found.append(next)
      }
    }
    return found.sorted()
  }

  @Test func installPutsEverythingWhereManAndTheShellsFindItAndUninstallTakesItAway() throws {
    let destination = dir.file("root")
    let make = ["PREFIX=/usr/local", "DESTDIR=\(destination)", "BINARY=\(CLI.binary)"]
    let install = try run("/usr/bin/make", ["--no-print-directory", "install"] + make)
    #expect(install.status == 0, "\(install.stderr)")
    let prefix = destination + "/usr/local"
    #expect(
      files(under: prefix) == [
        "bin/practice", "share/bash-completion/completions/practice",
        "share/fish/vendor_completions.d/practice.fish", "share/man/man1/practice.1",
        "share/zsh/site-functions/_practice",
      ])
    #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/practice"))
    #expect(try run(prefix + "/bin/practice", ["--version"]).stdout == "0.1.0\n")

    // man finds the page under the prefix and renders every section.
    let page = try run(
      "/usr/bin/man", ["practice"],
      environment: ["MANPATH": prefix + "/share/man", "MANWIDTH": "100", "MANPAGER": "cat"])
    #expect(page.status == 0, "\(page.stderr)")
    for section in [
      "NAME", "SYNOPSIS", "DESCRIPTION", "KEYS", "ENVIRONMENT", "FILES", "EXIT STATUS",
    ] {
      #expect(page.stdout.contains("\n\(section)\n"), "no \(section) section")
    }
    for text in [
      "PRACTICE_DB", "XDG_DATA_HOME", "NO_COLOR", "PRACTICE_DEVICE", "PRACTICE_TRACE",
      "--speed", "--bars", "beats", "select", "Pause / resume", "← / →", "library.sqlite",
    ] {
      #expect(page.stdout.contains(text), "the page lacks \(text)")
    }
    #expect(page.stderr.isEmpty, "\(page.stderr)")
    // The exit codes of the design's table, each with its meaning.
    for code in ["0", "1", "64", "65", "66", "69", "73", "74", "75", "130"] {
      #expect(page.stdout.contains("\n     \(code) "), "no exit status \(code)")
    }

    // bash loads the completion and completes the verbs.
    let bash = try run(
      "/bin/bash",
      [
        "-c",
        #"source "$1"; complete -p practice >/dev/null && COMP_WORDS=(practice se) COMP_CWORD=1 "#
          + #"COMP_LINE="practice se" COMP_POINT=11 && "$(complete -p practice | sed -E 's/.*-F ([^ ]+).*/\1/')" "#
          + #"practice se practice && printf '%s\n' "${COMPREPLY[@]}""#,
        "bash", prefix + "/share/bash-completion/completions/practice",
      ])
    #expect(bash.status == 0, "\(bash.stderr)")
    #expect(bash.stdout.split(separator: "\n").contains("select"), "\(bash.stdout)")

    let uninstall = try run("/usr/bin/make", ["--no-print-directory", "uninstall"] + make)
    #expect(uninstall.status == 0, "\(uninstall.stderr)")
    #expect(files(under: destination).isEmpty)
  }

  /// `make man` was run after the commands or Manual.swift last changed: every option and
  /// command the binary has, and its extra sections, are in the committed page.
  @Test func theCommittedPageIsTheBinarys() throws {
    let page = try String(
      contentsOfFile: CLI.packageRoot + "/doc/practice.1", encoding: .utf8)
    let sections = try run(CLI.binary, ["--manual-sections"]).stdout
    let ascii = sections.unicodeScalars.map {
      $0.value < 128 ? String($0) : String(format: "\\[u%04X]", $0.value)
    }.joined()
    #expect(page.contains(ascii), "doc/practice.1 is stale: run `make man`")
    let help = try run(CLI.binary, ["--experimental-dump-help"]).stdout
    let tool = try #require(
      try JSONSerialization.jsonObject(with: Data(help.utf8)) as? [String: Any])
    var missing: [String] = []
    func walk(_ command: [String: Any]) {
      if let name = command["commandName"] as? String, !page.contains(".It Em \(name)"),
        name != "practice"
      {
        missing.append(name)
      }
      for argument in command["arguments"] as? [[String: Any]] ?? [] {
        guard argument["shouldDisplay"] as? Bool == true,
          let names = argument["names"] as? [[String: Any]],
          let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String
        else { continue }
        // `.It Fl -since Ar when`, or `.It Fl o , -output Ar out` with a short name.
        if !page.contains("Fl -\(long)") && !page.contains(", -\(long)") {
          missing.append("--\(long)")
        }
      }
      for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub) }
    }
    walk(try #require(tool["command"] as? [String: Any]))
    #expect(missing.isEmpty, "not in doc/practice.1 (run `make man`): \(missing)")
  }
}
