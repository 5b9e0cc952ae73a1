"""Item statistics for authors (issue 27, item 5): how each question performs in learners' first study attempts.

measures.py holds the numpy math over columns (grouped facility, discrimination, medians, KR-20); selectors.py
reads the columns from the database and names the flags an author acts on. Read-only: nothing here writes.
Not named ``statistics``: with quizzes/ on sys.path (manage.py run from there, as makemessages is) that name
shadows the standard library's module, which Django imports.
"""
