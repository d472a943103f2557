"use strict";
// The live page: the referee's snapshots arrive as server-sent events ("state"), new camera
// frames as "frame" events; the board SVG is drawn by the server.
(function () {
  const $ = (id) => document.getElementById(id);
  const name = (snap, c) => (c ? snap.players[c] : "-");
  let canAmend = false;  // the token may set the dice of a turn in doubt (/api/info's amend)
  let last = null;  // the snapshot shown, drawn again once /api/info says what may be done

  function render(snap) {
    last = snap;
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
      const num = m.move ? `${m.move}. ` : "";  // what pibg amend and /api/amend call the play
      const line = pibg.el("div", `${num}${name(snap, m.player)} ${dice}${m.text}`, m.kind);
      if (m.illegal || m.kind === "illegal") line.classList.add("illegal");
      if (m.flag) {  // a turn settled by the board, not seen plainly: marked for review
        line.classList.add("flagged");
        line.title = m.flag;
        line.append(pibg.el("span", " ⚑ " + m.flag, "why"));
      }
      if (m.reviewed) {  // dice a reviewer set after the game
        line.classList.add("reviewed");
        line.title = m.reviewed;
        line.append(pibg.el("span", " ✓ set after the game", "why"));
      }
      if (canAmend && m.throws && m.throws.length) line.append(throwButtons(m));
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

  // The throws that make the same board as a turn in doubt of a game that has ended: pressing
  // one sets the turn's dice to it (recorded as an amendment; the move list then shows it).
  function throwButtons(m) {
    const box = pibg.el("span", null, "throws");
    box.append(pibg.el("span", " dice were: "));
    const recorded = m.dice ? [Math.max(...m.dice), Math.min(...m.dice)].join("-") : "";
    for (const t of m.throws) {
      const b = pibg.el("button", `${t[0]}-${t[1]}`, "throw");
      if (b.textContent === recorded) b.classList.add("current");
      b.title = `game ${m.game}, move ${m.move}: set the dice to ${t[0]}-${t[1]}`;
      b.dataset.game = m.game;
      b.dataset.move = m.move;
      b.dataset.dice = `${t[0]}${t[1]}`;
      b.addEventListener("click", async () => {
        const msg = $("ctlmsg");
        try {
          const r = await pibg.post("/api/amend", { game: m.game, move: m.move, dice: t });
          msg.textContent = r.text; msg.className = "ok";
        } catch (err) { msg.textContent = err.message; msg.className = "err"; }
      });
      box.append(b);
    }
    return box;
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
    if (!info.controls && !info.amend) return;
    canAmend = Boolean(info.amend);
    if (canAmend && last) render(last);
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
