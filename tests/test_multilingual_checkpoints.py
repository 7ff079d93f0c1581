"""Multilingual checkpoint layouts against Hugging Face `transformers` on tiny random models built here:

- cased WordPiece without accent stripping (MuRIL), from vocab.txt + tokenizer_config.json or tokenizer.json;
- a BERT network with an XLM-R SentencePiece tokenizer (<s> </s> <pad>=1 <unk>), as the multilingual
  MiniLM and e5 folders ship it (their config.json says pad_token_id 0);
- model_type xlm-roberta: positions after the padding index, one token type, roberta.* names, with and
  without a pooler.

Each must give HF's token ids and HF's outputs (atol 1e-5, padded batches), and a classifier built on it
must save and reload to the same probabilities.
"""

from __future__ import annotations

import json

import pytest
import torch
import transformers
from tokenizers import Regex, decoders, normalizers, pre_tokenizers, processors, trainers
from tokenizers import Tokenizer as FastTokenizer
from tokenizers.models import Unigram, WordPiece

from mealwatch import CheckpointError, Encoder, Tokenizer
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.pipeline import Pipeline
from mealwatch.review import unreadable_share, unreadable_shares

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread (tests/conftest.py)

CORPUS = [
    "आज खाने में कीड़े थे, बच्चों को उल्टी हुई।",
    "आज MDM में dal बिल्कुल पानी जैसी थी",
    "दाल में पानी था और रोटी कच्ची थी",
    "बच्चों को खाना नहीं मिला",
    "खाने में छिपकली गिरी थी",
    "The meal was served without Dal because it was spoiled.",
    "Worms in the Khichdi again, the Cook said nothing",
    "Khichdi me chhipkali giri thi, bachhe ulti kar rahe hai!!",
    "khichdi khichdi khichdi roti roti dal dal",
    "Children vomited after lunch at the School",
    "No meal today, the kitchen was closed",
    "MDM me ANDA nahi mila",
    "Café owner gave stale rotis to Class 3",
]
MIXED = [
    "आज MDM में Dal बिल्कुल पानी जैसी थी",
    "Khichdi me KEEDE the!",
    "बच्चों को उल्टी हुई, the Cook said nothing",
    "no meal",
    "Café खाने",
]
LABELS = ["foreign_object", "illness", "meal_not_served", "other"]
TINY = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)


def ids_of(hf_tokenizer, texts) -> tuple[list, list]:
    ref = hf_tokenizer(list(texts), padding=True)
    return ref["input_ids"], ref["attention_mask"]


def assert_same_as_hf(ours: Encoder, hf: torch.nn.Module, batch, pooler: bool = True) -> None:
    """Last hidden state on the real tokens, every hidden state, and the pooler output where HF has one."""
    inputs = {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask}
    real = batch.attention_mask.bool()[..., None]  # (B, T, 1)
    with torch.no_grad():
        a = ours(**inputs, output_hidden_states=True)
        h = hf(**inputs, output_hidden_states=True)
    torch.testing.assert_close(a.last_hidden_state * real, h.last_hidden_state * real, atol=1e-5, rtol=0)
    for x, y in zip(a.hidden_states, h.hidden_states, strict=True):
        torch.testing.assert_close(x * real, y * real, atol=1e-5, rtol=0)
    if pooler:
        torch.testing.assert_close(a.pooler_output, h.pooler_output, atol=1e-5, rtol=0)
    else:
        assert h.pooler_output is None and ours.pooler is None
        torch.testing.assert_close(a.pooler_output, a.last_hidden_state[:, 0])  # h[CLS] itself


# --- 1. cased WordPiece without accent stripping (MuRIL) ---------------------------------------------------


