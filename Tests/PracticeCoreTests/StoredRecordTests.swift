import Foundation
import TestSupport
import Testing

@testable import PracticeCore

/// What the library keeps and prints, at its edges: a selection ending at the song's end,
/// a bar exactly at the doubt threshold, chords at a span's end and a quarter into a beat and
/// spelled for the key they are moved to, song details and tags in any case, the median tempo,
/// the JSON beat file's sample rate and its list, and the rates an encoding takes.
@Suite struct StoredRecordTests {
  let dir = TemporaryDirectory()

  func library() throws -> (Library, Song) { try dir.libraryWithOneSong() }

  func selection(_ span: SelectionSpan, song: Song) -> Selection {
    Selection(
      id: 1, songID: song.id ?? 0, name: "s", span: span, note: nil, createdAt: "", updatedAt: "")
  }

  func chord(_ label: String) -> Chord? { try? Chord.parseHarte(label) }

  @Test func aSelectionEndingAtTheSongsEndFitsAndOnePastItIsShownAsTyped() throws {
    let (_, song) = try library()
    let whole = SelectionRecord(selection(.frames(0..<song.frames), song: song), song: song, beatMap: nil)
    #expect(whole.fits && whole.spanText == "0:00.0–0:04.0")
    #expect(whole.jsonText.contains("\"from\":0,\"name\":\"s\""))
    #expect(whole.jsonText.hasSuffix("\"to\":4}"), "\(whole.jsonText)")
    let past = SelectionRecord(
      selection(.frames(0..<song.frames + 100), song: song), song: song, beatMap: nil)
    #expect(!past.fits && past.spanText == "\(past.selection.span)")
  }

  @Test func aBarIsDoubtfulOnlyBelowTheThreshold() throws {
    let beats = (0..<8).map {
      Beat(
        frame: Int64($0) * 22050, bar: 1 + $0 / 4, beat: 1 + $0 % 4, source: .detected,
        confidence: $0 < 4 ? BeatDetector.lowConfidence : BeatDetector.lowConfidence - 0.01)
    }
    let map = try BeatMap(beats: beats, totalFrames: 44100 * 5, sampleRate: 44100)
    let lines = BarLine.lines(of: map, chords: nil, flats: nil)
    #expect(lines.map(\.doubtful) == [false, true])
  }

  @Test func chordsAreFoundAtTheirStartsReadAQuarterIntoTheBeatAndSpelledForTheKeyMovedTo() throws {
    let track = ChordTrack(
      spans: [
        ChordSpan(start: 0, end: 1000, chord: nil),
        ChordSpan(start: 1000, end: 22050, chord: chord("C:maj")),
        ChordSpan(start: 22050, end: 88200, chord: chord("G:maj")),
      ], source: .imported)
    #expect(track.chord(at: 999) == nil && track.chord(at: 1000) == chord("C:maj"))
    #expect(track.chord(at: 22050) == chord("G:maj") && track.chord(at: 88200) == nil)
    // A change a little after the beat still counts for it.
    let beats = (0..<4).map { Beat(frame: Int64($0) * 22050, bar: 1, beat: 1 + $0, source: .grid) }
    let map = try BeatMap(beats: beats, totalFrames: 88200, sampleRate: 44100)
    #expect(track.chordsByBeat(of: map).first?.chords.first == chord("C:maj"))
    // In G moved down a tone (F: flats), C moved down a tone is Bb.
    let moved = track.symbols(key: MusicalKey(parsing: "G"), transposedBy: -2)
    #expect(moved.map(\.symbol) == ["Bb", "F"])
    // No chord of no length in a shared file.
    let none = PracticeFile.SharedChords(source: "imported", key: nil, starts: [0], ends: [0], labels: ["N"])
    #expect(throws: PracticeError.self) { _ = try none.spans() }
  }

  @Test func beatsShowSpellsWithTheDetectedKeyWhenNoneIsSet() throws {
    let (library, song) = try library()
    try library.replaceChordTrack(
      for: song,
      with: ChordTrack(
        spans: [ChordSpan(start: 0, end: song.frames, chord: chord("A#:maj"))],
        source: .detected, detectedKey: MusicalKey(parsing: "E")))
    let beats = (0..<4).map { Beat(frame: Int64($0) * 22050, bar: 1, beat: 1 + $0, source: .grid) }
    let map = try BeatMap(beats: beats, totalFrames: song.frames, sampleRate: song.sampleRate)
    let (bars, hasChords) = try library.barLines(of: song, map: map)
    #expect(hasChords && bars.first?.chords == ["A#", "A#", "A#", "A#"])
  }

  @Test func tagsSortAndComeOffInAnyCaseAndTheMedianTempoOfTwoOrFourIntervals() throws {
    let (library, song) = try library()
    var add = SongDetailsChange()
    add.addTags = ["a", "B", "Rock"]
    #expect(try library.changeDetails(of: song, add).tags == ["a", "B", "Rock"])
    var remove = SongDetailsChange()
    remove.removeTags = ["rock"]
    #expect(try library.changeDetails(of: song, remove).tags == ["a", "B"])

    func map(_ intervals: [Int64]) throws -> BeatMap {
      var frame: Int64 = 0
      var beats = [Beat(frame: 0, bar: 1, beat: 1, source: .grid)]
      for (i, interval) in intervals.enumerated() {
        frame += interval
        beats.append(Beat(frame: frame, bar: 1 + (i + 1) / 4, beat: 1 + (i + 1) % 4, source: .grid))
      }
      return try BeatMap(beats: beats, totalFrames: frame + 44100, sampleRate: 44100)
    }
    #expect(try map([22050]).medianTempo == 120)
    // Four intervals: the mean of the middle two (20,000 and 24,000 frames).
    #expect(try map([24000, 18000, 20000, 30000]).medianTempo == 60 * 44100 / 22000)
  }

  @Test func aJSONBeatFileNeedsAWholeSampleRateAndABeatsList() throws {
    func reason(_ text: String) -> String {
      do {
        _ = try BeatFiles.parse(Array(text.utf8), format: .json, path: "b.json", audioDuration: 10)
        return "read"
      } catch let error as DataFileError {
        return error.reason
      } catch {
        return "\(error)"
      }
    }
    #expect(reason("{\"sample_rate\":44100,\"beats\":[{\"time\":0.5}]}") == "read")
    #expect(reason("{\"sample_rate\":44100.5,\"beats\":[{\"time\":0.5}]}").contains("not a positive whole number"))
    #expect(reason("{\"sample_rate\":44100}") == "no \"beats\" list")
  }

  @Test func aRateAnEncodingCannotCarryIsRefusedNamingEachRateOnce() throws {
    let opus = try #require(OutputFormat(path: "x.opus", bitDepth: 16))
    do {
      try opus.check(sampleRate: 44100, path: "x.opus")
      Issue.record("44.1 kHz accepted for Opus")
    } catch let error as PracticeError {
      #expect(error.message.contains("Opus takes 8, 12, 16, 24 or 48 kHz and the song is 44.1 kHz"), "\(error.message)")
    }
  }
}
