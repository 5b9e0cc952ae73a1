"""Error pages in both languages, and the language switch."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.urls import reverse
from django.utils import translation
from django.views.defaults import permission_denied, server_error

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("language", "text"), [("en", "Page not found"), ("zh-hans", "页面不存在")])
def test_404_page_in_both_languages(client, language, text):
    response = client.get("/no/such/page/", headers={"accept-language": language})
    assert response.status_code == 404
    body = response.content.decode()
    assert text in body
    assert f'<html lang="{language}">' in body


@pytest.mark.parametrize(("language", "text"), [("en", "Not allowed"), ("zh-hans", "无权访问")])
def test_403_page(language, text):
    request = RequestFactory().get("/")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    with translation.override(language):
        response = permission_denied(request, exception=None)
    assert response.status_code == 403
    assert text in response.content.decode()


@pytest.mark.parametrize(("language", "text"), [("en", "Something went wrong"), ("zh-hans", "出错了")])
def test_500_page_needs_no_context_processors(language, text):
    with translation.override(language):
        response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert text in response.content.decode()


def test_language_switch_without_javascript(client):
    response = client.post(reverse("set_language"), {"language": "zh-hans", "next": reverse("web:lesson_list")})
    assert response.status_code == 302
    body = client.get(response.url).content.decode()
    assert '<html lang="zh-hans">' in body
    assert "课程" in body
    assert "登录" in body  # "Log in"
    assert "注册" in body  # "Sign up"


def test_dashboard_in_chinese(client, learner):
    client.force_login(learner)
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    body = client.get("/").content.decode()
    assert "项今天需要复习。" in body
    assert "未来 14 天" in body
