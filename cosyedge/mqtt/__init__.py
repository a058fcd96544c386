"""Stage 1, MQTT: the broker session, which messages are ours, and what we tell back.

`session` keeps one persistent QoS 1 session, `broker` an optional local Mosquitto, `intake`
turns a message into an offer for the alarm desk (through the templates or `hermes`), and
`reports` publishes what became of each alert.
"""
