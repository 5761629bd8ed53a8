"""Nobel linking recall@1 and index-build time (issue 18; docs/labels-linking.md).

Loads the Nobel graph (``<data>/nobel/nobel.ttl.gz``, its one syntax error repaired as
``tests/eval/test_nobel_questions.py`` does) into a fresh embedded KG under ``--folder``, builds its index (timed),
then links every question of ``kgsvc/eval/questions/nobel.jsonl`` with the question path's linker and counts an
entity mention as right when a linked span overlaps the mention's text and its first candidate is the mention's
IRI (recall@1). No exemplars. ``--base`` loads with an explicit base IRI (the main branch needs it)::

    PYTHONPATH=$PWD .venv/bin/python bench/linking.py --folder /tmp/link-nobel/branch
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import time
from pathlib import Path
from typing import Any

__all__ = ["main"]

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_UNTERMINATED = b"geoFeatures20040307.owl#>;\n\n<Christopher_A._Sims>"
QUESTIONS = Path(__file__).resolve().parents[1] / "kgsvc" / "eval" / "questions" / "nobel.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--base", default=None)
    parser.add_argument("--no-recall", action="store_true", help="only time the index build")
    parser.add_argument("--reuse", action="store_true", help="reuse the folder's KG and index (no build)")
    parser.add_argument(
        "--ask", action="store_true", help="also ask every question: class nodes linked as entities, top answers"
    )
    args = parser.parse_args()

    import kgsvc
    from kgsvc.eval.data import data_root
    from kgsvc.qa.graph import QAGraph
    from kgsvc.qa.pipeline import QuestionAnswerer
    from kgsvc.settings import Settings

    if not args.reuse:
        data = gzip.decompress((data_root() / "nobel" / "nobel.ttl.gz").read_bytes())
        data = data.replace(_UNTERMINATED, _UNTERMINATED.replace(b";", b" ;\n.", 1))
        shutil.rmtree(args.folder, ignore_errors=True)
        args.folder.mkdir(parents=True)
        source = args.folder / "nobel.ttl"
        source.write_bytes(data)
    with kgsvc.KG.open(args.folder / "data", settings=Settings(auto_index=False)) as kg:
        if not args.reuse:
            kg.load(source, dataset="nobel", **({"base_iri": args.base} if args.base else {}))
            started = time.perf_counter()
            kg.build_index("nobel")
            print(f"index build: {time.perf_counter() - started:.1f} s")
        version = kg.catalog.current_index_version("nobel")
        assert version is not None
        print(json.dumps({"metrics": version.metrics, "counts": version.counts}))
        if args.no_recall:
            return
        qa = QuestionAnswerer(QAGraph.from_index(kg.index("nobel"), name="nobel"))
        right = total = 0
        for line in QUESTIONS.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            spans = qa.linker.link(row["question"])
            for mention in row["mentions"]:
                total += 1
                start = row["question"].find(mention["text"])
                end = start + len(mention["text"])
                top = [qa.graph.node_terms[s.nodes[0][0]] for s in spans if s.nodes and s.start < end and start < s.end]
                ok = f"<{mention['iri']}>" in top
                right += ok
                if not ok:
                    got = [(s.text, s.method, qa.graph.node_terms[s.nodes[0][0]]) for s in spans if s.nodes]
                    print(f"MISS {row['id']} {mention['text']!r} -> {got}")
        print(f"linking recall@1: {right}/{total} = {100 * right / total:.1f} %")
        if args.ask:
            _ask(qa)


def _ask(qa: Any) -> None:
    """Ask every question (no exemplars): grounded answers whose linked mention is a class node (an rdf:type
    object), and lookups whose top answer is one of the recorded answer terms."""
    import numpy as np

    graph = qa.graph
    types = [j for j, term in enumerate(graph.relation_terms) if term == f"<{RDF_TYPE}>"]
    tails, relations = np.asarray(graph.snapshot.triple_tails), np.asarray(graph.snapshot.triple_relations)
    classes = set(tails[np.isin(relations, types)].tolist())
    on_class = gold = lookups = 0
    for line in QUESTIONS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        answer = qa.ask(row["question"])
        on_class += answer.grounded and any(m.candidates and m.candidates[0].node in classes for m in answer.mentions)
        if row["answer_terms"]:
            lookups += 1
            if answer.answers:
                top = answer.answers[0].value
                gold += any(t.strip("<>") == top or t.startswith(f'"{top}"') for t in row["answer_terms"])
    print(f"grounded answers resting on a class node linked as an entity: {on_class}")
    print(f"questions with answer terms whose top answer is one of them: {gold}/{lookups}")


if __name__ == "__main__":
    main()
