// The report page's message diagram, as the script that draws it from the
// page's data (DiagramSink's lanes and items). Part of the page's one
// script (page.cc), which gives it `data`, `$`, `el`, `sv` and `duration`.
#pragma once

#include <string_view>

namespace faultline::scenarios {

// A lane per host, ordered as a request travels (the client, the proxy, the
// nodes, the store, then the jobs and the operator's tools); a process's
// incarnations are marks on its lane (start, crash, exit), the lane dotted
// while it is down. Time runs downwards in event order. Text is laid out,
// never stacked: steps in the left gutter, each on a line of its own;
// faults, crashes, exits and restarts beside their mark, each on a row of
// its own; an arrow's label where it has room, else only in its tooltip
// (zoom in for more). The lanes share the full width; only what is near
// the scrolled-to place is in the page at a time, so long runs scroll
// smoothly. `window.faultlineDiagram` lets a test draw it all and measure.
inline constexpr std::string_view kDiagramScript = R"js(
const GUTTER = 172, MIN_LANE = 40, ROW = 6, LINE = 17, HEAD_H = 34, BRUSH_H = 36;
const FONT = "11px system-ui, \"DejaVu Sans\", sans-serif";
const diagramView = {zoom: 1, from: null, to: null, layout: null, painted: [0, -1]};
const measurer = document.createElement("canvas").getContext("2d");
function textWidth(text, weight) {
  measurer.font = (weight ? weight + " " : "") + FONT;
  return measurer.measureText(text).width;
}
// `text` cut to fit `room` pixels, or null when not even a few letters fit.
function fitted(text, room, weight) {
  if (textWidth(text, weight) <= room) return text;
  let lo = 3, hi = text.length - 1, best = null;  // Binary search on the kept length.
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const cut = text.slice(0, mid) + "\u2026";
    if (textWidth(cut, weight) <= room) { best = cut; lo = mid + 1; } else hi = mid - 1;
  }
  return best;
}
// Text boxes placed so far, by 24-pixel band: a label goes only where none is.
class Boxes {
  constructor() { this.bands = new Map(); }
  bandsOf(box) { const out = []; for (let b = Math.floor(box[1] / 24); b <= Math.floor(box[3] / 24); ++b) out.push(b); return out; }
  free(box) {
    for (const band of this.bandsOf(box)) {
      for (const o of this.bands.get(band) || []) {
        if (box[0] < o[2] && o[0] < box[2] && box[1] < o[3] && o[1] < box[3]) return false;
      }
    }
    return true;
  }
  put(box) {
    for (const band of this.bandsOf(box)) {
      if (!this.bands.has(band)) this.bands.set(band, []);
      this.bands.get(band).push(box);
    }
  }
}
// The box of a text drawn at (x, baseline y), with a pixel to spare around it.
function textBox(x, y, width, anchor) {
  const left = anchor === "end" ? x - width : anchor === "middle" ? x - width / 2 : x;
  return [left - 1, y - 12, left + width + 1, y + 4];
}

function storeTraffic(item) { return item.tag === "store"; }
function probe(item) { return item.tag === "probe"; }
function shown(item, opts) {
  const view = diagramView;
  if (view.from !== null) {
    const t = item.k === "m" ? item.t0 : item.t;
    if (t < view.from || t > view.to) return false;
  }
  if (item.k === "m") return (opts.store || !storeTraffic(item)) && (opts.probes || !probe(item));
  if (item.k === "log") return opts.logs;
  if (item.k === "cql") return opts.cql;
  return true;
}
// What is written beside a mark; null for marks read by hovering.
function markLabel(item) {
  if (item.k === "fault") return item.lbl || "fault";
  if (item.k === "crash") return "crash (" + item.w + ")";
  if (item.k === "exit") return item.w;
  if (item.k === "start" && item.i > 1) return "start #" + item.i;
  return null;
}
const COLOURS = {crash: "#b3261e", start: "#1f7a3a", exit: "#5b6475", fault: "#b06000",
                 log: "#2f5fb3", cql: "#7a4fb3"};

