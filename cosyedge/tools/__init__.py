"""Tools beside the daemon: converters, quantizer, parity checks, documentation.

The daemon never imports them.
"""
