"""Shared by benchmarks/incidents.py and benchmarks/search.py: the sentence-vector sources they compare.

``--vectors`` names one: ``e5`` (multilingual-e5-small as pre-trained, with its query/passage prefixes: the
service's default), ``e5-plain`` (the same without prefixes), or a trained run folder (its fine-tuned encoder,
``SentenceVectors.from_pipeline``). Vectors are cached per source and text set in memory only.
"""

from __future__ import annotations

from pathlib import Path

from mealwatch.search.vectors import SentenceVectors


def load_vectors(source: str) -> SentenceVectors:
    """The ``SentenceVectors`` a ``--vectors`` value names."""
    if source == "e5":
        return SentenceVectors.pretrained("e5")
    if source == "e5-plain":
        return SentenceVectors.pretrained("e5", prefixes=False)
    from mealwatch.pipeline import Pipeline
    from mealwatch.checksums import model_version

    folder = Path(source)
    if not (folder / "config.json").is_file():
        raise SystemExit(f"--vectors {source}: expected e5, e5-plain or a trained run folder (with config.json)")
    return SentenceVectors.from_pipeline(Pipeline.from_folder(folder), model_version(folder))
