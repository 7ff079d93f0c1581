"""XLM-RoBERTa (``model_type: xlm-roberta``): BERT's network with RoBERTa's positions.

Position ids count the real tokens from after the padding index, as Hugging Face's
``create_position_ids_from_input_ids``: with pad id p (1 in XLM-R), the k-th real token sits at
position p + k and padding at p, so a 514-row table holds 512 tokens. One token type
(``type_vocab_size`` 1), tensors under ``roberta.``, a masked-LM head ``lm_head.*`` to ignore; a
checkpoint saved without a pooler loads without one (see ``Encoder``).
"""

from .family import Family, register

XLM_ROBERTA = register(
    Family(
        model_type="xlm-roberta",
        architecture="XLMRobertaModel",
        prefix="roberta.",
        ignored=r"^(embeddings\.position_ids|embeddings\.token_type_ids|lm_head\.|classifier\.|qa_outputs\.)",
        positions_after_padding=True,
    )
)
