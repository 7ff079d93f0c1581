"""What the model attends to and why it predicts: attention merged to words, one registry of attribution
methods (gradient × input, integrated gradients, attention rollout), pictures, an interactive page, and
terminal reports.

Names are imported on first use (PEP 562), so ``import mealwatch.explain`` loads neither matplotlib
nor rich until a picture or a terminal report is asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

# functions named like their modules are bound eagerly: importing the module would shadow a lazy name
from .focus import focus as focus
from .word_attention import word_attention as word_attention

#: public name -> the module of this package that defines it
_WHERE = {
    "IntegratedGradients": "attribution_math", "attention_rollout": "attribution_math",
    "integrated_gradients": "attribution_math", "rollout_importance": "attribution_math",
    "Explanation": "explanation", "explain": "explanation", "explain_batch": "explanation",
    "FocusReport": "focus", "HeadWeight": "focus", "find_word": "focus", "focus": "focus",
    "attribute": "registry", "method_names": "registry", "register": "registry",
    "render_page": "page", "write_page": "page",
    "grid_figure": "pictures", "head_figure": "pictures", "save_grid": "pictures", "save_head": "pictures",
    "WordScores": "word_scores",
    "WordAttention": "word_attention", "drop_special": "word_attention", "merge_to_words": "word_attention",
    "word_attention": "word_attention", "word_attention_batch": "word_attention", "word_units": "word_attention",
}  # fmt: skip
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
