"""``torch.compile`` for inference, with a fallback to eager execution on any failure."""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Callable
from typing import Any

import torch
from torch import nn


def compiler_missing() -> str | None:
    """Why ``torch.compile`` cannot build CPU kernels here (no C++ compiler), or None."""
    if not any(shutil.which(name) for name in ("c++", "g++", "clang++")):
        return "no C++ compiler found (c++, g++ or clang++): torch.compile's CPU backend needs one"
    return None


class CompiledForward:
    """Calls ``module`` through ``torch.compile`` when no gradient is needed; eager otherwise.

    The first failure — compiling, or running a compiled graph — prints one warning and switches
    this object to eager execution for good (``failure`` says why), so a model that cannot be
    compiled still answers. Shapes vary (batch, tokens), so the graph is compiled with dynamic shapes.
    """

    def __init__(self, module: nn.Module) -> None:
        self.module = module
        self.failure: str | None = compiler_missing()
        self._compiled: Callable[..., Any] | None = None
        if self.failure is None:
            try:
                self._compiled = torch.compile(module, dynamic=True)
            except Exception as e:  # noqa: BLE001 - any failure means: run eagerly
                self._fail(e)
        else:
            warnings.warn(f"torch.compile is not used: {self.failure}; running eagerly", stacklevel=2)

    @property
    def active(self) -> bool:
        """True while calls still go through the compiled graph."""
        return self.failure is None and self._compiled is not None

    def _fail(self, error: BaseException) -> None:
        self.failure = f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}"
        warnings.warn(f"torch.compile failed ({self.failure}); running eagerly from now on", stacklevel=3)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.active and not torch.is_grad_enabled():
            try:
                return self._compiled(*args, **kwargs)  # type: ignore[misc]
            except Exception as e:  # noqa: BLE001 - fall back, once, with a warning
                self._fail(e)
        return self.module(*args, **kwargs)
