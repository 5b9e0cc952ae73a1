"""Explicit request and response serializers, one per shape, with unique component names.

Requests use the strict fields (quizzes.api.fields): the wrong JSON type is a 400, never coerced.
Unknown keys in a request body are ignored (server-owned fields such as ``user``, ``correct``,
``score``, ``due`` or ``stability`` are simply not fields of any request serializer).
Responses are built from plain dicts (quizzes.api.representations; attempt items from the one item
presenter, quizzes.practice.presenter), so nothing reaches a client that a representation helper did
not put there on purpose.
"""
