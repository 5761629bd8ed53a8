"""The indexes built for a dataset: graph snapshot, vectors, index versions.

* :mod:`kgsvc.index.labels` — term ids and label texts from the store (SPARQL, DESIGN §3);
* :mod:`kgsvc.index.embed` — the sentence-transformers embedder;
* :mod:`kgsvc.index.vectors` — vector collections (Qdrant Edge, Qdrant server);
* :mod:`kgsvc.index.layers` — a version's embeddings as a shared base plus a small delta;
* :mod:`kgsvc.index.snapshot` — the CSR graph snapshot;
* :mod:`kgsvc.index.strings` — term and text tables as memory-mapped binary string tables (a patched one as a
  splice of the files it was patched from);
* :mod:`kgsvc.index.build` — writing a version; :mod:`kgsvc.index.dataset_index` — reading one.

Nothing is imported here: :mod:`kgsvc.retrieval` imports the snapshot module, and the builder imports
:mod:`kgsvc.retrieval`, so eager imports would be circular (and would pull in the catalog for the matcher).
"""
