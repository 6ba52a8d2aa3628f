// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "practice",
  products: [
    .executable(name: "practice", targets: ["practice"]),
    .library(name: "PracticeCore", targets: ["PracticeCore"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
  ],
  targets: [
    .systemLibrary(
      name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
    .systemLibrary(
      name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
    .systemLibrary(
      name: "CRubberBand", pkgConfig: "rubberband", providers: [.apt(["librubberband-dev"])]),
    // FFmpeg's headers only: the libraries are loaded on first use by CFFmpegLoader.
    .systemLibrary(name: "CFFmpeg"),
    .target(name: "CFFmpegLoader"),
    // aubio's headers only: the library is loaded on first use by CAubioLoader.
    .systemLibrary(name: "CAubio"),
    .target(name: "CAubioLoader"),
    // cairo's headers only: the library is loaded on first use by CCairoLoader.
    .systemLibrary(name: "CCairo"),
    .target(name: "CCairoLoader"),
    // libcurl's headers only: the library is loaded on first use by CCurlLoader (`pull`).
    .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .target(name: "CCurlLoader"),
    .target(name: "CPlatform"),
    // Rubber Band's allocating calls with std::bad_alloc caught (a C++ shim over its C API).
    .target(name: "CRubberBandGuard", dependencies: ["CRubberBand"]),
    // The beat network's weights as a generated C array (models/train_network.py).
    .target(name: "CBeatNetwork"),
    // libmpg123 (inside libsndfile) made quiet: see include/mpg123_quiet.h.
    .target(
      name: "CMpg123Quiet", linkerSettings: [.linkedLibrary("mpg123"), .linkedLibrary("dl")]),
    .target(
      name: "PracticeCore",
      dependencies: [
        "CSndFile", "CFFmpeg", "CFFmpegLoader", "CALSA",
        "CRubberBand", "CRubberBandGuard", "CAubio", "CAubioLoader",
        "CCairo", "CCairoLoader", "CCurl", "CCurlLoader", "CPlatform", "CBeatNetwork",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ]),
    // The terminal face: raw mode and keys, the player screen, status lines, progress bars,
    // tables, and the one door to stdout and stderr (no argument parsing).
    .target(name: "PracticeTerminal", dependencies: ["PracticeCore", "CPlatform"]),
    .executableTarget(
      name: "practice",
      dependencies: [
        "PracticeCore", "PracticeTerminal", "CMpg123Quiet",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
    .target(name: "TestSupport", dependencies: ["PracticeCore"], path: "Tests/TestSupport"),
    .testTarget(
      name: "PracticeCoreTests",
      dependencies: [
        "PracticeCore", "TestSupport",
        // Migration tests open SQLite databases of their own.
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .testTarget(name: "PracticeTerminalTests", dependencies: ["PracticeTerminal", "PracticeCore"]),
    .testTarget(name: "PracticeCLITests", dependencies: ["PracticeCore", "TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
