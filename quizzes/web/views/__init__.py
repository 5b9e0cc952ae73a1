"""Learner pages, one module per flow (quizzes/README.md): the shell, accounts, settings, the quiz (and its
numeric answers), the review session, interview prompts and the mock interview, recall cards.

Views are thin: they read the request, call one selector or service, and render. Nothing here filters
the ORM for a business rule or writes a row.
"""
