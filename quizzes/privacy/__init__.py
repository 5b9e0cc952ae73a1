"""Your data: the learner's data export (JSON and an Anki deck, as a background job) and account deletion."""