@pytest.fixture(scope="module")
def cased_vocab(tmp_path_factory):
    """A folder with only vocab.txt and tokenizer_config.json (do_lower_case and strip_accents false)."""
    backend = FastTokenizer(WordPiece(unk_token="[UNK]"))
    backend.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=False)
    backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    backend.train_from_iterator(
        CORPUS * 3, trainers.WordPieceTrainer(vocab_size=400, special_tokens=specials, show_progress=False)
    )
    folder = tmp_path_factory.mktemp("muril-vocab")
    vocab = sorted(backend.get_vocab().items(), key=lambda kv: kv[1])
    (folder / "vocab.txt").write_text("".join(f"{piece}\n" for piece, _ in vocab), encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": False, "strip_accents": False}))
    return folder


@pytest.fixture(scope="module", params=["vocab.txt", "tokenizer.json"])
def muril(request, cased_vocab, tmp_path_factory):
    """(folder, HF tokenizer, HF BertModel): the cased vocabulary as vocab.txt, or as HF's own tokenizer.json."""
    hf_tokenizer = transformers.BertTokenizerFast.from_pretrained(cased_vocab)
    folder = cased_vocab
    if request.param == "tokenizer.json":
        folder = tmp_path_factory.mktemp("muril-json")
        hf_tokenizer.save_pretrained(folder)
        assert (folder / "tokenizer.json").is_file()
        hf_tokenizer = transformers.BertTokenizerFast.from_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=hf_tokenizer.vocab_size, max_position_embeddings=64, attn_implementation="eager", **TINY
    )
    hf = transformers.BertModel(config).eval()
    hf.save_pretrained(folder)
    return folder, hf_tokenizer, hf


def test_cased_wordpiece_keeps_case_and_devanagari_marks_with_hf_ids(muril):
    folder, hf_tokenizer, _ = muril
    ours = Tokenizer.from_pretrained(folder)
    batch = ours(MIXED)
    assert (batch.input_ids.tolist(), batch.attention_mask.tolist()) == ids_of(hf_tokenizer, MIXED)
    assert "MDM" in batch.tokens[0] and "Dal" in batch.words[0] and "में" in batch.words[0]
    pieces = "".join(t.removeprefix("##") for t in batch.tokens[0][1:-1])
    assert pieces == MIXED[0].replace(" ", "")  # every capital and every vowel sign reached the model
    assert "Café" in batch.words[4]  # the accent is kept: the checkpoint says strip_accents false
    assert ours.unk_token == "[UNK]" and ours.continuation_prefix == "##" and ours.word_prefix == ""
    for text, words, spans in zip(MIXED, batch.words, batch.word_spans):
        assert [text[s:e] for s, e in spans] == words


def test_cased_bert_matches_transformers(muril):
    folder, _, hf = muril
    assert_same_as_hf(Encoder.from_pretrained(folder), hf, Tokenizer.from_pretrained(folder)(MIXED))


def test_tokenizer_config_strip_accents_is_followed(cased_vocab, tmp_path):
    for name in ("vocab.txt", "tokenizer_config.json"):
        (tmp_path / name).write_bytes((cased_vocab / name).read_bytes())
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": False, "strip_accents": True}))
    batch = Tokenizer.from_pretrained(tmp_path)(["Café खाने"])
    assert batch.words[0] == ["Café", "खाने"]  # words point into the text as given ...
    assert "Cafe" in "".join(t.removeprefix("##") for t in batch.tokens[0])  # ... the pieces lost the accent
    assert "खाने" in "".join(t.removeprefix("##") for t in batch.tokens[0])  # and kept every Devanagari mark


def test_tokenizer_config_casing_wins_over_tokenizer_json_as_in_transformers(tmp_path):
    from mealwatch.transformer import bundled_model_dir

    for name in ("tokenizer.json", "vocab.txt"):  # an uncased tokenizer.json ...
        (tmp_path / name).write_bytes((bundled_model_dir() / name).read_bytes())
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": False}))  # ... declared cased
    texts = ["Hello World", "MDM me ANDA"]
    reference = transformers.BertTokenizerFast.from_pretrained(tmp_path)
    assert Tokenizer.from_pretrained(tmp_path)(texts).input_ids.tolist() == ids_of(reference, texts)[0]


