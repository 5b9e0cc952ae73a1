"""Browser tests: Playwright driving the system Chromium against pytest-django's live_server.

Every browser test runs twice: with DEBUG off (as deployed) and on (as ``make run``), where django-htmx adds
its debug script, which once replaced the whole page with any 400 answer to an htmx request (issue 14).
Helpers below check what a phone user would notice: no sideways scrolling of the page, every matrix fully
visible or in a box that scrolls with a cue, and axe-core (bundled by axe-playwright-python, injected through
Playwright so the Content-Security-Policy does not apply to it; no npm, no CDN) finding nothing serious.

Playwright cannot download browsers here; Debian's ``chromium`` package is used instead. Without
it these tests skip with the reason — except with CI=true, where they fail: running them is the point.
The live server runs in a thread of this process, so ``time_machine.travel(..., tick=True)`` in a
test moves the server's clock too. Playwright's sync API runs an event loop in this thread, which
Django's async-safety check would otherwise refuse for ORM calls made by the test.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "lessons"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if CHROMIUM.exists():
        return
    reason = f"the browser tests need Chromium at {CHROMIUM} (apt-get install chromium)"
    for item in items:
        if "tests/e2e" in str(item.path).replace(os.sep, "/"):
            if os.environ.get("CI") == "true":
                item.add_marker(pytest.mark.usefixtures("_fail_without_chromium"))
            else:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def _fail_without_chromium():
    pytest.fail(f"CI=true: the browser tests need Chromium at {CHROMIUM}", pytrace=False)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's launch options, pointed at the system Chromium."""
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1280, "height": 900}, "locale": "en-US"}


@pytest.fixture
def lessons(transactional_db):
    """The real lesson content from fixtures/lessons (lesson 1 is "sdpa")."""
    from quizzes.content.writer import content_load

    content_load(directory=FIXTURES)


def _has_chinese_font() -> bool:
    listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False)
    return bool(listed.stdout.strip())


@pytest.fixture
def shoot(tmp_path):
    """Save a screenshot: under docs/screenshots/<name>.png (what the README shows) when SAVE_SCREENSHOTS=1,
    else in a temporary folder, so an ordinary test run leaves the working tree untouched."""
    saving = os.environ.get("SAVE_SCREENSHOTS") == "1"
    if saving and not _has_chinese_font():  # the lessons are Chinese: without a CJK font they show as boxes
        pytest.fail("no font with Chinese glyphs: apt-get install fonts-noto-cjk before `make screenshots`")
    directory = SCREENSHOTS if saving else tmp_path
    directory.mkdir(parents=True, exist_ok=True)

    def save(page, name: str, *, scroll_to: str | None = None, full_page: bool = False) -> Path:
        """The viewport (1280×900, or the phone's 390×844), optionally scrolled to an element first."""
        if scroll_to:
            page.locator(scroll_to).first.evaluate("element => element.scrollIntoView({block: 'start'})")
        path = directory / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return save


# --- Content-Security-Policy: the site's policy is enforced; no page may violate it -----------------------

CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${where})`);
});
"""


def csp_violations(page) -> list[str]:
    """Violations reported on the current document, plus console errors that name the policy."""
    try:
        reported = page.evaluate("() => window.__cspViolations || []")
    except Exception:  # the page is navigating: nothing to read yet
        reported = []
    return reported + [m for m in getattr(page, "_csp_console", []) if "Content Security Policy" in m]


@pytest.fixture(autouse=True)
def _no_csp_violations(request):
    """Every browser test fails if any page it opened reported a CSP violation (listener + console)."""
    if "page" not in request.fixturenames:
        yield
        return
    page = request.getfixturevalue("page")
    page.add_init_script(CSP_LISTENER)
    page._csp_console = []
    page.on("console", lambda message: message.type == "error" and page._csp_console.append(message.text))
    seen: list[str] = []
    page.on("framenavigated", lambda frame: frame == page.main_frame and seen.extend(csp_violations(page)))
    yield
    seen.extend(csp_violations(page))
    assert not sorted(set(seen)), f"CSP violations: {sorted(set(seen))}"


# --- DEBUG off (deployed) and on (make run) -----------------------------------------------------------


@pytest.fixture(autouse=True, params=["debug-off", "debug-on"])
def debug_mode(request, settings):
    """Each browser test runs with DEBUG off and on; the live server thread reads the same settings."""
    settings.DEBUG = request.param == "debug-on"
    return settings.DEBUG


# --- phones ---------------------------------------------------------------------------------------------

PHONES = {
    "phone-360": {"width": 360, "height": 740},
    "phone-390": {"width": 390, "height": 844},
}
DESKTOP = {"width": 1280, "height": 900}


def new_page(browser, viewport: dict, *, phone: bool):
    """A page in a fresh context: a phone is a touch screen ((pointer: coarse), (hover: none)) with its viewport."""
    extra = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2} if phone else {}
    context = browser.new_context(viewport=viewport, locale="en-US", **extra)
    page = context.new_page()
    page.add_init_script(CSP_LISTENER)
    page._csp_console = []
    page.on("console", lambda message: message.type == "error" and page._csp_console.append(message.text))
    return page


# --- what a learner on a small screen would notice --------------------------------------------------------

OVERFLOW = "() => [document.documentElement.scrollWidth, window.innerWidth]"

TOO_WIDE = """
(screen) => {
  const clipped = e => { for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
    if (getComputedStyle(a).overflowX !== "visible") return true; } return false; };
  return Array.from(document.querySelectorAll("main *"))
    .filter(e => e.getBoundingClientRect().right > screen + 1 && !clipped(e))
    .filter(e => !e.parentElement.closest("main *") || e.parentElement.getBoundingClientRect().right <= screen + 1)
    .slice(0, 3).map(e => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}px: `
      + (e.textContent || "").trim().slice(0, 60));
}
"""

MATRICES = """
(screen) => Array.from(document.querySelectorAll("main mtable"))
.filter(t => !t.parentElement.closest("mtable")).map(t => {
  const box = t.getBoundingClientRect();
  let clipper = t.parentElement;
  while (clipper && clipper !== document.body && getComputedStyle(clipper).overflowX === "visible") {
    clipper = clipper.parentElement;
  }
  const clip = clipper && clipper !== document.body ? clipper.getBoundingClientRect() : {left: 0, right: screen};
  const left = Math.max(0, clip.left), right = Math.min(screen, clip.right);
  const visible = box.left >= left - 1 && box.right <= right + 1;
  const scroller = t.closest(".math-scroll");
  const scrollable = !!scroller && scroller.scrollWidth > scroller.clientWidth
    && ["auto", "scroll"].includes(getComputedStyle(scroller).overflowX);
  const cue = !!scroller && getComputedStyle(scroller).backgroundImage.includes("gradient");
  return {visible, scrollable, cue, left: Math.round(box.left), right: Math.round(box.right)};
})
"""


def assert_fits(page, where: str = "") -> int:
    """No sideways scrolling of the page; every matrix fully visible or in a scroll box with a visible cue.

    Returns how many matrices were checked."""
    page.wait_for_load_state("load")
    scroll_width, inner_width = page.evaluate(OVERFLOW)
    # a phone's browser widens its layout viewport to fit content that overflows (innerWidth grows past the
    # screen and the page is shown zoomed out), so the screen's own width is the measure, not innerWidth
    inner_width = min(inner_width, page.viewport_size["width"])
    assert scroll_width <= inner_width, (
        f"{where or page.url}: page is {scroll_width}px wide on a {inner_width}px screen; too wide: "
        f"{page.evaluate(TOO_WIDE, inner_width)}"
    )
    matrices = page.evaluate(MATRICES, inner_width)
    for matrix in matrices:
        assert matrix["visible"] or (matrix["scrollable"] and matrix["cue"]), f"{where}: {matrix}"
    return len(matrices)


_AXE = Axe()
SERIOUS = {"serious", "critical"}


def assert_accessible(page, where: str = "") -> None:
    """axe-core finds no violation of serious or critical impact on the page as it is now."""
    results = _AXE.run(page)
    found = [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:4]}"
        for v in results.response["violations"]
        if v["impact"] in SERIOUS
    ]
    assert not found, f"{where or page.url}: {found}"
