"""How a generator's own source enters the recipes of what it rendered: a piece's recipe
hashes the bytes of the code that rendered it, so any edit to the generator renders the
pieces again (GENERATOR_VERSION in pieces.py forces it without an edit). Moving the
generator into models/ changed those bytes once: corpora rendered before the move are
rendered again on first use."""

import hashlib
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)

GENERATOR_FILES = [os.path.join(HERE, f) for f in ("pieces.py", "render.py", "audio.py")]
PLAIN_SYNTH_FILE = os.path.join(MODELS, "plain_synth.py")


def _read(paths):
    out = b""
    for p in paths:
        with open(p, "rb") as f:
            out += f.read()
    return out


def generator_source():
    """The bytes render.recipe_hash appends to a piece's spec: the generator's source."""
    return _read(GENERATOR_FILES)


def plain_synth_hash():
    """The hex digest plain_synth.py puts into a plain piece's recipe: its source's."""
    return hashlib.sha256(_read([PLAIN_SYNTH_FILE])).hexdigest()


if __name__ == "__main__":
    print("generator", hashlib.sha256(generator_source()).hexdigest())
    print("plain_synth", plain_synth_hash())
