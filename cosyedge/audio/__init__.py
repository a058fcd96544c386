"""Stage 6, audio: chimes and volume per priority (`sound`), PCM to the device (`player`), and
the network outputs for IP speakers (`rtp`: an RTP stream, `rtpstream` its parts, `g711` its
payloads)."""
