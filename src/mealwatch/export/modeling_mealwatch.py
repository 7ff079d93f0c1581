"""A mealwatch complaint classifier for Hugging Face ``transformers`` (copied into every ``--format hf`` export).

Load it with ``AutoModelForSequenceClassification.from_pretrained(folder, trust_remote_code=True)``:
BERT's own ``BertForSequenceClassification`` classifies the pooled [CLS] vector, while a mealwatch model
may classify the **mean** of the real tokens' vectors, so the export carries this small class:

    v = mean of last_hidden_state over attention_mask == 1   (config.mealwatch["pooling"] == "mean")
    v = pooler_output                                          (pooling == "cls")
    logits = W v + b;  probabilities = sigmoid(logits) per label (multi-label) or softmax

``config.mealwatch`` also holds the per-label decision thresholds and the urgency rule (see README.md).
"""

from __future__ import annotations

import torch
from torch import nn
from transformers import AutoModel, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import SequenceClassifierOutput


class MealwatchForSequenceClassification(PreTrainedModel):
    """The encoder (BertModel or XLMRobertaModel, from the config's model_type) and a linear head."""

    config_class = PretrainedConfig
    base_model_prefix = "encoder"

    def __init__(self, config: PretrainedConfig) -> None:
        super().__init__(config)
        self.pooling = config.mealwatch["pooling"]
        self.encoder = AutoModel.from_config(config, add_pooling_layer=config.mealwatch["add_pooling_layer"])
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.post_init()

    def forward(self, input_ids=None, attention_mask=None, token_type_ids=None, **kwargs) -> SequenceClassifierOutput:
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        out = self.encoder(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        if self.pooling == "mean":
            m = attention_mask.unsqueeze(-1).to(out.last_hidden_state.dtype)  # (B, T, 1)
            pooled = (out.last_hidden_state * m).sum(1) / m.sum(1).clamp(min=1e-9)  # (B, H)
        else:
            pooled = out.pooler_output  # (B, H)
        return SequenceClassifierOutput(logits=self.classifier(pooled))  # (B, L)
