# The learner's side (attempts, quizzes, readiness) arrives with the learners issue.
