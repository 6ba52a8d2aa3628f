"""What models/ shares: piece specs and MIDI (pieces), rendering (render), audio I/O (audio),
processing (reverb, noisy, wobble), the source fingerprints of recipes (fingerprint), paths
(paths) and the runner (runner)."""
