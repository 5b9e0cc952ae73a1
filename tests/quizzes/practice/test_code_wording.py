"""Issue 25's new checker codes worded in both languages: too much work (a value too big to compare, a
run's work or iterations), with its line, and the grading budget's refusals."""

from __future__ import annotations

import pytest
from django.utils import translation

from attention_engine.codecheck import grade_code, specs
from attention_engine.codecheck.messages import english
from quizzes.practice.code_messages import word_message, word_verdict
from quizzes.practice.grading_budget import GradingBudget, GradingBudgetExceeded

LIST_OF_ARRAYS = (
    "scores = Q @ K.swapaxes(-2, -1) / np.sqrt(d_k)\nmask = np.triu(np.ones((T, T), dtype=bool), k=1)\n"
    "a = np.ones((256, 256))\nweights = [a] * 1000"
)
LONG_COMPREHENSION = "x = [0 for i in range(10**9) if i < 0]\np = x"


@pytest.mark.parametrize(
    ("spec", "code", "english_part", "chinese_part"),
    [
        ("sdpa_three_lines", LIST_OF_ARRAYS, "a value of 65,536,000 numbers", "含 65,536,000 个数的值"),
        ("stable_softmax", LONG_COMPREHENSION, "operations in all; at most 1,048,576", "次运算；最多允许 1,048,576"),
    ],
)
def test_too_much_work_is_worded_with_its_line_in_both_languages(spec, code, english_part, chinese_part):
    check = grade_code(specs.get(spec), code).to_dict()
    assert check["code"] == "too_much_work" and check["params"]["line"] is not None
    verdict = word_verdict(check)
    assert english_part in verdict and verdict.startswith(f"line {check['params']['line']} (")
    assert check["message"] == english(check["code"], check["params"]) and "does too much work" in check["message"]
    with translation.override("zh-hans"):
        verdict = word_verdict(check)
        assert chinese_part in verdict and "计算量过大" in verdict
        assert chinese_part in word_message(check["messages"][0])


@pytest.mark.parametrize(
    ("limit", "chinese"),
    [
        ("iterations", "列表推导式共迭代 4,097 次"),
        ("value_depth", "嵌套 17 层的列表"),
        ("sequence_items", "含 4,097 项的列表"),
    ],
)
def test_every_new_limit_is_worded_in_chinese(limit, chinese):
    requested = 17 if limit == "value_depth" else 4097
    params = {"name": "p", "line": 2, "case": "plain", "limit": limit, "requested": requested, "allowed": 16}
    with translation.override("zh-hans"):
        assert chinese in word_verdict({"verdict": "incorrect", "code": "too_much_work", "params": params})
    assert "does too much work" in english("too_much_work", params)


@pytest.mark.django_db
def test_the_budgets_refusals_are_worded_in_both_languages(settings, user):
    settings.CODECHECK_REQUEST_GRADING_SECONDS = 0.0
    with pytest.raises(GradingBudgetExceeded) as request:
        GradingBudget.for_request(user_id=user.pk).check()
    assert "This request has used its 0 s of code grading" in request.value.messages[0]
    settings.CODECHECK_REQUEST_GRADING_SECONDS = 2.0
    settings.CODECHECK_LEARNER_GRADING_SECONDS = 0.0
    with translation.override("zh-hans"), pytest.raises(GradingBudgetExceeded) as learner:
        GradingBudget.for_request(user_id=user.pk).check()
    assert "这一分钟内你已用完" in learner.value.messages[0] and 1 <= learner.value.retry_after <= 60
