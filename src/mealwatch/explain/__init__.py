"""What the model attends to and why it predicts: attention merged to words, integrated
gradients and attention rollout, pictures, an interactive page, and terminal reports."""
from .attributions import IntegratedGradients, attention_rollout, integrated_gradients, rollout_importance
from .explanation import Explanation, explain, explain_batch
from .focus import FocusReport, HeadWeight, find_word, focus
from .page import render_page, write_page
from .pictures import grid_figure, head_figure, save_grid, save_head
from .word_attention import (
    WordAttention,
    drop_special,
    merge_to_words,
    word_attention,
    word_attention_batch,
    word_units,
)

__all__ = [
    "Explanation",
    "FocusReport",
    "HeadWeight",
    "IntegratedGradients",
    "WordAttention",
    "attention_rollout",
    "drop_special",
    "explain",
    "explain_batch",
    "find_word",
    "focus",
    "grid_figure",
    "head_figure",
    "integrated_gradients",
    "merge_to_words",
    "render_page",
    "rollout_importance",
    "save_grid",
    "save_head",
    "word_attention",
    "word_attention_batch",
    "word_units",
    "write_page",
]
