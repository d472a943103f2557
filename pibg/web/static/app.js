"use strict";
// The live page: the referee's snapshots arrive as server-sent events ("state"), new camera
// frames as "frame" events; the board SVG is drawn by the server.
(function () {
  const $ = (id) => document.getElementById(id);
  const name = (snap, c) => (c ? snap.players[c] : "-");

  function render(snap) {
    document.body.dataset.version = snap.version;
    if (!snap.board) return;
    $("board").innerHTML = snap.svg;
    const s = snap.score;
    const len = s.money ? "money" : `${s.length}-point match`;
    $("score").textContent = `${snap.players.white} ${s.white} - ${s.black} ${snap.players.black} (${len})`;
    const cr = $("crawford");
    cr.classList.toggle("hidden", !(snap.crawford.game || snap.crawford.post || snap.crawford.next));
    cr.textContent = snap.crawford.game ? "Crawford game" : snap.crawford.post ? "post-Crawford" : "next: Crawford";
    $("mode").textContent = snap.match_over ? "match over" : snap.mode.replace("_", " ");
    $("mode").classList.toggle("illegal", snap.mode === "illegal");
    $("display").textContent = (snap.alerts || []).concat(snap.display.length ? snap.display : snap.message).join("\n");
    $("turn").textContent = snap.turn ? name(snap, snap.turn) + ` (${snap.turn})` : "-";
    $("dice").textContent = snap.dice ? snap.dice.join("-") : "-";
    const c = snap.cube;
    $("cube").textContent = c.value + (c.owner ? ` (${name(snap, c.owner)})` : " (centre)") + (c.offered ? " offered" : "");
    $("pipw").textContent = snap.pips.white;
    $("pipb").textContent = snap.pips.black;
    const flag = $("flag");
    flag.replaceChildren();
    flag.className = snap.flag ? snap.flag.kind : "hidden";
    if (snap.flag) {
      const head = { illegal: "ILLEGAL", ask: "Which play?", resync: "Board differs" }[snap.flag.kind] || snap.flag.kind;
      flag.append(pibg.el("b", head));
      for (const r of snap.flag.reasons) flag.append(pibg.el("div", r));
      for (const c2 of snap.flag.candidates) flag.append(pibg.el("div", "candidate: " + c2));
      if (snap.flag.points.length) flag.append(pibg.el("div", "points: " + snap.flag.points.join(", ")));
    }
    const moves = $("moves");
    moves.replaceChildren();
    let game = 0;
    for (const m of snap.moves) {
      if (m.game !== game) { game = m.game; moves.append(pibg.el("div", `game ${game}`, "game")); }
      const dice = m.dice ? `${m.dice[0]}-${m.dice[1]}: ` : "";  // as the referee log writes a roll
      const line = pibg.el("div", `${name(snap, m.player)} ${dice}${m.text}`, m.kind);
      if (m.illegal || m.kind === "illegal") line.classList.add("illegal");
      if (m.flag) {  // a turn settled by the board, not seen plainly: marked for review
        line.classList.add("flagged");
        line.title = m.flag;
        line.append(pibg.el("span", " ⚑ " + m.flag, "why"));
      }
      moves.append(line);
    }
    moves.scrollTop = moves.scrollHeight;
    const say = $("say");
    say.replaceChildren(...snap.say.map((l) => pibg.el("div", l.text)));  // oldest first, as Moves
    say.scrollTop = say.scrollHeight;
    const cam = snap.camera;
    $("camstate").textContent = cam.readable === false ? "unreadable: " + (cam.reason || "") : "";
    if (cam.frame !== null) showFrame(cam.frame);
  }

  let frameShown = null;
  function showFrame(v) {
    if (v === frameShown) return;
    frameShown = v;
    const img = $("frame");
    img.onerror = () => { img.hidden = true; $("noframe").hidden = false; };  // never broken
    img.src = "/frame.jpg?v=" + v;
    img.hidden = false;
    $("noframe").hidden = true;
  }

  function connect() {
    const es = new EventSource("/api/events");
    es.addEventListener("open", () => { $("conn").textContent = "live"; });
    es.addEventListener("error", () => { $("conn").textContent = "reconnecting"; });
    es.addEventListener("state", (e) => render(JSON.parse(e.data)));
    es.addEventListener("frame", (e) => showFrame(JSON.parse(e.data).frame));
  }

  async function controls() {
    const info = await (await fetch("/api/info")).json();
    if (!info.controls) return;
    $("controls").classList.remove("hidden");
    pibg.tokenInput($("token"));
    for (const b of document.querySelectorAll("button[data-action]")) {
      b.addEventListener("click", async () => {
        const msg = $("ctlmsg");
        try {
          await pibg.post("/api/control/" + b.dataset.action);
          msg.textContent = b.dataset.action + ": sent"; msg.className = "ok";
        } catch (err) { msg.textContent = err.message; msg.className = "err"; }
      });
    }
  }

  connect();
  controls().catch(() => {});
})();
