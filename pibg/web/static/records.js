"use strict";
// The recorded matches, their downloads and the dice statistics of each (pibg.stats).
(async function () {
  const body = document.querySelector("#records tbody");
  const list = await (await fetch("/api/records")).json();
  document.getElementById("none").hidden = list.length > 0;
  const label = { mat: ".mat", sgf: ".sgf", journal: "journal" };
  for (const r of list) {
    const tr = document.createElement("tr");
    tr.dataset.match = r.name;
    tr.append(pibg.el("td", r.name));
    const who = pibg.el("td");
    if (r.error) who.append(pibg.el("span", r.error, "err"));
    else {
      const len = r.length ? `${r.length}-point match` : "money";
      who.textContent = `${r.players.white} ${r.score.white} - ${r.score.black} ${r.players.black} (${len}, ${r.games} games${r.over ? ", over" : ""})`;
    }
    tr.append(who);
    const files = pibg.el("td");
    for (const [kind, href] of Object.entries(r.files)) {
      const a = pibg.el("a", label[kind] || kind);
      a.href = href; a.setAttribute("download", ""); a.dataset.kind = kind;
      files.append(a, " ");
    }
    tr.append(files);
    const dice = pibg.el("td");
    if (r.stats) {
      const s = r.stats;
      dice.append(pibg.el("div", `${s.rolls} rolls, faces 1-6: ${s.faces.join(" ")}`));
      dice.append(pibg.el("div", `doubles ${(100 * s.doubles_rate).toFixed(1)}%, chi-square ${s.chi2} (p = ${s.p_value})`));
      const more = pibg.el("details");
      more.append(pibg.el("summary", "report"), pibg.el("pre", s.report));
      dice.append(more);
    }
    tr.append(dice);
    body.append(tr);
  }
})();
