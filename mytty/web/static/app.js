// mytty web: live updates over server-sent events, answers sent with fetch. No polling: the
// server pushes the view's HTML whenever the board changes; the timer below only counts ages.
"use strict";
(() => {
  const main = document.getElementById("live");
  if (!main || !main.dataset.view) return;
  const meta = document.querySelector('meta[name="csrf-token"]');
  const csrf = meta ? meta.content : "";
  const status = document.getElementById("connection");
  const answered = new Map(); // card id -> when it was answered here (hidden for a while)
  const ANSWERED_MS = 15000;
  let offset = 0; // the server's clock minus this one, in seconds

  function say(text, kind) {
    status.hidden = !text;
    status.textContent = text || "";
    status.className = "connection" + (kind ? " " + kind : "");
    document.body.dataset.connection = kind || "live";
  }

  function age(s) {
    s = Math.max(0, Math.floor(s));
    if (s < 60) return s + "s";
    if (s < 3600) return Math.floor(s / 60) + "m";
    if (s < 86400) {
      return Math.floor(s / 3600) + "h" + String(Math.floor((s % 3600) / 60)).padStart(2, "0") + "m";
    }
    return Math.floor(s / 86400) + "d";
  }

  function tick() {
    const now = Date.now() / 1000 + offset;
    for (const t of main.querySelectorAll("time[data-since]")) {
      t.textContent = (t.dataset.prefix || "") + age(now - Number(t.dataset.since));
    }
    for (const t of main.querySelectorAll("time[data-until]")) {
      t.textContent = Math.max(0, Math.round(Number(t.dataset.until) - now)) + " s";
    }
  }

  function syncClock() {
    const holder = main.querySelector("[data-now]");
    if (holder) offset = Number(holder.dataset.now) - Date.now() / 1000;
  }

  const FIELDS = "textarea[name], input[type=text][name]";

  // A card that changed (its hold ran out, say) is drawn anew, but what the person typed into
  // it and the refusal it showed move over: a live update never takes a half-written message.
  function carry(old, node) {
    const typed = old.querySelectorAll(FIELDS);
    node.querySelectorAll(FIELDS).forEach((field, i) => {
      if (typed[i] && typed[i].name === field.name) field.value = typed[i].value;
    });
    const said = old.querySelector(".error");
    const error = node.querySelector(".error");
    if (said && error && !said.hidden) { error.textContent = said.textContent; error.hidden = false; }
  }

  // Merge a new fragment: a card whose data-v did not change keeps its DOM node (and what
  // was typed into it); a card answered here stays hidden until the server drops it too.
  function merge(html) {
    const focused = main.contains(document.activeElement) ? document.activeElement : null;
    const selection = focused && "selectionStart" in focused
      ? [focused.selectionStart, focused.selectionEnd] : null;
    const holder = focused && focused.closest("[data-v][id]");
    const where = holder ? [holder.id, Array.from(holder.querySelectorAll(FIELDS)).indexOf(focused)] : null;
    const template = document.createElement("template");
    template.innerHTML = html;
    const fresh = template.content;
    const now = Date.now();
    for (const node of fresh.querySelectorAll("[data-v][id]")) {
      if (!fresh.contains(node)) continue; // inside a card already kept
      const when = answered.get(node.id);
      if (when !== undefined && now - when < ANSWERED_MS) { node.remove(); continue; }
      const old = document.getElementById(node.id);
      if (old && old.dataset.v === node.dataset.v) node.replaceWith(old);
      else if (old) carry(old, node);
    }
    main.replaceChildren(fresh);
    let again = focused && focused.isConnected ? focused : null;
    if (!again && where && where[1] >= 0) {
      const card = document.getElementById(where[0]);
      again = card ? card.querySelectorAll(FIELDS)[where[1]] || null : null;
    }
    if (again) {
      again.focus();
      if (selection && "setSelectionRange" in again) again.setSelectionRange(selection[0], selection[1]);
    }
    syncClock();
    tick();
  }

  document.addEventListener("submit", async (event) => {
    const form = event.target.closest("form[data-async]");
    if (!form) return;
    event.preventDefault();
    const card = form.closest(".card");
    const error = card && card.querySelector(".error");
    const buttons = card ? Array.from(card.querySelectorAll("button")) : [];
    buttons.forEach((b) => { b.disabled = true; });
    let body = {};
    try {
      const response = await fetch(form.action, {
        method: "POST",
        headers: { "X-CSRF-Token": csrf },
        body: new URLSearchParams(new FormData(form)),
        credentials: "same-origin",
      });
      try { body = await response.json(); } catch (_) { body = {}; }
      if (response.ok) {
        if (form.dataset.then === "reload") { window.location.reload(); return; }
        if (card) { answered.set(card.id, Date.now()); card.remove(); }
        return;
      }
      body.message = body.message || response.statusText;
    } catch (_) {
      body = { message: "Not sent: the server did not answer." };
    }
    if (error) { error.textContent = body.message; error.hidden = false; }
    buttons.forEach((b) => { b.disabled = false; });
  });

  function connect() {
    const source = new EventSource("/events?view=" + encodeURIComponent(main.dataset.view));
    source.addEventListener("open", () => say("", ""));
    source.addEventListener("board", (event) => { say("", ""); merge(event.data); });
    source.addEventListener("signed-out", (event) => {
      source.close();
      say("Signed out. " + event.data, "gone");
    });
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED) {
        say("Disconnected, retrying…", "retrying");
        return;
      }
      // The server answered but refused the stream: signed out, or not there yet.
      fetch(window.location.href, { method: "HEAD", credentials: "same-origin" }).then(
        (r) => {
          if (r.status === 401) say("Signed out. Pair again with `mytty web --pair`.", "gone");
          else { say("Disconnected, retrying…", "retrying"); setTimeout(connect, 2000); }
        },
        () => { say("Disconnected, retrying…", "retrying"); setTimeout(connect, 2000); },
      );
    });
  }

  syncClock();
  tick();
  setInterval(tick, 10000);
  connect();
})();
