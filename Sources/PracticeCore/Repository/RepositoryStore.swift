import Foundation
import GRDB

/// A repository this library pulls from (`repo add`).
public struct Repository: Sendable, Equatable {
  public var id: Int64
  public var name: String
  /// http(s) URL, `file://` URL or absolute path of the repository's folder.
  public var url: String
  /// When its index was last fetched (UTC, ISO 8601); nil before the first pull.
  public var fetchedAt: String?
  /// Songs of this library the last pulls applied an entry to.
  public var songsApplied: Int
}

extension Library {
  /// Records a repository to pull from; `url` is http(s), `file://` or a path (made
  /// absolute against `directory`). Nothing is fetched.
  public func addRepository(
    name: String, url: String, directory: String = FileManager.default.currentDirectoryPath,
    now: Date = Date()
  ) throws -> Repository {
    let lower = url.lowercased()
    var location = url
    if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
      guard let parsed = URL(string: url), let host = parsed.host, !host.isEmpty else {
        throw PracticeError(
          .usage, "'\(url)' is not a URL; give http(s)://HOST/PATH, file:///PATH or a folder")
      }
    } else if lower.hasPrefix("file:") {
      guard HTTPFetcher.localPath(url) != nil else {
        throw PracticeError(.usage, "'\(url)' names another host; give file:///PATH or a folder")
      }
    } else if lower.contains("://") {
      throw PracticeError(.usage, "'\(url)': only http, https and file URLs are read")
    } else if !url.hasPrefix("/") {
      location =
        URL(fileURLWithPath: url, relativeTo: URL(fileURLWithPath: directory + "/"))
        .standardizedFileURL.path
    }
    if let problem = Selection.typedTextProblem(location) {
      throw PracticeError(.usage, "the repository's URL \(problem)")
    }
    let timestamp = Library.timestamp(now)
    return try write { db in
      if try Bool.fetchOne(
        db, sql: "SELECT EXISTS (SELECT 1 FROM repository WHERE name = ?)", arguments: [name])
        == true
      {
        throw PracticeError(
          .usage,
          "there is already a repository named '\(name)'; remove it first (repo rm) or pick another name"
        )
      }
      try db.execute(
        sql: "INSERT INTO repository (name, url, added_at) VALUES (?, ?, ?)",
        arguments: [name, location, timestamp])
      return Repository(
        id: db.lastInsertedRowID, name: name, url: location, fetchedAt: nil, songsApplied: 0)
    }
  }

  /// The repositories, by name.
  public func repositories() throws -> [Repository] {
    try read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT r.id, r.name, r.url, r.fetched_at,
            (SELECT count(*) FROM repository_song s WHERE s.repository_id = r.id) AS applied
          FROM repository r ORDER BY r.name
          """
      ).map {
        Repository(
          id: $0["id"], name: $0["name"], url: $0["url"], fetchedAt: $0["fetched_at"],
          songsApplied: $0["applied"])
      }
    }
  }

  /// The repository of that name (any case); exit 66 listing the names when there is none.
  public func repository(named name: String) throws -> Repository {
    let all = try repositories()
    if let found = all.first(where: { $0.name.lowercased() == name.lowercased() }) { return found }
    let known =
      all.isEmpty
      ? "there are none; add one with `practice repo add NAME URL`"
      : "the repositories are " + all.map { "'\($0.name)'" }.joined(separator: ", ")
    throw PracticeError(.missingInput, "no repository named '\(name)'; \(known)")
  }

  /// Forgets a repository and what was pulled from it (the songs keep what was applied).
  public func removeRepository(named name: String) throws -> Repository {
    let repository = try self.repository(named: name)
    try write { db in
      try db.execute(sql: "DELETE FROM repository WHERE id = ?", arguments: [repository.id])
    }
    return repository
  }
}
