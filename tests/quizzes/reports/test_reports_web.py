"""Problem reports in the learner pages, through the real forms: the link after the lock (never before), the form,
"My reports" showing open then resolved, plain text escaped, another learner's item not found, the quota."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from quizzes.models import AttemptItem, ProblemReport
from quizzes.reports.services import problem_reports_resolve
from quizzes.reviews.services import card_rate
from tests import factories
from tests.quizzes.web.practice.conftest import choose, item_url, start

pytestmark = pytest.mark.django_db


def browser(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def csrf(page) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
    assert found, "no CSRF token in the page"
    return found.group(1)


def report_link(page) -> str | None:
    found = re.search(r'href="([^"]+)"[^>]*data-report', page.content.decode())
    return html.unescape(found.group(1)) if found else None


@pytest.fixture
def answered(user):
    """The learner's attempt with its first item answered through the page; the second left unanswered."""
    lesson = factories.LessonFactory()
    for order in (1, 2):
        factories.ChoiceQuestionFactory(lesson=lesson, order=order, options=4)
    client = browser(user)
    loose = Client()  # start() posts without a CSRF token
    loose.force_login(user)
    attempt = start(loose, lesson)
    first, second = AttemptItem.objects.filter(attempt=attempt).order_by("position")
    page = client.get(item_url(attempt, 1))
    assert report_link(page) is None  # before the lock: no report link
    posted = client.post(
        item_url(attempt, 1, "answer"),
        {**choose(first, first.question.options.first()), "csrfmiddlewaretoken": csrf(page)},
    )
    assert posted.status_code in (200, 302)
    return client, attempt, first, second


def test_report_after_the_lock_then_see_it_open_and_resolved(user, answered):
    client, attempt, first, _second = answered
    page = client.get(item_url(attempt, 1))
    link = report_link(page)
    assert link == reverse("web:report_item", args=[first.pk])
    form = client.get(link)
    assert form.status_code == 200 and first.question.prompt in html.unescape(form.content.decode())
    text = "<script>alert(1)</script> the key says B"
    sent = client.post(link, {"category": "wrong_answer", "text": text, "csrfmiddlewaretoken": csrf(form)})
    assert sent.status_code == 302 and sent["Location"] == reverse("web:my_reports")
    assert sent["RateLimit-Policy"].startswith('"reports";')
    report = ProblemReport.objects.get()
    assert (report.user, report.attempt_item, report.question, report.category) == (
        user,
        first,
        first.question,
        "wrong_answer",
    )

    mine = client.get(reverse("web:my_reports")).content.decode()
    assert "Thank you: your report was sent to the authors." in mine
    assert "<script>alert(1)</script>" not in mine and "&lt;script&gt;alert(1)&lt;/script&gt;" in mine
    assert "Open" in mine and "Resolved" not in mine
    problem_reports_resolve(reports=[report], by=factories.UserFactory(is_staff=True))
    assert "Resolved" in client.get(reverse("web:my_reports")).content.decode()


def test_before_the_lock_the_form_says_why_and_files_nothing(answered):
    client, _attempt, _first, second = answered
    refused = client.get(reverse("web:report_item", args=[second.pk]))
    assert refused.status_code == 400
    assert "a problem can be reported once its answer is shown" in refused.content.decode()
    posted = client.post(reverse("web:report_item", args=[second.pk]), {"category": "typo"})
    assert posted.status_code in (400, 403) and not ProblemReport.objects.exists()


def test_an_unknown_category_or_long_text_is_shown_on_the_form(answered):
    client, _attempt, first, _second = answered
    link = reverse("web:report_item", args=[first.pk])
    token = csrf(client.get(link))
    unknown = client.post(link, {"category": "rude", "csrfmiddlewaretoken": token})
    assert unknown.status_code == 400 and "Select a valid choice" in unknown.content.decode()
    long_text = client.post(link, {"category": "typo", "text": "x" * 2001, "csrfmiddlewaretoken": token})
    assert long_text.status_code == 400 and "at most 2000 characters" in long_text.content.decode()
    assert not ProblemReport.objects.exists()


def test_another_learners_item_is_not_found(answered):
    _client, _attempt, first, _second = answered
    stranger = browser(factories.UserFactory())
    assert stranger.get(reverse("web:report_item", args=[first.pk])).status_code == 404
    assert stranger.get(reverse("web:report_card", args=[10**9])).status_code == 404


def test_an_interview_prompt_is_reported_on_its_card_after_the_reveal(user):
    prompt = factories.PromptQuestionFactory(lesson=factories.LessonFactory())
    client = browser(user)
    reveal_url = reverse("web:interview_prompt", args=[prompt.key]) + "?reveal=1"
    assert report_link(client.get(reveal_url)) is None  # no card yet: the first rating creates it
    card = card_rate(user=user, question=prompt, rating=3)
    link = report_link(client.get(reveal_url))
    assert link == reverse("web:report_card", args=[card.pk])
    assert report_link(client.get(reverse("web:interview_prompt", args=[prompt.key]))) is None  # before the reveal
    sent = client.post(link, {"category": "unclear", "csrfmiddlewaretoken": csrf(client.get(link))})
    assert sent.status_code == 302
    assert ProblemReport.objects.get().card == card


def test_the_pages_quota_answers_429_with_retry_after(settings, answered):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "reports": {"learner": "1/1h"}}
    client, _attempt, first, _second = answered
    link = reverse("web:report_item", args=[first.pk])
    token = csrf(client.get(link))
    assert client.post(link, {"category": "typo", "csrfmiddlewaretoken": token}).status_code == 302
    refused = client.post(link, {"category": "typo", "csrfmiddlewaretoken": token})
    assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= 3600
    assert "Too many reports in a short time" in refused.content.decode()
    assert ProblemReport.objects.count() == 1
