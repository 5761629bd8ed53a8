"""``python -m kgsvc``: the CLI."""

from kgsvc.cli import app

app(prog_name="kgsvc")
