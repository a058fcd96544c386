"""Stage 4, announce: the one thread that speaks the desk's next item, most urgent first.

`announcer` renders it through speech, plays it on the audio device and gives way between
audio blocks when something more urgent arrives.
"""
