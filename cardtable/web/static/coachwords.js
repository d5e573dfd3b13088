// The coach in words on the game-over panel of a Goofspiel game: once the game's analysis link
// shows (an analysable game is over), a button fetches the analysis (GET /api/rooms/R/analysis?game=N)
// and lists each round's sentences as the server wrote them (cardtable.strategy.coach.round_words,
// the text `cardtable analyze` prints); nothing is worded here. Nothing is fetched until asked:
// an analysis is a solve, counted against the address's quota.
"use strict";

(() => {
  const { el } = CT;
  const $ = (id) => document.getElementById(id);
  const link = $("analysislink"), box = $("coachwords"), btn = $("wordsbtn"), list = $("wordslist"), note = $("wordsstatus");
  if (!link || !box) return;
  let shown = null;  // the analysis link the panel is for

  function sync() {
    const visible = !link.classList.contains("hidden") && link.getAttribute("href") !== "#";
    box.classList.toggle("hidden", !visible);
    if (visible && link.getAttribute("href") !== shown) {  // another game: start over
      shown = link.getAttribute("href");
      list.replaceChildren();
      note.textContent = "";
      btn.disabled = false;
      btn.classList.remove("hidden");
    }
  }

  async function load() {
    const game = new URL(link.href).searchParams.get("game");
    const asked = shown;
    btn.disabled = true;
    note.textContent = "Solving the game…";
    let r, data;
    try {
      r = await fetch(`/api/rooms/${encodeURIComponent(CT.room)}/analysis?game=${encodeURIComponent(game)}`);
      data = await r.json();
    } catch (e) {
      data = { error: "could not reach the server; try again" };
    }
    if (asked !== shown) return;  // the panel moved on to another game meanwhile
    if (!r || !r.ok) {
      note.textContent = data.error || `no analysis (HTTP ${r.status})`;
      btn.disabled = false;
      return;
    }
    note.textContent = `${data.players[0]} bids ♠, ${data.players[1]} bids ♣, the prizes are ♦.`;
    btn.classList.add("hidden");
    list.replaceChildren(...data.rounds.map((rd) => el("li", { "data-round": rd.number, value: rd.number },
      ...rd.words.map((w, s) => el("div", { "data-seat": s }, el("strong", { text: `${data.players[s]}: ` }), w)))));
  }

  btn.addEventListener("click", load);
  new MutationObserver(sync).observe(link, { attributes: true, attributeFilter: ["class", "href"] });
  sync();
})();
