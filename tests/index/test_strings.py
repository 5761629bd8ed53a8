"""Binary string tables (kgsvc.index.strings) and the patch helpers built on them (kgsvc.index.labels)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from kgsvc.index import strings as strings_module
from kgsvc.index.labels import _kept_triples, _merged_triples, _splice
from kgsvc.index.snapshot import GraphSnapshot
from kgsvc.index.strings import (
    SplicedTable,
    StringTable,
    TextLabels,
    read_strings,
    spliced,
    strings_exist,
    write_strings,
)

SNAPSHOT_ARRAYS = ["indptr", "neighbors", "relations", "edge_ids", "outgoing", "triple_heads", "triple_relations"]
SNAPSHOT_ARRAYS += ["triple_tails"]
WORDS = ["", "a", "Ab", "é", "東京", "x y", '"1999"', "<https://e.org/x>", "zz\n", "b\x00c"]


def _random_strings(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choice(WORDS) for _ in range(rng.randint(0, 3))) for _ in range(n)]


def test_tables_round_trip_through_files(tmp_path: Path) -> None:
    rng = random.Random(3)
    for n in (0, 1, 7, 200):
        strings = _random_strings(rng, n)
        write_strings(tmp_path, "t", strings)
        table = read_strings(tmp_path, "t")
        assert isinstance(table, StringTable) and isinstance(table.blob, np.memmap)
        assert list(table) == strings and table.tolist() == strings and len(table) == n
        assert [table[i] for i in range(n)] == strings and table[1:4] == strings[1:4]
        if n:
            assert table[-1] == strings[-1]
    with pytest.raises(IndexError):
        StringTable.from_strings(["a"])[1]


def test_json_lists_of_older_versions_are_read(tmp_path: Path) -> None:
    (tmp_path / "node_terms.json").write_text(json.dumps(["<a>", "é"], ensure_ascii=False), encoding="utf-8")
    assert strings_exist(tmp_path, "node_terms") and not strings_exist(tmp_path, "node_texts")
    assert read_strings(tmp_path, "node_terms") == ["<a>", "é"]
    with pytest.raises(OSError):
        read_strings(tmp_path, "node_texts")


def test_splice_equals_list_deletions_and_insertions() -> None:
    rng = random.Random(11)
    for _ in range(300):
        strings = _random_strings(rng, rng.randint(0, 30))
        keep = [rng.random() < 0.8 for _ in strings]
        kept = [s for s, k in zip(strings, keep, strict=True) if k]
        inserts = sorted((rng.randint(0, len(kept)), s) for s in _random_strings(rng, rng.randint(0, 5)))
        inserts.sort(key=lambda item: item[0])  # stable: strings at one position keep their order
        expected = list(kept)
        for offset, (position, text) in enumerate(inserts):
            expected.insert(position + offset, text)
        assert StringTable.from_strings(strings).splice(keep, inserts).tolist() == expected


def test_splice_of_sorted_terms_gives_the_merge_and_the_remap() -> None:
    rng = random.Random(5)
    for _ in range(200):
        terms = sorted(set(_random_strings(rng, rng.randint(0, 40))))
        used = np.asarray([rng.random() < 0.85 for _ in terms], dtype=bool)
        added = {s for s in _random_strings(rng, rng.randint(0, 6)) if s not in terms}
        table, remap, new_ids = _splice(terms, used, added, str)
        expected = sorted([t for t, u in zip(terms, used.tolist(), strict=True) if u] + list(added))
        assert table.tolist() == expected
        for i, term in enumerate(terms):
            assert remap[i] == (expected.index(term) if used[i] else -1)
        assert [expected[i] for i in new_ids.tolist()] == sorted(added)


def test_added_triples_merge_in_like_a_stable_sort() -> None:
    """_merged_triples equals a stable sort of the kept then the added triples when no added head has kept triples
    (a patch's case), and declines otherwise."""
    rng = np.random.default_rng(2)
    for _ in range(200):
        m, extra, n = int(rng.integers(0, 60)), int(rng.integers(0, 6)), int(rng.integers(1, 20))
        triples = rng.integers(0, n, size=(m + extra, 3))
        triples[:, 1] %= 4
        changed = np.unique(triples[m:, 0])
        old = triples[:m][~np.isin(triples[:m, 0], changed)]
        old = old[np.lexsort((old[:, 2], old[:, 1], old[:, 0]))]
        kept = tuple(old[:, c].astype(np.int64) for c in range(3))
        added = tuple(triples[m:, c].astype(np.int64) for c in range(3))
        merged = _merged_triples(kept, added)  # type: ignore[arg-type]
        assert merged is not None
        everything = np.concatenate([old, triples[m:]])
        expected = everything[np.lexsort((everything[:, 2], everything[:, 1], everything[:, 0]))]
        np.testing.assert_array_equal(np.stack(merged[:3], axis=1), expected)
        position = np.arange(old.shape[0]) + np.searchsorted(merged[3], np.arange(old.shape[0]), side="right")
        np.testing.assert_array_equal(np.stack(merged[:3], axis=1)[position], old)  # where each kept one went
    one = np.asarray([1], dtype=np.int64)
    assert _merged_triples((one, one, one), (one, one, one + 1)) is None  # an added head with a kept triple
    heads = np.asarray([1, 0], dtype=np.int64)  # the kept ones out of order
    assert _merged_triples((heads, heads, heads), (one + 5, one, one)) is None


def test_text_labels_read_texts_by_id() -> None:
    labels = TextLabels(StringTable.from_strings(["a", "b"]), np.asarray([1, 0, 1], dtype=np.int32))
    assert list(labels) == ["b", "a", "b"] and labels[0] == "b" and labels[1:] == ["a", "b"] and len(labels) == 3


def test_a_patched_snapshot_equals_one_built_from_the_triples() -> None:
    """Random graphs, random removals (nodes, relations and edges gone) and additions (self-loops and parallel
    edges included): :meth:`GraphSnapshot.patched` gives :meth:`GraphSnapshot.from_triples`' arrays."""
    rng = np.random.default_rng(8)
    for _ in range(400):
        n, n_rel, m = int(rng.integers(1, 30)), int(rng.integers(1, 5)), int(rng.integers(0, 80))
        triples = rng.integers(0, n, size=(m, 3))
        triples[:, 1] %= n_rel
        triples = triples[np.lexsort((triples[:, 2], triples[:, 1], triples[:, 0]))]
        before = GraphSnapshot.from_triples(*triples.T, n_nodes=n, n_relations=n_rel)
        keep = rng.random(m) < (0.8 if rng.random() < 0.6 else 1.0)  # edges gone, or only added ones
        # new ids: some old nodes and relations gone, some new ones in between (increasing on the kept ones)
        node_kept = rng.random(n) < 0.9
        node_kept[triples[keep][:, [0, 2]].ravel()] = True
        node_remap = np.where(node_kept, np.cumsum(node_kept) - 1 + np.cumsum(rng.random(n) < 0.2), -1)
        n_new = int(node_remap.max(initial=-1)) + 1 + int(rng.integers(0, 3))
        spread = int(rng.integers(1, 3))  # 2: every relation kept, a new one after each
        relation_remap = np.arange(n_rel, dtype=np.int64) * spread
        n_rel_new = spread * n_rel
        kept = np.stack([node_remap[triples[keep, 0]], relation_remap[triples[keep, 1]], node_remap[triples[keep, 2]]])
        added = rng.integers(0, max(n_new, 1), size=(3, int(rng.integers(0, 6))))
        added[1] %= n_rel_new
        if added.shape[1] and n_new:
            added[:, 0] = added[[0, 1, 0], 0]  # a self-loop
        heads, relations, tails = (np.concatenate([kept[c], added[c]]).astype(np.int64) for c in range(3))
        order = np.lexsort((tails, relations, heads))
        position = np.empty_like(order)
        position[order] = np.arange(order.shape[0])
        edge_remap = np.full(m, -1, dtype=np.int64)
        edge_remap[keep] = position[: int(keep.sum())]
        heads, relations, tails = heads[order], relations[order], tails[order]
        expected = GraphSnapshot.from_triples(heads, relations, tails, n_nodes=n_new, n_relations=n_rel_new)
        width = np.int32 if rng.random() < 0.5 else np.int64  # a patch gives them in the snapshot's width
        found = before.patched(
            heads.astype(width),
            relations.astype(width),
            tails.astype(width),
            n_nodes=n_new,
            n_relations=n_rel_new,
            node_remap=node_remap.astype(np.int64),
            relation_remap=relation_remap,
            edge_remap=edge_remap,
        )
        for name in SNAPSHOT_ARRAYS:
            np.testing.assert_array_equal(getattr(found, name), getattr(expected, name), err_msg=name)
            assert getattr(found, name).dtype == getattr(expected, name).dtype, name


def test_kept_triples_drop_the_changed_heads_ranges() -> None:
    rng = np.random.default_rng(4)
    for _ in range(200):
        heads = rng.integers(0, 12, size=int(rng.integers(0, 40))).astype(np.int64)
        if rng.random() < 0.7:
            heads.sort()  # canonical order; else the np.isin path
        changed = rng.choice(15, size=int(rng.integers(0, 4)), replace=False).astype(np.int64)
        expected = ~np.isin(heads, changed)
        found = _kept_triples(heads, changed)
        if found is None:
            assert expected.all()
        else:
            np.testing.assert_array_equal(found, expected)
            assert not found.all()


def _random_splice(rng: random.Random, n: int) -> tuple[list[bool], list[tuple[int, str]]]:
    keep = [rng.random() < 0.85 for _ in range(n)]
    inserts = sorted(
        ((rng.randint(0, sum(keep)), s) for s in _random_strings(rng, rng.randint(0, 4))), key=lambda x: x[0]
    )
    return keep, inserts


def test_a_splice_of_a_table_read_from_files_equals_a_copied_splice_after_many_patches(tmp_path: Path) -> None:
    """A chain of patches kept as splices of one base (kgsvc.index.strings.spliced) reads, row by row and in every
    vectorised view, as the same chain of copying splices; written, it hard-links the base and reads back equal."""
    rng = random.Random(5)
    for case in range(60):
        folder = tmp_path / f"c{case}"
        folder.mkdir()
        strings = _random_strings(rng, rng.randint(0, 40))
        write_strings(folder, "t", strings)
        table: object = read_strings(folder, "t")
        copied = StringTable.from_strings(strings)
        for step in range(rng.randint(1, 6)):
            keep, inserts = _random_splice(rng, len(copied))
            table = spliced(table, keep, inserts)  # type: ignore[arg-type]
            copied = copied.splice(keep, inserts)
            assert isinstance(table, SplicedTable)
            expected = copied.tolist()
            assert table.tolist() == expected and len(table) == len(expected)
            assert [table[i] for i in range(len(expected))] == expected and table[1:5] == expected[1:5]
            assert table.byte_lengths().tolist() == copied.byte_lengths().tolist()
            filled = np.flatnonzero(copied.byte_lengths() > 0)
            assert table.lead_bytes(filled).tolist() == copied.lead_bytes(filled).tolist()
            for needle in (b"a", b"\xc3\xa9", b"<h", b"x y", b"zz\nb"):
                assert table.rows_containing(needle).tolist() == copied.rows_containing(needle).tolist()
            assert table.compacted().tolist() == expected
            # each row is the base's row or an inserted string's, and back
            in_inserted, in_base = table.locate(np.arange(len(table)))
            assert bool(np.all((in_inserted >= 0) != (in_base >= 0)))
            back = table.rows_of_base(in_base[in_base >= 0])
            assert back.tolist() == np.flatnonzero(in_base >= 0).tolist()
            assert table.rows_of_base(table.gone).tolist() == [-1] * len(table.gone)
            nxt = tmp_path / f"c{case}s{step}"
            nxt.mkdir()
            write_strings(nxt, "t", table)
            assert (nxt / "t_offsets.npy").stat().st_ino == (folder / "t_offsets.npy").stat().st_ino
            table = read_strings(nxt, "t")
            assert isinstance(table, SplicedTable) and table.tolist() == expected


def test_a_splice_past_its_share_is_written_whole_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(strings_module, "SPLICE_MIN", 2)
    monkeypatch.setattr(strings_module, "SPLICE_MAX_SHARE", 0.15)  # at most 4.5 changes over a base of 30
    write_strings(tmp_path, "t", [f"s{i:02}" for i in range(30)])
    table = spliced(read_strings(tmp_path, "t"), [True] * 30, [(3, "s02b")])
    assert isinstance(table, SplicedTable) and table.delta == 1
    table = spliced(table, [i != 7 for i in range(31)], [(10, "s10b"), (20, "s20b")])
    assert isinstance(table, SplicedTable) and table.delta == 4  # one more: compacted
    table = spliced(table, [True] * 32, [(0, "a")])
    assert isinstance(table, StringTable) and table.paths is None and len(table) == 33 and table[0] == "a"
    out = tmp_path / "out"
    out.mkdir()
    write_strings(out, "t", table)
    assert not (out / "t_splice.npz").exists() and list(read_strings(out, "t")) == table.tolist()


def test_a_list_or_a_table_in_memory_is_spliced_by_copy() -> None:
    assert isinstance(spliced(["a", "b"], [True, False], [(1, "c")]), StringTable)
    table = spliced(StringTable.from_strings(["a", "b"]), [True, True], [(2, "c")])
    assert isinstance(table, StringTable) and table.tolist() == ["a", "b", "c"]
    with pytest.raises(ValueError, match="ascend"):
        none = np.zeros(0, np.int64)
        spliced(SplicedTable(table, none, none, StringTable.from_strings([])), [True] * 3, [(2, "x"), (1, "y")])
