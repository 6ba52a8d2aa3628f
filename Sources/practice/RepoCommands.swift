import ArgumentParser
import Foundation
import PracticeCore
import PracticeTerminal

struct RepoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "repo",
    abstract: "A band's or teacher's repository: publish to a folder, subscribe to one, pull.",
    discussion: """
      A repository is a folder of .practice files, one per song and per setlist, and an \
      index.json saying what each holds and its version. Any static web server, git or a \
      synced folder can carry it; practice runs no server. `practice pull` fetches the \
      index with a conditional request and then only the entries that changed.
      """,
    subcommands: [RepoPublish.self, RepoAdd.self, RepoList.self, RepoRemove.self])
}

struct RepoPublish: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "publish",
    abstract:
      "Write or update a repository in a folder: one .practice file per song and setlist, and index.json.",
    discussion: """
      Each file is written under a temporary name and renamed, index.json last, so a reader \
      sees the old repository or the new one. Publishing again rewrites only the entries \
      whose content changed, and keeps the index's other entries.
      """)

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("The repository's folder (made if missing).", valueName: "dir"))
  var directory: String
  @OptionGroup var choice: ShareChoice<Publishing>

  func validate() throws {
    try choice.check()
    if directory.isEmpty { throw ValidationError("the folder name is empty") }
  }

  func run() throws {
    let library = try library.open()
    let (songs, setlists) = try choice.resolve(in: library)
    let report = try library.publish(to: directory, songs: songs, setlists: setlists)
    Terminal.records(report.written.map { [$0] })
    Terminal.say(
      "published \(counted(report.songs, "song")) and \(counted(report.setlists, "setlist")) to "
        + "\(directory): \(counted(report.written.count, "file")) written, \(report.unchanged) unchanged; "
        + (report.indexWritten ? "index.json written" : "index.json unchanged"))
  }
}

struct RepoAdd: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract: "Subscribe to a repository: a name and its URL (http, https, file://) or folder.",
    discussion: "Nothing is fetched until `practice pull`.")

  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("A name for it (band, teacher).", valueName: "name")) var name:
    String
  @Argument(help: ArgumentHelp("Its URL or folder.", valueName: "url")) var url: String

  func validate() throws { try refuseTypedText("the repository name", [name]) }

  func run() throws {
    let added = try library.open().addRepository(name: name, url: url)
    Terminal.say(
      "added repository '\(added.name)' at \(added.url); fetch it with `practice pull \(added.name)`"
    )
  }
}

struct RepoList: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract:
      "List repositories: name, URL, last fetched, songs applied (tab-separated when piped).")
  @OptionGroup var library: LibraryOptions

  func run() throws {
    Table.repositories(try library.open().repositories().map(\.listCells)).print()
  }
}

struct RepoRemove: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rm",
    abstract: "Unsubscribe from a repository (the songs keep what was pulled).")
  @OptionGroup var library: LibraryOptions
  @Argument(help: ArgumentHelp("The repository's name.", valueName: "name")) var name: String

  func run() throws {
    let removed = try library.open().removeRepository(named: name)
    Terminal.say("removed repository '\(removed.name)'; its songs keep what was pulled")
  }
}

struct Pull: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pull",
    abstract: "Fetch what changed in repositories and apply it to this library's songs.",
    discussion: """
      NAME pulls one repository (default: all of them); SONG… only those songs. The index is \
      fetched with a conditional request (an unchanged repository answers 304), then only \
      the entries whose version changed, for songs in this library (found as `import` finds \
      them). Each entry is applied with import's rules, all or nothing. A beat map, \
      selections or chord track edited here since the last pull are kept (one line says so; \
      --replace takes the repository's); a detected map or chord track is replaced by the \
      repository's. Setlists \
      whose songs are all here are stored (one changed here is kept likewise). A bad \
      entry is refused with one line and the rest still apply (exit 65). Offline, pull \
      says so and changes nothing (exit 69).
      """)

  @OptionGroup var library: LibraryOptions
  @Argument(
    help: ArgumentHelp(
      "A repository's name, then songs (path, id or title); none: every repository, every song.",
      valueName: "name-or-song"))
  var names: [String] = []
  @Flag(help: "Take the repository's beat maps, selections and setlists even where edited here.")
  var replace = false

  func run() throws {
    let library = try library.open()
    let targets = try library.pullTargets(names)
    guard !targets.repositories.isEmpty else {
      throw PracticeError(
        .missingInput, "no repositories to pull; add one with `practice repo add NAME URL`")
    }
    let tally = try library.pull(targets, fetcher: HTTPFetcher(), replace: replace) {
      repository, result in
      switch result {
      // Offline: one line, nothing changed; the others are still tried.
      case .failure(let error): Terminal.error("\(repository.name): \(error.description)")
      case .success(let report): Pull.say(report, of: repository)
      }
    }
    if tally.unreachable > 0 {
      throw ExitCode(ExitStatus.code(for: .unavailable))
    }
    if tally.refused > 0 {
      Terminal.error(
        "\(entryCount(tally.refused)) refused, \(tally.applied) applied"
      )
      throw ExitCode(ExitStatus.code(for: .badData))
    }
  }

  /// What one repository's pull did: refused entries, kept edits and incomplete setlists,
  /// then the summary line, and the error that stopped it half-way.
  private static func say(_ report: PullReport, of repository: Repository) {
    for (file, reason) in report.refused {
      Terminal.error("\(repository.name): refused '\(file)': \(reason)")
    }
    if !report.kept.isEmpty {
      let kept = report.kept.prefix(5).map { "'\($0.title)' (\($0.what))" }.joined(
        separator: ", ")
      let more = report.kept.count > 5 ? " and \(report.kept.count - 5) more" : ""
      Terminal.say(
        "\(repository.name): kept what was edited here since the last pull: \(kept)\(more); "
          + "--replace takes the repository's")
    }
    for (name, missing) in report.setlistsIncomplete {
      Terminal.warning(
        "\(repository.name): setlist '\(name)' not stored: \(counted(missing, "song")) of it "
          + "not in this library; add them and pull again")
    }
    Terminal.say("pulled '\(repository.name)': " + report.summary)
    if let error = report.unreachable {
      Terminal.error("\(repository.name): \(error.description)")
    }
  }
}

