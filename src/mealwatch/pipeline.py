"""The one door between a trained model and everything that uses it (CLI verbs, the service, explanations).

A ``Pipeline`` owns what turns text into a decision, so that no front end needs to know it:

    text ─► tokenizer (cut to max_length) ─► Classifier (nn.Module) ─► probabilities
         ─► decisions (thresholds) ─► labels, urgency (complaint label set only), review reasons

and it saves and loads the model folder: ``model.safetensors`` (every tensor of encoder and head),
``config.json`` (architecture, labels, severity levels, thresholds, review policy, training arguments, the format
key ``mealwatch_classifier``), ``tokenizer.json``, ``model.sha256`` (the weights' SHA-256, checked at every
load: ``checksums``) and, when training kept them, the n-gram channel fused with the encoder's probabilities
(``ngram_channel``) and the identifier of Latin-letter languages (``language_id``), written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from .atomic import write_folder_atomically
from .checksums import check_digest, record_digest
from .classifier import CONFIG_FILE, Classifier, ClassifierConfig, is_classifier_dir, read_config
from .decisions import decide
from .inference.batches import cut_by_length
from .inference.modes import Mode
from .labels import LABELS, urgency
from .ngram_channel import NgramChannel, fuse
from .languages import detect_language, language_form
from .language_id import LanguageIdentifier, in_latin_letters
from .review import ReviewPolicy, reasons, unreadable_shares
from .children import children_named
from .severity import decide_severity, keyword_level
from .tokenizer import TokenizedBatch, Tokenizer
from .transformer import CheckpointError, Encoder
from .transformer.checkpoint import WEIGHTS_FILE
from .transliteration import NativeScriptView

if TYPE_CHECKING:
    from .data import Dataset
    from .explain.word_attention import WordAttention
    from .inference.precision_choice import Choice

#: texts tokenized at once by ``probabilities`` (bounds its memory on large files)
PREDICT_CHUNK = 4096


@dataclass
class Prediction:
    """One text's predicted labels, every label's probability, the urgency and why it may need review."""

    text: str
    labels: list[str]
    probabilities: dict[str, float]
    urgency: str | None  # "high", "medium", "low"; None for a model whose labels are not the complaint labels
    truncated: bool = False  # True when the text was longer than max_length word pieces and only its start was read
    review_reasons: list[str] = field(default_factory=list)  # why a person should check it (see mealwatch.review)
    language: str | None = None  # ISO 639-1 code of the text's language (``languages.detect_language``)
    severity: str | None = None  # the worst that happened to a child (``severity.SEVERITY_LEVELS``)
    children: int = 0  # how many children it names (``children.children_named``; ``ALL_CHILDREN``: all of them)

    @property
    def needs_review(self) -> bool:
        """True when the labels should not be trusted without a person's check."""
        return bool(self.review_reasons)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "needs_review": self.needs_review}


@dataclass
class ModelRun:
    """What one run of the model over N texts gives: (N, L) probabilities; per text, whether it was cut to
    ``max_length`` and the share of its words the vocabulary cannot read (``review.unreadable_shares``)."""

    probabilities: Tensor  # (N, L)
    truncated: list[bool]
    unreadable: list[float]
    severity: Tensor | None = None  # (N, S) the severity levels' probabilities, from a model with a severity head


