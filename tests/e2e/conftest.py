"""Browser tests: Playwright driving the system Chromium against pytest-django's live_server.

Playwright cannot download browsers here; Debian's ``chromium`` package is used instead. Without
it these tests skip with the reason — except with CI=true, where they fail: running them is the point.
The live server runs in a thread of this process, so ``time_machine.travel(..., tick=True)`` in a
test moves the server's clock too. Playwright's sync API runs an event loop in this thread, which
Django's async-safety check would otherwise refuse for ORM calls made by the test.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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


@pytest.fixture
def shoot(tmp_path):
    """Save a screenshot: under docs/screenshots/<name>.png (what the README shows) when SAVE_SCREENSHOTS=1,
    else in a temporary folder, so an ordinary test run leaves the working tree untouched."""
    directory = SCREENSHOTS if os.environ.get("SAVE_SCREENSHOTS") == "1" else tmp_path
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
