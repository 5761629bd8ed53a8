// The SPARQL editor (CodeMirror 6 with the SPARQL stream mode) and a read-only Turtle viewer.

import { StreamLanguage } from "@codemirror/language";
import { sparql } from "@codemirror/legacy-modes/mode/sparql";
import { turtle } from "@codemirror/legacy-modes/mode/turtle";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { basicSetup } from "codemirror";

export const PREFIXES: Record<string, string> = {
  rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  rdfs: "http://www.w3.org/2000/01/rdf-schema#",
  xsd: "http://www.w3.org/2001/XMLSchema#",
  owl: "http://www.w3.org/2002/07/owl#",
  skos: "http://www.w3.org/2004/02/skos/core#",
  schema: "http://schema.org/",
  ex: "https://kgsvc.local/sample/",
};

export function prefixBlock(names: string[] = Object.keys(PREFIXES)): string {
  return names.map((name) => `PREFIX ${name}: <${PREFIXES[name]}>`).join("\n");
}

export const DEFAULT_QUERY = `${prefixBlock(["rdfs", "ex"])}

SELECT ?film ?label WHERE {
  ?film ex:directedBy ?director ;
        rdfs:label ?label .
  ?director rdfs:label "Satoshi Kon" .
}
LIMIT 100
`;

export function createEditor(parent: HTMLElement, onRun: () => void): EditorView {
  const run = keymap.of([
    {
      key: "Mod-Enter",
      run: () => {
        onRun();
        return true;
      },
    },
  ]);
  return new EditorView({
    parent,
    state: EditorState.create({
      doc: DEFAULT_QUERY,
      extensions: [run, basicSetup, StreamLanguage.define(sparql), EditorView.lineWrapping],
    }),
  });
}

export function setText(view: EditorView, text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

/** Add the PREFIX declarations the text uses but does not declare, on top. */
export function addMissingPrefixes(text: string): string {
  const declared = new Set([...text.matchAll(/PREFIX\s+([A-Za-z][\w.-]*)?:/gi)].map((m) => m[1] ?? ""));
  const missing = Object.keys(PREFIXES).filter(
    (name) => !declared.has(name) && new RegExp(`(^|[\\s(,;.{/^|])${name}:`, "m").test(text),
  );
  return missing.length ? `${prefixBlock(missing)}\n${text}` : text;
}

export function createTurtleViewer(parent: HTMLElement, text: string): EditorView {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [basicSetup, StreamLanguage.define(turtle), EditorState.readOnly.of(true), EditorView.editable.of(false)],
    }),
  });
}
