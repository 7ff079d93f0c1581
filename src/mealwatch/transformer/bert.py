"""BERT (``model_type: bert``): BERT, MiniLM, MuRIL, LaBSE, and the multilingual MiniLM / e5 encoders
(BERT networks that ship an XLM-R SentencePiece tokenizer). Positions 0..T-1, tensors under ``bert.``."""

from .family import Family, register

BERT = register(
    Family(
        model_type="bert",
        architecture="BertModel",
        prefix="bert.",
        ignored=r"^(embeddings\.position_ids|cls\.|classifier\.|qa_outputs\.)",
    )
)
