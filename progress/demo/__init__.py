"""The demo: the demo class's six weeks of practice simulated in plain Python from the engine's
simulation population and learning gain (history.py), then written in bulk, with what answers
feed rebuilt, and the demo learner's own history, reviews, mock exam and goal (site.py).
`manage.py seed_demo` loads it; like the dashboard, it reads every room."""
