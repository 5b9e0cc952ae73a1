"""Problem reports in the Django admin: authors see the open reports of each question and resolve them (staff only);
the learner's words are shown escaped."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from quizzes.models import ProblemReport
from quizzes.practice.services import attempt_start, item_answer
from quizzes.reports.selectors import item_target
from quizzes.reports.services import problem_report_create
from tests import factories

pytestmark = pytest.mark.django_db
CHANGELIST = reverse("admin:quizzes_problemreport_changelist")


@pytest.fixture
def reports(user):
    """Two reports on the first question of a lesson, one on the second."""
    lesson = factories.LessonFactory()
    first = factories.ChoiceQuestionFactory(lesson=lesson, order=1, options=3)
    factories.ChoiceQuestionFactory(lesson=lesson, order=2, options=3)
    filed = []
    for text, reported in (("<img src=x onerror=alert(1)>", {1}), ("the key is wrong", {1, 2})):
        attempt = attempt_start(user=user, lesson=lesson)
        for item in attempt.items.select_related("question"):
            item_answer(user=user, item=item, option_id=item.option_order[0])
            target = item_target(user=user, item_id=item.pk)
            if target is not None and item.question.order in reported:
                filed.append(problem_report_create(user=user, target=target, category="wrong_answer", text=text))
    assert len(filed) == 3
    return first, filed


def staff_client(**flags) -> Client:
    client = Client()
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True, **flags))
    return client


def test_the_open_reports_of_a_question_are_listed_escaped(reports):
    question, _filed = reports
    page = staff_client().get(CHANGELIST, {"question__id__exact": question.pk}).content.decode()
    assert page.count('class="field-question_reports"') == ProblemReport.objects.filter(question=question).count() == 2
    assert "<img src=x onerror=alert(1)>" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_resolving_closes_them_and_the_learner_sees_it(user, reports):
    question, filed = reports
    client = staff_client()
    chosen = [report.pk for report in filed if report.question == question]
    response = client.post(
        CHANGELIST, {"action": "mark_resolved", "_selected_action": chosen, "select_across": "0", "index": "0"}
    )
    assert response.status_code == 302
    assert "2 reports marked resolved." in client.get(response["Location"]).content.decode()
    assert set(ProblemReport.objects.filter(resolved_at__isnull=False).values_list("pk", flat=True)) == set(chosen)
    open_page = client.get(CHANGELIST).content.decode()  # open reports only, by default
    assert open_page.count('class="field-question_reports"') == 1  # the other question's report is still open
    learner = Client()
    learner.force_login(user)
    mine = learner.get(reverse("web:my_reports")).content.decode()
    assert mine.count("Resolved") == 2 and mine.count(">Open<") == 1


def test_a_learner_cannot_reach_the_admin_or_resolve(user, reports):
    _question, filed = reports
    learner = Client()
    learner.force_login(user)
    response = learner.post(CHANGELIST, {"action": "mark_resolved", "_selected_action": [filed[0].pk]})
    assert response.status_code == 302 and reverse("admin:login") in response["Location"]
    assert not ProblemReport.objects.filter(resolved_at__isnull=False).exists()
