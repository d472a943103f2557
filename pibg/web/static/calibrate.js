"use strict";
// Drag the four surface corners on the frame; check reads the board; save learns and writes.
(function () {
  const $ = (id) => document.getElementById(id);
  const NS = "http://www.w3.org/2000/svg";
  const NAMES = ["TL", "TR", "BR", "BL"];
  let corners = null;
  let detected = null;
  const svg = $("caloverlay");

  function msg(text, ok) { const m = $("calmsg"); m.textContent = text; m.className = ok ? "ok" : "err"; }

  function draw() {
    svg.replaceChildren();
    if (!corners) return;
    if (detected) {
      const d = document.createElementNS(NS, "polygon");
      d.setAttribute("class", "detected");
      d.setAttribute("points", detected.map((p) => p.join(",")).join(" "));
      svg.append(d);
    }
    const poly = document.createElementNS(NS, "polygon");
    poly.setAttribute("class", "edge");
    poly.setAttribute("points", corners.map((p) => p.join(",")).join(" "));
    svg.append(poly);
    corners.forEach((p, i) => {
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("class", "handle");
      c.setAttribute("cx", p[0]); c.setAttribute("cy", p[1]); c.setAttribute("r", 14);
      c.dataset.corner = NAMES[i];
      c.addEventListener("pointerdown", (e) => startDrag(e, i));
      const t = document.createElementNS(NS, "text");
      t.setAttribute("x", p[0] + 16); t.setAttribute("y", p[1] - 16);
      t.textContent = NAMES[i];
      svg.append(c, t);
    });
  }

  function toImage(e) {
    const pt = svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    return [Math.round(p.x * 10) / 10, Math.round(p.y * 10) / 10];
  }

  function startDrag(e, i) {
    e.preventDefault();
    svg.setPointerCapture(e.pointerId);
    const move = (ev) => { corners[i] = toImage(ev); draw(); };
    const up = () => { svg.removeEventListener("pointermove", move); svg.removeEventListener("pointerup", up); };
    svg.addEventListener("pointermove", move);
    svg.addEventListener("pointerup", up);
  }

  async function load() {
    const res = await fetch("/api/calibration");
    const info = await res.json();
    if (!res.ok) { msg(info.error); return; }
    if (!info.image_size) { msg("no camera frame yet"); return; }
    const [w, h] = info.image_size;
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    $("calimg").src = "/api/calibration/frame.jpg?t=" + Date.now();
    detected = info.corners;
    corners = info.corners ? info.corners.map((p) => p.slice()) :
      [[w * 0.2, h * 0.2], [w * 0.8, h * 0.2], [w * 0.8, h * 0.8], [w * 0.2, h * 0.8]];
    $("source").textContent = { saved: "corners from the saved calibration",
      detected: "corners detected by pibg", default: "default corners",
      none: "no corners found: place them by hand" }[info.source] || info.source;
    draw();
  }

  async function check() {
    const q = encodeURIComponent(corners.map((p) => p.join(",")).join(";"));
    const res = await fetch("/api/calibration/check?corners=" + q,
                            { headers: { "X-Pibg-Token": pibg.token() } });
    const data = await res.json();
    if (!res.ok) { msg(data.error); return; }
    $("read").innerHTML = data.svg;
    const lines = [`readable: ${data.readable}${data.reason ? " (" + data.reason + ")" : ""}`,
      `points (from White's 1-point, + White, - Black): ${data.points.join(" ")}`,
      `bar: White ${data.bar.white}, Black ${data.bar.black}; off: White ${data.off.white}, Black ${data.off.black}`,
      `dice: ${data.dice.map((d) => d.value).join(", ") || "none"}; cube: ${data.cube ? data.cube.value + " " + data.cube.owner : "none"}`];
    $("readtext").textContent = lines.join("\n");
    msg("read done", true);
  }

  async function save() {
    try { const r = await pibg.post("/api/calibration", { corners }); msg(r.message, true); }
    catch (err) { msg(err.message); }
  }

  pibg.tokenInput($("token"));
  $("reload").addEventListener("click", load);
  $("check").addEventListener("click", () => check().catch((e) => msg(e.message)));
  $("save").addEventListener("click", save);
  load().catch((e) => msg(e.message));
})();
