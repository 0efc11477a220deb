"""Cohorts: instructors following a class of learners on one exam (the cohort page, the class
by topic, a learner's drill-down, the CSV), joining and leaving, and the item analysis."""
