// paysandbox dashboard: live regions (server-sent events) and the demo
// checkout. Plain JavaScript, no dependencies; every page also works without it
// except the checkout, which is a browser payment form by nature.
(function () {
  "use strict";
  var PREFIX = "/_sandbox/ui";

  // Live regions: #live[data-live=topic] is fetched again (X-Fragment: live)
  // whenever the server says its data changed. Open <details> stay open and a
  // region being typed into is not replaced under the user's fingers.
  function startLive() {
    var live = document.getElementById("live");
    if (!live || !live.dataset.live || !window.EventSource) return;
    var q = location.search ? "&" + location.search.slice(1) : "";
    var pending = false, busy = false, failures = 0;
    function typing() {
      var a = document.activeElement;
      return a && live.contains(a) && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName);
    }
    // What the user entered and has not sent yet (a refund amount typed, then
    // the focus moved on) survives the refresh: controls are matched by form
    // action and name, and only values that differ from the page's default move.
    function controlKey(c) {
      return c.name && c.form ? c.form.getAttribute("action") + "\n" + c.name : null;
    }
    function keepEdits() {
      var kept = {};
      live.querySelectorAll("input, textarea, select").forEach(function (c) {
        var k = controlKey(c);
        if (!k) return;
        if (c.tagName === "SELECT") {
          if (Array.prototype.some.call(c.options, function (o) { return o.selected !== o.defaultSelected; })) kept[k] = c.value;
        } else if (c.type === "checkbox" || c.type === "radio") {
          if (c.checked !== c.defaultChecked) kept[k + "\n" + c.value] = c.checked;
        } else if (c.type !== "hidden" && c.value !== c.defaultValue) {
          kept[k] = c.value;
        }
      });
      return function () {
        live.querySelectorAll("input, textarea, select").forEach(function (c) {
          var k = controlKey(c);
          if (!k) return;
          if (c.type === "checkbox" || c.type === "radio") {
            if (Object.prototype.hasOwnProperty.call(kept, k + "\n" + c.value)) c.checked = kept[k + "\n" + c.value];
          } else if (c.type !== "hidden" && Object.prototype.hasOwnProperty.call(kept, k)) {
            c.value = kept[k];
          }
        });
      };
    }
    function refresh() {
      if (busy) { pending = true; return; }
      if (typing()) { pending = true; return; }
      busy = true; pending = false;
      fetch(location.href, { headers: { "X-Fragment": "live" }, credentials: "same-origin" })
        .then(function (r) {
          if (r.redirected) { failures = 99; throw new Error("signed out"); }
          if (!r.ok) { throw new Error("status " + r.status); }
          return r.text();
        })
        .then(function (html) {
          var open = {};
          live.querySelectorAll("details[open] > summary").forEach(function (s) { open[s.textContent] = true; });
          var edited = keepEdits();
          live.innerHTML = html;
          live.querySelectorAll("details > summary").forEach(function (s) { if (open[s.textContent]) s.parentNode.open = true; });
          edited();
          document.body.dataset.liveUpdates = String(Number(document.body.dataset.liveUpdates || 0) + 1);
        })
        .then(function () { failures = 0; }, function () {
          // A failed fetch is tried again a few times (the change it was for
          // would otherwise show only with the next one); a signed-out
          // session is not.
          failures++;
          if (failures < 5) pending = true;
        })
        .then(function () { busy = false; if (pending) setTimeout(refresh, 250 * Math.pow(2, Math.min(failures, 4))); });
    }
    // The stream: fp is what the page showed when rendered, so the stream
    // says "change" at once when the view changed before it connected. A
    // stream the server refuses (429: the tenant holds too many open live
    // pages and waits; or the session ended) is not retried by EventSource:
    // the page says so, keeps what it shows, and tries again later.
    var retryMs = 30000;
    function note(text) {
      var slot = document.querySelector(".flash-slot"), p = document.getElementById("live-off");
      if (!text) { if (p) p.remove(); return; }
      if (!slot) return;
      if (!p) {
        p = document.createElement("p");
        p.id = "live-off"; p.className = "flash info"; p.setAttribute("role", "status");
        p.dataset.testid = "live-off";
        slot.appendChild(p);
      }
      p.textContent = text;
    }
    function connect() {
      var es = new EventSource(PREFIX + "/events?topic=" + encodeURIComponent(live.dataset.live) +
        "&fp=" + encodeURIComponent(live.dataset.fp || "") + q);
      es.addEventListener("change", refresh);
      es.addEventListener("ready", function () { document.body.dataset.live = "on"; note(""); });
      es.addEventListener("error", function () {
        if (es.readyState !== EventSource.CLOSED) return; // reconnecting by itself
        document.body.dataset.live = "off";
        note("Live updates are paused: the sandbox refused this page's update stream (this tenant has too many open " +
          "live pages and waits, or the session ended). Reload to see the latest; the page tries again in " + retryMs / 1000 + " s.");
        setTimeout(connect, retryMs);
      });
    }
    connect();
    live.addEventListener("focusout", function () { if (pending) setTimeout(refresh, 50); });
  }

  // The demo checkout: session from the server-side helper, then tokenise and
  // pay through /client with the client token only.
  function uuid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var b = new Uint8Array(16); crypto.getRandomValues(b);
    b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function apiError(body, status) {
    var e = body && body.error;
    if (!e) return "The sandbox answered " + status + ".";
    if (typeof e === "string") return e;
    var msg = (e.description || e.errorId || "Refused") + ".";
    (e.validationErrors || []).forEach(function (v) {
      (v.errors || []).forEach(function (x) { msg += " " + (x.path || "") + ": " + (x.description || ""); });
    });
    if (e.recoverySuggestion) msg += " " + e.recoverySuggestion;
    return msg.replace(/\.\./g, ".");
  }

  function post(url, headers, body) {
    return fetch(url, { method: "POST", headers: headers, body: body, credentials: "same-origin" }).then(function (r) {
      return r.text().then(function (t) {
        var j = null;
        try { j = t ? JSON.parse(t) : null; } catch (e) { j = null; }
        if (!r.ok) throw new Error(apiError(j, r.status));
        return j;
      });
    });
  }

  function startCheckout() {
    var form = document.getElementById("checkout");
    if (!form) return;
    var status = document.getElementById("co-status");
    var select = form.elements.card, number = form.elements.number;
    function sync() { number.required = select.value === ""; }
    select.addEventListener("change", function () { sync(); if (select.value === "") number.focus(); });
    sync();
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var button = form.querySelector("button[type=submit]");
      var link = form.dataset.link;
      var card = (select.value || number.value).replace(/[\s-]/g, "");
      if (!card) { status.textContent = "Choose a test card or type a card number."; number.focus(); return; }
      button.disabled = true;
      status.textContent = "Creating the payment session…";
      var token;
      var data = new URLSearchParams({ l: link, amount: form.elements.amount.value, currency: form.elements.currency.value, orderId: form.elements.orderId.value });
      // The link also rides in the query, where a proxy routing several
      // instances by their prefixes sees it.
      post(form.dataset.session + "?l=" + encodeURIComponent(link), { "Content-Type": "application/x-www-form-urlencoded" }, data.toString())
        .then(function (s) {
          token = s.clientToken;
          status.textContent = "Tokenising the card…";
          return post("/client/payment-instruments", { "Content-Type": "application/json", "X-Client-Token": token }, JSON.stringify({
            paymentInstrument: {
              number: card, cvv: form.elements.cvv.value, expirationMonth: form.elements.expirationMonth.value,
              expirationYear: form.elements.expirationYear.value, cardholderName: form.elements.cardholderName.value
            }
          }));
        })
        .then(function (pi) {
          status.textContent = "Paying…";
          return post("/client/payments", { "Content-Type": "application/json", "X-Client-Token": token, "X-Idempotency-Key": uuid() },
            JSON.stringify({ paymentMethodToken: pi.token }));
        })
        .then(function (p) {
          var ra = p.requiredAction;
          if (ra && ra.challengeUrl) {
            status.textContent = "Your bank asks you to confirm…";
            location.assign(ra.challengeUrl + "&l=" + encodeURIComponent(link));
            return;
          }
          location.assign(form.dataset.done + "?l=" + encodeURIComponent(link) + "&payment=" + encodeURIComponent(p.id));
        })
        .catch(function (e) {
          status.textContent = "Not paid: " + e.message;
          status.classList.add("error");
          button.disabled = false;
        });
    });
  }

  document.addEventListener("DOMContentLoaded", function () { startLive(); startCheckout(); });
})();
