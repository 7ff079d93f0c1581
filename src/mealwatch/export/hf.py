"""``mealwatch export --format hf``: a folder that ``transformers``' ``AutoModelForSequenceClassification`` loads.

Written (atomically, as one folder):

- ``config.json`` — the encoder's Hugging Face config, plus ``id2label``/``label2id``, ``problem_type``,
  ``auto_map`` pointing at ``modeling_mealwatch.MealwatchForSequenceClassification`` and a ``mealwatch``
  block: pooling, per-label thresholds, the urgency rule, max_length, the review policy;
- ``model.safetensors`` — the encoder's tensors under Hugging Face names (``encoder.`` prefix) and the
  head as ``classifier.weight``/``classifier.bias``;
- ``modeling_mealwatch.py`` — the class (mean pooling, which BERT's own classification class lacks),
  hence ``trust_remote_code=True``;
- ``tokenizer.json`` and ``tokenizer_config.json`` — for ``AutoTokenizer`` (the same normalization);
- ``README.md`` — a model card: labels, thresholds, urgency, how to load and decide.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import write_folder_atomically
from ..labels import HIGH_URGENCY, MEDIUM_URGENCY
from ..transformer.checkpoint import WEIGHTS_FILE, ours_to_hf, unfused_state_dict

if TYPE_CHECKING:
    from ..pipeline import Pipeline

MODELING_FILE = Path(__file__).with_name("modeling_mealwatch.py")
CLASS_NAME = "MealwatchForSequenceClassification"
#: what the export says when the model it comes from fuses an n-gram channel (which this format cannot carry)
NGRAM_NOTE = (
    "the mealwatch model this was exported from fuses its probabilities with a word and character n-gram channel "
    "(mealwatch.ngram_channel); this export is the encoder alone, with the thresholds tuned for the encoder alone "
    "on validation. `mealwatch export --format onnx` keeps the channel."
)


def hf_config(pipeline: "Pipeline") -> dict[str, Any]:
    """config.json of the export (see the module docstring)."""
    config = pipeline.config
    d = config.encoder.to_dict()
    labels = pipeline.labels
    d.update(
        architectures=[CLASS_NAME],
        auto_map={"AutoModelForSequenceClassification": f"modeling_mealwatch.{CLASS_NAME}"},
        id2label={str(i): label for i, label in enumerate(labels)},
        label2id={label: i for i, label in enumerate(labels)},
        problem_type="multi_label_classification" if pipeline.multi_label else "single_label_classification",
        mealwatch={
            "pooling": config.pooling,
            "add_pooling_layer": config.encoder.add_pooling_layer,
            "multi_label": pipeline.multi_label,
            "thresholds": pipeline.encoder_thresholds(),
            "ngram_channel": NGRAM_NOTE if pipeline.ngram is not None else None,
            "urgency": urgency_rule() if pipeline.has_urgency else None,
            "max_length": pipeline.max_length,
            "review": config.review,
        },
    )
    return d


def urgency_rule() -> dict[str, Any]:
    """The urgency rule of ``labels.urgency`` as data."""
    return {
        "high": sorted(HIGH_URGENCY),
        "medium": sorted(MEDIUM_URGENCY),
        "otherwise": "low",
        "rule": "high if any predicted label is in 'high', else medium if any is in 'medium', else low",
    }


def hf_tensors(pipeline: "Pipeline") -> dict[str, Any]:
    """The classifier's tensors under the names ``MealwatchForSequenceClassification`` uses."""
    tensors = {f"encoder.{ours_to_hf(k)}": v for k, v in unfused_state_dict(pipeline.encoder).items()}
    tensors.update({f"classifier.{name}": value for name, value in pipeline.head_tensors().items()})
    return {k: v.detach().float().contiguous().cpu() for k, v in tensors.items()}


def tokenizer_config(pipeline: "Pipeline") -> dict[str, Any]:
    tok = pipeline.tokenizer
    special = {"cls_token": tok.cls_token, "sep_token": tok.sep_token, "pad_token": tok.pad_token,
               "unk_token": tok.unk_token, "mask_token": tok.mask_token}  # fmt: skip
    return {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_max_length": pipeline.max_length,
        "truncation_side": "right",
        **{k: v for k, v in special.items() if v is not None},
    }


