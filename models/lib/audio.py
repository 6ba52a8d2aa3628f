"""Audio I/O for the generator: 16-bit WAV at the generator's rate through the standard
library's wave module (what FluidSynth writes and the set's pieces are)."""

import wave

import numpy as np

from models.lib.pieces import RATE


def read_wav(path):
    with wave.open(path) as w:
        assert w.getframerate() == RATE and w.getsampwidth() == 2, path
        ch = w.getnchannels()
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").reshape(-1, ch)
    return data.astype(np.float64) / 32768.0


def write_wav(path, x):
    pcm = np.clip(np.round(x * 32767.0), -32768, 32767).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(pcm.shape[1])
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())

