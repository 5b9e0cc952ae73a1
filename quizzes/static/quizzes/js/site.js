/* Every learner page, progressive enhancement only: on phones the header's menu folds behind one button
 * (site.css, .js-menu). Without JavaScript the menu simply stays open. */
(function () {
  "use strict";
  var toggle = document.querySelector("[data-menu-toggle]");
  if (!toggle) return;
  var menu = document.getElementById(toggle.getAttribute("aria-controls"));
  if (!menu) return;
  document.documentElement.classList.add("js-menu");
  toggle.addEventListener("click", function () {
    var open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    menu.classList.toggle("is-open", open);
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && menu.classList.contains("is-open")) {
      toggle.setAttribute("aria-expanded", "false");
      menu.classList.remove("is-open");
      toggle.focus();
    }
  });
})();
