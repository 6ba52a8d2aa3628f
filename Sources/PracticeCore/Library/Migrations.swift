import GRDB

/// The schema, as append-only migrations: never edit one that has shipped; add another.
/// They are recorded in GRDB's `grdb_migrations` table, as `DatabaseMigrator` did.
enum Migrations {
  /// Every migration, in order: its identifier and its body.
  static let all: [(identifier: String, body: @Sendable (Database) throws -> Void)] = {
    var migrator = Registry()
    migrator.registerMigration("v1-songs") { db in
      // Beat maps, selections and the practice log arrive in later migrations, each
      // referencing song(id) with ON DELETE CASCADE.
      try db.execute(
        sql: """
          CREATE TABLE song (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            path TEXT NOT NULL UNIQUE,
            content_hash TEXT NOT NULL,
            file_size INTEGER NOT NULL,
            modified_at DOUBLE NOT NULL,
            frames INTEGER NOT NULL CHECK (frames >= 0),
            sample_rate INTEGER NOT NULL CHECK (sample_rate > 0),
            channels INTEGER NOT NULL CHECK (channels > 0),
            format TEXT NOT NULL,
            duration DOUBLE NOT NULL,
            title TEXT NOT NULL,
            artist TEXT,
            album TEXT,
            added_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
          );
          CREATE INDEX song_content_hash ON song(content_hash);
          CREATE INDEX song_title ON song(title COLLATE NOCASE);
          """)
    }
    migrator.registerMigration("v2-beat-maps") { db in
      // One row per beat; a song's beat map is replaced whole, in one transaction.
      try db.execute(
        sql: """
          CREATE TABLE beat (
            song_id INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
            frame INTEGER NOT NULL CHECK (frame >= 0),
            bar INTEGER NOT NULL CHECK (bar >= 0),
            beat INTEGER NOT NULL CHECK (beat >= 1),
            source TEXT NOT NULL CHECK (source IN ('imported', 'grid', 'detected', 'tapped')),
            PRIMARY KEY (song_id, frame)
          ) WITHOUT ROWID;
          """)
    }
    migrator.registerMigration("v3-selections") { db in
      // A selection is stored in bars when made from bars (so it follows the beat map),
      // else in frames; exactly one of the two is set.
      try db.execute(
        sql: """
          CREATE TABLE selection (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            song_id INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
            name TEXT NOT NULL COLLATE NOCASE,
            bars TEXT,
            start_frame INTEGER,
            end_frame INTEGER,
            note TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (song_id, name),
            CHECK ((bars IS NOT NULL AND start_frame IS NULL AND end_frame IS NULL)
              OR (bars IS NULL AND start_frame IS NOT NULL AND end_frame > start_frame))
          );
          """)
    }
    migrator.registerMigration("v4-practice-log") { db in
      // One row per play, written when it ends however it ends. The selection's name is
      // kept too, so the log still reads right after the selection is removed.
      try db.execute(
        sql: """
          CREATE TABLE practice_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            song_id INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
            selection_id INTEGER REFERENCES selection(id) ON DELETE SET NULL,
            selection_name TEXT,
            bars TEXT,
            start_frame INTEGER NOT NULL CHECK (start_frame >= 0),
            end_frame INTEGER NOT NULL CHECK (end_frame >= start_frame),
            speed_min DOUBLE NOT NULL CHECK (speed_min > 0),
            speed_max DOUBLE NOT NULL CHECK (speed_max >= speed_min),
            passes INTEGER NOT NULL CHECK (passes >= 0),
            started_at TEXT NOT NULL,
            ended_at TEXT NOT NULL,
            duration DOUBLE NOT NULL CHECK (duration >= 0),
            outcome TEXT NOT NULL
              CHECK (outcome IN ('completed', 'stopped', 'interrupted', 'failed'))
          );
          CREATE INDEX practice_log_song_time ON practice_log(song_id, started_at);
          CREATE INDEX practice_log_time ON practice_log(started_at);
          """)
    }
    migrator.registerMigration("v5-beat-confidence") { db in
      // How sure beat detection was of each beat, 0-1; NULL for beats it did not find.
      try db.execute(sql: "ALTER TABLE beat ADD COLUMN confidence REAL")
    }
    migrator.registerMigration("v6-waveform-summaries") { db in
      // One loudness envelope per song (WaveformSummary), for `view`: valid while the
      // song's content hash and the coding are the ones it was computed for.
      try db.execute(
        sql: """
          CREATE TABLE waveform_summary (
            song_id INTEGER PRIMARY KEY REFERENCES song(id) ON DELETE CASCADE,
            content_hash TEXT NOT NULL,
            coding TEXT NOT NULL,
            sample_rate INTEGER NOT NULL CHECK (sample_rate > 0),
            frames INTEGER NOT NULL CHECK (frames >= 0),
            bin_frames INTEGER NOT NULL CHECK (bin_frames > 0),
            envelope BLOB NOT NULL,
            computed_at TEXT NOT NULL
          );
          """)
    }
    migrator.registerMigration("v7-practice-state") { db in
      // How each selection is practised (every setting optional: NULL is "not set") and its
      // goal; where each song's last play stopped (`sequence` orders them within a second); and each pass of a play, with its speed
      // and the player's mark (NULL: not marked). A play's `duration` is from now on the time
      // heard; `played` is the audio it produced (NULL in older rows).
      try db.execute(
        sql: """
          CREATE TABLE selection_practice (
            selection_id INTEGER PRIMARY KEY REFERENCES selection(id) ON DELETE CASCADE,
            speed DOUBLE,
            ramp_to DOUBLE,
            step DOUBLE,
            every INTEGER,
            count_in INTEGER,
            click INTEGER,
            gap TEXT,
            transpose DOUBLE,
            volume DOUBLE,
            goal_speed DOUBLE CHECK (goal_speed > 0),
            goal_bpm DOUBLE CHECK (goal_bpm > 0),
            CHECK (goal_speed IS NULL OR goal_bpm IS NULL)
          );
          CREATE TABLE resume_point (
            song_id INTEGER PRIMARY KEY REFERENCES song(id) ON DELETE CASCADE,
            frame INTEGER NOT NULL CHECK (frame >= 0),
            start_frame INTEGER NOT NULL CHECK (start_frame >= 0),
            end_frame INTEGER NOT NULL CHECK (end_frame > start_frame),
            label TEXT,
            bars TEXT,
            selection_name TEXT,
            passes_left INTEGER CHECK (passes_left >= 1),
            speed DOUBLE NOT NULL CHECK (speed > 0),
            transpose DOUBLE NOT NULL,
            volume DOUBLE NOT NULL CHECK (volume >= 0),
            finished INTEGER NOT NULL,
            stopped_at TEXT NOT NULL,
            sequence INTEGER NOT NULL
          );
          CREATE INDEX resume_point_sequence ON resume_point(sequence);
          ALTER TABLE practice_log ADD COLUMN played DOUBLE CHECK (played >= 0);
          CREATE TABLE practice_pass (
            log_id INTEGER NOT NULL REFERENCES practice_log(id) ON DELETE CASCADE,
            pass INTEGER NOT NULL CHECK (pass >= 1),
            speed DOUBLE NOT NULL CHECK (speed > 0),
            mark TEXT CHECK (mark IN ('clean', 'flubbed')),
            PRIMARY KEY (log_id, pass)
          ) WITHOUT ROWID;
          """)
    }
    migrator.registerMigration("v8-setlists") { db in
      // What a band writes beside a song (key, tempo, notes, tags), and setlists: ordered
      // entries, each a song (optionally one selection) with overrides for that setlist only.
      // Positions order the entries (a removed song may leave a gap); they are shown as 1...n.
      try db.execute(
        sql: """
          CREATE TABLE song_detail (
            song_id INTEGER PRIMARY KEY REFERENCES song(id) ON DELETE CASCADE,
            key TEXT,
            bpm DOUBLE CHECK (bpm IS NULL OR bpm > 0),
            note TEXT
          );
          CREATE TABLE song_tag (
            song_id INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
            tag TEXT NOT NULL COLLATE NOCASE,
            PRIMARY KEY (song_id, tag)
          ) WITHOUT ROWID;
          CREATE INDEX song_tag_tag ON song_tag(tag);
          CREATE TABLE setlist (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
          );
          CREATE TABLE setlist_entry (
            setlist_id INTEGER NOT NULL REFERENCES setlist(id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 1),
            song_id INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
            selection_name TEXT,
            key TEXT,
            transpose INTEGER,
            speed DOUBLE CHECK (speed IS NULL OR speed > 0),
            repeats INTEGER CHECK (repeats IS NULL OR repeats >= 1),
            note TEXT,
            PRIMARY KEY (setlist_id, position)
          ) WITHOUT ROWID;
          CREATE INDEX setlist_entry_song ON setlist_entry(song_id);
          """)
    }
    migrator.registerMigration("v9-log-transpose") { db in
      // The transpose each play was made at, in semitones (0 when none; NULL in older rows).
      try db.execute(sql: "ALTER TABLE practice_log ADD COLUMN transpose DOUBLE")
    }
    migrator.registerMigration("v10-beat-map-history") { db in
      // The maps a song had before each change to its beat map (a few deep, newest last), so
      // `beats undo` can bring the last one back: what replaced it (as the user would name
      // it) and the kind of change, which says how selections followed it. A map with no
      // beats stands for "the song had none".
      try db.execute(
        sql: """
          CREATE TABLE beat_map_history (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            song_id INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
            saved_at TEXT NOT NULL,
            replaced_by TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('replaced', 'moved', 'recounted'))
          );
          CREATE INDEX beat_map_history_song ON beat_map_history(song_id, id);
          CREATE TABLE beat_map_history_beat (
            map_id INTEGER NOT NULL REFERENCES beat_map_history(id) ON DELETE CASCADE,
            frame INTEGER NOT NULL CHECK (frame >= 0),
            bar INTEGER NOT NULL CHECK (bar >= 0),
            beat INTEGER NOT NULL CHECK (beat >= 1),
            source TEXT NOT NULL CHECK (source IN ('imported', 'grid', 'detected', 'tapped')),
            confidence REAL,
            PRIMARY KEY (map_id, frame)
          ) WITHOUT ROWID;
          """)
    }
    migrator.registerMigration("v11-band-repositories") { db in
      // Repositories `pull` reads (`repo add`): the last index fetched, with the validators
      // to ask for it conditionally. Per song and repository, the entry version last applied
      // and fingerprints of the song's beat map and selections just after: a song whose
      // fingerprint differs now was edited in this library since that pull. The same per
      // setlist (by name) with a fingerprint of its entries.
      try db.execute(
        sql: """
          CREATE TABLE repository (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE,
            url TEXT NOT NULL,
            etag TEXT,
            last_modified TEXT,
            index_body BLOB,
            fetched_at TEXT,
            added_at TEXT NOT NULL
          );
          CREATE TABLE repository_song (
            repository_id INTEGER NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
            song_id INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
            version TEXT NOT NULL,
            map_fingerprint TEXT,
            selections_fingerprint TEXT,
            applied_at TEXT NOT NULL,
            PRIMARY KEY (repository_id, song_id)
          ) WITHOUT ROWID;
          CREATE INDEX repository_song_song ON repository_song(song_id);
          CREATE TABLE repository_setlist (
            repository_id INTEGER NOT NULL REFERENCES repository(id) ON DELETE CASCADE,
            name TEXT NOT NULL COLLATE NOCASE,
            version TEXT NOT NULL,
            fingerprint TEXT,
            applied_at TEXT NOT NULL,
            PRIMARY KEY (repository_id, name)
          ) WITHOUT ROWID;
          """)
    }
    migrator.registerMigration("v12-chord-track") { db in
      // A song's chords (issue 44): consecutive spans in source frames, each a Harte label
      // (`C:maj`, `A:min7/b3`, `N`), and the track's source and detected key. The key set
      // with `set --key` (song_detail) stays apart and wins where it is shown.
      try db.execute(
        sql: """
          CREATE TABLE chord_track (
            song_id INTEGER PRIMARY KEY REFERENCES song(id) ON DELETE CASCADE,
            source TEXT NOT NULL CHECK (source IN ('detected', 'imported')),
            detected_key TEXT,
            tuning_cents DOUBLE,
            on_beats INTEGER NOT NULL DEFAULT 0,
            updated_at TEXT NOT NULL
          );
          CREATE TABLE chord (
            song_id INTEGER NOT NULL REFERENCES chord_track(song_id) ON DELETE CASCADE,
            start_frame INTEGER NOT NULL CHECK (start_frame >= 0),
            end_frame INTEGER NOT NULL,
            label TEXT NOT NULL,
            PRIMARY KEY (song_id, start_frame),
            CHECK (end_frame > start_frame)
          ) WITHOUT ROWID;
          """)
    }
    migrator.registerMigration("v13-selection-passes") { db in
      // How many passes a selection plays (`select set --repeat N`), 0 for `--loop`; NULL:
      // not set (a drill then plays up to its target, anything else once).
      try db.execute(
        sql: """
          ALTER TABLE selection_practice ADD COLUMN passes INTEGER
            CHECK (passes IS NULL OR passes BETWEEN 0 AND 9999)
          """)
    }
    migrator.registerMigration("v14-song-named-by-hand") { db in
      // 1: the title and artist were set with `practice set --title/--artist`, and a rescan
      // of the file's tags keeps them.
      try db.execute(
        sql: "ALTER TABLE song ADD COLUMN named_by_hand BOOLEAN NOT NULL DEFAULT 0")
    }
    migrator.registerMigration("v15-repository-chords") { db in
      // A fingerprint of the song's chord track just after each pull, as for its map and
      // selections: a track whose fingerprint differs now was edited here since (issue 45).
      // NULL for songs pulled before: a hand-made track they have counts as edited here.
      try db.execute(sql: "ALTER TABLE repository_song ADD COLUMN chords_fingerprint TEXT")
    }
    migrator.registerMigration("v16-beat-map-redo") { db in
      // 1: a map `beats undo` took away, kept so `beats redo` can bring it back (its
      // replaced_by and kind are the change undone); a new change to the map drops these.
      try db.execute(
        sql: "ALTER TABLE beat_map_history ADD COLUMN redo BOOLEAN NOT NULL DEFAULT 0")
    }
    migrator.registerMigration("v17-beat-interval") { db in
      // The median interval between a song's beats in frames (NULL: fewer than two beats),
      // stored with its map (`BeatInserter`) and filled here from the beats of each map:
      // `list` shows a map's tempo from it instead of reading every beat of every map.
      try db.execute(sql: "ALTER TABLE song ADD COLUMN beat_interval DOUBLE")
      let inserter = try BeatInserter(db)
      let frames = try db.makeStatement(
        sql: "SELECT frame FROM beat WHERE song_id = ? ORDER BY frame")
      for song in try Int64.fetchAll(db, sql: "SELECT DISTINCT song_id FROM beat") {
        let interval = BeatMap.medianInterval(
          frames: try Int64.fetchAll(frames, arguments: [song]))
        try inserter.storeInterval(interval, song: song)
      }
    }
    return migrator.migrations
  }()