# --- 2./3. SentencePiece (XLM-R) tokenizer, on a BERT network and on XLM-RoBERTa ------------------------------


@pytest.fixture(scope="module")
def xlmr_tokenizer_folder(tmp_path_factory):
    """A tiny Unigram tokenizer laid out as XLM-R's: Metaspace, <s> $A </s>, <pad> at id 1, saved by HF."""
    backend = FastTokenizer(Unigram())
    backend.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    backend.pre_tokenizer = pre_tokenizers.Metaspace()
    backend.decoder = decoders.Metaspace()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    trainer = trainers.UnigramTrainer(vocab_size=300, special_tokens=specials, unk_token="<unk>", show_progress=False)
    backend.train_from_iterator(CORPUS * 5, trainer)
    backend.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    hf = transformers.XLMRobertaTokenizerFast(
        tokenizer_object=backend, bos_token="<s>", eos_token="</s>", cls_token="<s>", sep_token="</s>",
        pad_token="<pad>", unk_token="<unk>", mask_token="<mask>",
    )  # fmt: skip
    folder = tmp_path_factory.mktemp("xlmr-tokenizer")
    hf.save_pretrained(folder)
    return folder


def hf_reference(folder):
    return transformers.AutoTokenizer.from_pretrained(folder)


LAYOUTS = ["bert+sentencepiece", "xlm-roberta", "xlm-roberta-no-pooler", "xlm-roberta-masked-lm"]


@pytest.fixture(scope="module", params=LAYOUTS)
def sentencepiece_model(request, xlmr_tokenizer_folder, tmp_path_factory):
    """(folder, HF encoder, has pooler) for each layout that ships the XLM-R tokenizer."""
    folder = tmp_path_factory.mktemp(request.param)
    for file in xlmr_tokenizer_folder.iterdir():
        (folder / file.name).write_bytes(file.read_bytes())
    vocab = hf_reference(folder).vocab_size
    torch.manual_seed(1)
    if request.param == "bert+sentencepiece":  # multilingual MiniLM / e5: BertModel, config pad_token_id 0, and
        # more embedding rows than the tokenizer has pieces (250037 against 250002 in the real folders)
        config = transformers.BertConfig(vocab_size=vocab + 7, max_position_embeddings=64, pad_token_id=0, **TINY)
        hf = transformers.BertModel(config)
    else:
        config = transformers.XLMRobertaConfig(
            vocab_size=vocab, max_position_embeddings=66, type_vocab_size=1, pad_token_id=1, **TINY
        )
        if request.param == "xlm-roberta-masked-lm":  # roberta.* names and an lm_head.* to ignore
            full = transformers.XLMRobertaForMaskedLM(config)
            full.save_pretrained(folder)
            return folder, full.roberta.eval(), False
        hf = transformers.XLMRobertaModel(config, add_pooling_layer=request.param == "xlm-roberta")
    hf.save_pretrained(folder)
    return folder, hf.eval(), request.param != "xlm-roberta-no-pooler"


def test_sentencepiece_tokenizer_finds_its_special_tokens_and_pads_with_pad_id_1(xlmr_tokenizer_folder):
    ours = Tokenizer.from_pretrained(xlmr_tokenizer_folder)
    assert (ours.cls_token, ours.sep_token, ours.pad_token, ours.unk_token) == ("<s>", "</s>", "<pad>", "<unk>")
    assert (ours.cls_token_id, ours.pad_token_id, ours.sep_token_id) == (0, 1, 2)
    assert ours.continuation_prefix == "" and ours.word_prefix == "▁"
    batch, reference = ours(MIXED), hf_reference(xlmr_tokenizer_folder)
    assert (batch.input_ids.tolist(), batch.attention_mask.tolist()) == ids_of(reference, MIXED)
    assert batch.input_ids[3, -1] == 1 and batch.tokens[3][0] == "<s>" and batch.tokens[3][-1] == "</s>"


