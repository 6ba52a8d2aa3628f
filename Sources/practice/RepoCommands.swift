import ArgumentParser
import Foundation
import PracticeCore

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
  @Argument(help: ArgumentHelp("Songs to publish (path, id or title).", valueName: "song"))
  var songs: [String] = []
  @Option(
    help: ArgumentHelp("Publish this setlist and its songs (repeatable).", valueName: "setlist"))
  var setlist: [String] = []
  @Flag(help: "Publish every song and every setlist.") var all = false

  func validate() throws {
    if all && !(songs.isEmpty && setlist.isEmpty) {
      throw ValidationError("--all publishes everything; give it without songs or --setlist")
    }
    if !all && songs.isEmpty && setlist.isEmpty {
      throw ValidationError("say what to publish: songs, --setlist NAME, or --all")
    }
    if directory.isEmpty { throw ValidationError("the folder name is empty") }
  }

  func run() throws {
    let library = try library.open()
    let setlists = try all ? library.setlists() : setlist.map { try library.setlist(named: $0) }
    let chosen = try library.songs(
      all ? library.songs() : songs.map { try library.resolve($0) }, withThoseOf: setlists)
    let report = try library.publish(to: directory, songs: chosen, setlists: setlists)
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
    Table(
      columns: [
        Table.Column("NAME", cut: .end), Table.Column("URL", cut: .end), Table.Column("FETCHED"),
        Table.Column("SONGS", .right),
      ],
      rows: try library.open().repositories().map {
        [$0.name, $0.url, $0.fetchedAt ?? "never", "\($0.songsApplied)"]
      }
    ).print()
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
    let all = try library.repositories()
    guard !all.isEmpty else {
      throw PracticeError(
        .missingInput, "no repositories to pull; add one with `practice repo add NAME URL`")
    }
    var repositories = all
    var songArguments = names
    if let first = names.first,
      let named = all.first(where: { $0.name.lowercased() == first.lowercased() })
    {
      repositories = [named]
      songArguments.removeFirst()
    }
    let songIDs =
      songArguments.isEmpty ? nil : Set(try songArguments.compactMap { try library.resolve($0).id })
    let fetcher = HTTPFetcher()
    var unreachable: [FetchError] = []
    var refused = 0
    var applied = 0
    for repository in repositories {
      let report: PullReport
      do {
        report = try library.pull(repository, fetcher: fetcher, songIDs: songIDs, replace: replace)
      } catch let error as FetchError where error.category == .unavailable {
        // Offline: one line, nothing changed; the others are still tried.
        if repositories.count == 1 { throw error }
        Terminal.error("\(repository.name): \(error.description)")
        unreachable.append(error)
        continue
      }
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
        unreachable.append(error)
      }
      refused += report.refused.count
      applied += report.applied.count
    }
    if !unreachable.isEmpty {
      throw ExitCode(ExitStatus.code(for: .unavailable))
    }
    if refused > 0 {
      Terminal.error(
        "\(entries(refused)) refused, \(applied) applied"
      )
      throw ExitCode(ExitStatus.code(for: .badData))
    }
  }
}

/// `1 entry`, `3 entries`.
private func entries(_ count: Int) -> String { "\(count) \(count == 1 ? "entry" : "entries")" }
