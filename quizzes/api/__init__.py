"""The REST API for mobile clients (/api/v1/): thin views over quizzes.services and quizzes.selectors."""
