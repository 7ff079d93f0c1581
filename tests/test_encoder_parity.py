"""Our encoder against Hugging Face `transformers` (a test-only dependency) on the same weights."""

import pytest
import torch
import transformers

from mealwatch import Encoder, EncoderConfig, Tokenizer
from mealwatch.transformer import bundled_model_dir

TEXTS = [
    "The meal was served without dal because it was spoiled.",
    "worms in the khichdi",
    "my daughter vomited after lunch and the cook makes our children wash the pots",
]


def hf_tiny_config(**overrides) -> transformers.BertConfig:
    kw = dict(
        vocab_size=200,
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=4,
        intermediate_size=48,
        max_position_embeddings=40,
        type_vocab_size=2,
        layer_norm_eps=1e-7,
        attn_implementation="eager",
    )
    kw.update(overrides)
    return transformers.BertConfig(**kw)


def assert_same_outputs(ours: Encoder, hf: torch.nn.Module, inputs: dict, atol: float) -> None:
    mask = inputs["attention_mask"].bool()
    with torch.no_grad():
        a = ours(**inputs, output_attentions=True, output_hidden_states=True)
        h = hf(**inputs, output_attentions=True, output_hidden_states=True)
    real = mask[..., None]  # compare real tokens; padded positions carry no meaning
    assert torch.allclose(a.last_hidden_state * real, h.last_hidden_state * real, atol=atol)
    assert torch.allclose(a.pooler_output, h.pooler_output, atol=atol)
    assert len(a.hidden_states) == len(h.hidden_states) == ours.config.num_hidden_layers + 1
    for x, y in zip(a.hidden_states, h.hidden_states):
        assert torch.allclose(x * real, y * real, atol=atol)
    assert len(a.attentions) == len(h.attentions) == ours.config.num_hidden_layers
    rows = mask[:, None, :, None]  # real query rows
    for x, y in zip(a.attentions, h.attentions):
        assert torch.allclose(x * rows, y * rows, atol=atol)


def random_inputs(vocab: int, lengths: list[int], type_ids: bool = True) -> dict:
    g = torch.Generator().manual_seed(0)
    T = max(lengths)
    ids = torch.randint(1, vocab, (len(lengths), T), generator=g)
    mask = torch.zeros(len(lengths), T, dtype=torch.long)
    for i, n in enumerate(lengths):
        mask[i, :n] = 1
    ids = ids * mask
    tt = (torch.arange(T) >= T // 2).long().expand(len(lengths), T) * mask if type_ids else torch.zeros_like(ids)
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": tt.contiguous()}


@pytest.mark.parametrize("safe", [True, False], ids=["safetensors", "pytorch_model.bin"])
def test_tiny_random_bert_matches_transformers(tmp_path, safe):
    torch.manual_seed(0)
    hf = transformers.BertModel(hf_tiny_config()).eval()
    hf.save_pretrained(tmp_path, safe_serialization=safe)
    ours = Encoder.from_pretrained(tmp_path)
    assert ours.config.layer_norm_eps == 1e-7 and ours.config.num_hidden_layers == 3
    assert_same_outputs(ours, hf, random_inputs(200, [17, 9, 4]), atol=1e-5)


def test_bert_prefix_and_task_head_tensors_are_accepted(tmp_path):
    torch.manual_seed(1)
    full = transformers.BertForSequenceClassification(hf_tiny_config(num_labels=3)).eval()
    full.save_pretrained(tmp_path)  # tensors named bert.* plus classifier.*
    ours = Encoder.from_pretrained(tmp_path)
    assert_same_outputs(ours, full.bert, random_inputs(200, [12, 5]), atol=1e-5)


def test_save_pretrained_round_trips_and_transformers_reads_it(tmp_path):
    torch.manual_seed(2)
    ours = Encoder(
        EncoderConfig(
            vocab_size=200,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=4,
            intermediate_size=48,
            max_position_embeddings=40,
        )
    ).eval()
    ours.save_pretrained(tmp_path)
    again = Encoder.from_pretrained(tmp_path)
    for (k, v), (k2, v2) in zip(ours.state_dict().items(), again.state_dict().items()):
        assert k == k2 and torch.equal(v, v2)
    hf = transformers.BertModel.from_pretrained(tmp_path, attn_implementation="eager").eval()
    assert_same_outputs(ours, hf, random_inputs(200, [11, 6]), atol=1e-5)


def test_pre_ln_and_sinusoidal_options_round_trip(tmp_path):
    torch.manual_seed(3)
    config = EncoderConfig(
        vocab_size=100,
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=20,
        position_embedding="sinusoidal",
        norm_first=True,
    )
    ours = Encoder(config).eval()
    ours.save_pretrained(tmp_path)
    again = Encoder.from_pretrained(tmp_path)
    assert again.config == config
    inputs = random_inputs(100, [9, 3], type_ids=False)
    with torch.no_grad():
        assert torch.equal(ours(**inputs).last_hidden_state, again(**inputs).last_hidden_state)


@pytest.mark.real_weights
def test_real_minilm_matches_transformers_on_a_padded_batch():
    folder = bundled_model_dir()
    ours = Encoder.from_pretrained()
    hf = transformers.BertModel.from_pretrained(folder, attn_implementation="eager").eval()
    batch = Tokenizer.from_pretrained()(TEXTS)
    hf_batch = transformers.BertTokenizerFast.from_pretrained(folder)(TEXTS, padding=True, return_tensors="pt")
    assert torch.equal(batch.input_ids, hf_batch["input_ids"])
    assert torch.equal(batch.attention_mask, hf_batch["attention_mask"])
    assert_same_outputs(ours, hf, batch.model_inputs(), atol=1e-4)
