// Drag and drop over the selects of an ordering (a build list) and a matching, drawn by
// templates/questions/_parts.html. The selects stay the form's truth: this script only sets
// them, so that the post is the same with and without JavaScript, and every drag has an
// alternative that does not drag (WCAG 2.5.7): the keyboard, and a tap on the step or answer
// followed by a tap on where it goes. It reads nothing but the selects, which say nothing of
// the answer. A move fires "change" on a select, so that a mock exam saves it (hx-trigger).
(function () {
  "use strict";

  var counter = 0;

  function make(tag, className, text) {
    var element = document.createElement(tag);
    if (className) element.className = className;
    if (text) element.textContent = text;
    return element;
  }

  // A label's content (inline markdown) for a button: links become plain text, since a
  // button may not hold one.
  function contentOf(label) {
    var copy = label.cloneNode(true);
    copy.querySelectorAll(".part-number").forEach(function (number) { number.remove(); });
    copy.querySelectorAll("a").forEach(function (link) {
      link.replaceWith(document.createTextNode(link.textContent));
    });
    var holder = make("span", "arrange-text");
    while (copy.firstChild) holder.appendChild(copy.firstChild);
    return holder;
  }

  function announcer(board) {
    var region = make("p", "visually-hidden");
    region.setAttribute("role", "status");
    board.appendChild(region);
    return function (text) {
      // Emptied first, so that the same words twice are read twice.
      region.textContent = "";
      window.setTimeout(function () { region.textContent = text; }, 30);
    };
  }

  function changed(select) {
    select.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // Moves the errors the server put beside a select to where the learner now looks.
  function moveErrors(from, to, control) {
    from.querySelectorAll(".part-error").forEach(function (error) {
      to.appendChild(error);
      if (control && error.id) control.setAttribute("aria-describedby", error.id);
    });
  }

  // Pointer dragging, shared by both widgets: a mouse or pen drags from anywhere on a
  // source, a finger from a grip or a matching's answer only (elsewhere a finger scrolls
  // the page: a step is as wide as the screen). `source`
  // names the draggable element under an event target, `over` marks the target under the
  // pointer, `drop` moves there; `end` clears the marks. The click that follows a drag is
  // swallowed, so that it does not count as a tap.
  function dragging(board, source, over, drop, end) {
    var state = null;
    var swallowClick = false;

    function finish() {
      if (state && state.ghost) state.ghost.remove();
      if (state) state.element.classList.remove("is-dragging");
      board.classList.remove("is-dragging");
      state = null;
      end();
    }

    board.addEventListener("pointerdown", function (event) {
      if (event.button !== 0 || !event.isPrimary) return;
      var element = source(event.target);
      if (!element) return;
      if (event.pointerType === "touch" && !event.target.closest(".arrange-grip, .match-answer")) {
        return;
      }
      state = { element: element, x: event.clientX, y: event.clientY, id: event.pointerId };
    });
    board.addEventListener("pointermove", function (event) {
      if (!state || event.pointerId !== state.id) return;
      if (!state.ghost) {
        if (Math.abs(event.clientX - state.x) + Math.abs(event.clientY - state.y) < 6) return;
        var box = state.element.getBoundingClientRect();
        state.dx = state.x - box.left;
        state.dy = state.y - box.top;
        state.ghost = state.element.cloneNode(true);
        state.ghost.classList.add("arrange-ghost");
        state.ghost.setAttribute("aria-hidden", "true");
        state.ghost.removeAttribute("id");
        state.ghost.style.width = box.width + "px";
        board.appendChild(state.ghost);
        state.element.classList.add("is-dragging");
        board.classList.add("is-dragging");
        board.setPointerCapture(event.pointerId);
      }
      event.preventDefault();
      state.ghost.style.transform =
        "translate(" + (event.clientX - state.dx) + "px," + (event.clientY - state.dy) + "px)";
      // Near the window's top or bottom edge, the page scrolls to reach what is beyond it.
      if (event.clientY < 40) window.scrollBy(0, -12);
      else if (event.clientY > window.innerHeight - 40) window.scrollBy(0, 12);
      over(state.element, event.clientX, event.clientY);
    });
    board.addEventListener("pointerup", function (event) {
      if (!state || event.pointerId !== state.id) return;
      var element = state.element;
      var dragged = Boolean(state.ghost);
      finish();
      if (!dragged) return;
      swallowClick = true;
      window.setTimeout(function () { swallowClick = false; }, 0);
      drop(element, event.clientX, event.clientY);
    });
    board.addEventListener("pointercancel", finish);
    board.addEventListener("click", function (event) {
      if (!swallowClick) return;
      swallowClick = false;
      event.preventDefault();
      event.stopImmediatePropagation();
    }, true);
  }

  function hitAt(x, y) {
    return document.elementFromPoint(x, y) || document.body;
  }

  // --- The build list ----------------------------------------------------------------------

  function buildList(list) {
    var places = Number(list.dataset.places) || 0;
    var id = "arrange-" + (++counter);
    var steps = Array.prototype.map.call(list.querySelectorAll(":scope > li"), function (li, index) {
      return { index: index, select: li.querySelector("select"), li: li };
    });
    if (!places || steps.some(function (step) { return !step.select; })) return;
    list.dataset.enhanced = "true";

    var board = make("div", "arrange build-list");
    var help = make("p", "arrange-help muted",
      "Drag the steps into your order, or tap a step and then where it goes. By keyboard: " +
      "Space or Enter picks a step up, the arrow keys move it (up and down in your order, " +
      "right into it, left out of it), Space or Enter puts it down, Escape cancels.");
    help.id = id + "-help";
    var columns = make("div", "build-columns");
    var poolBox = make("div", "build-box build-pool");
    poolBox.dataset.zone = "pool";
    var poolCaption = make("p", "arrange-caption", places < steps.length
      ? "Steps to choose from (" + places + " of " + steps.length + " belong)" : "Steps");
    poolCaption.id = id + "-pool";
    var poolList = make("ul", "arrange-list");
    poolList.setAttribute("aria-labelledby", poolCaption.id);
    var poolZone = make("button", "arrange-zone", "Leave the step out: drop or tap here");
    poolZone.type = "button";
    poolZone.dataset.zone = "pool";
    var poolEmpty = make("p", "arrange-empty muted", "Every step is in your order.");
    poolBox.append(poolCaption, poolList, poolEmpty, poolZone);

    var orderBox = make("div", "build-box build-order");
    orderBox.dataset.zone = "order";
    var orderCaption = make("p", "arrange-caption",
      "Your order (" + places + " place" + (places > 1 ? "s" : "") + ")");
    orderCaption.id = id + "-order";
    var orderList = make("ol", "arrange-list");
    orderList.setAttribute("aria-labelledby", orderCaption.id);
    var orderZone = make("button", "arrange-zone");
    orderZone.type = "button";
    orderZone.dataset.zone = "order";
    orderBox.append(orderCaption, orderList, orderZone);
    columns.append(poolBox, orderBox);
    board.append(help, columns);
    var say = announcer(board);

    steps.forEach(function (step) {
      var label = step.li.querySelector("label");
      step.item = make("li", "arrange-item");
      step.button = make("button", "arrange-step");
      step.button.type = "button";
      step.button.setAttribute("aria-pressed", "false");
      step.button.setAttribute("aria-describedby", help.id);
      step.placeNumber = make("span", "arrange-place");
      step.placeNumber.setAttribute("aria-hidden", "true");
      step.placeName = make("span", "visually-hidden");
      var grip = make("span", "arrange-grip");
      grip.setAttribute("aria-hidden", "true");
      step.text = contentOf(label);
      step.name = step.text.textContent.trim();
      step.button.append(grip, step.placeNumber, step.placeName, step.text);
      step.item.appendChild(step.button);
      step.button.step = step;
      moveErrors(step.li, step.item, step.button);
    });

    // The order from the selects (a post shown again, a saved mock answer): by place, and
    // no more steps than places.
    var order = steps
      .filter(function (step) { return step.select.value; })
      .sort(function (a, b) {
        return Number(a.select.value) - Number(b.select.value) || a.index - b.index;
      })
      .slice(0, places);
    var lifted = null;  // { step, before: the order when it was picked up, values }
    var pressing = false;  // a pointer is down on the list: focus moves with a tap, not a key

    function where(step) {
      var place = order.indexOf(step);
      return place < 0 ? "left out of your order" : "place " + (place + 1) + " of " + places;
    }

    function values() {
      return steps.map(function (step) { return step.select.value; }).join(",");
    }

    function render() {
      var focused = document.activeElement;
      order.forEach(function (step, place) {
        step.placeNumber.textContent = String(place + 1);
        step.placeName.textContent = "Place " + (place + 1) + ": ";
        step.select.value = String(place + 1);
        orderList.appendChild(step.item);
      });
      steps.forEach(function (step) {
        if (order.indexOf(step) >= 0) return;
        step.placeNumber.textContent = "";
        step.placeName.textContent = "";
        step.select.value = "";
        poolList.appendChild(step.item);
      });
      var full = order.length >= places;
      orderZone.hidden = full;
      orderZone.textContent = order.length
        ? "Place " + (order.length + 1) + ": drop or tap here"
        : "Place 1: drop a step here, or tap a step and then here";
      poolEmpty.hidden = order.length < steps.length;
      if (focused && board.contains(focused) && document.activeElement !== focused) focused.focus();
    }

    function lift(step) {
      lifted = { step: step, before: order.slice(), values: values() };
      step.button.setAttribute("aria-pressed", "true");
      board.classList.add("is-lifting");
      board.classList.toggle("is-lifting-placed", order.indexOf(step) >= 0);
      say(step.name + " picked up, " + where(step) + ". Move it with the arrow keys, or tap " +
        "where it goes; Space or Enter puts it down, Escape cancels.");
    }

    function putDown(words) {
      if (!lifted) return;
      var step = lifted.step;
      var before = lifted.values;
      lifted = null;
      step.button.setAttribute("aria-pressed", "false");
      board.classList.remove("is-lifting", "is-lifting-placed");
      say(words || step.name + " put down, " + where(step) + ".");
      if (values() !== before) changed(step.select);
    }

    function cancel() {
      if (!lifted) return;
      order = lifted.before;
      render();
      putDown("Move cancelled: " + lifted.step.name + " is back, " + where(lifted.step) + ".");
    }

    // Puts `step` at `place` of the order (0 first), or out of it (place null). Into a full
    // order it takes the place of the step there, which goes back out.
    function moveTo(step, place) {
      var from = order.indexOf(step);
      if (place === null) {
        if (from >= 0) order.splice(from, 1);
      } else {
        if (from >= 0) {
          order.splice(from, 1);
        } else if (order.length >= places) {
          place = Math.min(place, order.length - 1);
          order.splice(place, 1);
        }
        order.splice(Math.min(place, order.length), 0, step);
      }
      render();
    }

    function onKey(event) {
      var step = event.currentTarget.step;
      if (event.key === "Escape" && lifted) {
        event.preventDefault();
        cancel();
        return;
      }
      if (!lifted || lifted.step !== step) return;
      var place = order.indexOf(step);
      var key = event.key;
      if (["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"].indexOf(key) < 0) return;
      event.preventDefault();
      if (place < 0) {
        if (key === "ArrowUp" || key === "ArrowLeft") {
          say(step.name + " is left out: the right arrow puts it into your order.");
        } else if (order.length >= places) {
          say("Your order is full: take a step out of it first (left arrow).");
        } else {
          moveTo(step, order.length);
          say(step.name + ", " + where(step) + ".");
        }
      } else if (key === "ArrowLeft") {
        moveTo(step, null);
        say(step.name + ", " + where(step) + ".");
      } else if (key === "ArrowRight") {
        say(step.name + " is in your order, " + where(step) + ": the left arrow takes it out.");
      } else {
        var next = place + (key === "ArrowUp" ? -1 : 1);
        if (next < 0 || next >= order.length) {
          say(step.name + " is " + (next < 0 ? "first" : "last") + ", " + where(step) + ".");
        } else {
          moveTo(step, next);
          say(step.name + ", " + where(step) + ".");
        }
      }
    }

    // A click is Space or Enter on the focused step, or a tap: it picks the step up, puts it
    // down, or puts the step picked up where this one is.
    function onClick(event) {
      var step = event.currentTarget.step;
      if (!lifted) {
        lift(step);
      } else if (lifted.step === step) {
        putDown();
      } else {
        var moving = lifted.step;
        var place = order.indexOf(step);
        moveTo(moving, place < 0 ? null : place);
        moving.button.focus();
        putDown();
      }
    }

    function onZone(event) {
      var zone = event.currentTarget.dataset.zone;
      if (!lifted) {
        say("Pick a step up first: tap it, or focus it and press Space.");
        return;
      }
      var step = lifted.step;
      moveTo(step, zone === "pool" ? null : order.length);
      step.button.focus();
      putDown();
    }

    steps.forEach(function (step) {
      step.button.addEventListener("keydown", onKey);
      step.button.addEventListener("click", onClick);
    });
    orderZone.addEventListener("click", onZone);
    poolZone.addEventListener("click", onZone);
    // Tabbing away from a step picked up puts it down where it is (a tap on another step
    // moves the focus too, but places the step there: see onClick).
    board.addEventListener("pointerdown", function () { pressing = true; });
    ["pointerup", "pointercancel"].forEach(function (type) {
      window.addEventListener(type, function () {
        window.setTimeout(function () { pressing = false; }, 0);
      });
    });
    board.addEventListener("focusout", function (event) {
      if (lifted && event.relatedTarget && !pressing) putDown();
    });

    // Where a drop at (x, y) puts a step: a place of the order, null (out of it), or
    // undefined (nowhere).
    function dropPlace(step, x, y) {
      var hit = hitAt(x, y);
      if (!board.contains(hit)) return undefined;
      var item = hit.closest(".arrange-item");
      var target = item && steps.filter(function (s) { return s.item === item; })[0];
      if (target === step) return order.indexOf(step) < 0 ? undefined : order.indexOf(step);
      if (target && order.indexOf(target) >= 0) {
        var place = order.indexOf(target);
        var box = item.getBoundingClientRect();
        var after = y > box.top + box.height / 2;
        var from = order.indexOf(step);
        if (from < 0 && order.length >= places) return place;  // takes that place
        if (from >= 0 && from < place) place -= 1;
        return place + (after ? 1 : 0);
      }
      var zone = hit.closest("[data-zone]");
      if (!zone) return undefined;
      if (zone.dataset.zone === "pool") return null;
      return order.indexOf(step) >= 0 ? order.length - 1 : order.length;
    }

    function clearMarks() {
      board.querySelectorAll(".drop-before, .drop-after, .drop-into").forEach(function (element) {
        element.classList.remove("drop-before", "drop-after", "drop-into");
      });
    }

    dragging(
      board,
      function (target) {
        var item = target.closest(".arrange-item");
        return item && !item.classList.contains("arrange-ghost") && board.contains(item)
          ? item : null;
      },
      function (item, x, y) {
        clearMarks();
        var step = steps.filter(function (s) { return s.item === item; })[0];
        var place = dropPlace(step, x, y);
        if (place === undefined) return;
        if (place === null) {
          poolBox.classList.add("drop-into");
        } else {
          var others = order.filter(function (s) { return s !== step; });
          if (place < others.length) others[place].item.classList.add("drop-before");
          else if (others.length) others[others.length - 1].item.classList.add("drop-after");
          else orderBox.classList.add("drop-into");
        }
      },
      function (item, x, y) {
        var step = steps.filter(function (s) { return s.item === item; })[0];
        var place = dropPlace(step, x, y);
        if (place === undefined) return;
        if (lifted) cancel();
        var before = values();
        moveTo(step, place);
        say(step.name + " dropped, " + where(step) + ".");
        if (values() !== before) changed(step.select);
      },
      clearMarks
    );

    list.hidden = true;
    list.parentNode.insertBefore(board, list);
    render();
  }

  // --- The matching ------------------------------------------------------------------------

  function matching(list) {
    var id = "arrange-" + (++counter);
    var reuse = list.hasAttribute("data-reuse");
    var prompts = Array.prototype.map.call(list.querySelectorAll(":scope > li"), function (li) {
      return { li: li, select: li.querySelector("select"), label: li.querySelector("label") };
    });
    if (!prompts.length || prompts.some(function (p) { return !p.select || !p.label; })) return;
    list.dataset.enhanced = "true";
    var answers = Array.prototype.filter.call(prompts[0].select.options, function (option) {
      return option.value;
    }).map(function (option) {
      return { value: option.value, name: option.textContent.trim() };
    });

    var board = make("div", "arrange match-board");
    var help = make("p", "arrange-help muted",
      "Drag each answer onto its prompt, or choose an answer and then its prompt." +
      (reuse ? " An answer may fit more than one prompt." : ""));
    help.id = id + "-help";
    var poolBox = make("div", "match-pool");
    poolBox.dataset.zone = "pool";
    var poolCaption = make("p", "arrange-caption", "Answers");
    poolCaption.id = id + "-pool";
    var poolList = make("ul", "match-answers");
    poolList.setAttribute("aria-labelledby", poolCaption.id);
    var poolEmpty = make("p", "arrange-empty muted", "Every answer is on a prompt.");
    poolBox.append(poolCaption, poolList, poolEmpty);
    var promptList = make("ol", "match-prompts");
    board.append(help, poolBox, promptList);
    var say = announcer(board);
    var chosen = null;  // the answer chosen, to place on the next prompt chosen

    answers.forEach(function (answer) {
      answer.item = make("li", "match-answer-item");
      answer.button = make("button", "match-answer");
      answer.button.type = "button";
      answer.button.setAttribute("aria-pressed", "false");
      answer.button.setAttribute("aria-describedby", help.id);
      var grip = make("span", "arrange-grip");
      grip.setAttribute("aria-hidden", "true");
      answer.button.append(grip, make("span", "arrange-text", answer.name));
      answer.item.appendChild(answer.button);
      poolList.appendChild(answer.item);
      answer.button.addEventListener("click", function () { choose(answer); });
    });

    prompts.forEach(function (prompt, index) {
      prompt.name = contentOf(prompt.label).textContent.trim();
      prompt.item = make("li", "match-prompt");
      var text = make("span", "match-prompt-text");
      text.append(make("span", "part-number", (index + 1) + ". "), contentOf(prompt.label));
      prompt.slot = make("button", "match-slot");
      prompt.slot.type = "button";
      prompt.slot.prompt = prompt;
      prompt.clear = make("button", "match-clear link-button");
      prompt.clear.type = "button";
      var row = make("span", "match-slot-row");
      row.append(prompt.slot, prompt.clear);
      prompt.item.append(text, row);
      promptList.appendChild(prompt.item);
      moveErrors(prompt.li, prompt.item, prompt.slot);
      prompt.slot.addEventListener("click", function () { onSlot(prompt); });
      prompt.clear.addEventListener("click", function () {
        var answer = answerOf(prompt);
        prompt.select.value = "";
        render();
        prompt.slot.focus();
        say((answer ? answer.name + " taken off " : "Cleared ") + prompt.name + ".");
        changed(prompt.select);
      });
    });

    function answerOf(prompt) {
      return answers.filter(function (a) { return a.value === prompt.select.value; })[0] || null;
    }

    function render() {
      var used = {};
      prompts.forEach(function (prompt) {
        var answer = answerOf(prompt);
        if (answer) used[answer.value] = true;
        prompt.slot.replaceChildren();
        if (answer) {
          var grip = make("span", "arrange-grip");
          grip.setAttribute("aria-hidden", "true");
          prompt.slot.append(grip, make("span", "arrange-text", answer.name));
        } else {
          prompt.slot.append(make("span", "match-slot-empty", "Drop an answer here"));
        }
        prompt.slot.classList.toggle("is-filled", Boolean(answer));
        prompt.slot.setAttribute("aria-label", prompt.name + ": " +
          (answer ? answer.name : "no answer yet"));
        prompt.clear.hidden = !answer;
        prompt.clear.replaceChildren(document.createTextNode("Clear"));
        if (answer) {
          prompt.clear.append(make("span", "visually-hidden", " " + answer.name + " from " +
            prompt.name));
        }
      });
      var shown = 0;
      answers.forEach(function (answer) {
        answer.item.hidden = !reuse && Boolean(used[answer.value]);
        if (!answer.item.hidden) shown += 1;
      });
      poolEmpty.hidden = shown > 0;
      if (chosen && chosen.item.hidden) unchoose();
    }

    function unchoose() {
      if (!chosen) return;
      chosen.button.setAttribute("aria-pressed", "false");
      chosen = null;
      board.classList.remove("is-choosing");
    }

    function choose(answer) {
      if (chosen === answer) {
        unchoose();
        say(answer.name + " no longer chosen.");
        return;
      }
      unchoose();
      chosen = answer;
      answer.button.setAttribute("aria-pressed", "true");
      board.classList.add("is-choosing");
      say(answer.name + " chosen: now choose the prompt it answers.");
    }

    // Puts `answer` on `prompt`; `from`, the prompt it is dragged from. Without reuse, an
    // answer is on one prompt at most: it leaves the one it was on.
    function place(answer, prompt, from) {
      var before = prompt.select.value;
      var had = answerOf(prompt);
      if (from && from !== prompt) from.select.value = "";
      if (!reuse) {
        prompts.forEach(function (other) {
          if (other !== prompt && other.select.value === answer.value) other.select.value = "";
        });
      }
      prompt.select.value = answer.value;
      unchoose();
      render();
      var words = answer.name + " is on " + prompt.name + ".";
      if (had && had !== answer) words += " " + had.name + " went back to the answers.";
      say(words);
      if (before !== answer.value || from) changed(prompt.select);
    }

    function onSlot(prompt) {
      if (chosen) {
        place(chosen, prompt, null);
        prompt.slot.focus();
      } else {
        say("Choose an answer first, then " + prompt.name + ".");
      }
    }

    board.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && chosen) {
        var answer = chosen;
        unchoose();
        say(answer.name + " no longer chosen.");
      }
    });

    function sourceOf(element) {
      var answer = answers.filter(function (a) { return a.item === element; })[0];
      if (answer) return { answer: answer, from: null };
      var prompt = prompts.filter(function (p) { return p.slot === element; })[0];
      return prompt && answerOf(prompt) ? { answer: answerOf(prompt), from: prompt } : null;
    }

    function targetAt(x, y) {
      var hit = hitAt(x, y);
      if (!board.contains(hit)) return null;
      var item = hit.closest(".match-prompt");
      if (item) return prompts.filter(function (p) { return p.item === item; })[0];
      return hit.closest("[data-zone]") ? "pool" : null;
    }

    function clearMarks() {
      board.querySelectorAll(".drop-into").forEach(function (element) {
        element.classList.remove("drop-into");
      });
    }

    dragging(
      board,
      function (target) {
        var element = target.closest(".match-answer-item, .match-slot.is-filled");
        return element && board.contains(element) && !element.classList.contains("arrange-ghost")
          ? element : null;
      },
      function (element, x, y) {
        clearMarks();
        var target = targetAt(x, y);
        if (target === "pool") poolBox.classList.add("drop-into");
        else if (target) target.item.classList.add("drop-into");
      },
      function (element, x, y) {
        var from = sourceOf(element);
        var target = targetAt(x, y);
        if (!from || !target) return;
        if (target === "pool") {
          if (!from.from) return;
          from.from.select.value = "";
          render();
          say(from.answer.name + " taken off " + from.from.name + ".");
          changed(from.from.select);
        } else if (target !== from.from) {
          place(from.answer, target, from.from);
        }
      },
      clearMarks
    );

    list.hidden = true;
    list.parentNode.insertBefore(board, list);
    render();
  }

  function enhance() {
    document.querySelectorAll("ol.parts-ordering:not([data-enhanced])").forEach(buildList);
    document.querySelectorAll("ol.parts-matching:not([data-enhanced])").forEach(matching);
  }

  enhance();
  // The question page swaps its answer form in again after an answer with errors.
  document.addEventListener("htmx:afterSwap", enhance);
})();
