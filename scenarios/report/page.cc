#include "scenarios/report/page.h"

#include <fmt/format.h>

#include "scenarios/report/diagram_script.h"
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
#diagram-box { overflow:auto; scrollbar-gutter:stable; max-height:80vh; background:#fff; border:1px solid var(--line); border-top:0; }
#diagram-head { overflow:hidden; background:#fff; border:1px solid var(--line); border-bottom:0; }
#diagram-brush svg { cursor:crosshair; display:block; }
.controls button { min-width:28px; }
.controls label { margin-right:14px; }
details { margin:4px 0; } summary { cursor:pointer; font-weight:600; }
.note { color:var(--warn); }
svg text { font-size:11px; font-family:system-ui,"DejaVu Sans",sans-serif; }
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
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}
// A virtual time as people write it (as sim::FormatDuration does): "8m",
// "1.5s", "250ms", "2m30s"; at most 3 decimals.
function duration(ns) {
  const units = (n, unit) => String(Math.trunc((n / unit) * 1000) / 1000);
  if (ns === 0) return "0s";
  if (ns < 1e3) return ns + "ns";
  if (ns < 1e6) return units(ns, 1e3) + "us";
  if (ns < 1e9) return units(ns, 1e6) + "ms";
  if (ns < 60e9) return units(ns, 1e9) + "s";
  const hours = Math.floor(ns / 3600e9), minutes = Math.floor((ns % 3600e9) / 60e9), rest = ns % 60e9;
  return (hours > 0 ? hours + "h" : "") + (minutes > 0 || (hours > 0 && rest >= 1e6) ? minutes + "m" : "") +
      (rest >= 1e6 ? units(rest, 1e9) + "s" : "");
}

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
    pre.textContent = lines.map(([t, line]) => duration(t) + "  " + line).join("\n");
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

function main() {
  header();
  steps();
  checkers();
  logs();
  scrubber();
  diagramControls();
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
    <button type="button" id="zoom-out" title="fewer pixels per event">&minus;</button>
    <span id="zoom-level"></span>
    <button type="button" id="zoom-in" title="more pixels per event: more arrows labelled">+</button>
  </div>
  <div id="diagram-brush"></div>
  <p class="sub" id="brush-note"></p>
  <div id="diagram-head"></div>
  <div id="diagram-box"></div>
  <p class="sub" id="diagram-note"></p>
  <p class="sub">A lane per service (the client, the proxy, the nodes, the store, then jobs and
  tools), time downwards in event order; its process's restarts are marks on it: &#x2715; a crash,
  green a start, grey an exit, the lane dotted while it is down; an orange diamond a fault, dots
  log lines; a red dashed arrow a message dropped.</p>
</section>
<section id="checkers"><h2>Checkers over the whole run</h2>
  <table><thead><tr><th>checker</th><th>the scenario says</th><th>verdict</th><th>detail</th></tr></thead>
  <tbody id="checkers-body"></tbody></table>
</section>
<section id="logs"><h2>Logs per service</h2><div id="logs-body"></div></section>
<script type="application/json" id="run-data">{data}</script>
<script>{diagram}{script}</script>
</body>
</html>
)html",
                     fmt::arg("style", kStyle), fmt::arg("data", data), fmt::arg("script", kScript),
                     fmt::arg("diagram", kDiagramScript));
}

}  // namespace faultline::scenarios
