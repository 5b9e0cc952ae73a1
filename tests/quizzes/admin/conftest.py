"""Fixtures the admin tests share: ``lesson_dir`` is the content tests' (a lesson file with a choice and a numeric
question, loaded, so the rows are file-owned), imported rather than written again."""

from tests.quizzes.content.test_provenance import lesson_dir

__all__ = ["lesson_dir"]
