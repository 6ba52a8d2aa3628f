# practice — targets
#
#   make demo      install what is missing, build, and play fixtures/demo.wav (a short
#                  range, twice); without a sound card, into a private test sound server
#   make test      install what is missing, build, and run the whole test suite
#   make build     debug build (.build/debug/practice)
#   make release   optimised build (.build/release/practice), Swift runtime linked in
#   make bench     release build, then every benchmark in bench/ (results: bench/RESULTS.md)
#   make deps      install missing system packages (apt; checked with pkg-config first)
#   make fixtures  regenerate the synthetic audio in fixtures/
#   make format    swift format the sources in place
#   make clean     remove build products

SWIFT ?= swift
export PATH := /opt/swift/usr/bin:$(PATH)
SOUND_DIR ?= $(CURDIR)/.build/sound-server

.PHONY: demo test build release bench deps fixtures format clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

# The Swift runtime and Foundation linked in statically: no symbol binding across a dozen
# Swift libraries at start-up (first frame 20.3 -> 12.3 ms when it changed; bench/RESULTS.md).
release: deps
	$(SWIFT) build -c release --static-swift-stdlib

# The suites that play along in real time (keys sent the moment a click sounds; tones
# played into the test sound server while the tuner listens) run after the rest, one test
# at a time: sharing two cores with other tests, the tap-along test's
# keys came too late for 12 of 32 clicks in one CI run (20-22 of 32 even with only its own
# suites beside it; 32 of 32 alone).
REALTIME_SUITES = BeatTapTests|KeyboardTests|TuneSoundServerTests

test: build
	$(SWIFT) test --parallel --num-workers 2 --skip '$(REALTIME_SUITES)'
	$(SWIFT) test --no-parallel --filter '$(REALTIME_SUITES)'

demo: build
	@scripts/demo.sh .build/debug/practice

bench: release
	@bench/run-all.sh

fixtures:
	python3 fixtures/make-fixtures.py

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

clean:
	rm -rf .build
