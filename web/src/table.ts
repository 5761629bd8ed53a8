// SPARQL JSON results as a paged table: only one page of rows is ever in the DOM, so a 10,000-row result stays
// usable (W3C SPARQL 1.1 Query Results JSON Format).

import { h } from "./dom";

export interface RdfTerm {
  type: "uri" | "literal" | "bnode" | "triple";
  value: string;
  datatype?: string;
  "xml:lang"?: string;
}

export interface SelectResults {
  head: { vars?: string[] };
  results?: { bindings: Record<string, RdfTerm>[] };
  boolean?: boolean;
}

export const PAGE_SIZE = 100;

/** The prefixes declared in a query, for abbreviating IRIs in the table. */
export function declaredPrefixes(query: string): [string, string][] {
  return [...query.matchAll(/PREFIX\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>/gi)].map((m) => [m[1] ?? "", m[2]]);
}

function abbreviate(iri: string, prefixes: [string, string][]): string {
  for (const [name, ns] of prefixes) {
    if (ns && iri.startsWith(ns) && /^[\w.-]*$/.test(iri.slice(ns.length))) return `${name}:${iri.slice(ns.length)}`;
  }
  return `<${iri}>`;
}

function cell(term: RdfTerm | undefined, prefixes: [string, string][]): HTMLTableCellElement {
  if (!term) return h("td", { class: "unbound" });
  if (term.type === "uri") return h("td", { class: "iri", title: term.value }, abbreviate(term.value, prefixes));
  if (term.type === "bnode") return h("td", { class: "bnode" }, `_:${term.value}`);
  if (term.type === "literal") {
    const suffix = term["xml:lang"] ? `@${term["xml:lang"]}` : "";
    const title = term.datatype ? term.datatype : "";
    return h("td", { class: "literal", title }, term.value, suffix ? h("span", { class: "lang" }, suffix) : null);
  }
  return h("td", {}, JSON.stringify(term.value));
}

/** Render a result into `target`; returns the number of rows. */
export function renderResults(target: HTMLElement, data: SelectResults, query: string, seconds: number): number {
  if (data.boolean !== undefined) {
    target.replaceChildren(
      h("p", { class: "summary" }, `ASK: ${data.boolean ? "true" : "false"} (${seconds.toFixed(3)} s)`),
    );
    return 1;
  }
  const vars = data.head.vars ?? [];
  const rows = data.results?.bindings ?? [];
  const prefixes = declaredPrefixes(query);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  let page = 0;
  const tbody = h("tbody");
  const status = h("span", { class: "page-status" });
  const prev = h("button", { type: "button", class: "page-prev" }, "‹ Previous");
  const next = h("button", { type: "button", class: "page-next" }, "Next ›");
  const show = (): void => {
    const start = page * PAGE_SIZE;
    const slice = rows.slice(start, start + PAGE_SIZE);
    tbody.replaceChildren(
      ...slice.map((row, i) =>
        h("tr", {}, h("td", { class: "rownum" }, String(start + i + 1)), ...vars.map((v) => cell(row[v], prefixes))),
      ),
    );
    status.textContent = rows.length
      ? `rows ${start + 1}–${start + slice.length} of ${rows.length} · page ${page + 1} of ${pages}`
      : "no rows";
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  };
  prev.addEventListener("click", () => {
    page = Math.max(0, page - 1);
    show();
  });
  next.addEventListener("click", () => {
    page = Math.min(pages - 1, page + 1);
    show();
  });
  const table = h(
    "table",
    { class: "results" },
    h("thead", {}, h("tr", {}, h("th", {}, "#"), ...vars.map((v) => h("th", {}, `?${v}`)))),
    tbody,
  );
  target.replaceChildren(
    h("p", { class: "summary" }, `${rows.length} row${rows.length === 1 ? "" : "s"} in ${seconds.toFixed(3)} s`),
    h("div", { class: "pager" }, prev, status, next),
    h("div", { class: "table-wrap" }, table),
  );
  show();
  return rows.length;
}
