"""The Transformer encoder, from first principles — one idea per file."""

from .attention import MultiHeadAttention, scaled_dot_product_attention
from .checkpoint import CheckpointError, bundled_model_dir
from .encoder import Encoder, EncoderConfig, EncoderOutput, mean_pool
from .positions import sinusoidal_table

__all__ = [
    "CheckpointError",
    "Encoder",
    "EncoderConfig",
    "EncoderOutput",
    "MultiHeadAttention",
    "bundled_model_dir",
    "mean_pool",
    "scaled_dot_product_attention",
    "sinusoidal_table",
]
