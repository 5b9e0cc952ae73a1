"""The server's time in every response: the Date header, added by the HTTP server (runserver's here, gunicorn's in
production) rather than by our code — a second Date header from the app would be sent twice by gunicorn."""

from __future__ import annotations

import email.utils
import time
import urllib.error
import urllib.request

import pytest


@pytest.mark.django_db(transaction=True)
def test_every_response_carries_the_servers_date(live_server):
    for path in ("/api/v1/ping/", "/healthz", "/accounts/login/"):
        try:
            response = urllib.request.urlopen(live_server.url + path, timeout=10)
        except urllib.error.HTTPError as refused:  # the ping without a token: 401, with a Date all the same
            response = refused
        dates = response.headers.get_all("Date")
        assert dates and len(dates) == 1, (path, dates)
        assert abs(email.utils.parsedate_to_datetime(dates[0]).timestamp() - time.time()) < 60
