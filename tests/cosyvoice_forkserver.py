"""Runs commands of the CosyVoice conversion venv for the tests, each in a fork of one process
that has imported torch and the reference's model classes once (about 10 s of CPU a process:
torch, transformers, the cosyvoice modules), instead of a new interpreter each.

Protocol, one JSON line each way per command: in {"args": [...], "env": {...}, "cwd": ...,
"out": path, "err": path}, where args are those of `python ARGS` (`-c CODE ...`, `-m MODULE
...` or `SCRIPT ...`); out {"pid": N} when the child is forked, then {"rc": N, "cpu": S} when
it ended (-N for a signal; S its CPU seconds). Its first line, once the imports are done, is
its own CPU: {"cpu": S}. The child's standard output and error go to the files named. It ends at
end of input.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import traceback

PRELOAD = (
    "numpy", "torch", "onnx", "onnxruntime", "transformers",
    "cosyvoice.llm.llm", "cosyvoice.flow.flow", "cosyvoice.hifigan.generator",
    "cosyvoice.flow.flow_matching", "cosyvoice.flow.decoder", "cosyvoice.flow.length_regulator",
    "cosyvoice.hifigan.f0_predictor", "cosyvoice.transformer.encoder", "cosyvoice.cli.model",
    "cosyvoice.utils.common", "tiktoken", "onnxruntime.quantization", "torch.onnx",
    "cosyedge.packs.convert_cosyvoice", "cosyedge.packs.cosyvoice_export",
    "cosyedge.packs.cosyvoice_parity", "cosyedge.packs.cosyvoice_int8",
)  # fmt: skip


def preload() -> None:
    """Import what every command imports, as the converter does (its stand-in torchaudio
    first: cosyedge/packs/cosyvoice_reference.py)."""
    import importlib

    from cosyedge.packs.cosyvoice_reference import use_reference_classes

    use_reference_classes()
    for name in PRELOAD:
        importlib.import_module(name)


def run(args: list[str]) -> int:
    """`python ARGS` in this process; its exit status."""
    try:
        if args[0] == "-c":
            sys.argv = ["-c", *args[2:]]
            exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})
        elif args[0] == "-m":
            sys.argv = [args[1], *args[2:]]
            runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(args)
            sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
            runpy.run_path(args[0], run_name="__main__")
    except SystemExit as stop:
        code = stop.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def child(request: dict) -> None:
    """Become the command: its directory, environment and files, then exit with its status."""
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    for fd, name in ((1, "out"), (2, "err")):
        target = os.open(request[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    code = run(request["args"])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code & 0xFF)


def serve(channel_in, channel_out) -> None:
    for line in channel_in:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            channel_out.close()
            child(request)
        channel_out.write(json.dumps({"pid": pid}) + "\n")
        channel_out.flush()
        _, status, usage = os.wait4(pid, 0)
        ended = {"rc": os.waitstatus_to_exitcode(status), "cpu": usage.ru_utime + usage.ru_stime}
        channel_out.write(json.dumps(ended) + "\n")
        channel_out.flush()


if __name__ == "__main__":
    preload()
    # The protocol's own descriptors: a command's output must not reach them.
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    times = os.times()
    replies.write(json.dumps({"cpu": times.user + times.system}) + "\n")
    replies.flush()
    serve(sys.stdin, replies)