  /// The tables the migrations create (besides GRDB's `grdb_migrations`).
  static let tables: Set<String> = [
    "song", "beat", "selection", "practice_log", "waveform_summary", "selection_practice",
    "resume_point", "practice_pass", "song_detail", "song_tag", "setlist", "setlist_entry",
    "beat_map_history", "beat_map_history_beat", "repository", "repository_song",
    "repository_setlist", "chord_track", "chord",
  ]

  private struct Registry {
    var migrations: [(identifier: String, body: @Sendable (Database) throws -> Void)] = []
    mutating func registerMigration(
      _ identifier: String, _ body: @escaping @Sendable (Database) throws -> Void
    ) {
      migrations.append((identifier, body))
    }
  }

  /// Brings the schema of `db` up to date inside the caller's transaction, after checking
  /// it is practice's: a database with tables practice does not know, or with migrations
  /// from a newer practice, is refused untouched.
  /// `reference` gives the tables and columns to check against (the migrations' own).
  static func bringUpToDate(
    _ db: Database, path: String,
    reference: () -> Result<[String: [String]], DatabaseError> = { expectedColumns }
  ) throws {
    let tables = try String.fetchSet(
      db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    if tables.isEmpty {
      try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
    } else {
      let foreign = tables.subtracting(Migrations.tables).subtracting(["grdb_migrations"]).sorted()
      guard foreign.isEmpty, tables.contains("grdb_migrations") else {
        let named =
          foreign.isEmpty
          ? "no record of practice's migrations"
          : "tables practice does not know: " + foreign.prefix(5).joined(separator: ", ")
        throw PracticeError(
          .badData, "'\(path)' is not a practice library (\(named)); it was left untouched",
          remedy: .anotherLibrary)
      }
    }
    let applied = try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations")
    let known = all.map(\.identifier)
    let unknown = applied.subtracting(known).sorted()
    guard unknown.isEmpty else {
      throw PracticeError(
        .badData,
        "'\(path)' is a library from a newer practice (schema \(unknown.joined(separator: ", "))); "
          + "this practice knows schema versions up to \(known.last ?? "none"): use the newer practice"
      )
    }
    func damaged(_ what: String) -> PracticeError {
      PracticeError(
        .badData,
        "'\(path)' is damaged or was edited by hand: \(what); it was left untouched, "
          + "restore it from a backup", remedy: .anotherLibrary)
    }
    for migration in all where !applied.contains(migration.identifier) {
      do {
        try migration.body(db)
      } catch let error as DatabaseError where !tables.isEmpty {
        // An existing library that lacks the record of a change it holds (a removed row).
        throw damaged(
          "schema change '\(migration.identifier)' cannot be applied (\(error.message ?? "SQLite error"))")
      }
      try db.execute(
        sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)",
        arguments: [migration.identifier])
    }
    // Every table and column the migrations make, and no other: a library whose schema
    // was changed by hand is refused here, not by the first statement that meets it.
    // Checked only when the schema changed since a check passed: SQLite counts every change
    // (`schema_version`), and the count a check passed at is kept in the header's
    // `user_version`, so a library opened as it was costs no check (the reference schema,
    // built in memory, added about 3 ms to every command's start: bench/RESULTS.md).
    let schemaVersion = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
    guard try Int.fetchOne(db, sql: "PRAGMA user_version") != schemaVersion else { return }
    let have = try columns(db)
    let expectedColumns: [String: [String]]
    do {
      expectedColumns = try reference().get()
    } catch {
      // Not the library's fault: the layout it is checked against could not be made.
      throw PracticeError(
        .other,
        "cannot check the library '\(path)': practice could not lay out its own tables to "
          + "compare (\(error.message ?? "SQLite error \(error.resultCode.rawValue)")); nothing "
          + "in the library was changed. Try again; if it keeps happening, reinstall practice")
    }
    for (table, expected) in expectedColumns.sorted(by: { $0.key < $1.key }) {
      guard let columns = have[table] else { throw damaged("it has no table '\(table)'") }
      if let missing = expected.first(where: { !columns.contains($0) }) {
        throw damaged("table '\(table)' has no column '\(missing)'")
      }
      if let extra = columns.first(where: { !expected.contains($0) }) {
        throw damaged("table '\(table)' has a column '\(extra)' practice does not make")
      }
    }
    try? db.execute(sql: "PRAGMA user_version = \(schemaVersion)")
  }

  /// The columns of each table in `db` (but SQLite's own).
  static func columns(_ db: Database) throws -> [String: [String]] {
    var result: [String: [String]] = [:]
    for table in try String.fetchAll(
      db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    {
      result[table] = try String.fetchAll(
        db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
    }
    return result
  }

  /// The columns of each table as the migrations make them, from an empty database in
  /// memory brought up to date once; a failure is kept (and thrown by each check), not a trap.
  static let expectedColumns: Result<[String: [String]], DatabaseError> = Result {
    () throws(DatabaseError) in try referenceColumns(of: all)
  }

  /// The columns of each table `migrations` make in an empty database in memory.
  static func referenceColumns(
    of migrations: [(identifier: String, body: @Sendable (Database) throws -> Void)]
  ) throws(DatabaseError) -> [String: [String]] {
    do {
      let reference = try DatabaseQueue()
      return try reference.write { db in
        try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for migration in migrations { try migration.body(db) }
        return try columns(db)
      }
    } catch let error as DatabaseError {
      throw error
    } catch {
      throw DatabaseError(resultCode: .SQLITE_ERROR, message: "\(error)")
    }
  }
}
