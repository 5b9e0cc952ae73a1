from django.urls import path

from quizzes import views

app_name = "quizzes"

urlpatterns = [
    path("", views.lesson_list, name="lesson_list"),
]
