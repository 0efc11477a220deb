// After htmx swaps in an answer's result (or the form with an error), move keyboard and
// screen-reader focus to it, as a full page load would have moved it to the top.
document.addEventListener("htmx:afterSwap", function (event) {
  var target = event.detail.target;
  if (!target || target.id !== "answer") return;
  var focus = target.querySelector("#result") || target.querySelector("#answer-error");
  if (focus) {
    if (!focus.hasAttribute("tabindex")) focus.setAttribute("tabindex", "-1");
    focus.focus();
  }
});

// The mock exam's countdown. The deadline is the server's: this only shows the time left,
// counted from what the page was served with, and reloads at zero so that the server, which
// submits the exam itself, shows the report. Two warnings, at a tenth of the time and at five
// minutes, go to a live region, so that a screen reader announces them (WCAG 2.2.1); each is
// given once per sitting, whichever question is open. "Hide timer" hides the figures only:
// the time runs on and the warnings still come.
(function () {
  var timer = document.querySelector(".timer[data-seconds-left]");
  if (!timer) return;
  var value = timer.querySelector(".timer-value");
  var warning = document.getElementById("timer-warning");
  var toggle = document.getElementById("timer-toggle");
  var sitting = timer.dataset.sitting || "";
  var total = Number(timer.dataset.totalSeconds) || 0;
  var end = Date.now() + Number(timer.dataset.secondsLeft) * 1000;
  var warnings = [
    {at: Math.ceil(total / 10), key: "tenth"},
    {at: 300, key: "five"},
  ].filter(function (w) { return w.at > 0 && w.at < total; });
  function remembered(key) {
    try { return window.localStorage.getItem(key); } catch (e) { return null; }
  }
  function remember(key, value) {
    try { window.localStorage.setItem(key, value); } catch (e) { /* private mode: fine */ }
  }
  function pad(n) { return n < 10 ? "0" + n : String(n); }
  function words(left) {
    var minutes = Math.ceil(left / 60);
    return minutes === 1 ? "1 minute" : minutes + " minutes";
  }
  function warn(left) {
    warnings.forEach(function (w) {
      var key = "courseiva:timer-warned:" + sitting + ":" + w.key;
      if (left > w.at || remembered(key)) return;
      remember(key, "1");
      warning.textContent = w.key === "tenth"
        ? "A tenth of your time is left: " + words(left) + "."
        : "About " + words(left) + " left.";
    });
  }
  function setHidden(hidden) {
    timer.classList.toggle("timer-hidden", hidden);
    toggle.setAttribute("aria-pressed", hidden ? "true" : "false");
    toggle.textContent = hidden ? "Show timer" : "Hide timer";
    remember("courseiva:timer-hidden:" + sitting, hidden ? "1" : "");
  }
  if (toggle) {
    toggle.hidden = false;
    setHidden(remembered("courseiva:timer-hidden:" + sitting) === "1");
    toggle.addEventListener("click", function () {
      setHidden(!timer.classList.contains("timer-hidden"));
    });
  }
  function tick() {
    // Rounded up, and over only once the end has come: the page asks the server again at
    // zero, and the server must then find the time up, not a fraction of a second left.
    var left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
    var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    value.textContent = h ? h + ":" + pad(m) + ":" + pad(s) : m + ":" + pad(s);
    if (warning) warn(left);
    if (left <= 0) {
      window.location.href = timer.dataset.expiredUrl;
      return;
    }
    window.setTimeout(tick, 1000);
  }
  tick();
})();

// A box that scrolls on its own (a wide table, code block or exhibit on a phone, a case
// study beside its question) can be reached and scrolled by keyboard; one that fits is left
// out of the tab order.
(function () {
  function mark() {
    var boxes = document.querySelectorAll(".table-scroll, .prose pre, .prose table, .case-study");
    boxes.forEach(function (box) {
      var scrolls = box.scrollWidth > box.clientWidth ||
        (box.classList.contains("case-study") && box.scrollHeight > box.clientHeight);
      if (scrolls) box.setAttribute("tabindex", "0");
      else if (!box.hasAttribute("data-always-focusable")) box.removeAttribute("tabindex");
    });
  }
  mark();
  window.addEventListener("resize", mark);
  document.addEventListener("htmx:afterSwap", mark);
})();

// "Copy link" buttons: shown only where the clipboard can be written; they copy the text of
// the element named by data-copy and say so to screen readers too.
(function () {
  if (!navigator.clipboard) return;
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var source = document.getElementById(button.dataset.copy);
    var status = button.parentElement.querySelector(".copy-status");
    if (!source) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(source.textContent.trim()).then(function () {
        if (status) status.textContent = "Link copied.";
      }, function () {
        if (status) status.textContent = "Could not copy: select the link and copy it.";
      });
    });
  });
})();

// A form with data-confirm asks its question before it is sent (an inline onsubmit would be
// refused by the Content-Security-Policy).
document.addEventListener("submit", function (event) {
  var form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.confirm) return;
  if (!window.confirm(form.dataset.confirm)) event.preventDefault();
});

// "Print" buttons: the browser's print dialog (the print stylesheet lays the page out for
// paper or PDF). Without JavaScript they stay hidden, and the browser's own Print does it.
document.querySelectorAll("button[data-print]").forEach(function (button) {
  button.hidden = false;
  button.addEventListener("click", function () { window.print(); });
});
