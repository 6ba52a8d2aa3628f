import Foundation
import GRDB

/// The practice library: an SQLite database (through GRDB) of songs and, later, their
/// beat maps, selections and practice log. Holds paths and metadata, never audio.
public final class Library {
  public let path: String
  /// Whether this process made the file (there was none at `path` before).
  public let created: Bool
  private let db: DatabaseQueue

  /// `$PRACTICE_DB`, else `${XDG_DATA_HOME:-~/.local/share}/practice/library.sqlite`.
  public static func defaultPath(environment: [String: String]) -> String {
    if let path = environment["PRACTICE_DB"], !path.isEmpty { return path }
    let dataHome =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/share")
    return dataHome + "/practice/library.sqlite"
  }

  /// Opens (creating if needed) the library at `path` and brings its schema up to date.
  /// WAL mode and a busy timeout let several `practice` processes share it; the schema is
  /// checked and migrated inside one IMMEDIATE transaction, so processes starting together
  /// on a new library wait for each other instead of migrating twice. A database that is
  /// not practice's, or is from a newer practice, is refused and left untouched. A library
  /// that cannot be written (a read-only file) can still be read.
  public init(path: String, busyTimeout: TimeInterval = 5) throws {
    guard !path.isEmpty else {
      throw PracticeError(.usage, "the library path is empty", remedy: .nameTheLibrary)
    }
    self.path = path
    created = !FileManager.default.fileExists(atPath: path)
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw PracticeError(
        .cannotCreate,
        "cannot create the library directory '\(directory)': \(Library.reason(error))",
        remedy: .writableLibrary)
    }
    var config = Configuration()
    config.busyMode = .timeout(busyTimeout)
    config.foreignKeysEnabled = true
    do {
      db = try Library.open(path: path, configuration: config, busyTimeout: busyTimeout)
    } catch let error as DatabaseError
      where error.resultCode == .SQLITE_READONLY || error.resultCode == .SQLITE_CANTOPEN
    {
      // A WAL library is read through its -shm file, which SQLite must create when it is
      // missing; in a directory we cannot write, only an immutable reading is possible.
      let immutable: DatabaseQueue?
      do {
        immutable = try Library.openImmutable(path: path, configuration: config)
      } catch let failure {
        throw Library.translate(failure, path: path)
      }
      guard let immutable else { throw Library.translate(error, path: path) }
      db = immutable
    } catch {
      throw Library.translate(error, path: path)
    }
    OutputFile.protect(library: path)
  }

  /// Opens the library read-write (read-only if the file cannot be written) and brings its
  /// schema up to date.
  private static func open(path: String, configuration: Configuration, busyTimeout: TimeInterval)
    throws -> DatabaseQueue
  {
    let db = try DatabaseQueue(path: path, configuration: configuration)
    try db.writeWithoutTransaction { db in
      do {
        try db.inTransaction(.immediate) {
          try Migrations.bringUpToDate(db, path: path)
          return .commit
        }
      } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
        // A read-only library: readable if its schema is current (writes fail later, 73).
        try db.inTransaction(.deferred) {
          try Migrations.bringUpToDate(db, path: path)
          return .commit
        }
        return
      }
      try Library.useWAL(db, busyTimeout: busyTimeout)
    }
    return db
  }

  /// A library that exists, in a directory this process cannot write, with no -wal file
  /// beside it (everything is in the main file): opened read-only and `immutable` (SQLite's
  /// URI parameter: no locks and no -shm file), if its schema is current. Any write
  /// through it fails as read-only (73). Nil in every other case.
  private static func openImmutable(path: String, configuration: Configuration) throws
    -> DatabaseQueue?
  {
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    guard FileManager.default.fileExists(atPath: path),
      !FileManager.default.fileExists(atPath: path + "-wal"),
      access(directory, W_OK) != 0
    else { return nil }
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "/-._~")
    guard
      let escaped = URL(fileURLWithPath: path).path.addingPercentEncoding(
        withAllowedCharacters: allowed)
    else { return nil }
    var readOnly = configuration
    readOnly.readonly = true
    let db = try DatabaseQueue(path: "file:\(escaped)?immutable=1", configuration: readOnly)
    try db.read { db in try Migrations.bringUpToDate(db, path: path) }
    return db
  }

  /// Switches the journal to WAL (it stays so in the file). Taking the lock for that is not
  /// always covered by the busy handler, so a busy answer is retried until the timeout.
  private static func useWAL(_ db: Database, busyTimeout: TimeInterval) throws {
    let deadline = Date(timeIntervalSinceNow: busyTimeout)
    while true {
      do {
        let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        if mode?.lowercased() == "wal" || Date() > deadline { return }
      } catch let error as DatabaseError
        where (error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED)
        && Date() < deadline
      {
      }
      usleep(10_000)
    }
  }

  // MARK: Songs

  /// Every song, by id.
  public func songs() throws -> [Song] {
    try read { db in try Song.order(Song.CodingKeys.id).fetchAll(db) }
  }

  public func song(id: Int64) throws -> Song? {
    try read { db in try Song.fetchOne(db, key: id) }
  }

  /// The songs `text` names as a title, by id: those whose whole title it is, ignoring case
  /// (any script, not only ASCII); when none, those whose title holds it, ignoring case.
  public func songs(matchingTitle text: String) throws -> [Song] {
    Library.titleMatches(text, among: try songs())
  }

  /// The songs whose title is nearest `text` (fewest characters to change, ignoring case),
  /// when near enough to be a slip (at most a third of the title's characters): every song
  /// at that distance, by id, so that two equally near titles are both suggested.
  public func nearestTitles(to text: String) throws -> [Song] {
    var best: (songs: [Song], distance: Int)?
    let typed = Array(text.lowercased())
    for song in try songs() {
      let title = Array(song.title.lowercased())
      let distance = Nearest.editDistance(typed, title)
      guard distance <= max(1, title.count / 3) else { continue }
      if distance < best?.distance ?? .max {
        best = ([song], distance)
      } else if distance == best?.distance {
        best?.songs.append(song)
      }
    }
    return best?.songs ?? []
  }

  /// For each song of `songs` not already in the library before, the songs added before it
  /// (lower ids) with the same title, ignoring case: a title lookup cannot tell them apart.
  public func titleTwins(of songs: [Song], added: Added) throws -> [(song: Song, twins: [Song])] {
    let all = try self.songs()
    return songs.filter { !added.wasThere($0) }.compactMap { song in
      let twins = all.filter {
        ($0.id ?? 0) < (song.id ?? 0)
          && $0.title.compare(song.title, options: [.caseInsensitive]) == .orderedSame
      }
      return twins.isEmpty ? nil : (song, twins)
    }
  }

  /// Whole-title matches if there are any, else substring matches.
  static func titleMatches(_ text: String, among songs: [Song]) -> [Song] {
    guard !text.isEmpty else { return [] }
    let whole = songs.filter {
      $0.title.compare(text, options: [.caseInsensitive]) == .orderedSame
    }
    if !whole.isEmpty { return whole }
    return songs.filter { $0.title.range(of: text, options: [.caseInsensitive]) != nil }
  }

  /// Adds or refreshes songs in one transaction: all of them, or none on error.
  /// A path already in the library is updated; a new path whose content matches a song
  /// whose file has gone is taken as that song, moved.
  public func add(_ files: [ScannedFile], now: Date = Date()) throws -> [Song] {
    guard !files.isEmpty else { return [] }
    let timestamp = Library.timestamp(now)
    return try write { db in
      let byPath = try db.cachedStatement(sql: "SELECT * FROM song WHERE path = ?")
      let byContent = try db.cachedStatement(sql: "SELECT * FROM song WHERE content_hash = ?")
      return try files.map { file in
        if var song = try Song.fetchOne(byPath, arguments: [file.path]) {
          song.update(from: file, at: timestamp)
          try song.update(db)
          return song
        }
        let sameContent = try Song.fetchAll(byContent, arguments: [file.contentHash])
        if var moved = sameContent.first(where: {
          !FileManager.default.fileExists(atPath: PathBytes.usable($0.path))
        }
        ) {
          moved.update(from: file, at: timestamp)
          try moved.update(db)
          return moved
        }
        var song = Song(scanned: file, at: timestamp)
        try song.insert(db)
        return song
      }
    }
  }

  /// What adding files did: the songs in the targets' order, and which of them the library
  /// already held unchanged (not read, not written).
  public struct Added: Sendable {
    public var songs: [Song]
    /// Ids of the songs that were already in the library as they are.
    public var alreadyThere: Set<Int64>
    /// How many songs were already in the library unchanged.
    public var alreadyCount: Int { songs.filter { alreadyThere.contains($0.id ?? -1) }.count }
    /// How many songs were added or read again.
    public var addedCount: Int { songs.count - alreadyCount }
    public func wasThere(_ song: Song) -> Bool { alreadyThere.contains(song.id ?? -1) }
  }

  /// Adds the files `SongScanner.targets` found, as `practice add` does, and says what it
  /// did (`Added`). A file the library already holds at that path, with the
  /// size and modification time it was scanned with, is taken as it is: not read, not
  /// written, so adding a folder again reads no audio and changes nothing. The others are
  /// scanned and stored in one transaction. `progress` is told before each target is
  /// looked at, and `measuring` how far a file whose declared length did not hold has been
  /// decoded to count it (`SongScanner.scan`); `refuse` is given each file that cannot be read and is worth a line
  /// (`SongScanner.reportsFailure`), and may throw to stop before anything is stored.
  public func add(
    _ targets: [SongScanner.Target], now: Date = Date(),
    progress: (_ index: Int, _ target: SongScanner.Target) -> Void = { _, _ in },
    measuring: (_ index: Int, _ target: SongScanner.Target, _ fraction: Double) -> Void = {
      _, _, _ in
    },
    refuse: (_ target: SongScanner.Target, _ failure: any PracticeFailure) throws -> Void
  ) throws -> Added {
    let paths = targets.map { $0.path.isEmpty ? "" : SongScanner.absolutePath($0.path) }
    let known: [String: Song] = try read { db in
      let byPath = try db.cachedStatement(sql: "SELECT * FROM song WHERE path = ?")
      var known: [String: Song] = [:]
      for path in paths where !path.isEmpty && known[path] == nil {
        if let song = try Song.fetchOne(byPath, arguments: [path]) { known[path] = song }
      }
      return known
    }
    var songs = [Song?](repeating: nil, count: targets.count)
    var scanned: [(index: Int, file: ScannedFile)] = []
    var alreadyThere: Set<Int64> = []
    for (index, target) in targets.enumerated() {
      progress(index, target)
      if let song = known[paths[index]], let (size, modified) = try? SongScanner.stat(song.path),
        size == song.fileSize, modified == song.modifiedAt
      {
        songs[index] = song
        if let id = song.id { alreadyThere.insert(id) }
        continue
      }
      do {
        scanned.append(
          (index, try SongScanner.scan(target.path) { measuring(index, target, $0) }))
      } catch let failure as any PracticeFailure {
        if SongScanner.reportsFailure(of: target) { try refuse(target, failure) }
      }
    }
    for (stored, index) in zip(try add(scanned.map(\.file), now: now), scanned.map(\.index)) {
      songs[index] = stored
      // A file named twice, or read again, was not there as it is.
      if let id = stored.id { alreadyThere.remove(id) }
    }
    return Added(songs: songs.compactMap { $0 }, alreadyThere: alreadyThere)
  }

  /// Gives the song a title and an artist of the player's own (nil: leave it), kept when
  /// the file is scanned again; the song as stored.
  public func rename(_ song: Song, title: String?, artist: String?) throws -> Song {
    var named = song
    if let title { named.title = title }
    if let artist { named.artist = artist.isEmpty ? nil : artist }
    named.namedByHand = true
    try write { db in try named.update(db) }
    return named
  }

  /// What removing a song took with it, counted as it went (for the one line `rm` prints).
  public struct Removed: Sendable {
    public var beatMap = false
    public var selections = 0
    public var plays = 0
    /// The setlists that named the song, each with how many of its entries did.
    public var setlistEntries: [(name: String, entries: Int)] = []
  }

  /// Removes the song and everything stored for it (its beat map, selections, practice log
  /// and setlist entries go with it); never touches the audio file.
  @discardableResult
  public func remove(_ song: Song) throws -> Removed {
    guard let id = song.id else { return Removed() }
    return try write { db in
      var removed = Removed()
      removed.beatMap =
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM beat WHERE song_id = ?)", arguments: [id])
        ?? false
      removed.selections =
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM selection WHERE song_id = ?", arguments: [id])
        ?? 0
      removed.plays =
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM practice_log WHERE song_id = ?", arguments: [id])
        ?? 0
      removed.setlistEntries = try Row.fetchAll(
        db,
        sql: """
          SELECT s.name, COUNT(*) FROM setlist_entry e JOIN setlist s ON s.id = e.setlist_id
          WHERE e.song_id = ? GROUP BY s.id ORDER BY s.name
          """, arguments: [id]
      ).map { ($0[0], $0[1]) }
      try Song.deleteOne(db, key: id)
      return removed
    }
  }

  /// Finds the song a command-line SONG names: an existing file path (added on first
  /// use), a library id, or a title: the one song whose whole title it is, ignoring case,
  /// else the one song whose title holds it (several: exit 64 listing them). A song
  /// whose file changed since it was scanned is refreshed.
  public func resolve(_ reference: String) throws -> Song {
    guard !reference.isEmpty else {
      throw PracticeError(.usage, "the song is empty (''); give a file path, a song id or a title")
    }
    // A path through a directory that cannot be searched is not "no such file".
    var status = stat()
    let reachable = PathBytes.usable(reference)
    if stat(reachable, &status) != 0 && errno == EACCES { try SoundFile.checkReadable(reference) }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: reachable, isDirectory: &isDirectory) {
      if isDirectory.boolValue {
        throw AudioPathError.folder(path: reference)
      }
      let absolute = SongScanner.absolutePath(reference)
      let known = try read { db in
        try Song.fetchOne(db, sql: "SELECT * FROM song WHERE path = ?", arguments: [absolute])
      }
      if let known { return try refreshed(known) }
      let scanned = try SongScanner.scan(absolute)
      if addedOnFirstUse.isEmpty {
        songSequenceBeforeFirstUse = .some(
          try read { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'song'")
          })
      }
      let song = try add([scanned])[0]
      if let id = song.id { addedOnFirstUse.append(id) }
      return song
    }
    if let id = Int64(reference) {
      guard let song = try song(id: id) else {
        throw PracticeError(
          .missingInput, "no song with id \(id) in the library; `practice list` shows the ids")
      }
      return try refreshed(song)
    }
    let matches = try songs(matchingTitle: reference)
    switch matches.count {
    case 1:
      return try refreshed(matches[0])
    case 0:
      let looksLikePath =
        reference.contains("/")
        || OutputFormat.extensions.contains((reference as NSString).pathExtension.lowercased())
      if looksLikePath { throw AudioPathError.noSuchFile(path: reference) }
      let nearest = try nearestTitles(to: reference).prefix(3)
      throw PracticeError(
        .missingInput,
        "no song titled '\(reference)' and no such file; "
          + (nearest.isEmpty
            ? "`practice list` shows the library"
            : "did you mean "
              + nearest.map { "'\($0.title)' (id \($0.id ?? 0), \($0.fileKind))" }.joined(
                separator: " or ") + "?"))
    default:
      let shown = 10
      var listed = matches.prefix(shown).map { song in
        "\(song.id ?? 0) '\(song.title)'" + (song.artist.map { " by '\($0)'" } ?? "")
          + " (\(song.fileKind))"
      }.joined(separator: ", ")
      if matches.count > shown { listed += ", and \(matches.count - shown) more" }
      // More of the title cannot tell apart songs that share one.
      let shared = Set(matches.map { $0.title.lowercased() }).count < matches.count
      throw PracticeError(
        .usage,
        "'\(reference)' matches \(matches.count) songs: \(listed); give the id, or "
          + (shared
            ? "the file's path (a title of its own for one of them tells them apart)"
            : "more of the title")
      )
    }
  }

  /// Rescans the song's file if its size or modification time changed since the last scan.
  private func refreshed(_ song: Song) throws -> Song {
    guard FileManager.default.fileExists(atPath: PathBytes.usable(song.path)),
      let (size, modified) = try? SongScanner.stat(song.path),
      size != song.fileSize || modified != song.modifiedAt
    else { return song }
    let rescanned = try add([SongScanner.scan(song.path)])[0]
    if rescanned.id == song.id { refreshedOnUse.append(song) }
    return rescanned
  }

  /// Songs as they were before `resolve` rescanned their changed files, so that a command
  /// that then fails can put them back.
  private var refreshedOnUse: [Song] = []

  /// Songs `resolve` added on first use, so that a command that then fails can take them
  /// back and leave the library as it was.
  public private(set) var addedOnFirstUse: [Int64] = []
  /// The song table's id sequence before the first of them was added (inner nil: it had no
  /// row yet), put back when they are all taken back.
  private var songSequenceBeforeFirstUse: Int64?? = nil

  /// True when the library holds no song and no setlist (what a new one holds).
  public func isEmpty() throws -> Bool {
    try read { db in
      try Song.fetchCount(db) == 0
        && Int.fetchOne(db, sql: "SELECT count(*) FROM setlist") == 0
    }
  }

  /// Takes back what `resolve` did for a command that then failed: removes the songs it
  /// added (and, by cascade, whatever was stored for them since) and puts back the songs it
  /// rescanned as they were: all of them, or only `song`'s.
  public func undoFirstUse(of song: Song? = nil) throws {
    let ids = addedOnFirstUse.filter { song == nil || $0 == song?.id }
    let rescans = refreshedOnUse.filter { song == nil || $0.id == song?.id }
    guard !ids.isEmpty || !rescans.isEmpty else { return }
    refreshedOnUse.removeAll { song == nil || $0.id == song?.id }
    _ = try write { db in
      // Rescanned songs as they were, latest scan undone first.
      for old in rescans.reversed() { try old.update(db) }
      try Song.deleteAll(db, keys: ids)
      // The ids go back too: the next song added gets the id this one had, and the
      // sequence is as it was (no row at all in a library that never held a song).
      if ids.count == addedOnFirstUse.count, let before = songSequenceBeforeFirstUse {
        if let seq = before {
          try db.execute(
            sql: "UPDATE sqlite_sequence SET seq = ? WHERE name = 'song'", arguments: [seq])
        } else {
          try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = 'song'")
        }
      } else {
        try db.execute(
          sql: """
            UPDATE sqlite_sequence SET seq = (SELECT coalesce(max(id), 0) FROM song)
            WHERE name = 'song'
            """)
      }
    }
    addedOnFirstUse.removeAll { ids.contains($0) }
    if addedOnFirstUse.isEmpty { songSequenceBeforeFirstUse = nil }
  }

  // MARK: Access with errors translated

  func read<T>(_ body: (Database) throws -> T) throws -> T {
    do { return try db.read(body) } catch { throw Library.translate(error, path: path) }
  }

  func write<T>(_ body: (Database) throws -> T) throws -> T {
    do { return try db.write(body) } catch { throw Library.translate(error, path: path) }
  }

  /// Turns a GRDB/SQLite error into a one-line error with a category and advice.
  static func translate(_ error: any Error, path: String) -> any Error {
    if error is any PracticeFailure { return error }
    guard let dbError = error as? DatabaseError else { return error }
    let detail =
      "SQLite error \(dbError.extendedResultCode.rawValue): \(dbError.message ?? "unknown")"
    switch dbError.resultCode {
    case .SQLITE_BUSY, .SQLITE_LOCKED:
      return PracticeError(
        .busy, "the library '\(path)' is busy (\(detail)); another practice is writing, retry later"
      )
    case .SQLITE_NOTADB, .SQLITE_CORRUPT:
      return PracticeError(
        .badData,
        "'\(path)' is not a practice library (\(detail)); move it away", remedy: .anotherLibrary)
    case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM:
      return PracticeError(
        .cannotCreate,
        "cannot open the library '\(path)' for writing (\(detail))", remedy: .writableLibrary)
    case .SQLITE_FULL, .SQLITE_IOERR:
      return PracticeError(.io, "cannot write the library '\(path)' (\(detail)); check the disk")
    default:
      return PracticeError(.other, "library '\(path)': \(detail)")
    }
  }

  private static func reason(_ error: any Error) -> String {
    (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
  }

  /// `2026-11-22T07:40:00Z` (UTC, whole seconds; sorts as text). Formatted with the C
  /// library rather than Foundation's formatters, which load ICU (megabytes of memory for
  /// every `play`, which logs).
  static func timestamp(_ date: Date) -> String {
    // Clamped to years 1-9999 so that no date can trap the conversion.
    let interval = date.timeIntervalSince1970
    var seconds = time_t(
      interval.isFinite ? min(max(interval, -62_135_596_800), 253_402_300_799).rounded(.down) : 0)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    return String(
      format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
  }

  /// The date a `timestamp` stands for (the epoch if it is not one).
  static func date(_ timestamp: String) -> Date {
    let fields = timestamp.split(whereSeparator: { !$0.isNumber }).compactMap { Int32($0) }
    guard fields.count == 6 else { return Date(timeIntervalSince1970: 0) }
    var parts = tm()
    parts.tm_year = fields[0] - 1900
    parts.tm_mon = fields[1] - 1
    parts.tm_mday = fields[2]
    parts.tm_hour = fields[3]
    parts.tm_min = fields[4]
    parts.tm_sec = fields[5]
    return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
  }
}

extension Song {
  init(scanned file: ScannedFile, at timestamp: String) {
    self.init(
      id: nil, path: file.path, contentHash: "", fileSize: 0, modifiedAt: 0, frames: 0,
      sampleRate: 1, channels: 1, format: "", duration: 0, title: "", artist: nil, album: nil,
      addedAt: timestamp, updatedAt: timestamp)
    update(from: file, at: timestamp)
  }

  /// Takes every scanned field; keeps the id and the time it was first added.
  mutating func update(from file: ScannedFile, at timestamp: String) {
    path = file.path
    contentHash = file.contentHash
    fileSize = file.fileSize
    modifiedAt = file.modifiedAt
    frames = file.info.frames
    sampleRate = file.info.sampleRate
    channels = file.info.channels
    format = file.info.formatName
    duration = file.info.duration
    if !namedByHand {
      title =
        file.info.title
        ?? ((file.path as NSString).lastPathComponent as NSString)
        .deletingPathExtension
      artist = file.info.artist
    }
    album = file.info.album
    updatedAt = timestamp
  }

  /// Opens the song's audio to play it, with a message that says what to do if the file
  /// has gone or holds no audio.
  public func openAudio() throws -> SoundFile {
    guard FileManager.default.fileExists(atPath: PathBytes.usable(path)) else {
      throw PracticeError(
        .missingInput,
        "the file of song \(id ?? 0) '\(title)' is missing: \(path); "
          + "if it moved, `practice add NEWPATH` finds the song again")
    }
    let file = try SoundFile(path: path)
    // The length measured when the song was added: what decodes, not what a header says.
    try file.trustDecodedLength(frames)
    guard file.info.frames > 0 else { throw holdsNoAudio }
    return file
  }

  /// The refusal of a song whose file decodes to no audio (a header and no frames): a song,
  /// but nothing to play, draw or detect in (exit 65).
  public var holdsNoAudio: PracticeError {
    PracticeError(.badData, "'\(path)' holds no audio (0 frames); check the file or export it again")
  }
}
