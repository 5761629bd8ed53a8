// The Ask tab: POST /ask, then the answer, strategy, timings and every evidence subgraph (drawn, with its GSD,
// node distances and grounded SPARQL). The JSON shape is kgsvc.qa.result.Answer.

import { describe, getJson } from "./api";
import { h, ms, showError } from "./dom";
import { drawEvidence, type EvidenceTriple, type Term } from "./graph";

interface EvidenceNode {
  variable: string;
  term: Term;
  distance: number | null;
}

interface Evidence {
  rank: number;
  gsd: number;
  triples: EvidenceTriple[];
  nodes: EvidenceNode[];
  answer: Term | null;
  sparql: string;
}

export interface Answer {
  question: string;
  dataset: string;
  grounded: boolean;
  text: string;
  answers: (Term & { gsd: number; support: number })[];
  evidence: Evidence[];
  pattern: {
    triples: { head: string; relation: string; tail: string }[];
    answer: string;
    source: string;
    kind?: string;
    order_by?: string | null;
    descending?: boolean | null;
    limit?: number | null;
    operator?: string | null;
  } | null;
  sparql: string | null;
  strategy: string;
  timings: Record<string, number>;
  reason: string | null;
  failed_stage: string | null;
  complete: boolean;
  kind?: string;
  truth?: boolean | null;
  items?: (Term & { gsd: number; support: number; ranked_by?: Term | null })[];
}

/** Evidence subgraphs drawn as graphs; the others of a count or an ordering are listed as triples. */
const DRAWN = 20;

/** What a question of a kind beyond lookups asks, and the values behind its answer (kgsvc.qa.kinds). */
function kindParts(answer: Answer): HTMLElement[] {
  const kind = answer.kind ?? "lookup";
  if (kind === "lookup" || !answer.grounded) return [];
  const items = answer.items ?? [];
  const p = answer.pattern;
  const parts: HTMLElement[] = [];
  if (kind === "count") {
    parts.push(h("p", { class: "kind kind-count" }, `count: ${answer.answers[0]?.label ?? "?"} (COUNT of the answers below, each with its evidence)`));
  } else if (kind === "ask" || (kind === "comparison" && answer.truth !== null && answer.truth !== undefined)) {
    const verdict = answer.truth ? "yes" : "no";
    const how = answer.truth ? "the evidence below holds it" : "no such fact in the graph";
    parts.push(h("p", { class: `kind kind-yesno ${verdict}` }, `yes/no: ${verdict}: ${how} (the graph's answer, not the world's)`));
  } else {
    const order = p?.order_by ? `ranked by ${p.order_by}, ${p.descending ? "greatest" : "least"} first${p.limit ? `, best ${p.limit}` : ""}` : "";
    parts.push(h("p", { class: "kind kind-order" }, `${kind}${order ? `: ${order}` : ""}`));
  }
  if (items.length) {
    const label = kind === "count" ? "Counted" : kind === "ordering" ? "Ranked" : "Compared";
    parts.push(
      h(
        "ol",
        { class: "items", "aria-label": label },
        ...items.map((a) =>
          h("li", { title: a.value }, a.label, a.ranked_by ? h("span", { class: "value" }, ` ${a.ranked_by.label}`) : ""),
        ),
      ),
    );
  }
  return parts;
}

type OpenInEditor = (sparql: string) => void;

function sparqlBlock(text: string, open: OpenInEditor, label: string): HTMLElement {
  const button = h("button", { type: "button", class: "open-in-editor" }, label);
  button.addEventListener("click", () => open(text));
  return h("div", { class: "sparql-block" }, h("pre", { class: "sparql" }, text), button);
}

function termText(t: Term): string {
  return t.kind === "uri" ? `${t.label} <${t.value}>` : JSON.stringify(t.label);
}

