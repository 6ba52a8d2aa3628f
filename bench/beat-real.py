#!/usr/bin/env python3
"""Beat maps on released, produced music (issue 41's "real produced music" target): the
real set of bench/beats/real_set.py (59 excerpts of 60 s from the soundtracks Debian ships,
mixed and mastered as records are), practice against madmom's DBNDownBeatTracker and the
onsets, each half of the set's split reported apart (the tuning half is where level and
warning choices were made; the test half is not).

Runs `bench/beats/run real-set --bin PRACTICE_BIN --label bench --half H` for both halves
(practice's maps are made again for a binary newer than them; madmom's are kept in
bench/out/real-set-madmom and made only for an excerpt that has none) and turns its
summaries into rows for bench/RESULTS.md. BENCH_REAL_NO_MADMOM=1 scores only the excerpts
madmom has done.
"""

import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
import benchlib as b  # noqa: E402

HALVES = ("tune", "test")


def main():
    binary = b.practice_bin()
    summaries = {}
    for half in HALVES:
        cmd = b.beats_tool("real-set", "--bin", binary, "--label", "bench", "--half", half)
        if os.environ.get("BENCH_REAL_NO_MADMOM"):
            cmd.append("--no-madmom")
        subprocess.run(["nice", "-n", "10"] + cmd, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(b.OUT_DIR, f"real-set-bench-{half}.json")) as f:
            summaries[half] = json.load(f)["summary"]

    rows = []
    for half in HALVES:
        s = summaries[half]
        name = f"real set, {half} half ({s['tracks']} excerpts)"
        rows.append(b.row(f"{name}: beat F / downbeat F against madmom",
                          f"{s['beat_f']:.3f} / {s['downbeat_f']:.3f}"))
        rows.append(b.row(f"{name}: practice at madmom's metrical level / half / twice",
                          f"{s['same_level']} / {s['half']} / {s['double']}"))
        rows.append(b.row(f"{name}: half-tempo readings whose skipped beats are at least 0.8 "
                          "as strong in the onsets as the kept", str(s["half_skipping_strong_beats"]),
                          "0", s["half_skipping_strong_beats"] == 0))
        rows.append(b.row(f"{name}: level switches inside an excerpt where madmom holds its "
                          "level", str(s["switching_where_madmom_holds"]), "0",
                          s["switching_where_madmom_holds"] == 0))
        rows.append(b.row(f"{name}: the warning (issue 41, item 4): wrong maps warned; "
                          "warned maps right",
                          f"{s['wrong_warned']} of {s['wrong']}; {s['warned_right']} of "
                          f"{s['warned']}"))
    notes = [
        "The real set (bench/beats/real_set.py, bench/beats/README.md): one 60 s excerpt of "
        "each soundtrack in Debian's hedgewars-data, warzone2100-music and frozen-bubble-data "
        "(electronic, rock, orchestral, folk, ambient; Ogg Vorbis and Opus as shipped), "
        "decoded by ffmpeg. Nothing is annotated by hand: madmom 0.16.1's DBNDownBeatTracker "
        "is the reference, and the onsets (librosa's onset strength) say which metrical level "
        "they side with.",
        "The halves: within each package, the excerpts in the order of the SHA-256 of their "
        "names, alternately to the tuning half and the test half (real_set.py's `halves`).",
        "A map is wrong when it is at another level than madmom's and the onsets side with "
        "madmom, or at madmom's level with beat F under 0.5 (real_set.py's `wrong`). The "
        "target rows are issue 41's: no half-tempo reading where the skipped beats are as "
        "strong as the kept, and no level switch inside a steady song.",
        "Per-excerpt tables: bench/out/real-set-bench-tune.md and -test.md.",
    ]
    b.write_results("beat-real", "Beat maps on real produced music (the real set) against "
                    "madmom and the onsets, by half", rows, notes)


if __name__ == "__main__":
    main()
