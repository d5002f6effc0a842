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
// never stacked: steps in the left gutter, each on a line of its own; an
// arrow's label in the gap beside its sender, on the arrow, and a mark's
// beside the mark, the rows moved apart so that each has a line of its own
// (at rows x1 and more; zoomed out, what has no room is read by hovering).
// The lanes share the full width; only what is near the scrolled-to place
// is in the page at a time, so long runs scroll smoothly.
// `window.faultlineDiagram` lets a test draw it all and measure.
inline constexpr std::string_view kDiagramScript = R"js(
const GUTTER = 172, MIN_LANE = 40, ROW = 6, LINE = 17, HEAD_H = 34, BRUSH_H = 36;
const FONT = "11px system-ui, \"DejaVu Sans\", sans-serif";
const BOLD = "600";  // Lane, step and mark labels; arrows' are normal.
const diagramView = {zoom: 1, from: null, to: null, layout: null, painted: [0, -1]};
const measurer = document.createElement("canvas").getContext("2d");
const widths = new Map();  // Texts repeat (labels, names): each measured once.
function textWidth(text, weight) {
  const key = (weight || "") + "|" + text;
  let width = widths.get(key);
  if (width === undefined) {
    measurer.font = (weight ? weight + " " : "") + FONT;
    width = measurer.measureText(text).width;
    if (widths.size < 100000) widths.set(key, width);
  }
  return width;
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
function timeOf(item) { return item.k === "m" ? item.t0 : item.t; }
// Shown by the check boxes (the time brush aside).
function kindShown(item, opts) {
  if (item.k === "m") return (opts.store || !storeTraffic(item)) && (opts.probes || !probe(item));
  if (item.k === "log") return opts.logs;
  if (item.k === "cql") return opts.cql;
  return true;
}
function inSpan(item) {
  return diagramView.from === null || (timeOf(item) >= diagramView.from && timeOf(item) <= diagramView.to);
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

// What the diagram shows: the checked kinds in the brushed span, and for a
// span the step it starts in, so its rows say where they are.
function shownItems(opts) {
  const items = data.items.filter((item) => kindShown(item, opts) && inSpan(item));
  if (diagramView.from === null) return items;
  const before = data.items.filter((item) => item.k === "step" && item.t < diagramView.from).at(-1);
  return before ? [before, ...items] : items;
}
// The lanes whose process is down when the span starts (crashed or exited, not started again).
function downAtSpanStart() {
  const down = new Set();
  if (diagramView.from === null) return down;
  for (const item of data.items) {
    if (item.k === "step" || item.k === "m" || timeOf(item) >= diagramView.from) continue;
    if (item.k === "crash" || item.k === "exit") down.add(item.l);
    if (item.k === "start") down.delete(item.l);
  }
  return down;
}

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
  // The gap an arrow's label goes in: the one beside its sender, towards the receiver.
  const gapOf = (item) => column.get(item.b) > column.get(item.a) ? column.get(item.a) : column.get(item.a) - 1;
  // Rows: one per event in order, moved down where a line of text must fit
  // (a step's, a mark's, an arrow's in the same gap as the last one).
  const points = [];
  for (const item of items) { points.push([item.s, item]); if (item.k === "m") points.push([item.e, item]); }
  points.sort((p, q) => p[0] - q[0]);
  const yOf = new Map(), gapLine = new Map(), room = LINE * Math.min(1, diagramView.zoom);
  let y = 6, lastStep = -Infinity, lastMark = -Infinity;
  for (const [seq, item] of points) {
    // Below a step's line by a line of text, so no label sits on it.
    y = Math.max(y + ROW * diagramView.zoom, lastStep + LINE - 1);
    if (item.k === "step") {
      y = Math.max(y + 6, lastStep + LINE);
      lastStep = y;
    } else if (item.k === "m" && seq === item.s && item.a !== item.b && item.lbl) {
      y = Math.max(y, (gapLine.get(gapOf(item)) ?? -Infinity) + room);
      gapLine.set(gapOf(item), y);
    } else if (item.k !== "m" && markLabel(item) !== null) {
      y = Math.max(y, lastMark + LINE, (gapLine.get(column.get(item.l)) ?? -Infinity) + LINE);
      lastMark = y;
      gapLine.set(column.get(item.l), y);
    }
    yOf.set(seq, y);
  }
  const height = y + 24;
  const boxes = new Boxes();
  const shapes = [];
  // Each lane: solid while its process runs, dotted while it is down.
  const first = new Map(), last = new Map(), downs = new Map();
  for (const lane of downAtSpanStart()) downs.set(lane, [[null, null]]);
  for (const [seq, item] of points) {
    for (const lane of item.k === "m" ? [seq === item.s ? item.a : item.b] : [item.l]) {
      if (lane === undefined) continue;
      if (!first.has(lane)) first.set(lane, yOf.get(seq));
      last.set(lane, yOf.get(seq));
      const gaps = downs.get(lane) || [];
      if ((item.k === "crash" || item.k === "exit") && (gaps.length === 0 || gaps.at(-1)[1] !== null)) {
        downs.set(lane, [...gaps, [yOf.get(seq), null]]);
      }
      if (item.k === "start" && gaps.length > 0 && gaps.at(-1)[1] === null) gaps.at(-1)[1] = yOf.get(seq);
    }
  }
  for (const lane of lanes) {
    const top = first.get(lane.id), bottom = last.get(lane.id);
    let from = top;
    for (const [down, up] of downs.get(lane.id) || []) {
      const start = down === null ? top : down, end = up === null ? bottom : up;
      if (start > from) shapes.push({k: "lane", x: x(lane.id), y0: from, y1: start});
      shapes.push({k: "lane-down", x: x(lane.id), y0: start, y1: end});
      from = end;
    }
    if (bottom > from || from === top) shapes.push({k: "lane", x: x(lane.id), y0: from, y1: bottom});
  }
  // Steps first, then the marks' words, then the arrows'.
  for (const item of items) {
    if (item.k !== "step") continue;
    const n = item.n + 1, step = data.steps[item.n], at = yOf.get(item.s);
    const full = n > data.steps.length ? "liveness phase" : "step " + n + " (ends " + step.at + "): " + step.action;
    const text = fitted(n > data.steps.length ? full : n + " " + step.action, GUTTER - 10, BOLD);
    if (text !== null) boxes.put(textBox(4, at - 3, textWidth(text, BOLD), "start"));
    shapes.push({k: "step", y0: at - 15, y1: at, right, text, title: full + (step && step.narration ? "\n" + step.narration : "")});
  }
  for (const item of items) {
    if (item.k === "m" || item.k === "step") continue;
    const cx = x(item.l), cy = yOf.get(item.s), label = markLabel(item);
    const shape = {k: "mark", item, x: cx, y0: cy - 8, y1: cy + 8, text: null};
    if (label !== null) {
      // Beside the mark, right or left, where the diagram has room.
      for (const [tx, anchor, space] of [[cx + 8, "start", right - cx - 10], [cx - 8, "end", cx - GUTTER - 10]]) {
        const text = fitted(label, space, BOLD);
        if (text === null) continue;
        const box = textBox(tx, cy + 4, textWidth(text, BOLD), anchor);
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
    const x1 = x(item.a), x2 = x(item.b), ys = yOf.get(item.s), ye = yOf.get(item.e);
    // Drawn from (x1, ys) to (x2, ye); y0 to y1 is what it covers.
    const shape = {k: "m", item, x1, x2, ys, ye, y0: Math.min(ys, ye) - 14, y1: Math.max(ys, ye), text: null};
    if (x1 !== x2 && item.lbl) {
      const text = fitted(item.lbl, laneW - 16);
      if (text !== null) {
        // In the middle of the gap beside the sender, just above the arrow there.
        const tx = x1 + Math.sign(x2 - x1) * laneW / 2;
        const ty = ys + (ye - ys) * (laneW / 2) / Math.abs(x2 - x1) - 3;
        const box = textBox(tx, ty, textWidth(text), "middle");
        if (boxes.free(box)) { boxes.put(box); Object.assign(shape, {text, tx, ty}); ++labelled; }
      }
    }
    shapes.push(shape);
  }
  shapes.sort((p, q) => p.y0 - q.y0);
  const reach = shapes.reduce((most, shape) => Math.max(most, shape.y1 - shape.y0), 0);
  return {lanes, laneW, x, right, height, shapes, reach, points, yOf, labelled,
          messages: items.filter((i) => i.k === "m").length};
}

function drawShape(shape) {
  if (shape.k === "lane" || shape.k === "lane-down") {
    return sv("line", {x1: shape.x, x2: shape.x, y1: shape.y0, y2: shape.y1, stroke: shape.k === "lane" ? "#b8c0cc" : "#c9ced8",
                       "stroke-width": shape.k === "lane" ? 1.5 : 1, "stroke-dasharray": shape.k === "lane" ? null : "2 3"});
  }
  if (shape.k === "step") {
    const g = sv("g", {});
    g.append(sv("line", {x1: 2, x2: shape.right, y1: shape.y1, y2: shape.y1, stroke: "#2f5fb3", "stroke-dasharray": "4 3"}));
    if (shape.text) {
      const text = sv("text", {x: 4, y: shape.y1 - 3, fill: "#2f5fb3", "font-weight": BOLD, class: "step-label"}, shape.text);
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
      const text = sv("text", {x: shape.tx, y: shape.ty, "text-anchor": "middle", fill: colour, class: "arrow-label"}, shape.text);
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
    const text = sv("text", {x: shape.tx, y: cy + 4, "text-anchor": shape.anchor, fill: colour, "font-weight": BOLD, class: "mark-label"}, shape.text);
    text.append(sv("title", {}, tip));
    g.append(text);
  }
  return g;
}

// Draws what is near the scrolled-to place (everything when `all`): the
// shapes are sorted by top, and none is taller than `reach`.
function paintDiagram(all) {
  const layout = diagramView.layout, box = $("diagram-box");
  const top = all ? -Infinity : box.scrollTop - box.clientHeight;
  const bottom = all ? Infinity : box.scrollTop + 2 * box.clientHeight;
  const shapes = layout.shapes;
  let lo = 0, hi = shapes.length;  // The first shape that can reach `top`.
  while (lo < hi) { const mid = (lo + hi) >> 1; if (shapes[mid].y0 < top - layout.reach) lo = mid + 1; else hi = mid; }
  const group = sv("g", {});
  for (let i = lo; i < shapes.length && shapes[i].y0 <= bottom; ++i) {
    if (shapes[i].y1 >= top) group.append(drawShape(shapes[i]));
  }
  layout.content.replaceChildren(group);
  diagramView.painted = [top, bottom];
}

function diagramHead(layout, width) {
  const head = sv("svg", {width, height: HEAD_H, role: "presentation"});
  const boxes = new Boxes();
  for (const lane of layout.lanes) {
    const cx = layout.x(lane.id);
    // Whole on the first row, or else on the second; cut only when neither has room.
    const cut = (row, room) => [row, fitted(lane.name, room, BOLD)];
    const tries = [[14, lane.name], [29, lane.name], cut(14, layout.laneW - 6), cut(29, 2 * layout.laneW - 8)];
    for (const [row, text] of tries) {
      if (text === null) continue;
      const box = textBox(cx, row, textWidth(text, BOLD), "middle");
      if (box[0] < 0 || box[2] > width || !boxes.free(box)) continue;
      boxes.put(box);
      const label = sv("text", {x: cx, y: row, "text-anchor": "middle", "font-weight": BOLD, class: "lane-label"}, text);
      label.append(sv("title", {}, lane.name + " (" + lane.role + ")"));
      head.append(label);
      break;
    }
  }
  return head;
}

// The time brush: the whole run as a strip (how busy it is with what the
// boxes show, steps, faults and crashes); dragging over it shows only that
// span in the diagram, a click the whole run again.
function diagramBrush(width, opts) {
  const all = data.items.filter((item) => item.k !== "step" && kindShown(item, opts));
  const end = data.items.reduce((most, item) => Math.max(most, item.k === "m" ? item.t1 : item.t), 1);
  const strip = sv("svg", {width, height: BRUSH_H, class: "brush", role: "group", tabindex: 0,
                           "aria-label": "the run's time: drag to show a span; keys + - and arrows, Escape for the whole run"});
  const span = width - GUTTER - 12;
  const tx = (t) => GUTTER + (t / end) * span;
  const bins = new Array(120).fill(0);
  for (const item of all) bins[Math.min(119, Math.floor((timeOf(item) / end) * 120))]++;
  const most = Math.max(1, ...bins);
  bins.forEach((count, i) => {
    if (count === 0) return;
    const h = 4 + (count / most) * (BRUSH_H - 14);
    strip.append(sv("rect", {x: tx((i / 120) * end), y: BRUSH_H - 4 - h, width: Math.max(1, span / 120 - 1), height: h, fill: "#c9d3e6"}));
  });
  for (const item of data.items) {
    if (item.k === "step") strip.append(sv("line", {x1: tx(item.t), x2: tx(item.t), y1: 2, y2: BRUSH_H - 2, stroke: "#2f5fb3", "stroke-width": 0.6}));
    if (item.k === "fault" || item.k === "crash") strip.append(sv("circle", {cx: tx(item.t), cy: 6, r: 3, fill: COLOURS[item.k]}));
  }
  const from = diagramView.from === null ? 0 : diagramView.from, to = diagramView.to === null ? end : diagramView.to;
  const chosen = sv("rect", {x: tx(from), y: 0, width: Math.max(2, tx(to) - tx(from)), height: BRUSH_H, fill: "rgba(47,95,179,0.12)", stroke: "#2f5fb3"});
  strip.append(chosen);
  const timeAt = (clientX) => Math.min(end, Math.max(0, ((clientX - strip.getBoundingClientRect().left - GUTTER) / span) * end));
  let dragFrom = null;
  const follow = (event) => {
    const t = timeAt(event.clientX);
    chosen.setAttribute("x", tx(Math.min(dragFrom, t)));
    chosen.setAttribute("width", Math.max(2, Math.abs(tx(t) - tx(dragFrom))));
  };
  // Released anywhere, even off the strip: the span ends there.
  const release = (event) => {
    window.removeEventListener("mousemove", follow);
    window.removeEventListener("mouseup", release);
    const t = timeAt(event.clientX);
    const click = Math.abs(tx(t) - tx(dragFrom)) < 4;  // Not a drag: the whole run.
    diagramView.from = click ? null : Math.min(dragFrom, t);
    diagramView.to = click ? null : Math.max(dragFrom, t);
    diagram();
  };
  // From the keyboard too: + and - narrow and widen the span about its
  // middle, the arrows move it by half its width, Escape shows the whole run.
  strip.addEventListener("keydown", (event) => {
    const from = diagramView.from ?? 0, to = diagramView.to ?? end, width = to - from, middle = (from + to) / 2;
    let span = null;
    if (event.key === "+" || event.key === "=") span = [middle - width / 4, middle + width / 4];
    else if (event.key === "-") span = [middle - width, middle + width];
    else if (event.key === "ArrowRight") span = [from + width / 2, to + width / 2];
    else if (event.key === "ArrowLeft") span = [from - width / 2, to - width / 2];
    else if (event.key !== "Escape") return;
    event.preventDefault();
    if (span !== null) {
      const shift = Math.max(0, -span[0]) - Math.max(0, span[1] - end);  // Kept within the run.
      span = [Math.max(0, span[0] + shift), Math.min(end, span[1] + shift)];
    }
    const whole = span === null || (span[0] <= 0 && span[1] >= end);
    diagramView.from = whole ? null : span[0];
    diagramView.to = whole ? null : span[1];
    diagram();
    $("diagram-brush").querySelector("svg").focus();
  });
  strip.addEventListener("mousedown", (event) => {
    dragFrom = timeAt(event.clientX);
    event.preventDefault();
    window.addEventListener("mousemove", follow);
    window.addEventListener("mouseup", release);
  });
  $("brush-note").textContent = diagramView.from === null
      ? "the whole run, 0s to " + duration(end) + "; drag over the strip to show a span (or focus it: + and - to narrow and widen, the arrows to move)"
      : "from " + duration(diagramView.from) + " to " + duration(diagramView.to) + " of " + duration(end) + "; click the strip (or Escape) for the whole run";
  return strip;
}

function diagram() {
  const opts = {store: $("show-store").checked, probes: $("show-probes").checked,
                logs: $("show-logs").checked, cql: $("show-cql").checked};
  const box = $("diagram-box");
  const width = Math.max(GUTTER + 2 * MIN_LANE + 12, box.clientWidth);
  const items = shownItems(opts);
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
  $("diagram-brush").replaceChildren(diagramBrush(width, opts));
  paintDiagram(false);
  const shownEvents = items.filter((item) => item.k !== "step").length;
  $("diagram-note").textContent = shownEvents === 0 ? "Nothing shown happened in this span: click the strip for the whole run." :
      shownEvents + " of " + data.items.length + " events shown in " +
      layout.lanes.length + " lanes; " + layout.labelled + " of " + layout.messages + " arrows labelled" +
      (layout.labelled < layout.messages ? " (zoom in for more)" : "") +
      (data.truncated ? "; the run had more than the page keeps" : "") + ". Hover an arrow or a mark to read it all.";
  $("zoom-level").textContent = "rows \u00d7" + diagramView.zoom;
}

// The event nearest the middle of the box, to keep in the middle across a new layout.
function middleEvent() {
  const layout = diagramView.layout, box = $("diagram-box"), middle = box.scrollTop + box.clientHeight / 2;
  let best = null;
  for (const [seq] of layout.points) {
    const y = layout.yOf.get(seq);
    if (best === null || Math.abs(y - middle) < Math.abs(layout.yOf.get(best) - middle)) best = seq;
    if (y > middle) break;
  }
  return best;
}

function diagramControls() {
  const redraw = () => {
    const kept = middleEvent(), box = $("diagram-box");
    diagram();
    const y = kept === null ? undefined : diagramView.layout.yOf.get(kept);
    if (y !== undefined) { box.scrollTop = y - box.clientHeight / 2; paintDiagram(false); }
  };
  for (const id of ["show-store", "show-probes", "show-logs", "show-cql"]) $(id).addEventListener("change", redraw);
  const zoom = (factor) => {
    diagramView.zoom = Math.min(16, Math.max(0.25, diagramView.zoom * factor));
    redraw();
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
  window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(redraw, 150); });
  window.faultlineDiagram = {paintAll: () => paintDiagram(true), layout: () => diagramView.layout};
}
)js";

}  // namespace faultline::scenarios
