"""Question answering over a dataset: linking, grounded patterns, GSD evidence, grounded answers (DESIGN §5).

Entry point: :class:`kgsvc.qa.pipeline.QuestionAnswerer` (``KG.ask`` uses it through :mod:`kgsvc.qa.service`).
"""