class Pipeline:
    """A trained classifier with its tokenizer, decision rule, label policy and review policy.

    ``mode`` is how the model runs (``inference.Mode`` name: fp32, fp32-onednn, bf16, int8, +compile),
    set once by ``prepare`` (``load`` and ``from_folder`` call it); ``forward`` is what plain inference
    calls (the model, or its compiled form). ``ngram``: the n-gram channel whose probabilities are fused
    with the encoder's (weight ``config.ngram_weight``), or None.
    """

    def __init__(
        self,
        model: Classifier,
        tokenizer: Tokenizer,
        folder: Path | None = None,
        *,
        forward: Callable[..., Any] | None = None,
        mode: str = "fp32",
        ngram: NgramChannel | None = None,
        translit: NativeScriptView | None = None,
        language_id: LanguageIdentifier | None = None,
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.ngram = ngram
        self.translit = translit
        self.language_id = language_id  # the languages of Latin-letter text (``language_id``), when trained
        self.folder = folder  # where it was loaded from, if it was
        self.forward = forward if forward is not None else model
        self.mode = mode
        self.choice: "Choice | None" = None  # what ``--precision auto`` measured, if it ran
        self._prepared = False

    def freeze(self) -> "Pipeline":
        """Only ever run from now on, never trained: evaluation mode, and no parameter takes a gradient (per-word
        importance still flows to the inputs). Returns itself."""
        self.model.eval().requires_grad_(False)
        return self

    def before_each_pass(self, hook: Callable[..., None]) -> Any:
        """Call ``hook(module, args)`` before every pass through the encoder (a classification's, an attention
        map's, an explanation's; torch's forward pre-hook); returns the handle whose ``remove()`` stops it."""
        return self.encoder.register_forward_pre_hook(hook)

    def with_model(self, model: Classifier, forward: Callable[..., Any] | None = None) -> "Pipeline":
        """The same tokenizer and policies around another model (e.g. a converted copy)."""
        return Pipeline(model, self.tokenizer, self.folder, forward=forward, ngram=self.ngram, translit=self.translit,
                        language_id=self.language_id)  # fmt: skip

    def prepare(
        self,
        precision: str = "fp32",
        *,
        compile: bool = False,
        validation: "Dataset | str | Path | None" = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        """Convert the model to ``precision`` (fp32, bf16, int8, or auto: measured, see ``inference.precision_choice``)
        and compile it if ``compile``; once per pipeline, before use.

        ``validation``: the labelled file ``auto`` checks decisions on (default: the bundled validation split
        when the model has the complaint labels). ``log`` receives what ``auto`` chose and why.
        """
        from .inference.modes import PRECISION_CHOICES, build, fixed_mode

        if self._prepared:
            raise ValueError("this pipeline's precision is already set: load the model again to change it")
        if precision not in PRECISION_CHOICES:
            raise ValueError(f"precision must be one of {', '.join(PRECISION_CHOICES)}, not {precision!r}")
        self.model.eval()
        if precision == "auto":
            from .inference.precision_choice import choose

            chosen = choose(self, self._validation_for_auto(validation, log), compile=compile, log=log)
            self.choice = chosen.choice
            if log:
                log(chosen.choice.summary())
            built = chosen.built or build(self.model, Mode.from_name(chosen.choice.mode))
        else:
            mode = fixed_mode(precision, compile)
            built = build(self.model, mode)
        self.model, self.forward = built.model, built.forward
        self.mode = self.choice.mode if self.choice is not None else mode.name
        self._prepared = True

    def _validation_for_auto(
        self, validation: "Dataset | str | Path | None", log: Callable[[str], None] | None
    ) -> "Dataset | None":
        from .data import Dataset, bundled_data_dir, read_dataset

        if isinstance(validation, Dataset):
            return validation
        if validation is None:
            default = bundled_data_dir() / "validation.csv"
            if not default.is_file() or not set(self.labels) <= set(LABELS):
                if log:
                    log("precision auto: no validation file to check decisions on (pass one); "
                        "only fp32's kernels are compared")  # fmt: skip
                return None
            validation = default
        return read_dataset(validation, label_set=self.labels, multi_label=self.multi_label)

    @property
    def name(self) -> str:
        """What to call the model in output."""
        return f"classifier {self.folder}" if self.folder is not None else "classifier (not saved)"

    # ------------------------------------------------------------------ what the model is
    @property
    def config(self) -> ClassifierConfig:
        return self.model.config

    @property
    def labels(self) -> list[str]:
        return list(self.config.labels)

    @property
    def multi_label(self) -> bool:
        return self.config.multi_label

    @property
    def max_length(self) -> int:
        """Texts are cut to this many word pieces, in training and in every use."""
        return self.config.max_length

    @property
    def encoder(self) -> Encoder:
        return self.model.encoder

    @property
    def word_embeddings(self) -> torch.nn.Embedding:
        """The encoder's word-piece embedding table: what a gradient attribution replaces by ``inputs_embeds``."""
        return self.encoder.embeddings.word

    def head_tensors(self) -> dict[str, Tensor]:
        """The linear head over the pooled encoder: ``weight`` (L, H) and ``bias`` (L,), detached (what an export
        writes beside the encoder's tensors)."""
        return {"weight": self.model.head.weight.detach(), "bias": self.model.head.bias.detach()}

    @property
    def num_layers(self) -> int:
        """The encoder's layers (an attention map has one per layer)."""
        return self.encoder.config.num_hidden_layers

    @property
    def num_heads(self) -> int:
        """Attention heads per layer."""
        return self.encoder.config.num_attention_heads

    @property
    def review_policy(self) -> ReviewPolicy:
        return ReviewPolicy.from_dict(self.config.review)

    @property
    def has_urgency(self) -> bool:
        """True when the labels are the complaint labels, the only set the urgency rule is defined for."""
        return set(self.labels) <= set(LABELS)

    def urgency_of(self, labels: Iterable[str]) -> str | None:
        """The urgency of a complaint carrying ``labels`` (``labels.urgency``); None for a model whose labels are not
        the complaint labels."""
        return urgency(labels) if self.has_urgency else None

    def log_urgency(self, labels: Iterable[str]) -> str:
        """The urgency a complaint log ranks a complaint carrying ``labels`` by: ``urgency_of``, and "low" for a model
        of another label set (its complaints rank with the low ones)."""
        return self.urgency_of(labels) or "low"

    def thresholds(self) -> list[float] | None:
        """Per-label decision thresholds of a multi-label model (0.5 where none were tuned); None if single-label."""
        if not self.multi_label:
            return None
        return list(self.config.thresholds or [0.5] * len(self.labels))

    def encoder_thresholds(self) -> list[float] | None:
        """The thresholds for the encoder's probabilities alone (what an export without the n-gram channel uses)."""
        if self.ngram is None or not self.multi_label:
            return self.thresholds()
        return list(self.config.encoder_thresholds or [0.5] * len(self.labels))

    def fuse_ngram_channel(self, channel: NgramChannel | None, weight: float, thresholds: list[float] | None) -> None:
        """Fuse ``channel`` with the encoder at ``weight`` and decide with ``thresholds`` (tuned for the fused
        probabilities); ``weight`` 0 or no channel: the encoder alone, as before."""
        if channel is None or weight == 0:
            self.ngram, self.config.ngram_weight = None, 0.0
            return
        channel.check(self.labels)
        self.config.encoder_thresholds = self.config.thresholds
        self.ngram, self.config.ngram_weight, self.config.thresholds = channel, float(weight), thresholds

    def fuse_translit_view(
        self, lexicon: NativeScriptView | None, weight: float, thresholds: list[float] | None
    ) -> None:
        """Read romanised Hindi also in Devanagari (``transliteration``) and fuse the two readings at ``weight``,
        deciding with ``thresholds`` (tuned for the fused probabilities); ``weight`` 0 or no lexicon: no view."""
        if lexicon is None or weight == 0:
            self.translit, self.config.translit_weight = None, 0.0
            return
        self.translit, self.config.translit_weight, self.config.thresholds = lexicon, float(weight), thresholds

    def without_ngram_channel(self) -> None:
        """Drop the n-gram channel: from now on the encoder's probabilities alone, decided with its own thresholds."""
        thresholds = self.encoder_thresholds()
        self.fuse_ngram_channel(None, 0.0, None)
        self.config.thresholds = thresholds

    # ------------------------------------------------------------------ text in, decisions out
    def tokenize(self, texts: str | Sequence[str]) -> TokenizedBatch:
        """Model inputs cut to ``max_length`` word pieces (every use reads the same pieces)."""
        return self.tokenizer(texts if isinstance(texts, str) else list(texts), max_length=self.max_length)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """How many word pieces (special tokens included, cut to ``max_length``) the model reads of each text."""
        return self.tokenizer.lengths(list(texts), max_length=self.max_length)

    def decide(self, probabilities: Tensor | np.ndarray) -> np.ndarray:
        """(N, L) probabilities -> (N, L) 0/1 decisions (``decisions.decide`` with this model's thresholds)."""
        p = probabilities.detach().float().numpy() if isinstance(probabilities, Tensor) else probabilities
        return decide(p, multi_label=self.multi_label, thresholds=self.thresholds())

    def probabilities(self, texts: Sequence[str], batch_size: int = 64) -> Tensor:
        """(N, L) probabilities for ``texts``, in input order."""
        return self.run(list(texts), batch_size).probabilities

    def predict(self, texts: Sequence[str], batch_size: int = 64) -> list[Prediction]:
        """Labels, probabilities, urgency and review reasons for each text, in input order.

        A text longer than ``max_length`` word pieces is judged on its start and flagged ``truncated``.
        """
        texts = list(texts)
        run = self.run(texts, batch_size)
        return self.predictions(texts, run.probabilities, run.truncated, run.unreadable, run.severity)

    def severity_levels(self, severity: Tensor | np.ndarray | None, texts: Sequence[str],
                        labels: Sequence[Sequence[str]]) -> list[str]:  # fmt: skip
        """Each text's severity level: from the severity head's (N, S) probabilities (``decide_severity`` at the
        grave threshold chosen on validation, agreeing with the ``illness`` label), or, for a model without
        the head, by ``severity.keyword_level``."""
        if severity is None or not self.config.severity_levels:
            return [keyword_level(t, ls) for t, ls in zip(texts, labels)]
        p = severity.detach().float().numpy() if isinstance(severity, Tensor) else np.asarray(severity)
        ill = ["illness" in ls for ls in labels] if "illness" in self.labels else None
        return decide_severity(p, self.config.severity_levels, self.config.grave_threshold, ill)

    def predictions(
        self, texts: Sequence[str], probabilities: Tensor, truncated: Sequence[bool], unreadable: Sequence[float],
        severity: Tensor | None = None,
    ) -> list[Prediction]:  # fmt: skip
        """Predictions from (N, L) probabilities (and (N, S) severity probabilities) already computed for ``texts``.

        ``unreadable`` is each text's share of words the vocabulary cannot read (``review.unreadable_shares``).
        """
        decisions = self.decide(probabilities)  # (N, L)
        thresholds, policy, names = self.thresholds(), self.review_policy, self.labels
        chosen = [[label for label, on in zip(names, d) if on] for d in decisions.tolist()]
        levels = self.severity_levels(severity, texts, chosen) if self.has_urgency else [None] * len(texts)
        languages = self.languages_of(texts)
        out = []
        for text, p, labels, cut, u, sev, language in zip(
            texts, probabilities.tolist(), chosen, truncated, unreadable, levels, languages
        ):
            form = language_form(language, "latn" if in_latin_letters(text) else None)
            why = reasons(p, names, thresholds, u, policy, language, form)
            children = children_named(text) if self.has_urgency else 0
            out.append(Prediction(text, labels, dict(zip(names, p)), self.urgency_of(labels), cut, why, language,
                                  sev, children))  # fmt: skip
        return out

    def languages_of(self, texts: Sequence[str]) -> list[str]:
        """Each text's language (ISO 639-1): ``languages.detect_language``, and for text in Latin letters the model's
        own language identifier where it keeps one (romanised Tamil is Tamil, not English)."""
        found = [detect_language(t) for t in texts]
        if self.language_id is not None:
            found = self.language_id.refine(texts, found)
        return found

    def native_views(self, texts: Sequence[str]) -> list[str]:
        """Each text as the model's transliteration view reads it (``transliteration.NativeScriptView``: typed in
        Latin letters, read again in its language's script); the text itself where the model keeps no view."""
        if self.translit is None or self.config.translit_weight <= 0:
            return list(texts)
        return [self.translit.view(t, language) for t, language in zip(texts, self.languages_of(texts))]

    @torch.inference_mode()
    def run(self, texts: Sequence[str], batch_size: int = 64) -> ModelRun:
        """The model run over ``texts``: (N, L) probabilities; per text, whether it was cut and its unreadable share.

        The encoder's probabilities, fused with those of the native-script view of the texts it changes (when the
        model keeps a transliteration view), then with the n-gram channel's (when it keeps one).
        """
        texts = list(texts)
        run = self._run_encoder(texts, batch_size)
        out = run.probabilities
        if self.translit is not None and self.config.translit_weight > 0:  # p = (1 − v) · p(text) + v · p(view)
            views = self.native_views(texts)
            changed = [i for i, (t, v) in enumerate(zip(texts, views)) if v != t]
            if changed:
                seen = self._run_encoder([views[i] for i in changed], batch_size).probabilities  # (C, L)
                fused = fuse(out[changed].numpy(), seen.numpy(), self.config.translit_weight)
                out[changed] = torch.from_numpy(fused).float()
        if self.ngram is not None:  # p = (1 − w) · p_encoder + w · p_ngram
            out = torch.from_numpy(fuse(out.numpy(), self.ngram.probabilities(texts), self.config.ngram_weight)).float()
        return ModelRun(out, run.truncated, run.unreadable, run.severity)

    @torch.inference_mode()
    def _run_encoder(self, texts: list[str], batch_size: int) -> ModelRun:
        """The encoder's (N, L) probabilities; per text, whether it was cut and its unreadable share.

        Texts are tokenized a chunk at a time, sorted by length and cut into passes of at most ``batch_size``
        texts that waste little on padding or on the fixed cost of a pass (``inference.batches``).
        """
        model = self.model
        was_training = model.training
        if was_training:  # (a walk over every module: not on each call of a model that is already in eval mode)
            model.eval()
        out = torch.zeros(len(texts), len(self.labels))  # (N, L)
        levels = self.config.severity_levels
        severity = torch.zeros(len(texts), len(levels)) if levels else None  # (N, S)
        truncated: list[bool] = []
        unreadable: list[float] = []
        for start in range(0, len(texts), PREDICT_CHUNK):
            tokens = self.tokenize(texts[start : start + PREDICT_CHUNK])
            truncated.extend(tokens.truncated)
            unreadable.extend(unreadable_shares(tokens))
            lengths = tokens.attention_mask.sum(dim=1)  # (C,)
            order = torch.argsort(lengths, stable=True)  # (C,)
            for group in cut_by_length(lengths[order].tolist(), batch_size):  # little padding, few passes
                idx = order[group]  # (B,)
                T = int(lengths[idx].max())
                result = self.forward(
                    input_ids=tokens.input_ids[idx, :T],
                    attention_mask=tokens.attention_mask[idx, :T],
                    token_type_ids=tokens.token_type_ids[idx, :T],
                )  # fmt: skip
                out[start + idx] = model.probabilities(result.logits).float()  # (B, L)
                severity_logits = getattr(result, "severity_logits", None)  # (B, S); an exported model has none
                if severity is not None and severity_logits is None:
                    severity = None  # the levels come from the rule instead
                elif severity is not None:
                    severity[start + idx] = torch.softmax(severity_logits.float(), dim=-1)
        if was_training:
            model.train()
        return ModelRun(out, truncated, unreadable, severity)

    def word_attention(self, text: str, include_special: bool = True) -> "WordAttention":
        """Attention of every layer and head merged to words, over the same pieces the prediction reads."""
        from .explain.word_attention import word_attention

        return word_attention(self.encoder, self.tokenizer, text, include_special, self.max_length)

    # ------------------------------------------------------------------ files
    def save(self, directory: str | Path) -> None:
        """Write the model folder atomically (see the module docstring); replaces an older saved model."""

        if self.mode.partition("+")[0] not in ("fp32", "fp32-onednn"):
            raise ValueError(f"this pipeline runs in {self.mode}: save the fp32 model (load it without --precision)")

        def write(folder: Path) -> None:
            from safetensors.torch import save_file

            self.tokenizer.save(folder)
            if self.ngram is not None:
                self.ngram.save(folder)
            if self.translit is not None:
                self.translit.save(folder)
            if self.language_id is not None:
                self.language_id.save(folder)
            tensors = {k: v.detach().contiguous().cpu() for k, v in self.model.state_dict().items()}
            save_file(tensors, str(folder / WEIGHTS_FILE), metadata={"format": "pt"})
            record_digest(folder, WEIGHTS_FILE)  # checked at every load: a damaged file is never served
            # config.json last: a folder without it is never taken for a classifier
            (folder / CONFIG_FILE).write_text(json.dumps(self.config.to_dict(), indent=2), encoding="utf-8")

        write_folder_atomically(Path(directory), write, replaceable=is_classifier_dir)

    @classmethod
    def load(cls, path: str | Path | None = None, **speed: Any) -> "Pipeline":
        """The model in ``path``, or where ``runs.resolve_model`` finds one when None; errors say what is wrong.

        Keyword arguments (``precision``, ``compile``, ``validation``, ``log``) go to ``prepare``.
        """
        from .runs import resolve_model

        if speed.pop("backend", "torch") == "onnxruntime":
            if speed.get("compile"):
                raise ValueError("--compile applies to the torch backend, not onnxruntime")
            return cls.from_onnx(path, precision=speed.get("precision", "fp32"))
        return cls.from_folder(resolve_model(path), **speed)

    @classmethod
    def from_onnx(cls, directory: str | Path | None, *, precision: str = "fp32") -> "Pipeline":
        """A folder written by ``mealwatch export --format onnx``, run by ONNX Runtime (fp32 or int8 graph)."""
        from .export.onnx import is_onnx_dir
        from .export.onnx_runtime import OnnxClassifier

        if directory is None or not is_onnx_dir(directory):
            raise CheckpointError(f"--backend onnxruntime needs --model FOLDER written by `mealwatch export --format "
                                  f"onnx` (with model.onnx and config.json); got {directory}")  # fmt: skip
        if precision not in ("fp32", "int8"):
            raise ValueError(f"the onnxruntime backend runs --precision fp32 or int8, not {precision}")
        folder = Path(directory)
        model = OnnxClassifier(folder, read_config(folder), precision)
        tokenizer = Tokenizer.from_pretrained(folder, max_length=model.config.max_length)
        pipeline = cls(model, tokenizer, folder, mode=f"onnxruntime-{precision}",  # type: ignore[arg-type]
                       ngram=ngram_channel_of(folder, model.config),
                       language_id=LanguageIdentifier.load(folder))  # fmt: skip
        pipeline._prepared = True
        return pipeline

    @classmethod
    def from_folder(
        cls,
        directory: str | Path,
        *,
        precision: str = "fp32",
        compile: bool = False,
        validation: "Dataset | str | Path | None" = None,
        log: Callable[[str], None] | None = None,
    ) -> "Pipeline":
        """Load a folder written by ``save``, checking every tensor's name and shape, then ``prepare`` it."""
        pipeline = cls._read_folder(Path(directory))
        pipeline.prepare(precision, compile=compile, validation=validation, log=log)
        return pipeline

    @classmethod
    def _read_folder(cls, directory: Path) -> "Pipeline":
        from safetensors import SafetensorError
        from safetensors.torch import load_file

        folder = Path(directory)
        config = read_config(folder)
        model = Classifier(Encoder(config.encoder), config)
        try:
            tensors = load_file(str(folder / WEIGHTS_FILE))
        except FileNotFoundError as e:
            raise CheckpointError(f"{folder} has no {WEIGHTS_FILE}: the model folder is incomplete") from e
        except CheckpointError:
            raise
        except (SafetensorError, OSError, ValueError, RuntimeError) as e:
            raise CheckpointError(f"{folder / WEIGHTS_FILE} is damaged or truncated and cannot be read: {e}") from e
        expected = model.state_dict()
        problems = [
            f"missing tensor {k} (expected shape {tuple(v.shape)})" for k, v in expected.items() if k not in tensors
        ]
        problems += [f"unexpected tensor {k}" for k in tensors if k not in expected]
        problems += [
            f"tensor {k} has shape {tuple(t.shape)}, expected {tuple(expected[k].shape)}"
            for k, t in tensors.items()
            if k in expected and t.shape != expected[k].shape
        ]
        if problems:
            raise CheckpointError(
                f"{folder / WEIGHTS_FILE} does not match its config.json:\n  " + "\n  ".join(problems)
            )
        check_digest(folder, WEIGHTS_FILE)  # a file damaged or altered inside its tensors is refused, never served
        model.load_state_dict(tensors, strict=True)
        translit = NativeScriptView.load(folder) if config.translit_weight > 0 else None
        tokenizer = Tokenizer.from_pretrained(folder, max_length=config.max_length)  # one backend, at the model's cut
        return cls(model.eval(), tokenizer, folder, ngram=ngram_channel_of(folder, config),
                   translit=translit, language_id=LanguageIdentifier.load(folder))  # fmt: skip


def ngram_channel_of(folder: Path, config: ClassifierConfig) -> NgramChannel | None:
    """The n-gram channel saved in a model folder whose config fuses one; None when it does not."""
    return NgramChannel.load(folder, config.labels) if config.ngram_weight > 0 else None


@dataclass
class EncoderOnly:
    """A plain BERT checkpoint (no classification head), for looking at its attention and embedding texts.

    ``forward`` runs the encoder for embeddings (its converted or compiled form, ``load``); None: the encoder.
    """

    encoder: Encoder
    tokenizer: Tokenizer
    name: str
    forward: Callable[..., Any] | None = None

    @classmethod
    def load(cls, path: str | Path | None, precision: str = "fp32", compile: bool = False) -> "EncoderOnly":
        """The BERT checkpoint in folder ``path`` (None: the bundled all-MiniLM-L6-v2), run in ``precision`` (fp32,
        bf16 or int8: ``inference.modes``), compiled when ``compile``."""
        from .inference.modes import build, fixed_mode

        encoder, tokenizer = Encoder.from_pretrained(path), Tokenizer.from_pretrained(path)
        built = build(encoder, fixed_mode(precision, compile))
        name = "all-MiniLM-L6-v2 (bundled)" if path is None else f"encoder {path}"
        return cls(built.model, tokenizer, name, built.forward)

    def embed(
        self, texts: Sequence[str], pooling: str = "mean", batch_size: int = 64, normalize: bool = False
    ) -> np.ndarray:
        """One vector per text, (N, H) float32, in input order (``embeddings.embed_texts``: mean or [CLS] pooling,
        optionally scaled to unit length)."""
        from .embeddings import embed_texts

        return embed_texts(self.encoder, self.tokenizer, texts, pooling, batch_size, normalize, forward=self.forward)

    def word_attention(self, text: str, include_special: bool = True) -> "WordAttention":
        from .explain.word_attention import word_attention

        return word_attention(self.encoder, self.tokenizer, text, include_special)


def open_model(path: str | Path | None) -> "Pipeline | EncoderOnly":
    """A trained classifier folder as a ``Pipeline``; a BERT checkpoint folder, or None for the bundled
    all-MiniLM-L6-v2, as an ``EncoderOnly``."""
    if path is None:
        return EncoderOnly(Encoder.from_pretrained(), Tokenizer.from_pretrained(), "all-MiniLM-L6-v2 (bundled)")
    folder = Path(path)
    if not folder.is_dir():
        raise CheckpointError(f"model folder {folder} does not exist: give a folder written by `mealwatch train` "
                              "or a Hugging Face BERT folder")  # fmt: skip
    if is_classifier_dir(folder):
        return Pipeline.from_folder(folder)
    return EncoderOnly(Encoder.from_pretrained(folder), Tokenizer.from_pretrained(folder), f"encoder {folder}")