function diagramLayout(items, width) {
  const used = new Set();
  for (const item of items) {
    if (item.k === "m") { used.add(item.a); used.add(item.b); } else if (item.l !== undefined) used.add(item.l);
  }
  const lanes = data.lanes.map((lane, id) => ({...lane, id})).filter((lane) => used.has(lane.id))
      .sort((p, q) => p.order - q.order);
  const laneW = Math.max(MIN_LANE, (width - GUTTER - 12) / Math.max(1, lanes.length));
  const column = new Map(lanes.map((lane, i) => [lane.id, i]));
  const x = (lane) => GUTTER + column.get(lane) * laneW + laneW / 2;
  const right = GUTTER + lanes.length * laneW + 8;
  // Rows: a row per event in order, more room where a line of text goes.
  const points = [];
  for (const item of items) { points.push([item.s, item]); if (item.k === "m") points.push([item.e, item]); }
  points.sort((p, q) => p[0] - q[0]);
  const yOf = new Map();
  let y = 6, lastStep = -Infinity, lastMark = -Infinity;
  for (const [seq, item] of points) {
    // Below a step's line by a line of text, so no arrow's label sits on it.
    y = Math.max(y + ROW * diagramView.zoom, lastStep + LINE - 1);
    if (item.k === "step") { y = Math.max(y + 6, lastStep + LINE); lastStep = y; }
    else if (item.k !== "m" && markLabel(item) !== null) { y = Math.max(y, lastMark + LINE); lastMark = y; }
    yOf.set(seq, y);
  }
  const height = y + 24;
  const boxes = new Boxes();
  const shapes = [];
  // Each lane: solid while its process runs, dotted while it is down.
  const first = new Map(), last = new Map(), downs = new Map();
  for (const [seq, item] of points) {
    for (const lane of item.k === "m" ? [seq === item.s ? item.a : item.b] : [item.l]) {
      if (lane === undefined) continue;
      if (!first.has(lane)) first.set(lane, yOf.get(seq));
      last.set(lane, yOf.get(seq));
      const gaps = downs.get(lane) || [];
      if ((item.k === "crash" || item.k === "exit") && (gaps.length === 0 || gaps.at(-1)[1] !== null)) {
        downs.set(lane, [...gaps, [yOf.get(seq), null]]);
      }
      if (item.k === "start" && downs.has(lane)) {
        const open = downs.get(lane).at(-1);
        if (open[1] === null) open[1] = yOf.get(seq);
      }
    }
  }
  for (const lane of lanes) {
    const gaps = downs.get(lane.id) || [];
    let from = first.get(lane.id);
    for (const [down, up] of gaps) {
      shapes.push({k: "lane", x: x(lane.id), y0: from, y1: down});
      shapes.push({k: "lane-down", x: x(lane.id), y0: down, y1: up === null ? last.get(lane.id) : up});
      from = up === null ? last.get(lane.id) : up;
    }
    shapes.push({k: "lane", x: x(lane.id), y0: from, y1: last.get(lane.id)});
  }
  // Steps first, then the marks' words, then the arrows' where there is room.
  for (const item of items) {
    if (item.k !== "step") continue;
    const n = item.n + 1, step = data.steps[item.n], at = yOf.get(item.s);
    const full = n > data.steps.length ? "liveness phase" : "step " + n + " (ends " + step.at + "): " + step.action;
    const text = fitted(n > data.steps.length ? full : n + " " + step.action, GUTTER - 10, "600");
    const box = textBox(4, at - 3, textWidth(text || "", "600"), "start");
    boxes.put(box);
    shapes.push({k: "step", y0: at - 15, y1: at, right, text, title: full + (step && step.narration ? "\n" + step.narration : "")});
  }
  for (const item of items) {
    if (item.k === "m" || item.k === "step") continue;
    const cx = x(item.l), cy = yOf.get(item.s), label = markLabel(item);
    const shape = {k: "mark", item, x: cx, y0: cy - 8, y1: cy + 8, text: null};
    if (label !== null) {
      // Beside the mark, right or left, where the diagram has room.
      for (const [tx, anchor, room] of [[cx + 8, "start", right - cx - 10], [cx - 8, "end", cx - GUTTER - 10]]) {
        const text = fitted(label, room);
        if (text === null) continue;
        const box = textBox(tx, cy + 4, textWidth(text), anchor);
        if (!boxes.free(box)) continue;
        boxes.put(box);
        Object.assign(shape, {text, tx, anchor});
        break;
      }
    }
    shapes.push(shape);
  }
  let labelled = 0;
  for (const item of items) {
    if (item.k !== "m") continue;
    const x1 = x(item.a), x2 = x(item.b), y1 = yOf.get(item.s), y2 = yOf.get(item.e);
    // Drawn from (x1, ys) to (x2, ye); y0 to y1 is what it covers.
    const shape = {k: "m", item, x1, x2, ys: y1, ye: y2, y0: Math.min(y1, y2) - 14, y1: Math.max(y1, y2), text: null};
    if (x1 !== x2 && item.lbl) {
      const text = fitted(item.lbl, Math.abs(x2 - x1) - 16);
      if (text !== null) {
        const mid = (x1 + x2) / 2, box = textBox(mid, y1 - 3, textWidth(text), "middle");
        if (boxes.free(box)) { boxes.put(box); Object.assign(shape, {text, tx: mid}); ++labelled; }
      }
    }
    shapes.push(shape);
  }
  return {lanes, laneW, x, right, height, shapes, labelled, messages: items.filter((i) => i.k === "m").length};
}

