from django.urls import path

from quizzes import views

urlpatterns = [
    path("", views.lesson_list, name="lesson_list"),
]
