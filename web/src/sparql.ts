// The SPARQL tab: run the editor's text against /datasets/{name}/sparql (or /sparql for all datasets) with the
// SPARQL 1.1 Protocol; SELECT/ASK come back as SPARQL JSON (paged table), CONSTRUCT/DESCRIBE as Turtle.

import { ApiFailure, authHeaders, describe, enc, request } from "./api";
import { h, showError } from "./dom";
import { createTurtleViewer } from "./editor";
import { renderResults, type SelectResults } from "./table";

const UPDATE = /^(INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b/i;

/** True when the text is a SPARQL Update (first keyword after the prologue and comments). */
export function isUpdate(text: string): boolean {
  const body = text
    .replace(/#[^\n]*/g, "")
    .replace(/\b(PREFIX\s+[\w.-]*:\s*<[^>]*>|BASE\s*<[^>]*>)/gi, "")
    .trim();
  return UPDATE.test(body);
}

/** A parser message made readable: "Syntax error at line L, column C: …" without the Unicode class dump. */
export function readableError(message: string): { text: string; line?: number; column?: number } {
  const m = /^error at (\d+):(\d+): ([\s\S]*)$/.exec(message.trim());
  if (!m) return { text: message };
  let detail = m[3].replace(/\[[^\]]*\.\.=[^\]]*\]/g, "a name character").replace(/\s+/g, " ");
  if (detail.length > 240) detail = `${detail.slice(0, 240)}…`;
  return { text: `Syntax error at line ${m[1]}, column ${m[2]}: ${detail}`, line: Number(m[1]), column: Number(m[2]) };
}

export function endpoint(dataset: string): string {
  return dataset ? `/datasets/${enc(dataset)}/sparql` : "/sparql";
}

export async function runQuery(
  target: HTMLElement,
  text: string,
  dataset: string,
  onSyntaxError: (line: number, column: number) => void = () => {},
): Promise<void> {
  if (!text.trim()) {
    showError(target, "The query is empty.");
    return;
  }
  target.replaceChildren(h("p", { class: "muted busy" }, "Running…"));
  const started = performance.now();
  try {
    if (isUpdate(text)) {
      const response = await request(endpoint(dataset), {
        method: "POST",
        headers: { "Content-Type": "application/sparql-update", Accept: "application/json", ...authHeaders() },
        body: text,
      });
      const body = (await response.json()) as { changed?: string[] };
      const seconds = (performance.now() - started) / 1000;
      target.replaceChildren(
        h("p", { class: "ok summary" }, `Update done in ${seconds.toFixed(3)} s; changed: ${(body.changed ?? []).join(", ") || "nothing"}`),
      );
      return;
    }
    const response = await request(endpoint(dataset), {
      method: "POST",
      headers: {
        "Content-Type": "application/sparql-query",
        Accept: "application/sparql-results+json, text/turtle;q=0.9",
      },
      body: text,
    });
    const type = response.headers.get("content-type") ?? "";
    const payload = await response.text();
    const seconds = (performance.now() - started) / 1000;
    if (type.includes("json")) {
      renderResults(target, JSON.parse(payload) as SelectResults, text, seconds);
    } else {
      const triples = payload.split("\n").filter((l) => l.trim() && !/^\s*@?prefix/i.test(l)).length;
      const viewer = h("div", { class: "turtle" });
      target.replaceChildren(h("p", { class: "summary" }, `Turtle (${type.split(";")[0]}), ${payload.length} bytes, ~${triples} lines, ${seconds.toFixed(3)} s`), viewer);
      createTurtleViewer(viewer, payload);
    }
  } catch (exc) {
    if (exc instanceof ApiFailure && exc.status === 400) {
      const readable = readableError(exc.message);
      showError(target, `The query was rejected (${exc.error}, HTTP 400). ${readable.text}`);
      if (readable.line !== undefined && readable.column !== undefined) onSyntaxError(readable.line, readable.column);
    } else {
      showError(target, `The query failed: ${describe(exc)}`);
    }
  }
}
