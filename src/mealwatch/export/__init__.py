"""Writing a trained model for other runtimes: a Hugging Face ``transformers`` folder (``hf``) and an ONNX
graph run by ONNX Runtime (``onnx``, ``onnx_runtime``). ``mealwatch export`` is the command."""

FORMATS = ("hf", "onnx")

__all__ = ["FORMATS"]
