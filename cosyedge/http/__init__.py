"""The local HTTP API: a second source of alerts beside MQTT, and the daemon's state for tools
(docs/http.md)."""