@pytest.mark.parametrize(
    "text", ["आज MDM में Dal बिल्कुल पानी जैसी थी", "  खाने  में कीड़े   थे, Cook!! ", "Khichdi me KEEDE the!"]
)
def test_sentencepiece_words_are_whitespace_separated_and_whole(xlmr_tokenizer_folder, text):
    batch = Tokenizer.from_pretrained(xlmr_tokenizer_folder)([text])
    assert batch.words[0] == text.split()
    assert [text[s:e] for s, e in batch.word_spans[0]] == text.split()
    n = len(batch.words[0])
    assert batch.word_ids[0][0] is None and batch.word_ids[0][-1] is None
    assert sorted({w for w in batch.word_ids[0] if w is not None}) == list(range(n))


def test_lone_metaspace_pieces_join_a_word_and_roles_come_from_tokenizer_json_alone(xlmr_tokenizer_folder):
    backend = FastTokenizer.from_file(str(xlmr_tokenizer_folder / "tokenizer.json"))
    backend.normalizer = normalizers.NFKC()  # doubled spaces stay: each extra one is a lone "▁" piece
    ours = Tokenizer(backend)  # no tokenizer_config.json: post-processor, model and names give the roles
    assert (ours.cls_token, ours.sep_token, ours.pad_token, ours.unk_token) == ("<s>", "</s>", "<pad>", "<unk>")
    text = "  खाने  में कीड़े   थे, Cook!! "
    batch = ours([text, "   "])
    assert batch.tokens[0].count("▁") >= 3
    assert [text[s:e] for s, e in batch.word_spans[0]] == batch.words[0] == text.split()
    assert batch.words[1] == [] and set(batch.word_ids[1]) == {None}


def test_sentencepiece_layouts_match_transformers(sentencepiece_model):
    folder, hf, pooler = sentencepiece_model
    ours = Encoder.from_pretrained(folder)
    batch = Tokenizer.from_pretrained(folder)(MIXED)
    assert batch.attention_mask[:, -1].tolist().count(0) >= 1  # a padded batch
    assert_same_as_hf(ours, hf, batch, pooler)
    assert ours.embeddings.word.padding_idx == 1  # the real pad id, even where config.json says 0


def test_xlm_roberta_positions_start_after_the_padding_index(sentencepiece_model):
    folder, _, _ = sentencepiece_model
    ours = Encoder.from_pretrained(folder)
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]])
    positions = ours.embeddings.position_ids(2, 4, mask, torch.device("cpu")).tolist()
    if ours.config.model_type == "bert":
        assert ours.config.position_offset is None and positions == [[0, 1, 2, 3], [0, 1, 2, 3]]
        return
    assert ours.config.position_offset == 1 and ours.config.type_vocab_size == 1
    assert positions == [[2, 3, 4, 1], [2, 3, 4, 5]]  # real tokens from pad id + 1, padding at the pad id
    ours(input_ids=torch.full((1, 64), 5))  # 66 rows hold 64 tokens ...
    with pytest.raises(ValueError, match="longer than the model's 64 positions"):
        ours(input_ids=torch.full((1, 65), 5))  # ... and no more


def test_unsupported_model_type_names_the_supported_ones(sentencepiece_model, tmp_path):
    folder, _, _ = sentencepiece_model
    config = json.loads((folder / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "model_type": "deberta-v2"}))
    with pytest.raises(CheckpointError, match=r"model_type 'deberta-v2' is not supported.*'bert', 'xlm-roberta'"):
        Encoder.from_pretrained(tmp_path)


# --- 5. unreadable words in SentencePiece pieces ---------------------------------------------------------------


def test_unreadable_share_reads_sentencepiece_pieces():
    words = ["आज", "khichdi", "दाल"]
    tokens = ["<s>", "▁", "आ", "ज", "▁khichdi", "▁", "<unk>", "</s>"]
    word_ids = [None, 0, 0, 0, 1, 2, 2, None]
    assert unreadable_share(tokens, word_ids, words, "<unk>", "", "▁") == pytest.approx(2 / 3)


