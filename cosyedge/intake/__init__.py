"""Stage 2, intake: MQTT message → Offer for the alarm desk, or a Refusal with the reason.

`door` is where every message comes in, from MQTT or the HTTP API (`local` reads its
requests), and is journaled; `intake` decides which messages are ours and reads each one
once: `alert` decodes and validates the payload, `templates` make the phrase (or `hermes`
reads a Rhasspy say request), `commands` reads operator commands.
"""
