"""The shapes several API views return, nested in the views' own serializers: an attempt and its items (items:
the question, its numeric or code prompt, the response and the graded result, shared by attempts, packs, the upload
and the engine's preview), a review card, a review pack, and the error body every 4xx/5xx carries (common).

Every view names its own input serializer (the body or the query parameters it accepts) and output serializer in
its class, as ``InputSerializer`` / ``OutputSerializer`` (``<Operation>InputSerializer`` where a view serves two
operations) — HackSoft's Django-Styleguide habit —, with ``Meta.ref_name`` keeping openapi.yaml's component names.
Requests use the strict fields (quizzes.api.fields): the wrong JSON type is a 400, never coerced.
Unknown keys in a request body are ignored (server-owned fields such as ``user``, ``correct``,
``score``, ``due`` or ``stability`` are simply not fields of any request serializer).
Responses are built in one step, the output serializer over a representation's plain dict
(quizzes.api.representations; attempt items from the one item presenter, quizzes.practice.presenter), so nothing
reaches a client that a representation helper did not put there on purpose.
"""
