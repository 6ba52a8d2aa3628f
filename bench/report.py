#!/usr/bin/env python3
"""Writes bench/RESULTS.md (to stdout) from bench/out/results/*.json and *.status."""

import json
import os
import platform
import re
import sys
import time

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

ORDER = ["start-latency", "rss", "cpu-play", "render-throughput", "list-10k", "beats-1000",
         "bars-10k", "stretch-throughput", "cpu-stretch", "block-times", "key-latency", "beat-detect", "beat-offset",
         "beat-corpus", "beat-heldout", "beat-real",
         "tuner", "cpu-filters", "decode-formats", "add-1000", "view-60min", "sharing-10k",
         "repo", "chords", "chords-heldout", "chords-rates"]
VERDICT = {True: "**pass**", False: "**FAIL**", None: "info"}


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def binary_note(built_from):
    """', binary built DATE from COMMIT' for a section, from write_results' provenance."""
    if not built_from:
        return ""
    built = f" {built_from['built']}" if built_from["built"] else ""
    return f", binary built{built} from {b.describe_build(built_from)}"


def previous_sections(path):
    """{name: (title, summary rows, section lines)} from the RESULTS.md there is, so that a
    benchmark with no result in bench/out/results (not run since bench/out was made, as on a
    fresh clone) keeps its last figures, under the date they were measured."""
    try:
        with open(path) as f:
            lines = f.read().rstrip("\n").split("\n")
    except OSError:
        return {}
    sections, current = [], None
    for line in lines:
        if line.startswith("## "):
            current = [line]
            sections.append(current)
        elif current is not None:
            current.append(line)
    kept, by_hand, last = {}, {}, None
    for section in sections:
        if section[0] == "## Summary" or section[0].endswith(": ERROR"):
            continue
        while section and not section[-1].strip():
            section.pop()
        found = re.search(r"Script `bench/([\w-]+)\.py`", "\n".join(section[:4]))
        if not found or found.group(1) not in ORDER:
            # A section no benchmark of ORDER writes (a measurement run by hand, such as
            # `bench/beats/run rates`): kept after the section it followed.
            by_hand.setdefault(last, []).append(section + [""])
            continue
        title = section[0][3:]
        rows = [line for line in lines if line.startswith(f"| {cell(title)} | ")]
        kept[found.group(1)] = (title, rows, section + [""])
        last = found.group(1)
    return kept, by_hand


def main():
    binary = os.environ.get("PRACTICE_BIN", ".build/release/practice")
    built_from = b.provenance(binary)
    commit, built = built_from["commit"], built_from["built"]
    if built_from["newer_sources"]:
        commit += (f"; the binary is older than {built_from['newer_sources']} file(s) in "
                   f"Sources/ or Package.swift, so it was built from "
                   f"{b.describe_build(built_from)}")
    elif built_from["uncommitted_in_build"]:
        commit += " (plus uncommitted changes in Sources/ or Package.*)"
    out = ["# Benchmark results", "",
           "Written by `bench/run-all.sh` (run by `make bench`); do not edit by hand. "
           "Targets are those of the issues each section names (2: foundation, 3: bars, 4: speed, "
           "5: keys, 6: beat detection, 21: beat maps on unheard music, 22: files, 24: view, 27: "
           "tuner, 28: filters). These are "
           "benchmarks, not tests: a missed target is reported here, it does not fail the "
           "build. `run-all.sh NAME...` reruns only some, and a benchmark with no result in "
           "bench/out/ keeps the figures it had here: each section says when it was measured "
           "and from which binary.", "",
           "| | |", "| --- | --- |",
           f"| date | {time.strftime('%Y-%m-%d %H:%M:%S %Z')} |",
           f"| machine | `uname -m` {platform.machine()}, `nproc` {len(os.sched_getaffinity(0))}, "
           f"{cell(cpu_model())} |",
           f"| kernel | {platform.release()} |",
           f"| commit | {commit} |",
           f"| binary | `{os.path.relpath(binary, b.REPO_DIR)}`"
           + (f", built {built}" if built else "") + " |", ""]

    previous, by_hand = previous_sections(os.path.join(b.BENCH_DIR, "RESULTS.md"))
    results, missing, carried = {}, [], {}
    for name in ORDER:
        path = os.path.join(b.RESULTS_DIR, name + ".json")
        status_path = os.path.join(b.RESULTS_DIR, name + ".status")
        status = open(status_path).read().split() if os.path.exists(status_path) else None
        if os.path.exists(path) and (status is None or status[0] == "0"):
            with open(path) as f:
                results[name] = json.load(f)
                results[name]["seconds"] = status[1] if status else "?"
        elif status is None and name in previous:
            carried[name] = previous[name]
        else:
            missing.append((name, status))

    out += ["## Summary", "", "| benchmark | measure | figure | target | result |",
            "| --- | --- | --- | --- | --- |"]
    for name in ORDER:
        if name in results:
            for r in results[name]["rows"]:
                if r["pass"] is not None:
                    out.append(f"| {cell(results[name]['title'])} | {cell(r['metric'])} | "
                               f"{cell(r['value'])} | {cell(r['target'])} | {VERDICT[r['pass']]} |")
        elif name in carried:
            out += carried[name][1]
        else:
            out.append(f"| {name} | did not run to its end | | | **ERROR** |")
    out.append("")
    missed = []
    for name in ORDER:
        if name in results:
            missed += [f"{r['metric']}: {r['value']} (target {r['target']})"
                       for r in results[name]["rows"] if r["pass"] is False]
        elif name in carried:
            for row in carried[name][1]:
                cells = [c.strip() for c in row.strip("|").split(" | ")]
                if len(cells) == 5 and cells[4] == "**FAIL**":
                    missed.append(f"{cells[1]}: {cells[2]} (target {cells[3]})")
    if missed:
        out += ["Missed targets: " + "; ".join(cell(m) for m in missed) + ".", ""]
    elif not missing:
        out += ["Every target was met.", ""]
    if missing:
        out += ["Did not run to the end: " + ", ".join(n for n, _ in missing)
                + " (see the ERROR sections below).", ""]

    for section in by_hand.get(None, []):
        out += section
    for name in ORDER:
        if name in carried:
            out += carried[name][2]
        elif name in results:
            out += section_of(results[name], name)
        for section in by_hand.get(name, []):
            out += section

    for name, status in missing:
        code = f"exit status {status[0]}" if status else "not run"
        out += [f"## {name}: ERROR", "",
                f"`bench/{name}.py` did not finish ({code}); see `bench/out/logs/{name}.log`.", ""]
    print("\n".join(out).rstrip() + "\n", end="")


def section_of(data, name):
    """The lines of one benchmark's section, from its results."""
    measured = binary_note(data.get("binary"))
    out = [f"## {data['title']}", "",
           f"Script `bench/{name}.py`, measured {data['written']} "
           f"({data['seconds']} s){measured}.", "",
           "| measure | figure | target | result |", "| --- | --- | --- | --- |"]
    for r in data["rows"]:
        out.append(f"| {cell(r['metric'])} | {cell(r['value'])} | {cell(r['target'])} | "
                   f"{VERDICT[r['pass']]} |")
    out.append("")
    out += [f"- {note}" for note in data["notes"]]
    out.append("")
    return out


if __name__ == "__main__":
    main()
