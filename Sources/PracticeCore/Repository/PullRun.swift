import Foundation

/// What a `pull` reaches: the repositories, and the songs of this library it applies to
/// (nil: every song).
public struct PullTargets: Sendable {
  public var repositories: [Repository]
  public var songIDs: Set<Int64>?

  public init(repositories: [Repository], songIDs: Set<Int64>?) {
    self.repositories = repositories
    self.songIDs = songIDs
  }
}

/// What a pull of several repositories came to, for its exit status.
public struct PullTally: Sendable, Equatable {
  /// Entries refused, and entries applied, over every repository.
  public var refused = 0
  public var applied = 0
  /// Repositories that could not be reached, or stopped answering half-way.
  public var unreachable = 0

  public init() {}
}

extension Library {
  /// What `names` asks to pull: a first name that is a repository's (any case) picks that
  /// one, and the names after it are songs (path, id or title); otherwise every repository,
  /// and every name is a song. No repositories at all: none, and no song is looked up.
  public func pullTargets(_ names: [String]) throws -> PullTargets {
    let all = try repositories()
    guard !all.isEmpty else { return PullTargets(repositories: [], songIDs: nil) }
    var repositories = all
    var songNames = names
    if let first = names.first,
      let named = all.first(where: { $0.name.lowercased() == first.lowercased() })
    {
      repositories = [named]
      songNames.removeFirst()
    }
    let songIDs = songNames.isEmpty ? nil : Set(try songNames.compactMap { try resolve($0).id })
    return PullTargets(repositories: repositories, songIDs: songIDs)
  }

  /// Pulls each of `targets`' repositories in turn (`pull(_:fetcher:songIDs:replace:)`),
  /// handing `each` its report, or the `FetchError` of one that is offline; the others are
  /// still tried. A single repository offline is thrown instead: there is nothing else to do.
  public func pull(
    _ targets: PullTargets, fetcher: HTTPFetcher, replace: Bool,
    each: (Repository, Result<PullReport, FetchError>) throws -> Void
  ) throws -> PullTally {
    var tally = PullTally()
    for repository in targets.repositories {
      let report: PullReport
      do {
        report = try pull(
          repository, fetcher: fetcher, songIDs: targets.songIDs, replace: replace)
      } catch let error as FetchError where error.category == .unavailable {
        if targets.repositories.count == 1 { throw error }
        tally.unreachable += 1
        try each(repository, .failure(error))
        continue
      }
      tally.refused += report.refused.count
      tally.applied += report.applied.count
      if report.unreachable != nil { tally.unreachable += 1 }
      try each(repository, .success(report))
    }
    return tally
  }
}
