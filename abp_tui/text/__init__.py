"""Text utilities with no I/O and no UI types: untrusted text made displayable (``safe``), the
word diff of two texts (``diff``) and the canonical JSON text hashes are computed over
(``canonical``)."""
