"""Running a trained model fast: precision modes, compilation, and the ``auto`` choice between them.

- ``modes``: a ``Mode`` (fp32 / bf16 / int8, fp32's oneDNN kernel, compiled or not) and ``build``;
- ``compiled``: ``torch.compile`` with a fallback to eager on any failure;
- ``precision_choice``: ``--precision auto`` — timed on this machine, checked against fp32's decisions, cached.
- ``batches``: texts sorted by length cut into passes that waste little on padding and per-pass cost.

``pipeline.Pipeline.load(..., precision=, compile=)`` (a classifier) and ``pipeline.EncoderOnly.load`` (a plain
encoder: ``mealwatch embed``) are the places front ends reach them.
"""

from .modes import PRECISION_CHOICES, Mode

__all__ = ["PRECISION_CHOICES", "Mode"]
