"""The Wyoming text-to-speech server (docs/homeassistant.md); needs the `wyoming` extra."""
