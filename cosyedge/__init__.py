"""cosyedge: MQTT alerts spoken on the local sound device, offline."""

__version__ = "0.1.0"
