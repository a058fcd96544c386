"""Stage 2, intake: MQTT message → Offer for the alarm desk, or a Refusal with the reason.

`intake` decides which messages are ours and reads each one once: `alert` decodes and
validates the payload, `templates` make the phrase (or `hermes` reads a Rhasspy say request),
`commands` reads operator commands.
"""