/** Render an Answer into `target` (also used directly by the browser tests for hand-written evidence). */
export function renderAnswer(target: HTMLElement, answer: Answer, open: OpenInEditor): void {
  const parts: HTMLElement[] = [];
  parts.push(
    h(
      "div",
      { class: `answer-text ${answer.grounded ? "grounded" : "ungrounded"}` },
      h("strong", {}, answer.grounded ? "Answer: " : "No grounded answer: "),
      answer.text,
    ),
  );
  parts.push(...kindParts(answer));
  if (!answer.grounded && answer.failed_stage) {
    parts.push(h("p", { class: "muted" }, `failed at stage ${answer.failed_stage}${answer.reason ? `: ${answer.reason}` : ""}`));
  }
  if (answer.answers.length) {
    parts.push(
      h(
        "ol",
        { class: "answers" },
        ...answer.answers.map((a) =>
          h("li", { title: a.value }, termText(a), h("span", { class: "muted" }, ` GSD ${a.gsd.toFixed(3)}, ${a.support} subgraph(s)`)),
        ),
      ),
    );
  }
  const timing = Object.entries(answer.timings)
    .map(([k, v]) => `${k} ${ms(v)}`)
    .join(" · ");
  parts.push(
    h(
      "p",
      { class: "meta" },
      h("span", { class: "strategy" }, `strategy: ${answer.strategy}${answer.complete ? "" : " (search deadline hit)"}`),
      " · ",
      h("span", { class: "timings" }, `timings: ${timing || "—"}`),
    ),
  );
  if (answer.pattern) {
    const triples = answer.pattern.triples.map((t) => `(${t.head}, ${t.relation}, ${t.tail})`).join("; ");
    parts.push(h("p", { class: "pattern" }, `pattern [${answer.pattern.source}, answer ${answer.pattern.answer}]: ${triples}`));
  }
  if (answer.sparql) parts.push(sparqlBlock(answer.sparql, open, "Open pattern query in editor"));
  const drawn: HTMLElement[] = [];
  const listed = answer.evidence.slice(DRAWN);
  for (const ev of answer.evidence.slice(0, DRAWN)) {
    const canvas = h("div", { class: "evidence-graph" });
    drawn.push(canvas);
    const nodes = h(
      "table",
      { class: "evidence-nodes" },
      ...ev.nodes.map((n) =>
        h(
          "tr",
          {},
          h("td", {}, n.variable),
          h("td", { title: n.term.value }, n.term.label),
          h("td", { class: "muted" }, n.distance === null ? "variable" : `distance ${n.distance.toFixed(3)}`),
        ),
      ),
    );
    parts.push(
      h(
        "section",
        { class: "evidence", "data-rank": String(ev.rank) },
        h("h3", {}, `Evidence ${ev.rank} · `, h("span", { class: "gsd" }, `GSD ${ev.gsd.toFixed(3)}`)),
        canvas,
        nodes,
        sparqlBlock(ev.sparql, open, "Open in editor"),
      ),
    );
  }
  if (listed.length) {
    parts.push(
      h(
        "section",
        { class: "evidence-more" },
        h("h3", {}, `${listed.length} more evidence subgraphs`),
        h(
          "ul",
          {},
          ...listed.map((ev) => h("li", {}, ev.triples.map((t) => `(${t.head.label}, ${t.relation.label}, ${t.tail.label})`).join("; "))),
        ),
      ),
    );
  }
  target.replaceChildren(...parts);
  answer.evidence.slice(0, DRAWN).forEach((ev, i) => drawEvidence(drawn[i], ev.triples, ev.answer));
}

export async function ask(target: HTMLElement, question: string, dataset: string, open: OpenInEditor): Promise<void> {
  if (!question.trim()) {
    showError(target, "Type a question first.");
    return;
  }
  target.replaceChildren(h("p", { class: "muted busy" }, "Thinking…"));
  try {
    const answer = await getJson<Answer>("/ask", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ question, dataset: dataset || null }),
    });
    renderAnswer(target, answer, open);
  } catch (exc) {
    showError(target, `The question failed: ${describe(exc)}`);
  }
}
