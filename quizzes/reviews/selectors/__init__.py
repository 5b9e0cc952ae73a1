"""Reads about reviews: the learner's study day, the due queue, new questions, the review session,
rating previews, forecast, heatmap, streak and progress counts. Nothing here writes.

"Today" is always the learner's study day: their time zone, starting at their rollover hour.
"Due today" means due before the end of that day, so a card due at 23:00 shows up in the
morning session, as in Anki. Every card query starts from ``ReviewCard.objects.live_for(user)``
(not suspended, question and lesson published) unless it says otherwise.
"""
