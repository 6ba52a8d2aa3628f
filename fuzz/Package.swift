// swift-tools-version:6.0
// libFuzzer harnesses for the parsers of user files. A package of its own, so that neither
// `make test` nor `.ci/run` builds it: see README.md and ./run.
import Foundation
import PackageDescription

// SwiftPM names a package by its folder: whatever the checkout is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().lastPathComponent

let package = Package(
  name: "practice-fuzz",
  dependencies: [.package(path: "..")],
  targets: [
    .executableTarget(
      name: "practice-fuzz",
      dependencies: [.product(name: "PracticeCore", package: root)])
  ],
  swiftLanguageModes: [.v5]
)
