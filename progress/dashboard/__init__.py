"""The learner's home page (/progress/): readiness per exam, the review queue, study analytics,
quizzes and mock exams at a glance. It reads every room and owns no model."""
