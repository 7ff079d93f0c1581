"""mealwatch: sort school-meal complaints with a BERT encoder written from first principles."""

from .labels import LABELS, urgency
from .tokenizer import TokenizedBatch, Tokenizer
from .transformer import CheckpointError, Encoder, EncoderConfig, EncoderOutput

__all__ = [
    "LABELS",
    "CheckpointError",
    "Encoder",
    "EncoderConfig",
    "EncoderOutput",
    "TokenizedBatch",
    "Tokenizer",
    "urgency",
]
__version__ = "0.1.0"
