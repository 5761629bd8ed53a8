// One evidence subgraph drawn with cytoscape: labelled nodes, directed edges labelled with the relation (stored
// direction), inferred edges dashed, the answer node highlighted.

import cytoscape from "cytoscape";

export interface Term {
  kind: "uri" | "literal" | "bnode";
  value: string;
  label: string;
  datatype?: string | null;
  lang?: string | null;
}

export interface EvidenceTriple {
  head: Term;
  relation: Term;
  tail: Term;
  edge_id: number;
  relation_distance: number | null;
  inferred: boolean;
}

const key = (t: Term): string => `${t.kind}:${t.value}`;

/** Left-to-right layers: breadth-first depth (edges taken both ways) from the first triple's head; x = depth. */
export function layered(triples: EvidenceTriple[]): Record<string, cytoscape.Position> {
  const adjacent = new Map<string, string[]>();
  const link = (a: string, b: string): void => {
    adjacent.set(a, [...(adjacent.get(a) ?? []), b]);
  };
  for (const t of triples) {
    link(key(t.head), key(t.tail));
    link(key(t.tail), key(t.head));
  }
  const depth = new Map<string, number>();
  for (const start of adjacent.keys()) {
    if (depth.has(start)) continue;
    const base = depth.size ? Math.max(...depth.values()) + 1 : 0;
    depth.set(start, base);
    const queue = [start];
    while (queue.length) {
      const node = queue.shift() as string;
      for (const next of adjacent.get(node) ?? []) {
        if (!depth.has(next)) {
          depth.set(next, (depth.get(node) ?? 0) + 1);
          queue.push(next);
        }
      }
    }
  }
  const rows = new Map<number, number>();
  const positions: Record<string, cytoscape.Position> = {};
  for (const [id, d] of depth) {
    const row = rows.get(d) ?? 0;
    rows.set(d, row + 1);
    positions[id] = { x: d * 230, y: row * 110 };
  }
  for (const [id, pos] of Object.entries(positions)) {
    pos.y -= (((rows.get(depth.get(id) ?? 0) ?? 1) - 1) * 110) / 2;  // centre each layer
  }
  return positions;
}

/** Draw `triples` into `container`; the node and edge labels are also written to data attributes. */
export function drawEvidence(container: HTMLElement, triples: EvidenceTriple[], answer: Term | null): cytoscape.Core {
  const nodes = new Map<string, Term>();
  for (const t of triples) {
    nodes.set(key(t.head), t.head);
    nodes.set(key(t.tail), t.tail);
  }
  const answerKey = answer ? key(answer) : null;
  const elements: cytoscape.ElementDefinition[] = [];
  for (const [id, term] of nodes) {
    const classes = [term.kind, id === answerKey ? "answer" : ""].filter(Boolean).join(" ");
    elements.push({ data: { id, label: term.label || term.value, title: term.value }, classes });
  }
  triples.forEach((t, i) => {
    const dist = t.relation_distance === null ? "" : ` (d ${t.relation_distance.toFixed(2)})`;
    elements.push({
      data: {
        id: `e${i}`,
        source: key(t.head),
        target: key(t.tail),
        label: `${t.relation.label}${t.inferred ? " [inferred]" : ""}${dist}`,
      },
      classes: t.inferred ? "inferred" : "",
    });
  });
  container.dataset.nodes = JSON.stringify([...nodes.values()].map((n) => n.label || n.value));
  container.dataset.edges = JSON.stringify(triples.map((t) => `${t.head.label} -${t.relation.label}-> ${t.tail.label}`));
  container.dataset.inferred = String(triples.filter((t) => t.inferred).length);
  const cy = cytoscape({
    container,
    elements,
    userZoomingEnabled: false,
    boxSelectionEnabled: false,
    layout: { name: "preset", positions: layered(triples), fit: true, padding: 36 },
    maxZoom: 1.3,
    style: [
      {
        selector: "node",
        style: {
          label: "data(label)",
          "background-color": "#4c78a8",
          color: "#1b1b1b",
          "font-size": 12,
          "text-valign": "bottom",
          "text-margin-y": 4,
          "text-wrap": "wrap",
          "text-max-width": "140px",
          width: 22,
          height: 22,
        },
      },
      { selector: "node.literal", style: { shape: "round-rectangle", "background-color": "#9c9c9c" } },
      { selector: "node.answer", style: { "background-color": "#e45756", "border-width": 3, "border-color": "#7a1f1e" } },
      {
        selector: "edge",
        style: {
          label: "data(label)",
          "curve-style": "bezier",
          "target-arrow-shape": "triangle",
          "line-color": "#777",
          "target-arrow-color": "#777",
          width: 2,
          "font-size": 11,
          "text-rotation": "autorotate",
          "text-background-color": "#ffffff",
          "text-background-opacity": 0.85,
          "text-background-padding": "2px",
        },
      },
      {
        selector: "edge.inferred",
        style: { "line-style": "dashed", "line-color": "#f58518", "target-arrow-color": "#f58518" },
      },
    ],
  });
  // refit when the panel changes size (window resize, a tab shown again): the layout keeps its positions
  new ResizeObserver(() => {
    cy.resize();
    cy.fit(undefined, 36);
  }).observe(container);
  return cy;
}
