"""The quiz domain: lessons, attempts that lock and reshuffle, numeric variants, FSRS reviews."""
