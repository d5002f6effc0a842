#include "scenarios/report/page.h"

#include <fmt/format.h>

#include "sim/assert.h"

namespace faultline::scenarios {
namespace {

// The page's style: system fonts only (a report is read offline).
constexpr std::string_view kStyle = R"css(
:root { --ink:#1d2330; --soft:#5b6475; --line:#d8dce4; --bg:#f7f8fa; --ok:#1f7a3a; --bad:#b3261e;
        --warn:#b06000; --accent:#2f5fb3; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
       color:var(--ink); background:var(--bg); }
header { padding:18px 28px 10px; background:#fff; border-bottom:1px solid var(--line); }
h1 { margin:0 0 4px; font-size:22px; } h2 { font-size:17px; margin:0 0 10px; }
.sub { color:var(--soft); }
.badges span { display:inline-block; margin:6px 6px 0 0; padding:2px 9px; border-radius:10px;
               background:#eef1f6; font-size:12px; }
.badge-pass { background:#e3f3e7 !important; color:var(--ok); font-weight:600; }
.badge-fail, .badge-stopped { background:#fbe7e5 !important; color:var(--bad); font-weight:600; }
nav { position:sticky; top:0; z-index:5; background:#fff; border-bottom:1px solid var(--line);
      padding:6px 28px; }
nav a { margin-right:16px; color:var(--accent); text-decoration:none; font-weight:600; }
section { padding:18px 28px; border-bottom:1px solid var(--line); }
.story { max-width:980px; } .story p { margin:6px 0; }
table { border-collapse:collapse; background:#fff; }
th, td { border:1px solid var(--line); padding:4px 8px; vertical-align:top; text-align:left; }
th { background:#eef1f6; font-weight:600; }
tr.step { cursor:pointer; } tr.step:hover { background:#f0f4fb; } tr.step.chosen { background:#e4ecfa; }
.ok { color:var(--ok); font-weight:600; } .bad { color:var(--bad); font-weight:600; }
pre { margin:0; white-space:pre-wrap; font:12px/1.4 ui-monospace,"DejaVu Sans Mono",monospace; }
.mono { font:12px/1.4 ui-monospace,"DejaVu Sans Mono",monospace; }
.scrub { display:flex; align-items:center; gap:12px; margin-bottom:10px; }
.scrub input { flex:0 0 min(640px,60vw); }
.tables { display:flex; flex-wrap:wrap; gap:14px; margin-top:10px; }
.tables table { max-width:100%; } .tables caption { text-align:left; font-weight:600; padding:2px 0; }
#diagram-box { overflow:auto; max-height:80vh; background:#fff; border:1px solid var(--line); }
.controls label { margin-right:14px; }
details { margin:4px 0; } summary { cursor:pointer; font-weight:600; }
.note { color:var(--warn); }
svg text { font:11px system-ui,"DejaVu Sans",sans-serif; }
)css";

// The page's script: draws everything from the data, and says it did
// (body[data-rendered]) so that a browser test can tell a page that ran
// from one that did not.
constexpr std::string_view kScript = R"js(
"use strict";
const data = JSON.parse(document.getElementById("run-data").textContent);
const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value; else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}
const SVG = "http://www.w3.org/2000/svg";
function sv(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}
function seconds(ns) { return (ns / 1e9).toFixed(6) + "s"; }

function header() {
  const s = data.scenario;
  $("title").textContent = s.name + ": " + s.title;
  document.title = "faultline report: " + s.name;  // The page's text is the data's, never HTML.
  const badges = $("badges");
  badges.append(el("span", {class: "badge-" + data.verdict}, data.verdict.toUpperCase()));
  if (s.class) badges.append(el("span", {}, s.class));
  badges.append(el("span", {}, "seed " + data.seed));
  badges.append(el("span", {}, "virtual time " + data.virtual_time));
  badges.append(el("span", {class: "mono"}, "trace " + data.trace_hash));
  const story = $("story");
  if (s.class) story.append(el("p", {}, el("b", {}, s.class + ": "), s.mechanism));
  if (s.story) story.append(el("p", {}, el("b", {}, "What happens. "), s.story));
  if (s.lesson) story.append(el("p", {}, el("b", {}, "The lesson. "), s.lesson));
  if (data.stopped) story.append(el("p", {class: "note"}, "The run stopped: " + data.stopped));
  for (const note of data.notes) story.append(el("p", {class: "note"}, "Note: " + note));
}

function checkCell(checks) {
  const cell = el("td");
  for (const c of checks) {
    cell.append(el("div", {}, el("span", {class: c.held ? "ok" : "bad"}, c.held ? "ok " : "FAIL "),
                   c.what, c.held || !c.actual ? "" : " (got: " + c.actual + ")"));
  }
  return cell;
}

function steps() {
  const body = $("steps-body");
  for (const step of data.steps) {
    const row = el("tr", {class: "step", "data-step": step.n},
                   el("td", {}, step.n), el("td", {class: "mono"}, step.at),
                   el("td", {}, el("b", {}, step.action), el("div", {class: "sub"}, step.narration)),
                   el("td", {}, el("pre", {}, step.outcome)), checkCell(step.checks));
    row.addEventListener("click", () => { choose(step.n); $("store").scrollIntoView(); });
    body.append(row);
  }
}

function checkers() {
  const body = $("checkers-body");
  for (const c of data.checkers) {
    body.append(el("tr", {}, el("td", {}, el("b", {}, c.checker || c.what)),
                   el("td", {}, c.expected_to_hold === false ? "expected to fail" : "must hold"),
                   el("td", {class: c.held ? "ok" : "bad"}, c.held ? "as expected" : "NOT as expected"),
                   el("td", {}, el("pre", {}, c.what + (c.actual ? "\n" + c.actual : "")))));
  }
}

function logs() {
  const box = $("logs-body");
  for (const [service, lines] of Object.entries(data.logs)) {
    const pre = el("pre");
    pre.textContent = lines.map(([t, line]) => seconds(t) + "  " + line).join("\n");
    box.append(el("details", {}, el("summary", {}, service + " (" + lines.length + " lines)"), pre));
  }
  if (Object.keys(data.logs).length === 0) box.append(el("p", {class: "sub"}, "No service logged anything."));
}

function storeView(index) {
  const view = data.stores[index];
  const box = $("store-view");
  box.replaceChildren();
  if (view.unreadable) box.append(el("p", {class: "sub"}, view.unreadable));
  if (view.schema) {
    box.append(el("details", {}, el("summary", {}, "Schema (DESCRIBE SCHEMA): every CREATE"),
                  el("pre", {}, view.schema)));
  }
  const tables = el("div", {class: "tables"});
  for (const table of view.tables) {
    const t = el("table", {}, el("caption", {}, table.name + "  (" + table.total + " rows" +
                                   (table.total > table.rows.length ? ", first " + table.rows.length : "") + ")"));
    t.append(el("tr", {}, ...table.columns.map((c) => el("th", {}, c))));
    for (const row of table.rows) t.append(el("tr", {}, ...row.map((cell) => el("td", {class: "mono"}, cell))));
    tables.append(t);
  }
  box.append(tables);
}

function choose(n) {
  $("scrubber").value = n;
  const step = data.steps[n - 1];
  $("scrub-label").textContent = n === 0 ? "before the first step" :
      "after step " + n + ": " + step.action + (step.narration ? " (" + step.narration + ")" : "");
  for (const row of document.querySelectorAll("tr.step")) {
    row.classList.toggle("chosen", Number(row.dataset.step) === n);
  }
  storeView(n);
}

function scrubber() {
  const input = $("scrubber");
  input.max = data.steps.length;
  input.addEventListener("input", () => choose(Number(input.value)));
  choose(data.steps.length);
}

// The sequence diagram: a column per lane (a service's incarnation), a row
// per shown event in order; arrows for messages, marks for the rest.
const LANE = 118, ROW = 7, TOP = 46, LEFT = 150;
function storeTraffic(item) { return item.tag === "store"; }
function probe(item) { return item.tag === "probe"; }
function shown(item, opts) {
  if (item.k === "m") return (opts.store || !storeTraffic(item)) && (opts.probes || !probe(item));
  if (item.k === "log") return opts.logs;
  if (item.k === "cql") return opts.cql;
  return true;
}
function diagram() {
  const opts = {store: $("show-store").checked, probes: $("show-probes").checked,
                logs: $("show-logs").checked, cql: $("show-cql").checked};
  const items = data.items.filter((item) => shown(item, opts));
  const seqs = new Set();
  for (const item of items) { seqs.add(item.s); if (item.k === "m") seqs.add(item.e); }
  const order = [...seqs].sort((a, b) => a - b);
  const row = new Map(order.map((s, i) => [s, i]));
  const used = new Set();
  for (const item of items) {
    if (item.k === "m") { used.add(item.a); used.add(item.b); } else if (item.l !== undefined) used.add(item.l);
  }
  const lanes = data.lanes.map((lane, id) => ({...lane, id})).filter((lane) => used.has(lane.id))
      .sort((x, y) => x.rank - y.rank || x.inc - y.inc);
  const column = new Map(lanes.map((lane, i) => [lane.id, i]));
  const x = (lane) => LEFT + column.get(lane) * LANE + LANE / 2;
  const y = (seq) => TOP + row.get(seq) * ROW;
  const height = TOP + order.length * ROW + 20;
  const svg = sv("svg", {width: LEFT + lanes.length * LANE + 20, height, role: "img"});
  svg.append(sv("title", {}, "message sequence diagram of " + data.scenario.name));
  const marker = sv("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
                               markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse"});
  marker.append(sv("path", {d: "M0,0 L10,5 L0,10 z", fill: "#55607a"}));
  const defs = sv("defs", {});
  defs.append(marker);
  svg.append(defs);
  const first = new Map(), last = new Map();
  for (const item of items) {
    for (const [lane, seq] of item.k === "m" ? [[item.a, item.s], [item.b, item.e]] : [[item.l, item.s]]) {
      if (lane === undefined) continue;
      if (!first.has(lane) || seq < first.get(lane)) first.set(lane, seq);
      if (!last.has(lane) || seq > last.get(lane)) last.set(lane, seq);
    }
  }
  for (const lane of lanes) {
    const label = lane.inc > 0 ? lane.name + " #" + lane.inc : lane.name;
    svg.append(sv("text", {x: x(lane.id), y: 16, "text-anchor": "middle", "font-weight": "600"}, label));
    svg.append(sv("line", {x1: x(lane.id), x2: x(lane.id), y1: y(first.get(lane.id)), y2: y(last.get(lane.id)),
                           stroke: "#c3c9d4", "stroke-width": 1.5}));
  }
  let labelled = -Infinity;  // Where the last step's label went: labels never overlap.
  for (const item of items) {
    if (item.k === "step") {
      const n = item.n + 1;
      const step = data.steps[item.n];
      const label = n > data.steps.length ? "liveness phase" : "step " + n + " (ends " + step.at + "): " + step.action;
      svg.append(sv("line", {x1: 4, x2: LEFT + lanes.length * LANE, y1: y(item.s), y2: y(item.s),
                             stroke: "#2f5fb3", "stroke-dasharray": "4 3"}));
      labelled = Math.max(y(item.s) - 3, labelled + 12);
      const text = sv("text", {x: 4, y: labelled, fill: "#2f5fb3"}, label.length > 90 ? label.slice(0, 87) + "..." : label);
      text.append(sv("title", {}, label + (step && step.narration ? "\n" + step.narration : "")));
      svg.append(text);
    } else if (item.k === "m") {
      const line = sv("line", {x1: x(item.a), y1: y(item.s), x2: x(item.b), y2: y(item.e),
                               stroke: item.drop ? "#b3261e" : storeTraffic(item) ? "#9aa5b8" : "#55607a",
                               "stroke-width": 1, "marker-end": "url(#arrow)"});
      if (item.drop) line.setAttribute("stroke-dasharray", "3 2");
      line.append(sv("title", {}, item.w + (item.re ? " to " + item.re : "") + "  " + seconds(item.t0) + " -> " + seconds(item.t1) +
                     (item.drop ? "  DROPPED (" + item.drop + ")" : "")));
      svg.append(line);
    } else {
      const cx = x(item.l), cy = y(item.s);
      const colour = {crash: "#b3261e", start: "#1f7a3a", exit: "#5b6475", fault: "#b06000",
                      log: "#2f5fb3", cql: "#7a4fb3"}[item.k] || "#5b6475";
      const mark = item.k === "crash" ? sv("text", {x: cx, y: cy + 4, "text-anchor": "middle", fill: colour,
                                                     "font-size": 14, "font-weight": 700}, "\u2715")
                 : item.k === "fault" ? sv("rect", {x: cx - 4, y: cy - 4, width: 8, height: 8, fill: colour,
                                                     transform: "rotate(45 " + cx + " " + cy + ")"})
                 : sv("circle", {cx, cy, r: item.k === "log" || item.k === "cql" ? 2.5 : 4, fill: colour});
      mark.append(sv("title", {}, item.k + " at " + seconds(item.t) + ": " + item.w));
      svg.append(mark);
    }
  }
  const box = $("diagram-box");
  box.replaceChildren(svg);
  $("diagram-note").textContent = items.length + " of " + data.items.length + " events shown in " +
      lanes.length + " lanes" + (data.truncated ? "; the run had more than the page keeps" : "") +
      ". Hover an arrow or a mark to read it.";
}

function main() {
  header();
  steps();
  checkers();
  logs();
  scrubber();
  for (const id of ["show-store", "show-probes", "show-logs", "show-cql"]) $(id).addEventListener("change", diagram);
  diagram();
  document.body.dataset.rendered = "yes";
  // A link to a section (run.html#diagram) lands there once it is drawn.
  const target = location.hash && document.getElementById(location.hash.slice(1));
  if (target) target.scrollIntoView();
}
try { main(); } catch (error) {
  document.body.dataset.rendered = "error";
  document.body.prepend(el("pre", {class: "bad", id: "report-error"}, "The report could not be drawn: " + error));
  throw error;
}
)js";

}  // namespace

std::string ReportPage(std::string_view data) {
  // Nothing in it can end or hide the <script> element it goes in (ScriptSafe).
  FL_ASSERT(data.find('<') == std::string_view::npos);
  return fmt::format(R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>faultline report</title>
<style>{style}</style>
</head>
<body>
<header>
  <h1 id="title"></h1>
  <div class="badges" id="badges"></div>
</header>
<nav><a href="#story">Story</a><a href="#steps">Steps</a><a href="#store">Store</a><a href="#diagram">Messages</a><a href="#checkers">Checkers</a><a href="#logs">Logs</a></nav>
<section id="story" class="story"></section>
<section id="steps"><h2>Steps</h2>
  <table><thead><tr><th>#</th><th>ended at</th><th>step</th><th>outcome</th><th>expected</th></tr></thead>
  <tbody id="steps-body"></tbody></table>
  <p class="sub">Click a step to see the store as it was after it.</p>
</section>
<section id="store"><h2>The store, step by step</h2>
  <div class="scrub"><input type="range" id="scrubber" min="0" value="0" aria-label="step"><span id="scrub-label"></span></div>
  <div id="store-view"></div>
</section>
<section id="diagram"><h2>Messages</h2>
  <div class="controls">
    <label><input type="checkbox" id="show-store"> the store's traffic</label>
    <label><input type="checkbox" id="show-probes"> health probes (/healthz)</label>
    <label><input type="checkbox" id="show-cql"> statements</label>
    <label><input type="checkbox" id="show-logs" checked> log lines</label>
  </div>
  <p class="sub" id="diagram-note"></p>
  <div id="diagram-box"></div>
  <p class="sub">A column per service and incarnation (kuri-1 #2 is kuri-1's second process), time
  downwards in event order; &#x2715; a crash, green a start, grey an exit, orange a fault, dots log lines.</p>
</section>
<section id="checkers"><h2>Checkers over the whole run</h2>
  <table><thead><tr><th>checker</th><th>the scenario says</th><th>verdict</th><th>detail</th></tr></thead>
  <tbody id="checkers-body"></tbody></table>
</section>
<section id="logs"><h2>Logs per service</h2><div id="logs-body"></div></section>
<script type="application/json" id="run-data">{data}</script>
<script>{script}</script>
</body>
</html>
)html",
                     fmt::arg("style", kStyle), fmt::arg("data", data),
                     fmt::arg("script", kScript));
}

}  // namespace faultline::scenarios
