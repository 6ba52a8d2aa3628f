"""How the learned parts of practice are made: corpus generators, training scripts and the
provenance of each weight file (README.md). Run through models/run or `python3 -m models`."""
