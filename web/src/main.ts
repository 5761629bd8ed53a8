// kgsvc web page: dataset picker and the Ask, SPARQL and Datasets tabs. Served by `kgsvc serve` at /.

import { describe, getJson, getToken, setToken } from "./api";
import { type Answer, ask, renderAnswer } from "./ask";
import { type DatasetInfo, renderDatasets, upload } from "./datasets";
import { byId, showError } from "./dom";
import { addMissingPrefixes, createEditor, prefixBlock, setText } from "./editor";
import { runQuery } from "./sparql";

const picker = byId<HTMLSelectElement>("dataset");
const tabs = ["ask", "sparql", "datasets"] as const;
type Tab = (typeof tabs)[number];
let refreshTimer: number | undefined;

function dataset(): string {
  return picker.value;
}

function show(tab: Tab): void {
  for (const t of tabs) {
    byId(`tab-${t}`).setAttribute("aria-selected", String(t === tab));
    byId(`panel-${t}`).hidden = t !== tab;
  }
  if (tab === "datasets") void refreshDatasets();
  if (location.hash !== `#${tab}`) history.replaceState(null, "", `#${tab}`);
}

const editor = createEditor(byId("editor"), () => void run());

async function run(): Promise<void> {
  await runQuery(byId("sparql-results"), editor.state.doc.toString(), dataset(), (line, column) => {
    const doc = editor.state.doc;
    if (line < 1 || line > doc.lines) return;
    const at = doc.line(line);
    editor.dispatch({ selection: { anchor: Math.min(at.from + Math.max(0, column - 1), at.to) }, scrollIntoView: true });
  });
}

function openInEditor(sparql: string): void {
  setText(editor, addMissingPrefixes(sparql));
  show("sparql");
  editor.focus();
}

let datasetsCache: DatasetInfo[] = [];

async function loadDatasets(): Promise<void> {
  const previous = picker.value || sessionStorage.getItem("kgsvc-dataset") || "";
  try {
    datasetsCache = await getJson<DatasetInfo[]>("/datasets");
  } catch (exc) {
    showError(byId("global-error"), `Could not list datasets: ${describe(exc)}`);
    return;
  }
  picker.replaceChildren(new Option("(all datasets)", ""));
  for (const d of datasetsCache) picker.append(new Option(`${d.name} (${d.triples.toLocaleString("en")} triples)`, d.name));
  const names = datasetsCache.map((d) => d.name);
  picker.value = names.includes(previous) ? previous : (names[0] ?? "");
}

let autoIndex = false;

/** Render the Datasets tab, and again every second while a job runs or an index build is due (tab visible). */
let refreshes = 0;

async function refreshDatasets(): Promise<void> {
  window.clearTimeout(refreshTimer);
  const mine = ++refreshes; // a refresh that an older one outlives must not be overwritten by it
  try {
    datasetsCache = await getJson<DatasetInfo[]>("/datasets");
  } catch {
    // keep the last list; renderDatasets shows the error of its own requests
  }
  const fresh = document.createElement("div");
  const running = await renderDatasets(fresh, datasetsCache, dataset(), autoIndex);
  if (mine !== refreshes) return;
  byId("datasets-view").replaceChildren(...fresh.childNodes);
  if (running && !byId("panel-datasets").hidden) refreshTimer = window.setTimeout(() => void refreshDatasets(), 1000);
}

for (const t of tabs) byId(`tab-${t}`).addEventListener("click", () => show(t));
picker.addEventListener("change", () => {
  sessionStorage.setItem("kgsvc-dataset", picker.value);
  (byId<HTMLInputElement>("upload-name")).value = picker.value;
  if (!byId("panel-datasets").hidden) void refreshDatasets();
});
byId("run").addEventListener("click", () => void run());
byId("insert-prefixes").addEventListener("click", () => setText(editor, addMissingPrefixes(`${prefixBlock()}\n${editor.state.doc.toString()}`)));
byId<HTMLFormElement>("ask-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const button = byId<HTMLButtonElement>("ask");
  if (button.disabled) return;
  button.disabled = true; // one question at a time: enabled again when the answer (or the error) is shown
  void ask(byId("ask-results"), byId<HTMLInputElement>("question").value, dataset(), openInEditor).finally(() => {
    button.disabled = false;
  });
});
const token = byId<HTMLInputElement>("token");
token.value = getToken();
token.addEventListener("change", () => setToken(token.value.trim()));
byId<HTMLFormElement>("upload-form").addEventListener("submit", (event) => {
  event.preventDefault();
  void (async () => {
    if (await upload(event.target as HTMLFormElement, byId("upload-status"))) {
      const name = byId<HTMLInputElement>("upload-name").value.trim();
      await loadDatasets();
      picker.value = name;
      await refreshDatasets();
    }
  })();
});

// For the browser tests and for embedding: render an Answer JSON without asking the server; read the editor.
(window as unknown as { kgsvc: object }).kgsvc = {
  renderAnswer: (answer: Answer) => renderAnswer(byId("ask-results"), answer, openInEditor),
  editorText: () => editor.state.doc.toString(),
  cursor: () => editor.state.selection.main.head,
};

void (async () => {
  try {
    autoIndex = (await getJson<{ auto_index?: boolean }>("/health")).auto_index ?? false;
  } catch {
    autoIndex = false;
  }
  await loadDatasets();
  byId<HTMLInputElement>("upload-name").value = dataset();
  const initial = location.hash.slice(1) as Tab;
  show(tabs.includes(initial) ? initial : "ask");
  document.body.dataset.ready = "true";
})();
