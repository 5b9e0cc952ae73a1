"""Offline review packs (issue 17): a learner's due items with their answer keys, graded again on upload."""
