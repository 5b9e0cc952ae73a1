/* The d_k demo: the slider's number follows the slider (an external script, not an oninput attribute: CSP). */
(function () {
  "use strict";
  document.addEventListener("input", function (event) {
    var target = event.target;
    var id = target && target.getAttribute && target.getAttribute("data-output");
    var output = id && document.getElementById(id);
    if (output) output.value = target.value;
  });
})();
