// The Datasets tab: counts and index versions of the picked dataset, jobs with progress, and file upload
// (POST /datasets, multipart: name, file, format).

import { authHeaders, describe, enc, getJson } from "./api";
import { h, showError } from "./dom";

export interface DatasetInfo {
  name: string;
  triples: number;
  store_version: number;
  updated_at: string;
  description?: string | null;
}

interface IndexVersion {
  version: number;
  store_version: number;
  state: string;
  counts: Record<string, unknown>;
  error: string | null;
  completed_at: string | null;
}

interface Stats {
  name: string;
  triples: number;
  nodes: number;
  literals: number;
  relations: number;
  store_version: number;
  index_versions: IndexVersion[];
}

interface Job {
  id: string;
  kind: string;
  dataset: string | null;
  state: string;
  progress: number;
  error: string | null;
  created_at: string;
  seconds: number | null;
}

const RUNNING = new Set(["pending", "queued", "running", "started"]);

function table(headers: string[], rows: (string | Node)[][], cls: string): HTMLTableElement {
  return h(
    "table",
    { class: cls },
    h("thead", {}, h("tr", {}, ...headers.map((x) => h("th", {}, x)))),
    h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, c))))),
  );
}

/** Render the tab; returns whether something is still changing (a job runs, or an index build is due), so that
 * the caller polls again. `autoIndex`: the server builds indexes after every change (GET /health). */
export async function renderDatasets(
  target: HTMLElement,
  datasets: DatasetInfo[],
  current: string,
  autoIndex: boolean,
): Promise<boolean> {
  const parts: HTMLElement[] = [
    h("h2", {}, "Datasets"),
    table(
      ["name", "triples", "data version", "updated"],
      datasets.map((d) => [d.name, d.triples.toLocaleString("en"), String(d.store_version), d.updated_at.slice(0, 19)]),
      "datasets",
    ),
  ];
  let running = false;
  try {
    if (current) {
      const stats = await getJson<Stats>(`/datasets/${enc(current)}`);
      // the server builds the index after a change: until a version covers the data (or failed), keep polling
      const covered = stats.index_versions.some(
        (v) => v.store_version >= stats.store_version && (v.state === "complete" || v.state === "failed"),
      );
      running = autoIndex && !covered;
      parts.push(
        h("h2", {}, `Dataset ${stats.name}`),
        table(
          ["triples", "nodes", "literals", "relations", "data version"],
          [[stats.triples, stats.nodes, stats.literals, stats.relations, stats.store_version].map((n) => n.toLocaleString("en"))],
          "stats",
        ),
        h("h3", {}, "Index versions"),
        stats.index_versions.length
          ? table(
              ["version", "state", "data version", "counts", "error"],
              stats.index_versions.map((v) => [
                String(v.version),
                v.state,
                String(v.store_version),
                Object.entries(v.counts)
                  .map(([k, x]) => `${k} ${String(x)}`)
                  .join(", "),
                v.error ?? "",
              ]),
              "index-versions",
            )
          : h("p", { class: "muted" }, "no index built yet"),
      );
    }
    const jobs = await getJson<Job[]>(current ? `/jobs?dataset=${enc(current)}` : "/jobs");
    running = running || jobs.some((j) => RUNNING.has(j.state));
    parts.push(
      h("h3", {}, "Jobs"),
      jobs.length
        ? table(
            ["job", "kind", "dataset", "state", "progress", "seconds", "error"],
            jobs.slice(0, 50).map((j) => [
              j.id.slice(0, 8),
              j.kind,
              j.dataset ?? "",
              j.state,
              h("span", {}, h("progress", { max: "1", value: String(j.progress) }), ` ${(j.progress * 100).toFixed(0)}%`),
              j.seconds === null ? "" : j.seconds.toFixed(2),
              j.error ?? "",
            ]),
            "jobs",
          )
        : h("p", { class: "muted" }, "no jobs"),
    );
    target.replaceChildren(...parts);
  } catch (exc) {
    target.replaceChildren(...parts);
    target.append(h("div", { class: "error", role: "alert" }, describe(exc)));
  }
  return running;
}

export async function upload(form: HTMLFormElement, status: HTMLElement): Promise<boolean> {
  const data = new FormData(form);
  const file = data.get("file");
  if (!(file instanceof File) || !file.name) {
    showError(status, "Choose a file to upload.");
    return false;
  }
  if (!String(data.get("name") ?? "").trim()) {
    showError(status, "Give the dataset a name.");
    return false;
  }
  if (!data.get("format")) data.delete("format");
  status.replaceChildren(h("p", { class: "muted busy" }, `Uploading ${file.name}…`));
  try {
    const result = await getJson<{ dataset: string; triples_added: number; triples_total: number; seconds: number }>(
      "/datasets",
      { method: "POST", body: data, headers: authHeaders() },
    );
    status.replaceChildren(
      h(
        "p",
        { class: "ok" },
        `Loaded ${result.triples_added.toLocaleString("en")} triples into ${result.dataset} ` +
          `(now ${result.triples_total.toLocaleString("en")}) in ${result.seconds.toFixed(2)} s.`,
      ),
    );
    return true;
  } catch (exc) {
    showError(status, `Upload failed: ${describe(exc)}`);
    return false;
  }
}
