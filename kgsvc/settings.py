"""Typed settings read from ``KGSVC_*`` environment variables.

Every path the embedded mode writes is resolved under one data directory (``KGSVC_DATA_DIR``):

```
<data_dir>/store/        the Oxigraph (RocksDB) store
<data_dir>/kgsvc.db      the SQLite metadata database (unless KGSVC_DATABASE_URL is set)
<data_dir>/indexes/      versioned index folders (vectors, graph snapshot, GNN checkpoints)
<data_dir>/models/       converted models (for example the LLM as safetensors)
```

The distributed mode is chosen by setting ``KGSVC_STORE_URL`` (a SPARQL 1.1 store), ``KGSVC_DATABASE_URL``
(PostgreSQL), ``KGSVC_BROKER_URL`` (Redis) and ``KGSVC_QDRANT_URL`` (a Qdrant server).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings"]


#: The values of ``Settings.embedding_device`` (:func:`kgsvc.index.embed.resolve_device`).
EMBEDDING_DEVICES = r"^(cpu|auto|cuda(:\d+)?)$"


class Settings(BaseSettings):
    """All of kgsvc's configuration; each field is read from ``KGSVC_<FIELD NAME>``."""

    model_config = SettingsConfigDict(env_prefix="KGSVC_", extra="ignore", frozen=True)

    data_dir: Path = Field(default=Path("kgsvc-data"), description="Folder holding everything in the embedded mode.")
    store_url: str | None = Field(
        default=None,
        description="Base URL of a SPARQL 1.1 store (query at <url>/query, update at <url>/update, "
        "Graph Store Protocol at <url>/store, as `oxigraph serve`). Unset: embedded pyoxigraph store.",
    )
    store_query_url: str | None = Field(default=None, description="Overrides the remote store's query URL.")
    store_update_url: str | None = Field(default=None, description="Overrides the remote store's update URL.")
    store_gsp_url: str | None = Field(default=None, description="Overrides the remote store's Graph Store URL.")
    database_url: str | None = Field(default=None, description="SQLAlchemy URL; unset: SQLite in the data dir.")
    broker_url: str | None = Field(default=None, description="Celery broker (Redis); unset: tasks run in-process.")
    result_backend: str | None = Field(default=None, description="Celery result backend; defaults to the broker.")
    task_visibility_timeout_s: int = Field(
        default=300, gt=0, description="Seconds before a task whose worker died is handed to another worker."
    )
    qdrant_url: str | None = Field(default=None, description="Qdrant server URL; unset: embedded Qdrant Edge.")
    embedding_model: str | None = Field(
        default=None, description="Path of a sentence-transformers model folder; unset: bundled all-MiniLM-L6-v2."
    )
    embedding_device: str = Field(
        default="cpu",
        pattern=EMBEDDING_DEVICES,
        description="Where the label embedder runs: cpu (the same rows on every machine), cuda or cuda:N, or auto "
        "(cuda when torch sees a GPU, else cpu): a Celery worker on a GPU machine embeds a build's chunks there. Rows "
        "embedded on a GPU equal the CPU's up to float rounding.",
    )
    name_predicates: list[str] = Field(
        default_factory=list,
        description="IRIs of predicates that name nodes, preferred to rdfs:label and the discovered ones, for every "
        'dataset without its own (JSON list, e.g. ["http://dbpedia.org/ontology/name"]; kgsvc.index.names).',
    )
    auto_index: bool = Field(
        default=True, description="Rebuild a dataset's indexes (as a kgsvc.build_index job) after every change."
    )
    gnn_train: bool = Field(
        default=False,
        description="After each index build, train the GNN link predictor on its snapshot (a kgsvc.train_gnn job); "
        "KG.ask(..., infer=True) then proposes missing edges.",
    )
    gnn_options: dict[str, Any] = Field(
        default_factory=dict, description='GNNConfig fields for those trainings (JSON), e.g. {"epochs": 50}.'
    )
    torch_threads: int | None = Field(
        default=None,
        ge=1,
        description="CPU threads of torch (embeddings, the local LLM) in this process; unset: OMP_NUM_THREADS if "
        "set, else half the cores, at least 1 (kgsvc.torch_threads; measured in docs/benchmarks.md, section Threads). "
        "The number of cores is torch's own default, fastest only on a machine nothing else uses.",
    )
    llm_backend: Literal["transformers", "openai", "none"] = "transformers"
    llm_model: str | None = Field(default=None, description="LLM path (transformers) or model name (openai).")
    llm_base_url: str | None = Field(default=None, description="OpenAI-compatible server base URL (…/v1).")
    llm_api_key: str = "none"
    api_token: str | None = Field(default=None, description="Bearer token required for writes when set.")
    read_only: bool = False
    allow_remote_sparql: bool = Field(
        default=False,
        description="Allow SPARQL SERVICE and LOAD, which make the server fetch URLs (other hosts, local files).",
    )
    model_cache_dir: Path | None = Field(
        default=None, description="Where converted models are kept; several data dirs may share one."
    )
    query_timeout_s: float = Field(default=30.0, gt=0)
    max_result_rows: int = Field(default=100_000, gt=0)
    bulk_threshold_bytes: int = Field(
        default=8 * 1024 * 1024, ge=0, description="Files larger than this are streamed with the bulk loader."
    )
    bulk_piece_bytes: int = Field(
        default=64 * 1024 * 1024,
        ge=0,
        description="A triple file (TSV/CSV) on the bulk path goes to the bulk loader in pieces of about this many "
        "bytes of N-Triples, one bulk load each; 0: the whole file in one. Pieces bound the load's memory (the "
        "MetaQA KB x16: 0.65 GB against 1.7 GB) and cost time (1.4x there, 1.5x at x32): docs/scale.md.",
    )
    # what a client may send (docs/security.md)
    sparql_max_depth: int = Field(default=32, gt=0, description="Deepest nesting of { ( [ << in SPARQL text.")
    sparql_max_operators: int = Field(
        default=1000, gt=0, description="Weighted operator count of SPARQL text (kgsvc.store.sparql_limits)."
    )
    max_body_bytes: int = Field(
        default=16 * 1024 * 1024, gt=0, description="Largest SPARQL or JSON request body (413 before it is read)."
    )
    max_upload_bytes: int = Field(
        default=1024**3, gt=0, description="Largest upload or Graph Store body, and largest upload after un-gzipping."
    )
    max_gzip_ratio: int = Field(
        default=200,
        gt=0,
        description="Largest inflate ratio of a gzip upload or Graph Store body past 16 MiB out (413: a gzip bomb).",
    )
    ask_max_deadline_s: float = Field(default=30.0, gt=0, description="Every /ask stops by this many seconds.")
    cors_origins: list[str] = Field(
        default_factory=list, description='Origins allowed cross-site (CORS), JSON: ["https://a.example"]; none.'
    )
    public_url: str | None = Field(
        default=None,
        description="The server's URL as clients reach it (https://kg.example.org behind a proxy): relative IRIs in "
        "SPARQL resolve against it plus the request path instead of the Host header.",
    )

    @field_validator("public_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parsed = urlsplit(value)
        if parsed.scheme not in ("http", "https") or not parsed.netloc or parsed.query or parsed.fragment:
            raise ValueError(f"public_url must be an http(s) URL without query or fragment, not {value!r}")
        return value.rstrip("/")

    @field_validator("data_dir")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @property
    def store_dir(self) -> Path:
        return self.data_dir / "store"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "indexes"

    @property
    def models_dir(self) -> Path:
        """Converted model files (e.g. the LLM's safetensors): ``model_cache_dir`` or ``<data_dir>/models``."""
        return self.model_cache_dir or self.data_dir / "models"

    @property
    def sqlalchemy_url(self) -> str:
        """The metadata database URL: ``database_url`` or SQLite in the data dir."""
        return self.database_url or f"sqlite:///{self.data_dir / 'kgsvc.db'}"

    @property
    def embedded(self) -> bool:
        """True when no broker is configured: tasks run in-process."""
        return self.broker_url is None