function drawShape(shape) {
  if (shape.k === "lane" || shape.k === "lane-down") {
    return sv("line", {x1: shape.x, x2: shape.x, y1: shape.y0, y2: shape.y1, stroke: shape.k === "lane" ? "#b8c0cc" : "#d9dde4",
                       "stroke-width": shape.k === "lane" ? 1.5 : 1, "stroke-dasharray": shape.k === "lane" ? null : "2 3"});
  }
  if (shape.k === "step") {
    const g = sv("g", {});
    g.append(sv("line", {x1: 2, x2: shape.right, y1: shape.y1, y2: shape.y1, stroke: "#2f5fb3", "stroke-dasharray": "4 3"}));
    if (shape.text) {
      const text = sv("text", {x: 4, y: shape.y1 - 3, fill: "#2f5fb3", "font-weight": 600, class: "step-label"}, shape.text);
      text.append(sv("title", {}, shape.title));
      g.append(text);
    }
    return g;
  }
  if (shape.k === "m") {
    const item = shape.item, g = sv("g", {});
    const tip = item.w + (item.re ? " (answers " + item.re + ")" : "") + "\n" + duration(item.t0) + " \u2192 " +
        duration(item.t1) + (item.drop ? "\nDROPPED: " + item.drop : "");
    const colour = item.drop ? "#b3261e" : storeTraffic(item) ? "#8d98ad" : "#4a556e";
    const line = shape.x1 === shape.x2
        ? sv("path", {d: "M" + shape.x1 + "," + shape.ys + " h14 V" + shape.ye + " h-12", fill: "none", stroke: colour, "marker-end": "url(#arrow)"})
        : sv("line", {x1: shape.x1, y1: shape.ys, x2: shape.x2, y2: shape.ye, stroke: colour, "stroke-width": 1, "marker-end": "url(#arrow)"});
    if (item.drop) line.setAttribute("stroke-dasharray", "3 2");
    line.append(sv("title", {}, tip));
    g.append(line);
    if (shape.text) {
      const text = sv("text", {x: shape.tx, y: shape.ys - 3, "text-anchor": "middle", fill: colour, class: "arrow-label"}, shape.text);
      text.append(sv("title", {}, tip));
      g.append(text);
    }
    return g;
  }
  const item = shape.item, cx = shape.x, cy = shape.y0 + 8, colour = COLOURS[item.k] || "#5b6475", g = sv("g", {});
  const mark = item.k === "crash" ? sv("path", {d: `M${cx - 4},${cy - 4} L${cx + 4},${cy + 4} M${cx - 4},${cy + 4} L${cx + 4},${cy - 4}`, stroke: colour, "stroke-width": 2.5})
             : item.k === "fault" ? sv("rect", {x: cx - 4.5, y: cy - 4.5, width: 9, height: 9, fill: colour, transform: `rotate(45 ${cx} ${cy})`})
             : sv("circle", {cx, cy, r: item.k === "log" || item.k === "cql" ? 2.5 : 4, fill: colour});
  const tip = data.lanes[item.l].name + (item.i > 0 ? " #" + item.i : "") + ", " + item.k + " at " + duration(item.t) + ": " + item.w;
  mark.append(sv("title", {}, tip));
  g.append(mark);
  if (shape.text) {
    const text = sv("text", {x: shape.tx, y: cy + 4, "text-anchor": shape.anchor, fill: colour, "font-weight": 600, class: "mark-label"}, shape.text);
    text.append(sv("title", {}, tip));
    g.append(text);
  }
  return g;
}

