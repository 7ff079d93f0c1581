"""WordPiece through the `tokenizers` library, with the map back to words and characters."""

import shutil

import pytest
import transformers

from mealwatch import Tokenizer
from mealwatch.text import normalize
from mealwatch.transformer import bundled_model_dir


def test_word_alignment(tokenizer):
    text = "Khichdi me keede the!"
    b = tokenizer([text])
    assert b.tokens[0] == ["[CLS]", "k", "##hic", "##hdi", "me", "ke", "##ede", "the", "!", "[SEP]"]
    assert b.word_ids[0] == [None, 0, 0, 0, 1, 2, 2, 3, 4, None]
    assert b.words[0] == ["Khichdi", "me", "keede", "the", "!"]
    assert [text[s:e] for s, e in b.word_spans[0]] == b.words[0]


def test_padding_to_longest_and_masks(tokenizer):
    b = tokenizer(["worms", "the dal was sour today"])
    assert b.input_ids.shape == (2, 7)
    assert b.attention_mask.tolist() == [[1, 1, 1, 0, 0, 0, 0], [1] * 7]
    assert b.input_ids[0, 3:].tolist() == [tokenizer.pad_token_id] * 4
    assert b.truncated == [False, False]


def test_truncation_is_flagged_not_silent(tokenizer):
    b = tokenizer(["roti " * 300], max_length=64)
    assert b.input_ids.shape == (1, 64) and b.truncated == [True]
    assert b.tokens[0][-1] == "[SEP]"


def test_same_ids_as_transformers(tokenizer):
    texts = ["The meal was served without dal because it was spoiled.", "MDM me ANDA nahi mila!!", "naïve café"]
    ref = transformers.BertTokenizerFast.from_pretrained(bundled_model_dir())(texts, padding=True)
    b = tokenizer(texts)
    assert b.input_ids.tolist() == ref["input_ids"]
    assert b.attention_mask.tolist() == ref["attention_mask"]


def test_an_emoji_is_a_word_of_its_own_and_takes_no_word_with_it(tokenizer):
    # BERT's own pre-tokenizer keeps "bekar🤮" one word, which the English vocabulary can only call [UNK]
    ref = transformers.BertTokenizerFast.from_pretrained(bundled_model_dir())
    text = "khana bekar🤮🤮 tha, 👍🏻 ok🇮🇳"
    assert ref.convert_ids_to_tokens(ref(text)["input_ids"])[3] == "[UNK]"
    b = tokenizer([text])
    assert b.words[0] == ["khana", "bekar", "🤮", "🤮", "tha", ",", "👍🏻", "ok", "🇮🇳"]  # a skin tone, a flag: one
    assert [text[s:e] for s, e in b.word_spans[0]] == b.words[0]
    assert b.tokens[0][:6] == ["[CLS]", "khan", "##a", "be", "##kar", "[UNK]"]
    # text without emoji tokenizes exactly as Hugging Face's (test_same_ids_as_transformers)
    assert tokenizer(["khana bekar tha"]).input_ids.tolist()[0] == ref("khana bekar tha")["input_ids"]


def test_a_web_address_reads_as_one_word_whose_span_is_all_of_it(tokenizer):
    text = "Photo: HTTPS://t.co/HmH8M7PTaK dekho, aur https // t co / XPCzJ7GFqC bhi www.mdm.gov.in/form?id=3"
    b = tokenizer([text])
    assert b.tokens[0] == ["[CLS]", "photo", ":", "link", "de", "##kh", "##o", ",", "au", "##r", "link", "b", "##hi",
                           "link", "[SEP]"]  # fmt: skip
    assert b.words[0] == ["Photo", ":", "HTTPS://t.co/HmH8M7PTaK", "dekho", ",", "aur", "https // t co / XPCzJ7GFqC",
                          "bhi", "www.mdm.gov.in/form?id=3"]  # fmt: skip
    assert [text[s:e] for s, e in b.word_spans[0]] == b.words[0]
    # "http" alone is a word like any other, and the alerts' keyword matching (text.normalize) keeps addresses
    assert tokenizer(["http error"]).tokens[0] == ["[CLS]", "http", "error", "[SEP]"]
    assert normalize("see https://t.co/x") == "see https://t.co/x"


