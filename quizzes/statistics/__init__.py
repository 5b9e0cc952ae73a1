"""Item statistics for authors (issue 27, item 5): how each question performs in learners' first study attempts.

measures.py holds the numpy math over columns (grouped facility, discrimination, medians, KR-20); selectors.py
reads the columns from the database and names the flags an author acts on. Read-only: nothing here writes.
"""
