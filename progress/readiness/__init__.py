"""Readiness: the learner model's stored state, the read model the pages use (where a learner
stands on an exam), and its rebuild from the attempts."""
