"""An inference mode — precision, oneDNN kernel for fp32, compiled or not — and building a model in one."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torch import nn

from ..transformer.linear import onednn_available
from ..transformer.precision import PRECISIONS, apply_precision, set_onednn, supported_precisions
from .compiled import CompiledForward, compiler_missing

#: what ``--precision`` accepts
PRECISION_CHOICES = ("auto", *PRECISIONS)


@dataclass(frozen=True)
class Mode:
    """How a model runs: ``precision`` (fp32, bf16, int8), fp32's kernel (``onednn``), ``compiled``."""

    precision: str = "fp32"
    onednn: bool = False  # fp32 only: the encoder's Linear layers may use oneDNN (transformer/linear.py)
    compiled: bool = False

    @property
    def name(self) -> str:
        """e.g. ``fp32``, ``fp32-onednn``, ``bf16+compile``."""
        return self.precision + ("-onednn" if self.onednn else "") + ("+compile" if self.compiled else "")

    @classmethod
    def from_name(cls, name: str) -> "Mode":
        base, _, compiled = name.partition("+")
        precision, _, kernel = base.partition("-")
        if precision not in PRECISIONS or kernel not in ("", "onednn") or compiled not in ("", "compile"):
            raise ValueError(f"not a mode name: {name!r}")
        return cls(precision, kernel == "onednn", compiled == "compile")


def candidate_modes(compile: bool) -> list[Mode]:
    """The modes ``auto`` times on this machine: each supported precision, fp32 on either kernel, and with
    ``compile`` each of them compiled too (where a C++ compiler is present)."""
    modes = [Mode("fp32")]
    if onednn_available():
        modes.append(Mode("fp32", onednn=True))
    modes += [Mode(p) for p in supported_precisions() if p != "fp32"]
    if compile and compiler_missing() is None:
        modes += [Mode(m.precision, compiled=True) for m in modes if not m.onednn]  # compiling never uses oneDNN
    return modes


def fixed_mode(precision: str, compile: bool) -> Mode:
    """The mode a fixed ``--precision`` asks for (fp32 keeps oneDNN where its own probe found it faster)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISION_CHOICES)}, not {precision!r}")
    return Mode(precision, onednn=precision == "fp32" and not compile and onednn_available(), compiled=compile)


@dataclass
class Built:
    """A model converted to a mode and the callable that runs it for plain inference."""

    model: nn.Module
    forward: Callable[..., Any]
    compile_failure: str | None = None


def build(model: nn.Module, mode: Mode, *, copy_model: bool = False) -> Built:
    """``model`` (fp32) converted to ``mode``, in place unless ``copy_model``; weights converted once, here."""
    target = copy.deepcopy(model) if copy_model else model
    apply_precision(target, mode.precision)
    set_onednn(target, mode.onednn)
    if not mode.compiled:
        return Built(target, target)
    forward = CompiledForward(target)
    return Built(target, forward, forward.failure)
