"""Stage 1, MQTT: the broker session, and what we tell back through it.

`session` keeps one persistent QoS 1 session and hands each message to intake, `link` keeps
the session in force across reloads, `broker` runs an optional local Mosquitto, `reports`
publishes what became of each alert, the events, the errors and the retained status.
"""