def test_a_saved_tokenizer_reads_text_as_its_model_was_trained_to(tmp_path):
    from tokenizers import pre_tokenizers

    from mealwatch.text import bert_normalizer

    old = Tokenizer.from_pretrained()  # as a model saved before emoji and web addresses had words of their own
    old.backend.normalizer = bert_normalizer()
    old.backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    old.save(tmp_path)
    again = Tokenizer.from_pretrained(tmp_path)
    assert again(["funny😂 https://t.co/a1"]).tokens[0][:2] == ["[CLS]", "[UNK]"]
    assert "link" not in again(["funny😂 https://t.co/a1"]).tokens[0]
    assert not again.reads_links and Tokenizer.from_pretrained().reads_links
    b = again(["see https://t.co/a1 ok"])  # its words, and their spans, are the ones it always had
    assert b.words[0] == ["see", "https", ":", "/", "/", "t", ".", "co", "/", "a1", "ok"]
    assert ["see https://t.co/a1 ok"[s:e] for s, e in b.word_spans[0]] == b.words[0]


def test_vocab_txt_only_folder_tokenizes_the_same(tmp_path, tokenizer):
    shutil.copy(bundled_model_dir() / "vocab.txt", tmp_path / "vocab.txt")
    from_vocab = Tokenizer.from_pretrained(tmp_path)
    texts = ["Worms in the KHICHDI, again?!", "chawal kaccha tha", "keede 🐛 the😡", "photo: https://t.co/a1"]
    assert from_vocab(texts).input_ids.tolist() == tokenizer(texts).input_ids.tolist()
    assert from_vocab(texts).words == tokenizer(texts).words


def test_save_and_reload(tmp_path, tokenizer):
    tokenizer.save(tmp_path)
    again = Tokenizer.from_pretrained(tmp_path)
    for text in ("dal me keeda", "dal me keeda🐛🐛", "dal me keeda https://t.co/a1"):
        assert again(text).input_ids.tolist() == tokenizer(text).input_ids.tolist()
        assert again(text).words == tokenizer(text).words


def test_damaged_tokenizer_json(tmp_path):
    (tmp_path / "tokenizer.json").write_text("{broken")
    with pytest.raises(ValueError, match="tokenizer.json cannot be read"):
        Tokenizer.from_pretrained(tmp_path)


def test_threads_asking_different_lengths_never_change_each_others_cut():
    """Issue 36, item 3: the classifier (128) and search (256) share one tokenizer; each call's cut is its own."""
    import threading

    shared = Tokenizer.from_pretrained()  # a fresh one: the session's fixture is left as it is
    text = " ".join(f"word{i} khichdi" for i in range(400))  # far beyond every length asked
    wrong: list[tuple[int, int]] = []
    start = threading.Barrier(3)

    def read(length: int) -> None:
        start.wait()
        for _ in range(300):
            batch = shared([text, "dal"], max_length=length)
            got = int(batch.attention_mask[0].sum())
            if got != length or batch.input_ids.shape[1] != length or not batch.truncated[0]:
                wrong.append((length, got))
            if shared.lengths([text], max_length=length) != [length]:
                wrong.append((length, -1))

    threads = [threading.Thread(target=read, args=(n,)) for n in (128, 256, 64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
    assert shared([text]).input_ids.shape[1] == shared.max_length == 512


def test_a_copied_tokenizer_reads_as_the_original(tokenizer):
    import copy

    twin = copy.deepcopy(tokenizer)
    text = " ".join(["khichdi"] * 300)
    assert twin([text], max_length=32).input_ids.tolist() == tokenizer([text], max_length=32).input_ids.tolist()
