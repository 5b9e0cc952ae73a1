/* Practice pages, progressive enhancement only: every action also works as a plain form POST.
 * - keys 1–9 press the matching option / rating button; Enter goes to "Next" once an item is locked;
 * - the interview countdown (data-countdown seconds), shown only when JavaScript runs;
 * - after htmx swaps a locked item in, focus moves to its result for keyboard and screen-reader users. */
(function () {
  "use strict";

  function typing(target) {
    if (!target) return false;
    var tag = target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (typing(event.target)) return;
    if (/^[1-9]$/.test(event.key)) {
      var button = document.querySelector('[data-shortcut="' + event.key + '"]:not([disabled])');
      if (button) { event.preventDefault(); button.click(); }
      return;
    }
    if (event.key === "Enter") {
      var active = document.activeElement;
      if (active && (active.tagName === "BUTTON" || active.tagName === "A")) return; // the browser handles it
      var next = document.querySelector("#item [data-next]");
      if (next) { event.preventDefault(); next.click(); }
    }
  });

  document.body.addEventListener("htmx:afterSwap", function () {
    var focus = document.querySelector("#item [data-focus]");
    if (focus) focus.focus({ preventScroll: false });
    var first = document.querySelector("#item input.cell--error, #item input.cell");
    if (!focus && first) first.focus();
  });

  function format(seconds) {
    var sign = seconds < 0 ? "−" : "";
    var s = Math.abs(seconds);
    var m = Math.floor(s / 60);
    var r = s % 60;
    return sign + m + ":" + (r < 10 ? "0" : "") + r;
  }

  function startCountdown(box) {
    var left = parseInt(box.getAttribute("data-countdown"), 10);
    if (!(left > 0)) return;
    var display = box.querySelector(".countdown__time");
    var toggle = box.querySelector("[data-countdown-toggle]");
    var paused = false;
    var pauseLabel = toggle ? toggle.textContent : "";
    box.hidden = false;
    display.textContent = format(left);
    var timer = window.setInterval(function () {
      if (paused) return;
      left -= 1;
      display.textContent = format(left);
      if (left <= 0) box.classList.add("countdown--over");
    }, 1000);
    if (toggle) {
      toggle.addEventListener("click", function () {
        paused = !paused;
        toggle.textContent = paused ? "▶" : pauseLabel;
      });
    }
    window.addEventListener("pagehide", function () { window.clearInterval(timer); });
  }

  document.querySelectorAll("[data-countdown]").forEach(startCountdown);
  // Lets browser tests (and anyone curious) know the shortcuts are live before pressing keys.
  document.documentElement.setAttribute("data-practice-js", "ready");
})();
