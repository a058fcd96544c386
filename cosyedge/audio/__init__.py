"""Stage 6, audio: chimes and volume per priority (`sound`), PCM to the device (`player`)."""