// Draws what is near the scrolled-to place (everything when `all`).
function paintDiagram(all) {
  const layout = diagramView.layout, box = $("diagram-box");
  const top = all ? -Infinity : box.scrollTop - box.clientHeight;
  const bottom = all ? Infinity : box.scrollTop + 2 * box.clientHeight;
  const group = sv("g", {});
  for (const shape of layout.shapes) if (shape.y1 >= top && shape.y0 <= bottom) group.append(drawShape(shape));
  layout.content.replaceChildren(group);
  diagramView.painted = [top, bottom];
}

function diagramHead(layout, width) {
  const head = sv("svg", {width, height: HEAD_H, role: "presentation"});
  const boxes = new Boxes();
  for (const lane of layout.lanes) {
    const cx = layout.x(lane.id);
    // Whole on the first row, or else on the second; cut only when neither has room.
    const name = (row, room) => [row, fitted(lane.name, room, "600")];
    const tries = [[14, lane.name], [29, lane.name], name(14, layout.laneW - 6), name(29, 2 * layout.laneW - 8)];
    for (const [row, text] of tries) {
      if (text === null) continue;
      const box = textBox(cx, row, textWidth(text, "600"), "middle");
      if (box[0] < 0 || box[2] > width || !boxes.free(box)) continue;
      boxes.put(box);
      const label = sv("text", {x: cx, y: row, "text-anchor": "middle", "font-weight": 600, class: "lane-label"}, text);
      label.append(sv("title", {}, lane.name + " (" + lane.role + ")"));
      head.append(label);
      break;
    }
  }
  return head;
}

// The time brush: the whole run as a strip (how busy, steps, faults and
// crashes); dragging over it shows only that span in the diagram.
function diagramBrush(width, opts) {
  const all = data.items.filter((item) => item.k !== "step");
  const end = all.reduce((most, item) => Math.max(most, item.k === "m" ? item.t1 : item.t), 1);
  const strip = sv("svg", {width, height: BRUSH_H, class: "brush", role: "slider", "aria-label": "time span shown"});
  const tx = (t) => GUTTER + (t / end) * (width - GUTTER - 12);
  const bins = new Array(120).fill(0);
  for (const item of all) bins[Math.min(119, Math.floor(((item.k === "m" ? item.t0 : item.t) / end) * 120))]++;
  const most = Math.max(1, ...bins);
  bins.forEach((count, i) => {
    if (count === 0) return;
    const h = 4 + (count / most) * (BRUSH_H - 14);
    strip.append(sv("rect", {x: tx((i / 120) * end), y: BRUSH_H - 4 - h, width: Math.max(1, (width - GUTTER - 12) / 120 - 1), height: h, fill: "#c9d3e6"}));
  });
  for (const item of data.items) {
    if (item.k === "step") strip.append(sv("line", {x1: tx(item.t), x2: tx(item.t), y1: 2, y2: BRUSH_H - 2, stroke: "#2f5fb3", "stroke-width": 0.6}));
    if (item.k === "fault" || item.k === "crash") strip.append(sv("circle", {cx: tx(item.t), cy: 6, r: 3, fill: COLOURS[item.k]}));
  }
  const from = diagramView.from === null ? 0 : diagramView.from, to = diagramView.to === null ? end : diagramView.to;
  const chosen = sv("rect", {x: tx(from), y: 0, width: Math.max(2, tx(to) - tx(from)), height: BRUSH_H, fill: "rgba(47,95,179,0.12)", stroke: "#2f5fb3"});
  strip.append(chosen);
  const timeAt = (clientX) => Math.min(end, Math.max(0, ((clientX - strip.getBoundingClientRect().left - GUTTER) / (width - GUTTER - 12)) * end));
  let dragFrom = null;
  strip.addEventListener("mousedown", (event) => { dragFrom = timeAt(event.clientX); event.preventDefault(); });
  strip.addEventListener("mousemove", (event) => {
    if (dragFrom === null) return;
    const t = timeAt(event.clientX);
    chosen.setAttribute("x", tx(Math.min(dragFrom, t)));
    chosen.setAttribute("width", Math.max(2, Math.abs(tx(t) - tx(dragFrom))));
  });
  strip.addEventListener("mouseup", (event) => {
    if (dragFrom === null) return;
    const t = timeAt(event.clientX);
    const near = Math.abs(tx(t) - tx(dragFrom)) < 4;  // A click, not a drag: the whole run.
    diagramView.from = near ? null : Math.min(dragFrom, t);
    diagramView.to = near ? null : Math.max(dragFrom, t);
    dragFrom = null;
    diagram();
  });
  $("brush-note").textContent = diagramView.from === null
      ? "the whole run, 0s to " + duration(end) + "; drag over the strip to show a span"
      : "from " + duration(diagramView.from) + " to " + duration(diagramView.to) + " of " + duration(end) + "; click the strip for the whole run";
  return strip;
}

