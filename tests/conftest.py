"""Shared fixtures: tiny random configs and the bundled tokenizer."""

from __future__ import annotations

import pytest
import torch

from mealwatch import Encoder, EncoderConfig, Tokenizer


@pytest.fixture(autouse=True, scope="session")
def private_mealwatch_home(tmp_path_factory):
    """Runs trained by tests go to a temporary MEALWATCH_HOME, never the user's own."""
    import os

    old = {k: os.environ.get(k) for k in ("MEALWATCH_HOME", "MEALWATCH_MODEL")}
    os.environ["MEALWATCH_HOME"] = str(tmp_path_factory.mktemp("mealwatch-home"))
    os.environ.pop("MEALWATCH_MODEL", None)
    yield
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def tokenizer() -> Tokenizer:
    """The bundled all-MiniLM-L6-v2 WordPiece tokenizer (fast; no weights loaded)."""
    return Tokenizer.from_pretrained()


@pytest.fixture
def tiny_config(tokenizer: Tokenizer) -> EncoderConfig:
    """A tiny random BERT over the real vocabulary: 2 layers, hidden 32, 4 heads."""
    torch.manual_seed(0)
    return EncoderConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=128,
    )


@pytest.fixture
def one_thread():
    """Tiny models run fastest on one thread (and do not fight other processes for the cores)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# --- the complaint log's backends (see log_backends.py) ---------------------------------------------


@pytest.fixture(scope="session")
def pg_cluster():
    """A throw-away PostgreSQL server for the whole session; skipped when its binaries or psycopg are missing."""
    from log_backends import PgCluster, postgres_bin_dir

    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        pytest.skip(
            "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin: "
            "apt-get install postgresql to run the PostgreSQL tests"
        )
    pytest.importorskip("psycopg", reason="psycopg is not installed: pip install -e . to run the PostgreSQL tests")
    cluster = PgCluster(bin_dir)
    try:
        cluster.start()
    except BaseException:
        cluster.stop()
        raise
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def log_backend(request, tmp_path):
    """One fresh, empty complaint log per test: a SQLite file, or a database of its own on ``pg_cluster``."""
    from log_backends import PostgresBackend, SqliteBackend

    if request.param == "sqlite":
        backend = SqliteBackend(tmp_path)
    else:
        backend = PostgresBackend(request.getfixturevalue("pg_cluster"))
    yield backend
    backend.close_all()


@pytest.fixture
def tiny_encoder_dir(tiny_config, tmp_path):
    """A tiny random BERT checkpoint folder with the real tokenizer."""
    import shutil

    from mealwatch.transformer import bundled_model_dir

    folder = tmp_path / "tiny-encoder"
    torch.manual_seed(0)
    Encoder(tiny_config).save_pretrained(folder)
    shutil.copyfile(bundled_model_dir() / "tokenizer.json", folder / "tokenizer.json")
    return folder
