"""Home Assistant: the gateway announced through MQTT discovery (docs/homeassistant.md)."""
