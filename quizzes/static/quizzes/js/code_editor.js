/* The code editor of code questions: a plain <textarea> (it works without JavaScript), enhanced with
 * - Tab inserts 4 spaces, Shift+Tab removes up to 4 at the line start; Esc then Tab leaves the editor
 *   (so keyboard users are never trapped);
 * - Ctrl/Cmd+Enter submits;
 * - a line-number gutter beside the textarea and beside the given (read-only) code.
 * No inline scripts (CSP); re-applied after htmx swaps the item in. */
(function () {
  "use strict";
  var INDENT = "    ";

  function numbers(count) {
    var out = [];
    for (var i = 1; i <= count; i++) out.push(i);
    return out.join("\n");
  }

  function lineCount(text) {
    return text.split("\n").length;
  }

  function gutterFor(box, text) {
    var gutter = document.createElement("pre");
    gutter.className = "code-gutter";
    gutter.setAttribute("aria-hidden", "true");
    gutter.textContent = numbers(lineCount(text));
    box.insertBefore(gutter, box.firstChild);
    return gutter;
  }

  function enhanceEditor(area) {
    if (area.getAttribute("data-code-ready")) return;
    area.setAttribute("data-code-ready", "1");
    var box = area.parentNode;
    box.classList.add("code-editor--numbered");
    var gutter = gutterFor(box, area.value);
    var escaped = false;

    function refresh() {
      gutter.textContent = numbers(Math.max(lineCount(area.value), parseInt(area.getAttribute("rows") || "1", 10)));
      gutter.scrollTop = area.scrollTop;
    }

    area.addEventListener("input", refresh);
    area.addEventListener("scroll", function () { gutter.scrollTop = area.scrollTop; });
    area.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { escaped = true; return; }
      if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
        event.preventDefault();
        if (area.form) area.form.requestSubmit();
        return;
      }
      if (event.key !== "Tab" || escaped) { escaped = false; return; }
      event.preventDefault();
      var start = area.selectionStart;
      var end = area.selectionEnd;
      var value = area.value;
      if (event.shiftKey) {
        var lineStart = value.lastIndexOf("\n", start - 1) + 1;
        var remove = 0;
        while (remove < INDENT.length && value.charAt(lineStart + remove) === " ") remove++;
        area.value = value.slice(0, lineStart) + value.slice(lineStart + remove);
        area.selectionStart = area.selectionEnd = Math.max(lineStart, start - remove);
      } else {
        area.value = value.slice(0, start) + INDENT + value.slice(end);
        area.selectionStart = area.selectionEnd = start + INDENT.length;
      }
      refresh();
    });
    refresh();
  }

  function enhanceGiven(pre) {
    if (pre.getAttribute("data-code-ready")) return;
    pre.setAttribute("data-code-ready", "1");
    var wrap = document.createElement("div");
    wrap.className = "code-editor--numbered code-given";
    pre.parentNode.insertBefore(wrap, pre);
    wrap.appendChild(pre);
    gutterFor(wrap, pre.textContent.replace(/\n$/, ""));
  }

  function enhance() {
    document.querySelectorAll("textarea[data-code-editor]").forEach(enhanceEditor);
    document.querySelectorAll("pre[data-line-numbers]").forEach(enhanceGiven);
    document.documentElement.setAttribute("data-code-editor", "ready");
  }

  document.body.addEventListener("htmx:afterSwap", enhance);
  enhance();
})();
