// Added to a copy of a report page by report_browser_test.sh: draws the whole
// message diagram and measures it as Chromium laid it out. No two texts
// overlap (lane names, step labels, mark and arrow labels, the brush's),
// every lane's name is on screen with no horizontal scrolling, and there is
// one lane per host. The verdict goes into <body data-geometry> and a <pre>;
// then the page shows only the diagram, for the screenshot.
"use strict";
(() => {
  const problems = [];
  const lines = [];
  // One look at the diagram as drawn now: every text box against every other.
  function check(view) {
    // Scrolled to the top: a text scrolled out of the box is clipped, not
    // drawn over the lanes' names, but its box would be measured there.
    document.getElementById("diagram-box").scrollTop = 0;
    const started = performance.now();
    window.faultlineDiagram.paintAll();
    const painted = performance.now() - started;
    const texts = [...document.querySelectorAll("#diagram svg text")].map((node) => {
      const r = node.getBoundingClientRect();
      return {node, left: r.left, right: r.right, top: r.top, bottom: r.bottom};
    }).filter((t) => t.right > t.left);
    texts.sort((p, q) => p.left - q.left);
    const slack = 0.5;  // Sub-pixel rounding of glyph boxes.
    for (let i = 0; i < texts.length; ++i) {  // Sweep over x: only boxes that share some x are compared.
      for (let j = i + 1; j < texts.length && texts[j].left < texts[i].right - slack; ++j) {
        const p = texts[i], q = texts[j];
        if (p.top < q.bottom - slack && q.top < p.bottom - slack) {
          problems.push(view + ": overlap: \"" + p.node.textContent + "\" and \"" + q.node.textContent + "\"");
        }
      }
    }
    const lanes = [...document.querySelectorAll("#diagram-head text.lane-label")];
    const layout = window.faultlineDiagram.layout();
    if (lanes.length !== layout.lanes.length) problems.push(view + ": " + lanes.length + " lane names for " + layout.lanes.length + " lanes");
    for (const lane of lanes) {
      const r = lane.getBoundingClientRect();
      if (r.left < 0 || r.right > window.innerWidth) problems.push(view + ": lane " + lane.textContent + " off screen at " + r.left + ".." + r.right);
    }
    const names = layout.lanes.map((lane) => lane.name);
    if (new Set(names).size !== names.length) problems.push(view + ": a host has two lanes: " + names.join(","));
    const box = document.getElementById("diagram-box");
    if (box.scrollWidth > box.clientWidth) problems.push(view + ": the diagram scrolls sideways: " + box.scrollWidth + " > " + box.clientWidth);
    if (document.documentElement.scrollWidth > window.innerWidth) problems.push(view + ": the page scrolls sideways");
    const count = (selector) => document.querySelectorAll("#diagram " + selector).length;
    if (count("text.arrow-label") === 0 && layout.messages > 0) problems.push(view + ": no arrow has a label");
    lines.push(view + ": lanes " + names.join(" ") + "; " + texts.length + " texts; arrow labels " + count("text.arrow-label") +
               " of " + layout.messages + " messages, mark labels " + count("text.mark-label") + ", step labels " +
               count("text.step-label") + "; drawn in " + Math.round(painted) + " ms");
  }
  const click = (id) => document.getElementById(id).click();
  check("as opened");
  click("show-store");
  click("show-probes");
  // Laid out anew and the first screen drawn, as a reader waits for it.
  const asked = performance.now();
  click("show-cql");
  lines.push("laid out with all traffic and the first screen drawn in " + Math.round(performance.now() - asked) + " ms");
  check("all traffic");
  click("zoom-in"); click("zoom-in");
  check("all traffic, rows x4");
  click("zoom-out"); click("zoom-out");
  for (const id of ["show-store", "show-probes", "show-cql"]) click(id);
  // The time brush: a drag over the seconds around the first crash or fault
  // shows that span alone (its step, its marks), and a click gives the whole
  // run back. (`data` is the page's own.)
  const shownEvents = () => {
    const note = document.getElementById("diagram-note").textContent;
    return note.startsWith("Nothing shown") ? 0 : Number(note.split(" ")[0]);
  };
  const whole = shownEvents();
  const end = data.items.reduce((most, item) => Math.max(most, item.k === "m" ? item.t1 : item.t), 1);
  const marked = data.items.find((item) => item.k === "crash" || item.k === "fault");
  const mouse = (type, t) => {
    const strip = document.querySelector("#diagram-brush svg");
    const r = strip.getBoundingClientRect();
    const at = r.left + 172 + (Math.min(end, Math.max(0, t)) / end) * (r.width - 172 - 12);
    (type === "mousedown" ? strip : window).dispatchEvent(new MouseEvent(type, {clientX: at, clientY: r.top + 10, bubbles: true}));
  };
  const around = marked ? marked.t : end / 2;
  mouse("mousedown", around - end / 20); mouse("mousemove", around); mouse("mouseup", around + end / 20);
  const note = document.getElementById("brush-note").textContent;
  if (!note.startsWith("from ") || !(shownEvents() > 0 && shownEvents() < whole)) {
    problems.push("the time brush did not narrow the diagram: " + note + "; " + shownEvents() + " of " + whole + " events");
  }
  check("a span of the run");
  lines.push("time brush: " + note + "; " + shownEvents() + " of " + whole + " events shown");
  mouse("mousedown", around); mouse("mouseup", around);
  // And from the keyboard: + narrows, an arrow moves the span, Escape is the whole run.
  const key = (name) => document.querySelector("#diagram-brush svg")
      .dispatchEvent(new KeyboardEvent("keydown", {key: name, bubbles: true}));
  key("+");
  const narrowed = document.getElementById("brush-note").textContent;
  key("ArrowRight");
  const moved = document.getElementById("brush-note").textContent;
  if (!narrowed.startsWith("from ") || moved === narrowed || !moved.startsWith("from ")) {
    problems.push("the brush's keys did not narrow and move the span: " + narrowed + " / " + moved);
  }
  key("Escape");
  if (!document.getElementById("brush-note").textContent.startsWith("the whole run")) {
    problems.push("Escape on the brush did not give the whole run back");
  }
  if (!document.getElementById("brush-note").textContent.startsWith("the whole run") || shownEvents() !== whole) {
    problems.push("a click on the strip did not give the whole run back");
  }
  document.activeElement.blur();  // No focus ring in the screenshot.
  window.faultlineDiagram.paintAll();
  document.body.dataset.geometry = problems.length === 0 ? "ok" : "fail";
  const report = document.createElement("pre");
  report.id = "geometry";
  report.textContent = ["window " + window.innerWidth + " px", ...lines, ...problems.slice(0, 20)].join("\n");
  document.body.append(report);
  for (const hidden of document.querySelectorAll("header, nav, section:not(#diagram)")) hidden.style.display = "none";
})();
