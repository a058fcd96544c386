"""Markdown tables from a results dict, with each target checked against its measured ratio."""

from __future__ import annotations

from bench.systems import System, reference_of

LABELS = {
    "ours-hibari": "cosyedge hibari int8",
    "hibari": "hibari `Hibari` int8",
    "ours-piper-fp32": "cosyedge piper fp32",
    "piper-fp32": "piper-tts `PiperVoice` fp32",
    "ours-piper-int8": "cosyedge piper int8",
    "piper-int8": "piper-tts `PiperVoice` int8",
}


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _verdict(ok: bool) -> str:
    return "met" if ok else "**not met**"


def speed_tables(rows: list[dict], all_systems: list[System]) -> tuple[str, str, list[str]]:
    by = {(r["system"], r["threads"], r["text"]): r for r in rows}
    table = _table(
        ["system", "threads", "text", "audio s", "first audio s", "whole s", "RTF", "CPU/audio"],
        [
            [
                LABELS[r["system"]],
                str(r["threads"]),
                r["text"],
                f"{r['audio_s']:.1f}",
                f"{r['first_audio_s']:.3f}",
                f"{r['total_s']:.3f}",
                f"{r['rtf']:.3f}",
                f"{r['cpu_per_audio_s']:.3f}",
            ]
            for r in rows
        ],
    )
    ratio_rows, verdicts = [], []
    for system in all_systems:
        if not system.ours:
            continue
        ref = reference_of(system, all_systems)
        for (key, threads, text), ours in sorted(by.items()):
            if key != system.key:
                continue
            theirs = by[ref.key, threads, text]
            first_ratio = ours["first_audio_s"] / theirs["total_s"]
            rtf_ratio = ours["rtf"] / theirs["rtf"]
            cpu_ratio = ours["cpu_per_audio_s"] / theirs["cpu_per_audio_s"]
            ratio_rows.append(
                [
                    LABELS[key],
                    str(threads),
                    text,
                    f"{first_ratio:.2f}",
                    f"{rtf_ratio:.2f}",
                    f"{cpu_ratio:.2f}",
                ]
            )
            if text == "3-sentence":
                verdicts.append(
                    f"{LABELS[key]}, {threads} thread(s): first audio of the 3-sentence alert "
                    f"{first_ratio:.2f}x the runtime's whole utterance (target <= 0.4): "
                    f"{_verdict(first_ratio <= 0.4)}"
                )
            verdicts.append(
                f"{LABELS[key]}, {threads} thread(s), {text}: CPU per audio second "
                f"{cpu_ratio:.2f}x the runtime's, wall-clock RTF {rtf_ratio:.2f}x "
                f"(target: no worse, within 5 %): {_verdict(cpu_ratio <= 1.05)}"
            )
    ratios = _table(
        [
            "cosyedge voice",
            "threads",
            "text",
            "first audio / their whole",
            "RTF / their RTF",
            "CPU per audio s / theirs",
        ],
        ratio_rows,
    )
    return table, ratios, verdicts


def load_tables(rows: list[dict], all_systems: list[System]) -> tuple[str, list[str]]:
    table = _table(
        ["system", "start", "load s", "first phrase s", "spawn to ready s", "RSS after load MB"],
        [
            [
                LABELS[r["system"]],
                r["start"],
                f"{r['load_s']:.3f}",
                f"{r['first_phrase_s']:.3f}",
                f"{r['startup_s']:.2f}",
                f"{r['rss_after_load_mb']:.0f}",
            ]
            for r in rows
        ],
    )
    by = {(r["system"], r["start"]): r for r in rows}
    verdicts = []
    for system in all_systems:
        if not system.ours:
            continue
        ref = by[reference_of(system, all_systems).key, "any"]
        ours = by[system.key, "later-start"]
        ratio = ours["load_s"] / ref["load_s"]
        ready = (ours["load_s"] + ours["first_phrase_s"]) / (ref["load_s"] + ref["first_phrase_s"])
        verdicts.append(
            f"{LABELS[system.key]}: load {ratio:.2f}x the runtime's (target <= 0.3): "
            f"{_verdict(ratio <= 0.3)}; load + first phrase {ready:.2f}x"
        )
    return table, verdicts


def memory_table(
    rows: list[dict], all_systems: list[System], default: str
) -> tuple[str, list[str]]:
    keys = [s.key for s in all_systems]
    by = {(r["system"], r["clauses"]): r for r in rows}
    clauses = sorted({r["clauses"] for r in rows})
    table = _table(
        ["clauses (audio s, cosyedge piper)"] + [LABELS[k] for k in keys],
        [
            [f"{n} ({by['ours-piper-fp32', n]['audio_s']:.1f} s)"]
            + [f"{by[k, n]['peak_rss_mb']:.0f}" for k in keys]
            for n in clauses
        ],
    )
    longest = clauses[-1]
    verdicts = []
    for system in all_systems:
        if not system.ours:
            continue
        piper_tts = by["piper-fp32", longest]["peak_rss_mb"]
        ours = by[system.key, longest]["peak_rss_mb"]
        verdicts.append(
            f"{LABELS[system.key]}: peak RSS for the {by[system.key, longest]['audio_s']:.0f} s "
            f"alert {ours:.0f} MB = {ours / piper_tts:.2f}x piper-tts fp32's {piper_tts:.0f} MB "
            f"(target <= 0.5): {_verdict(ours <= 0.5 * piper_tts)}"
        )
    peak = by[default, longest]["peak_rss_mb"]
    verdicts.append(
        f"default voice ({LABELS[default]}): peak RSS {peak:.0f} MB (target < 200 MB): "
        f"{_verdict(peak < 200)}"
    )
    return table, verdicts


def quality_table(rows: list[dict]) -> str:
    return _table(
        ["system", "pocketsphinx word error", "texts"],
        [[LABELS[r["system"]], f"{r['wer']:.2f}", str(r["texts"])] for r in rows],
    )


def settings_table(rows: list[dict]) -> str:
    return _table(
        ["voice", "session setting", "RTF", "CPU s per audio s"],
        [
            [LABELS[r["system"]], r["setting"], f"{r['rtf']:.3f}", f"{r['cpu_per_audio_s']:.3f}"]
            for r in rows
        ],
    )
