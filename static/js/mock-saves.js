// A mock exam's answers, kept until the server has them (loaded on a question's page of a
// sitting, before site.js and arrange.js).
//
// Every change of the answer form (an option ticked, a step moved, the flag) and every move
// to another question saves this question's answer. The answer is first written to the
// browser's storage (per sitting and question), then sent; the status line says whether it
// reached the server ("saved at 10:03:07") or not ("not saved yet", with a Retry button).
// What is not sent yet is sent again when the connection returns (the online event), with
// retries further and further apart meanwhile, and when any page of the sitting opens (a
// reload, a new tab).
//
// Each save carries its number (the server's clock when the answer was chosen, as this page
// reckons it, never less than the last one): the server keeps a save only if its number is
// above the stored one, so a save sent twice is stored once and one held back by a dropped
// connection cannot overwrite a later answer. The deadline is the server's: a save that
// reaches it late is refused, and the page says which answers were not saved.
//
// Moving between questions offline: the sitting's offline worker (mock-offline-worker.js)
// keeps the question pages; a page shown from it is older than the answers kept here, which
// are put back in the form and the navigator.
//
// Without JavaScript none of this runs: the form's buttons save by a plain post.
(function () {
  "use strict";
  // A question's answer form, or the submission's form (which sends what waits first).
  var form = document.getElementById("mock-answer") || document.getElementById("mock-submit");
  if (!form || !window.fetch || !window.URLSearchParams) return;
  var answering = form.id === "mock-answer";
  var data = form.dataset;
  var sitting = data.sitting;
  var number = Number(data.number);
  var count = Number(data.count);
  var servedAt = Number(data.servedAt);
  var deadline = Number(data.deadline);
  var status = document.getElementById("save-status");
  var retry = document.getElementById("save-retry");
  var KEY = "courseiva:mock-saves:" + sitting;
  var memory = null; // where the state lives when the browser's storage cannot be used

  // The state of this sitting in this browser: the last answer given to each question,
  // sent or not, the clock's offset from the server's and the last save number.
  function load() {
    try {
      var text = window.localStorage.getItem(KEY);
      if (text) return JSON.parse(text);
    } catch (e) { /* storage off: kept in memory for this page */ }
    return memory || {entries: {}, offset: null, last: 0};
  }
  function store(state) {
    memory = state;
    try { window.localStorage.setItem(KEY, JSON.stringify(state)); } catch (e) { /* memory */ }
  }

  // The server's clock. A page the offline worker kept (it marks them) was served a while
  // ago: its time is not now, so the offset measured on the last page that came from the
  // server is kept.
  var state = load();
  var fresh = !answering || !form.hasAttribute("data-kept-copy");
  if (answering) {
    if (fresh || state.offset === null) state.offset = fresh ? servedAt - Date.now() : 0;
    state.deadline = deadline;
    store(state);
  }
  function serverNow() { return Date.now() + load().offset; }

  // What earlier sittings left here once their time is up (the answers the server took or
  // refused): nothing of a sitting stays in the browser after it (sign-out clears it all).
  if (answering) {
    try {
      for (var i = window.localStorage.length - 1; i >= 0; i -= 1) {
        var other = window.localStorage.key(i);
        if (other && other.indexOf("courseiva:mock-saves:") === 0 && other !== KEY) {
          var kept = JSON.parse(window.localStorage.getItem(other) || "{}");
          if (!kept.deadline || kept.deadline < serverNow()) window.localStorage.removeItem(other);
        }
      }
    } catch (e) { /* storage off */ }
  }

  // site.js counts down from the seconds the page was served with: on a kept page, count
  // them again from the server's deadline (this script runs before site.js).
  var timer = document.querySelector(".timer[data-seconds-left]");
  var expiredUrl = timer ? timer.dataset.expiredUrl : "";
  if (timer && !fresh) {
    timer.dataset.secondsLeft = String(Math.max(0, Math.ceil((deadline - serverNow()) / 1000)));
  }

  function itemUrl(n) { return data.itemUrl.replace(/0\/$/, n + "/"); }

  // Going on to a question ahead of the open window moves the sitting on (the next question
  // of a forward-only exam, the next section): the server does that on a POST only, so the
  // page posts to it rather than opening the question, which would ask first.
  function moveOn(n) {
    var post = document.createElement("form");
    post.method = "post";
    post.action = data.moveUrl.replace(/0\/move-on\/$/, n + "/move-on/");
    var token = document.createElement("input");
    token.type = "hidden";
    token.name = "csrfmiddlewaretoken";
    token.value = form.querySelector("[name=csrfmiddlewaretoken]").value;
    post.appendChild(token);
    document.body.appendChild(post);
    post.submit();
  }

  // The form's answer as name and value pairs (no token, no destination).
  function fields() {
    var pairs = [];
    new FormData(form).forEach(function (value, name) {
      if (name !== "csrfmiddlewaretoken" && name !== "go") pairs.push([name, String(value)]);
    });
    return pairs;
  }
  function isAnswered(pairs) {
    return pairs.some(function (pair) { return pair[0] !== "flagged" && pair[1] !== ""; });
  }
  function isFlagged(pairs) {
    return pairs.some(function (pair) { return pair[0] === "flagged"; });
  }

  // Put an answer kept here back into the form (before arrange.js reads its selects).
  function fill(pairs) {
    var given = {};
    pairs.forEach(function (pair) { (given[pair[0]] = given[pair[0]] || []).push(pair[1]); });
    Array.prototype.forEach.call(form.elements, function (input) {
      var name = input.name;
      if (!name || name === "csrfmiddlewaretoken" || name === "go" || input.type === "submit" ||
          input.type === "button") return;
      var values = given[name] || [];
      if (input.type === "checkbox" || input.type === "radio") {
        input.checked = values.indexOf(input.value) >= 0;
      } else if (input.multiple) {
        Array.prototype.forEach.call(input.options, function (option) {
          option.selected = values.indexOf(option.value) >= 0;
        });
      } else {
        input.value = values.length ? values[0] : "";
      }
    });
  }

  // A question's navigator cell and the answered count, as an answer kept here has them.
  function mark(n, pairs) {
    var cell = document.getElementById("nav-cell-" + n);
    if (!cell || /withdrawn/.test(cell.getAttribute("aria-label") || "")) return;
    var answered = isAnswered(pairs), flagged = isFlagged(pairs);
    cell.classList.toggle("is-answered", answered);
    cell.classList.toggle("is-flagged", flagged);
    cell.setAttribute("aria-label", "Question " + n + ": " + (answered ? "answered" : "unanswered") +
      (flagged ? ", flagged" : ""));
    cell.textContent = n + (answered ? " ●" : "") + (flagged ? " ⚑" : "");
    var counter = document.getElementById("answered-count");
    if (counter) {
      counter.textContent = document.querySelectorAll(".nav-cell.is-answered").length + " answered";
    }
  }

  // This question's answer as it stands, kept as its latest; false if it is the one kept
  // already, or the one the page opened with (moving on without a change saves nothing).
  var opened = null;
  function record() {
    var pairs = fields();
    var saved = load();
    var last = saved.entries[number];
    var same = JSON.stringify(pairs) === (last ? JSON.stringify(last.fields) : opened);
    if (same && !(last && last.state === "refused")) return false;
    var seq = Math.max(Math.round(serverNow()), (saved.last || 0) + 1);
    saved.last = seq;
    saved.entries[number] = {seq: seq, fields: pairs, state: "pending"};
    store(saved);
    mark(number, pairs);
    return true;
  }

  function token() {
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  // Send one kept answer; the promise says what became of it: saved (or already stored),
  // refused (the answer was not valid, or the time was up), or not sent (offline, the
  // server unreachable or in trouble, the learner signed out), to be tried again.
  function send(n, entry) {
    // The browser knows it has no network: kept until its "online" event, rather than a
    // request that can only fail (or, sent with keepalive as the page is left, go out
    // later on its own, after the page has counted it as not sent).
    if (navigator.onLine === false) return Promise.resolve({outcome: "unsent"});
    var body = new URLSearchParams();
    body.append("csrfmiddlewaretoken", token());
    entry.fields.forEach(function (pair) { body.append(pair[0], pair[1]); });
    body.append("seq", String(entry.seq));
    return fetch(itemUrl(n), {
      method: "POST",
      body: body,
      headers: {"HX-Request": "true"},
      credentials: "same-origin",
      keepalive: true, // a save under way goes on when the page is left
    }).then(function (response) {
      return response.text().then(function (text) {
        var reply = document.createElement("template");
        reply.innerHTML = text;
        var line = reply.content.getElementById("save-status");
        var outcome = line && !response.redirected ? line.dataset.outcome : null;
        if (outcome === "saved" || outcome === "superseded") {
          reply.content.querySelectorAll("[hx-swap-oob]").forEach(function (fresh) {
            var old = fresh.id && document.getElementById(fresh.id);
            fresh.removeAttribute("hx-swap-oob");
            if (old) old.replaceWith(fresh);
          });
          settle(n, entry, "sent");
          return {outcome: outcome, line: line};
        }
        if (outcome) { // refused: the answer, or the time up or the exam submitted
          settle(n, entry, "refused");
          return {outcome: outcome, line: line};
        }
        if (response.redirected || response.status === 403) return {outcome: "signed-out"};
        if (response.status >= 400 && response.status < 500 && !/^(408|429)$/.test(response.status)) {
          // Not a save this question takes any more (withdrawn for review, say).
          settle(n, entry, "refused");
          line = document.createElement("p");
          line.textContent = "the server refused this answer (" + response.status + "): it was not saved.";
          return {outcome: "refused", line: line};
        }
        return {outcome: "unsent"};
      });
    }, function () {
      return {outcome: "unsent"};
    });
  }

  function settle(n, entry, how) {
    var saved = load();
    var kept = saved.entries[n];
    if (kept && kept.seq === entry.seq) {
      kept.state = how;
      store(saved);
    }
  }

  function waiting() {
    var saved = load();
    return Object.keys(saved.entries).filter(function (n) {
      return saved.entries[n].state === "pending";
    }).map(Number).sort(function (a, b) { return a - b; });
  }

  // Send what waits, one after the other, and say what became of it. One tab at a time
  // sends (a lock where the browser has them); a second flush while one runs waits for it.
  var running = null;
  var delay = 0;
  var later = null;
  function flush() {
    window.clearTimeout(later);
    if (running) return running;
    var run = function () { return sendAll(); };
    var sent = navigator.locks ? navigator.locks.request(KEY, run) : run();
    running = sent.then(function (results) {
      running = null;
      tell(results);
      return results;
    }, function () {
      running = null;
      return [];
    });
    return running;
  }

  // Rounds until nothing waits that was not tried as it stands: an answer changed while a
  // save was under way is sent after it. One result per question, its last.
  function sendAll() {
    var results = {};
    var tried = {};
    var stop = false;
    function round() {
      var todo = waiting().filter(function (n) { return tried[n] !== load().entries[n].seq; });
      if (stop || !todo.length) {
        return Object.keys(results).map(function (n) { return results[n]; });
      }
      return todo.reduce(function (chain, n) {
        return chain.then(function () {
          var entry = load().entries[n];
          if (stop || !entry || entry.state !== "pending") return undefined;
          tried[n] = entry.seq;
          return send(n, entry).then(function (result) {
            result.number = n;
            results[n] = result;
            // Not sent: the rest would not be either; they wait for the next try.
            if (result.outcome === "unsent" || result.outcome === "signed-out") stop = true;
          });
        });
      }, Promise.resolve()).then(round);
    }
    return round();
  }

  function list(numbers) {
    if (numbers.length === 1) return "question " + numbers[0];
    return "questions " + numbers.slice(0, -1).join(", ") + " and " + numbers[numbers.length - 1];
  }
  function capital(text) { return text.charAt(0).toUpperCase() + text.slice(1); }
  function escaped(text) {
    var box = document.createElement("span");
    box.textContent = text;
    return box.innerHTML;
  }
  function localTime(line) {
    var time = line.querySelector("time");
    if (time) time.textContent = new Date(time.getAttribute("datetime")).toLocaleTimeString();
  }

  // The status line after a flush: what is still not saved comes first, then what was
  // refused, then what was saved.
  function tell(results) {
    if (!results.length && !waiting().length) return;
    var by = function (outcome) {
      return results.filter(function (r) { return r.outcome === outcome; });
    };
    var numbers = function (rs) { return rs.map(function (r) { return r.number; }); };
    var left = waiting();
    var late = by("late").concat(by("submitted"));
    var parts = []; // HTML: the server's own status line, or text escaped
    if (late.length) {
      var reason = late[0].outcome === "late"
        ? "Time ran out before " : "The exam was submitted before ";
      parts.push(reason + (late.length === 1
        ? "the answer to " + list(numbers(late)) + " reached the server: it was not saved."
        : "the answers to " + list(numbers(late)) + " reached the server: they were not saved."));
    }
    by("refused").forEach(function (r) {
      parts.push(escaped("Question " + r.number + ": " + r.line.textContent.trim()));
    });
    if (left.length) {
      var why = results.some(function (r) { return r.outcome === "signed-out"; })
        ? "you are signed out (sign in again in another tab; "
        : "no connection to the server (";
      parts.push("Not saved yet: " + list(left) + ", " + why +
        "kept in this browser, sent when the connection returns).");
    }
    var saved = by("saved").concat(by("superseded"));
    if (saved.length === 1 && !parts.length) {
      localTime(saved[0].line);
      parts.push(saved[0].line.innerHTML);
    } else if (saved.length) {
      var stamp = new Date().toLocaleTimeString();
      parts.push(escaped(capital(list(numbers(saved))) + " saved at " + stamp + "."));
    }
    status.innerHTML = parts.join(" ");
    if (late.length) {
      var report = document.createElement("a");
      report.href = data.reportUrl;
      report.textContent = "See your score report";
      status.append(" ", report);
    }
    status.classList.toggle("form-error", Boolean(left.length || late.length || by("refused").length));
    if (retry) retry.hidden = !left.length;
    // At the deadline site.js opens the sitting again (the server shows the report). With
    // answers still waiting the page stays instead, so that what becomes of them is said
    // here once they reach the server.
    if (timer) timer.dataset.expiredUrl = left.length ? "#time-up" : expiredUrl;
    // Said again on the page a move opens next, as the plain post's message is.
    var told = load();
    told.told = {text: status.textContent, at: Date.now()};
    store(told);
    if (left.length) {
      delay = Math.min(30000, delay ? delay * 2 : 1000);
      later = window.setTimeout(flush, delay + Math.random() * 500);
    } else {
      delay = 0;
    }
  }

  window.addEventListener("online", function () {
    delay = 0;
    flush();
  });

  // The submission's page: what waits is sent first (the list of unanswered questions is
  // shown again if that changed it), and once more before the exam is submitted.
  if (!answering) {
    if (waiting().length) {
      flush().then(function (results) {
        if (results.some(function (r) { return r.outcome === "saved"; })) window.location.reload();
      });
    }
    form.addEventListener("submit", function (event) {
      if (!waiting().length) return;
      event.preventDefault();
      var timeout = new Promise(function (resolve) { window.setTimeout(resolve, 4000); });
      Promise.race([flush(), timeout]).then(function () { form.submit(); });
    });
    return;
  }

  retry.addEventListener("click", function () {
    delay = 0;
    flush();
  });

  form.addEventListener("change", function () {
    if (record()) flush();
  });

  // A move to another question: save, then go there (a page the worker kept, offline).
  // Stay if the answer was refused, so that the reason can be read and the answer mended.
  form.addEventListener("submit", function (event) {
    if (event.defaultPrevented) return;
    event.preventDefault();
    var go = event.submitter && event.submitter.value ? event.submitter.value : "next";
    var named = {next: number + 1, prev: number - 1, review: count + 1};
    var target = named[go] || Number(go) || number + 1;
    var to = target > count ? data.submitUrl : itemUrl(Math.max(target, 1));
    record();
    var timeout = new Promise(function (resolve) { window.setTimeout(resolve, 4000); });
    Promise.race([flush(), timeout]).then(function () {
      var entry = load().entries[number];
      if (entry && entry.state === "refused") {
        status.focus();
        return;
      }
      if (target <= count && target > Number(data.openTo)) moveOn(target);
      else window.location.href = to;
    });
  });

  // Opened (a new page, a reload, a new tab, a page kept offline): the answers kept here
  // that this page does not show yet are put back, and those not sent are sent.
  var saved = load();
  Object.keys(saved.entries).forEach(function (key) {
    var entry = saved.entries[key];
    if (entry.state === "pending" || (entry.state === "sent" && entry.seq > servedAt)) {
      if (Number(key) === number) fill(entry.fields);
      mark(Number(key), entry.fields);
    }
  });
  opened = JSON.stringify(fields());
  if (!status.hasAttribute("tabindex")) status.setAttribute("tabindex", "-1");
  if (saved.told && Date.now() - saved.told.at < 10000) status.textContent = saved.told.text;
  if (saved.told) {
    delete saved.told;
    store(saved);
  }
  if (waiting().length) flush();

  // Keep the sitting's pages for offline use (see mock-offline-worker.js), and say so once
  // they all are.
  if ("serviceWorker" in navigator && window.isSecureContext) {
    var ready = document.getElementById("offline-ready");
    navigator.serviceWorker.addEventListener("message", function (event) {
      var reply = event.data || {};
      if (reply.type === "kept" && reply.kept === reply.of && ready) {
        ready.textContent = "Every question of this sitting is kept in this browser: " +
          "if the connection drops, you can go on answering.";
        ready.hidden = false;
      }
    });
    navigator.serviceWorker.startMessages();
    navigator.serviceWorker.register(data.workerUrl, {scope: data.scope}).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      var urls = [];
      for (var n = 1; n <= count; n += 1) urls.push(itemUrl(n));
      if (registration.active) registration.active.postMessage({type: "keep", urls: urls});
    }).catch(function () { /* no offline pages: saves are still kept and sent */ });
  }
})();
