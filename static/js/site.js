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