function diagram() {
  const opts = {store: $("show-store").checked, probes: $("show-probes").checked,
                logs: $("show-logs").checked, cql: $("show-cql").checked};
  const box = $("diagram-box");
  const width = Math.max(GUTTER + 2 * MIN_LANE + 12, box.clientWidth);
  const items = data.items.filter((item) => shown(item, opts));
  const layout = diagramLayout(items, width);
  const svgWidth = Math.max(width, layout.right);
  const svg = sv("svg", {width: svgWidth, height: layout.height, role: "img"});
  svg.append(sv("title", {}, "message sequence diagram of " + data.scenario.name));
  const marker = sv("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
                               markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse"});
  marker.append(sv("path", {d: "M0,0 L10,5 L0,10 z", fill: "#55607a"}));
  const defs = sv("defs", {});
  defs.append(marker);
  svg.append(defs);
  layout.content = sv("g", {});
  svg.append(layout.content);
  diagramView.layout = layout;
  box.replaceChildren(svg);
  $("diagram-head").replaceChildren(diagramHead(layout, svgWidth));
  $("diagram-brush").replaceChildren(diagramBrush(svgWidth, opts));
  paintDiagram(false);
  $("diagram-note").textContent = items.length === 0 ? "Nothing shown happened in this span: click the strip for the whole run." :
      items.length + " of " + data.items.length + " events shown in " +
      layout.lanes.length + " lanes; " + layout.labelled + " of " + layout.messages + " arrows labelled" +
      (layout.labelled < layout.messages ? " (zoom in for more)" : "") +
      (data.truncated ? "; the run had more than the page keeps" : "") + ". Hover an arrow or a mark to read it all.";
  $("zoom-level").textContent = "rows \u00d7" + diagramView.zoom;
}

function diagramControls() {
  for (const id of ["show-store", "show-probes", "show-logs", "show-cql"]) $(id).addEventListener("change", diagram);
  const zoom = (factor) => {
    const box = $("diagram-box"), centre = (box.scrollTop + box.clientHeight / 2) / diagramView.zoom;
    diagramView.zoom = Math.min(16, Math.max(0.25, diagramView.zoom * factor));
    diagram();
    box.scrollTop = centre * diagramView.zoom - box.clientHeight / 2;
  };
  $("zoom-in").addEventListener("click", () => zoom(2));
  $("zoom-out").addEventListener("click", () => zoom(0.5));
  let pending = false;
  $("diagram-box").addEventListener("scroll", () => {
    $("diagram-head").scrollLeft = $("diagram-box").scrollLeft;  // The lanes' names stay over them.
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      const box = $("diagram-box"), [top, bottom] = diagramView.painted;
      if (box.scrollTop < top + box.clientHeight / 2 || box.scrollTop + box.clientHeight > bottom - box.clientHeight / 2) paintDiagram(false);
    });
  });
  let resized = null;
  window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(diagram, 150); });
  window.faultlineDiagram = {paintAll: () => paintDiagram(true), layout: () => diagramView.layout};
}
)js";

}  // namespace faultline::scenarios
