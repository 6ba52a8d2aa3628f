"""How a generator's own source enters the recipes of what it rendered.

bench/beats/make-set.py hashed its own file into every piece's recipe (render.recipe_hash),
and plain-synth.py its own file into every plain piece's: an edit to either rendered the
pieces again. At 57fd65e both moved to models/ (make-set.py split into lib/pieces.py,
lib/render.py and lib/audio.py; plain-synth.py became plain_synth.py) with their code
unchanged but their files' bytes changed, which would have thrown away every corpus already
rendered. So while the moved files are byte for byte as they were moved (the digests
below), the old files' bytes count, as they always did: make-set-v3.py.gz is make-set.py
at 57fd65e, and PLAIN_SYNTH_BEFORE is plain-synth.py's digest there. After any edit to a
moved file its own bytes count, and the pieces are rendered again, as before the move.
Do not update the digests below to avoid a re-render: bump GENERATOR_VERSION instead
when a change is meant to change the pieces, and let the hash do its work otherwise.
"""

import gzip
import hashlib
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)

GENERATOR_FILES = [os.path.join(HERE, f) for f in ("pieces.py", "render.py", "audio.py")]
GENERATOR_AS_MOVED = "2e69900b99da8a3163502f6fc405fa9fdc4d561a0a4c3a38b019316d2c24b46c"
GENERATOR_BEFORE = os.path.join(HERE, "make-set-v3.py.gz")

PLAIN_SYNTH_FILE = os.path.join(MODELS, "plain_synth.py")
PLAIN_SYNTH_AS_MOVED = "733f2eba631617ee9b644b6cbd2c143f728c372b77b4418b6d013bc99da45c83"
PLAIN_SYNTH_BEFORE = "57d6bc9c5f8100170a7422a7a10875b6bcac9ae38e8336aa3598fa6fe7b0760f"


def _read(paths):
    out = b""
    for p in paths:
        with open(p, "rb") as f:
            out += f.read()
    return out


def generator_source():
    """The bytes render.recipe_hash appends to a piece's spec: the generator's source."""
    now = _read(GENERATOR_FILES)
    if hashlib.sha256(now).hexdigest() == GENERATOR_AS_MOVED:
        with open(GENERATOR_BEFORE, "rb") as f:
            return gzip.decompress(f.read())
    return now


def plain_synth_hash():
    """The hex digest plain_synth.py puts into a plain piece's recipe: its source's."""
    now = hashlib.sha256(_read([PLAIN_SYNTH_FILE])).hexdigest()
    return PLAIN_SYNTH_BEFORE if now == PLAIN_SYNTH_AS_MOVED else now


if __name__ == "__main__":
    print("generator", hashlib.sha256(_read(GENERATOR_FILES)).hexdigest(),
          "as moved" if generator_source() != _read(GENERATOR_FILES) else "edited since")
    print("plain_synth", hashlib.sha256(_read([PLAIN_SYNTH_FILE])).hexdigest(),
          "as moved" if plain_synth_hash() == PLAIN_SYNTH_BEFORE else "edited since")
