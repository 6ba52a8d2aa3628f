import GRDB

/// The schema, as append-only migrations: never edit one that has shipped; add another.
enum Migrations {
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
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
    return migrator
  }
}
