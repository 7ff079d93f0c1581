"""Teaching the encoder a language: vocabulary extension, multilingual distillation, masked-LM pre-training."""
