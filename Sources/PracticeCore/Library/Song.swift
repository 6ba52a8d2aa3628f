import Foundation
import GRDB

/// A song in the library: where its file is, what it is, and how to recognise it if moved.
public struct Song: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
  public var id: Int64?
  /// Absolute path of the audio file.
  public var path: String
  /// `SongScanner.contentHash` of the file; finds the song again after a move.
  public var contentHash: String
  public var fileSize: Int64
  /// The file's modification time (seconds since 1970) when it was last scanned.
  public var modifiedAt: Double
  public var frames: Int64
  public var sampleRate: Int
  public var channels: Int
  public var format: String
  public var duration: Double
  public var title: String
  public var artist: String?
  public var album: String?
  public var addedAt: String
  public var updatedAt: String
  /// The title and artist were set by hand (`practice set --title/--artist`): a rescan of
  /// the file's tags keeps them.
  public var namedByHand = false

  public static let databaseTableName = "song"

  enum CodingKeys: String, CodingKey, ColumnExpression {
    case id, path, title, artist, album, frames, channels, format, duration
    case contentHash = "content_hash"
    case fileSize = "file_size"
    case modifiedAt = "modified_at"
    case sampleRate = "sample_rate"
    case addedAt = "added_at"
    case updatedAt = "updated_at"
    case namedByHand = "named_by_hand"
  }

  public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension Song {
  /// What tells apart two files of one recording: the file's extension (`m4a`), or its
  /// format when the name has none.
  public var fileKind: String { Song.fileKind(path: path, format: format) }

  static func fileKind(path: String, format: String) -> String {
    let ext = (path as NSString).pathExtension.lowercased()
    return ext.isEmpty ? format : ext
  }

  /// Decodes a row by column name, without Codable's per-row overhead
  /// (listing 10,000 songs spent most of its time in the generic decoder).
  public init(row: Row) throws {
    id = row[CodingKeys.id.rawValue]
    path = row[CodingKeys.path.rawValue]
    contentHash = row[CodingKeys.contentHash.rawValue]
    fileSize = row[CodingKeys.fileSize.rawValue]
    modifiedAt = row[CodingKeys.modifiedAt.rawValue]
    frames = row[CodingKeys.frames.rawValue]
    sampleRate = row[CodingKeys.sampleRate.rawValue]
    channels = row[CodingKeys.channels.rawValue]
    format = row[CodingKeys.format.rawValue]
    duration = row[CodingKeys.duration.rawValue]
    title = row[CodingKeys.title.rawValue]
    artist = row[CodingKeys.artist.rawValue]
    album = row[CodingKeys.album.rawValue]
    addedAt = row[CodingKeys.addedAt.rawValue]
    updatedAt = row[CodingKeys.updatedAt.rawValue]
    namedByHand = row[CodingKeys.namedByHand.rawValue] ?? false
  }
}