def model_card(pipeline: "Pipeline", source: str) -> str:
    """README.md of the export."""
    thresholds = pipeline.encoder_thresholds()
    ngram_note = f"\nNote: {NGRAM_NOTE}\n" if pipeline.ngram is not None else ""
    rows = "\n".join(
        f"| {i} | `{label}` | {'' if thresholds is None else f'{thresholds[i]:.2f}'} |"
        for i, label in enumerate(pipeline.labels)
    )
    decide = (
        "a label is predicted when its sigmoid probability reaches its threshold below; if none does, "
        "the most probable label is predicted"
        if pipeline.multi_label
        else "the label with the highest softmax probability is predicted"
    )
    urgency = ""
    if pipeline.has_urgency:
        urgency = (
            "\n## Urgency\n\n"
            f"high if any predicted label is one of {', '.join(f'`{x}`' for x in sorted(HIGH_URGENCY))}; else medium "
            f"if any is one of {', '.join(f'`{x}`' for x in sorted(MEDIUM_URGENCY))}; else low "
            "(`config.json` → `mealwatch.urgency`).\n"
        )
    return f"""---
library_name: transformers
pipeline_tag: text-classification
tags: [mealwatch, complaints, mid-day-meal]
---

# mealwatch complaint classifier

Exported by `mealwatch export --format hf` from `{source}`. A BERT-style encoder
({pipeline.config.encoder.num_hidden_layers} layers, hidden size {pipeline.config.encoder.hidden_size}) with a linear
head over the **{pipeline.config.pooling}**-pooled last layer; texts are cut to {pipeline.max_length} word pieces.
{"Multi-label" if pipeline.multi_label else "Single-label"}: {decide}.
{ngram_note}
```python
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

model = AutoModelForSequenceClassification.from_pretrained("PATH", trust_remote_code=True).eval()
tokenizer = AutoTokenizer.from_pretrained("PATH")
batch = tokenizer(["worms in the khichdi"], padding=True, truncation=True, max_length={pipeline.max_length},
                  return_tensors="pt")
with torch.no_grad():
    logits = model(**batch).logits
probabilities = {"torch.sigmoid(logits)" if pipeline.multi_label else "torch.softmax(logits, dim=-1)"}
```

`trust_remote_code=True` runs `modeling_mealwatch.py` from this folder (read it first: about 50 lines):
`BertForSequenceClassification` classifies the [CLS] pooler output, not the mean of the tokens.

## Labels and decision thresholds

| id | label | threshold |
|---:|---|---:|
{rows}
{urgency}
## Limits

Trained on the complaints it was given (see the training arguments in `config.json` → `mealwatch`); a
person should review low-confidence predictions (`mealwatch.review`: the close-call margin).
"""


def export_hf(pipeline: "Pipeline", out: str | Path, source: str = "a mealwatch model") -> Path:
    """Write the Hugging Face folder for ``pipeline`` (an fp32 pipeline) at ``out``; returns ``out``."""
    from safetensors.torch import save_file

    if pipeline.mode.partition("+")[0] not in ("fp32", "fp32-onednn"):
        raise ValueError(f"export the fp32 model (this pipeline runs in {pipeline.mode})")
    out = Path(out)

    def write(folder: Path) -> None:
        save_file(hf_tensors(pipeline), str(folder / WEIGHTS_FILE), metadata={"format": "pt"})
        shutil.copyfile(MODELING_FILE, folder / "modeling_mealwatch.py")
        pipeline.tokenizer.save(folder)
        (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer_config(pipeline), indent=2), "utf-8")
        (folder / "README.md").write_text(model_card(pipeline, source), encoding="utf-8")
        (folder / "config.json").write_text(json.dumps(hf_config(pipeline), indent=2), encoding="utf-8")

    write_folder_atomically(out, write, replaceable=lambda p: (Path(p) / "modeling_mealwatch.py").is_file())
    return out
