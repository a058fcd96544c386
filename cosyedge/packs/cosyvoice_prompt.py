"""A zero-shot speaker from a recording: what the reference frontend computes from a prompt.

Conversion only (torch). From the prompt (mono 16-bit WAV, any rate) and its transcript:
- the speech tokens: whisper's 128-bin log-mel of the 16 kHz audio into
  `speech_tokenizer_v1.onnx`;
- the speaker embedding: Kaldi's 80-bin log filterbank of the 16 kHz audio, its mean over
  time removed, into `campplus.onnx`;
- the prompt's mel at 22.05 kHz, as the flow's condition: Matcha-TTS's mel spectrogram
  (librosa's Slaney filters, 0-8 kHz, hop 256, no centring).

The reference computes these with torchaudio (resampling, Kaldi fbank) and librosa (mel
filters), neither of which runs beside the CPU torch of the conversion venv; they are
written here from those libraries' documented definitions. Resampling uses scipy's
polyphase filter, not torchaudio's windowed sinc: the features differ from the reference's
by the filters' difference, which the tests bound for whisper's log-mel only (checked against
whisper's own code). Those features then go through the same graphs and weights as the
reference's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

SPEECH_TOKENIZER_RATE = 16000
MEL_RATE = 22050


@dataclass(frozen=True)
class PromptFeatures:
    speech_tokens: np.ndarray  # (P,) int64
    embedding: np.ndarray  # (1, 192) float32
    feat: np.ndarray  # (frames, 80) float32


def resample(audio: np.ndarray, rate: int, new_rate: int) -> np.ndarray:
    if rate == new_rate:
        return audio.astype(np.float32)
    from scipy.signal import resample_poly

    ratio = Fraction(new_rate, rate)
    return resample_poly(audio, ratio.numerator, ratio.denominator).astype(np.float32)


def whisper_log_mel(audio16k: np.ndarray, filters: np.ndarray):
    """whisper.log_mel_spectrogram(audio, n_mels=128): (1, 128, frames)."""
    import torch

    audio = torch.from_numpy(audio16k)
    stft = torch.stft(audio, 400, 160, window=torch.hann_window(400), return_complex=True)
    magnitudes = stft[..., :-1].abs() ** 2
    mel = torch.from_numpy(filters) @ magnitudes
    log_spec = torch.clamp(mel, min=1e-10).log10()
    log_spec = torch.maximum(log_spec, log_spec.max() - 8.0)
    return ((log_spec + 4.0) / 4.0)[None]


def _kaldi_mel_banks(bins: int, fft_size: int, rate: int, low: float = 20.0) -> np.ndarray:
    """Kaldi's triangular filters, equally spaced on 1127·ln(1 + f/700): (bins, fft/2 + 1)."""

    def mel(f):
        return 1127.0 * np.log(1.0 + np.asarray(f, dtype=np.float64) / 700.0)

    high = rate / 2
    delta = (mel(high) - mel(low)) / (bins + 1)
    freqs = mel(rate / fft_size * np.arange(fft_size // 2))
    edges = mel(low) + delta * np.arange(bins + 2)
    left, centre, right = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    up = (freqs - left) / (centre - left)
    down = (right - freqs) / (right - centre)
    banks = np.maximum(0.0, np.minimum(up, down))
    return np.pad(banks, ((0, 0), (0, 1))).astype(np.float32)


def kaldi_fbank(audio16k: np.ndarray, bins: int = 80) -> np.ndarray:
    """torchaudio.compliance.kaldi.fbank(dither=0) at 16 kHz: 25 ms frames every 10 ms (edges
    snipped), DC removed, pre-emphasis 0.97, Povey window, 512-point power spectrum, log mel
    energies floored at float32's epsilon. (frames, bins)."""
    size, shift, fft = 400, 160, 512
    count = 1 + (len(audio16k) - size) // shift
    index = np.arange(size)[None, :] + shift * np.arange(count)[:, None]
    frames = audio16k[index].astype(np.float64)
    frames -= frames.mean(axis=1, keepdims=True)
    previous = np.concatenate([frames[:, :1], frames[:, :-1]], axis=1)
    frames = frames - 0.97 * previous
    window = (0.5 - 0.5 * np.cos(2 * math.pi * np.arange(size) / (size - 1))) ** 0.85
    power = np.abs(np.fft.rfft(frames * window, n=fft, axis=1)) ** 2
    energies = power @ _kaldi_mel_banks(bins, fft, SPEECH_TOKENIZER_RATE).T
    return np.log(np.maximum(energies, np.finfo(np.float32).eps)).astype(np.float32)


def _slaney_mel(f: np.ndarray) -> np.ndarray:
    f = np.asarray(f, dtype=np.float64)
    linear = f / (200.0 / 3)
    log_part = 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / (np.log(6.4) / 27.0)
    return np.where(f >= 1000.0, log_part, linear)


def _slaney_hz(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    return np.where(m >= 15.0, 1000.0 * np.exp(np.log(6.4) / 27.0 * (m - 15.0)), m * 200.0 / 3)


def slaney_filters(rate: int, n_fft: int, bins: int, fmin: float, fmax: float) -> np.ndarray:
    """librosa.filters.mel(sr, n_fft, n_mels, fmin, fmax) with its defaults (Slaney scale and
    area normalization): (bins, n_fft/2 + 1)."""
    fft_freqs = np.fft.rfftfreq(n_fft, 1.0 / rate)
    mel_f = _slaney_hz(np.linspace(_slaney_mel(fmin), _slaney_mel(fmax), bins + 2))
    ramps = mel_f[:, None] - fft_freqs[None, :]
    fdiff = np.diff(mel_f)
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_f[2:] - mel_f[:-2]))[:, None]
    return weights.astype(np.float32)


def matcha_mel(audio22k: np.ndarray):
    """Matcha-TTS's mel_spectrogram(n_fft 1024, 80 bins, hop 256, win 1024, 0-8000 Hz,
    center False): (frames, 80)."""
    import torch
    import torch.nn.functional as F

    n_fft, hop = 1024, 256
    basis = torch.from_numpy(slaney_filters(MEL_RATE, n_fft, 80, 0.0, 8000.0))
    y = torch.from_numpy(audio22k)[None, None]
    pad = (n_fft - hop) // 2
    y = F.pad(y, (pad, pad), mode="reflect")[0]
    window = torch.hann_window(n_fft)
    spec = torch.stft(y, n_fft, hop, n_fft, window=window, center=False, return_complex=True)
    spec = torch.sqrt(torch.view_as_real(spec).pow(2).sum(-1) + 1e-9)
    mel = torch.log(torch.clamp(basis @ spec, min=1e-5))
    return mel[0].T.numpy().astype(np.float32)


def prompt_features(pcm: np.ndarray, rate: int, model_dir: Path, filters: np.ndarray):
    """The prompt's speech tokens, speaker embedding and mel, through the directory's own
    speech tokenizer and campplus. `filters`: whisper's 128-bin mel filters."""
    import onnxruntime as ort

    audio = pcm.astype(np.float32) / 32768.0
    audio16k = resample(audio, rate, SPEECH_TOKENIZER_RATE)
    providers = ["CPUExecutionProvider"]
    tokenizer = ort.InferenceSession(str(model_dir / "speech_tokenizer_v1.onnx"),
                                     providers=providers)  # fmt: skip
    feats = whisper_log_mel(audio16k, filters).numpy()
    names = [i.name for i in tokenizer.get_inputs()]
    length = np.array([feats.shape[2]], dtype=np.int32)
    tokens = tokenizer.run(None, {names[0]: feats, names[1]: length})[0].reshape(-1)
    fbank = kaldi_fbank(audio16k)
    fbank = fbank - fbank.mean(axis=0, keepdims=True)
    campplus = ort.InferenceSession(str(model_dir / "campplus.onnx"), providers=providers)
    embedding = campplus.run(None, {campplus.get_inputs()[0].name: fbank[None]})[0]
    feat = matcha_mel(resample(audio16k, SPEECH_TOKENIZER_RATE, MEL_RATE))
    return PromptFeatures(tokens.astype(np.int64), embedding.reshape(1, -1), feat)
