"""The plant systems alerts are taken from beside MQTT: each a component that hands its alerts
to the door (intake/door.py `Door.accept`) as the messages they are journaled as."""
