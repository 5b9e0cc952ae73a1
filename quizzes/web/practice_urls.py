"""Practice URLs (namespace "web"): attempts, the review session, interview prompts, mock interviews, recall cards.

Item positions in URLs are 1-based ("3 / 10" is /attempts/<id>/items/3/).
"""

from django.urls import path

from quizzes.web import practice_views as views

urlpatterns = [
    path("lessons/<slug:lesson_key>/attempts/", views.attempt_start, name="attempt_start"),
    path("attempts/<int:attempt_id>/", views.attempt_resume, name="attempt_resume"),
    path("attempts/<int:attempt_id>/items/<int:position>/", views.attempt_item, name="attempt_item"),
    path("attempts/<int:attempt_id>/items/<int:position>/answer/", views.attempt_answer, name="attempt_answer"),
    path("attempts/<int:attempt_id>/finish/", views.attempt_finish, name="attempt_finish"),
    path("attempts/<int:attempt_id>/summary/", views.attempt_summary, name="attempt_summary"),
    path("review/", views.review_session, name="review_session"),
    path("review/lessons/<slug:lesson_key>/quiz/", views.review_quiz, name="review_quiz"),
    path("interview/", views.interview_index, name="interview_index"),
    path("interview/mock/", views.interview_mock, name="interview_mock"),
    path("interview/mock/summary/", views.interview_mock_summary, name="interview_mock_summary"),
    path("interview/<slug:question_key>/", views.interview_prompt, name="interview_prompt"),
    path("interview/<slug:question_key>/rate/", views.interview_rate, name="interview_rate"),
    path("recall/<slug:question_key>/", views.recall_card, name="recall_card"),
    path("recall/<slug:question_key>/rate/", views.recall_rate, name="recall_rate"),
]