def test_unreadable_shares_use_the_tokenizers_own_unk_and_markers(xlmr_tokenizer_folder):
    ours = Tokenizer.from_pretrained(xlmr_tokenizer_folder)
    batch = ours(["khichdi khichdi roti", "இன்று புழு"])  # corpus words; Tamil, which the vocabulary never saw
    assert batch.unk_token == "<unk>" and batch.word_prefix == "▁"
    assert "<unk>" in batch.tokens[1]
    assert unreadable_shares(batch) == [0.0, 1.0]


# --- 6. a classifier on each layout saves and reloads to the same probabilities -----------------------------


@pytest.mark.parametrize("pooling", ["mean", "cls"])
def test_classifier_round_trip_on_sentencepiece_layouts(sentencepiece_model, tmp_path, pooling):
    folder, _, _ = sentencepiece_model
    round_trip(folder, tmp_path, pooling)


def test_classifier_round_trip_on_cased_wordpiece(muril, tmp_path):
    round_trip(muril[0], tmp_path, "cls")


def round_trip(folder, tmp_path, pooling: str) -> None:
    encoder, tokenizer = Encoder.from_pretrained(folder), Tokenizer.from_pretrained(folder)
    torch.manual_seed(2)
    pipeline = Pipeline(Classifier(encoder, ClassifierConfig(LABELS, True, pooling=pooling)).eval(), tokenizer)
    torch.nn.init.normal_(pipeline.model.head.weight, std=0.3)  # a head whose outputs differ per text
    before = pipeline.probabilities(MIXED)
    pipeline.save(tmp_path / "model")
    loaded = Pipeline.from_folder(tmp_path / "model")
    assert loaded.encoder.config == encoder.config
    assert loaded.tokenizer.pad_token_id == tokenizer.pad_token_id
    assert loaded.tokenizer(MIXED).input_ids.tolist() == tokenizer(MIXED).input_ids.tolist()
    torch.testing.assert_close(loaded.probabilities(MIXED), before, atol=1e-6, rtol=0)
    assert (before - before[0]).abs().max() > 1e-5  # the texts really were told apart


# --- our own xlm-roberta encoders: saved folders that transformers reads; a half pooler is an error ---------


def test_an_xlm_roberta_encoder_we_save_is_read_back_by_us_and_transformers(tmp_path):
    from mealwatch import EncoderConfig

    config = EncoderConfig(
        vocab_size=60, max_position_embeddings=34, type_vocab_size=1, pad_token_id=1, model_type="xlm-roberta", **TINY
    )
    assert config.position_offset == 1  # the family fills it in
    torch.manual_seed(3)
    ours = Encoder(config).eval()
    ours.save_pretrained(tmp_path)
    assert Encoder.from_pretrained(tmp_path).config == config
    hf = transformers.XLMRobertaModel.from_pretrained(tmp_path, attn_implementation="eager").eval()
    ids = torch.tensor([[0, 7, 8, 9, 2, 1, 1], [0, 5, 6, 7, 8, 9, 2]])
    mask = (ids != 1).long()
    batch = type("Batch", (), {"input_ids": ids, "attention_mask": mask})
    assert_same_as_hf(ours, hf, batch)


def test_half_a_pooler_is_named(sentencepiece_model, tmp_path):
    from safetensors.torch import load_file, save_file

    folder, _, pooler = sentencepiece_model
    if not pooler:
        return
    tensors = load_file(str(folder / "model.safetensors"))
    tensors.pop(next(k for k in tensors if k.endswith("pooler.dense.weight")))
    save_file(tensors, str(tmp_path / "model.safetensors"))
    (tmp_path / "config.json").write_bytes((folder / "config.json").read_bytes())
    with pytest.raises(CheckpointError, match=r"missing tensor pooler\.dense\.weight \(expected shape \(32, 32\)\)"):
        Encoder.from_pretrained(tmp_path)
