"""The learner model and what is computed from it, in plain Python: no Django, no database, no
import of the apps (a test checks), so each part is fitted, tested and benchmarked alone.

- `learner_model`: P(correct) for a learner on a question, updated in O(1) after each answer;
- `fitting`: the learner model fitted on past answers;
- `spread`: how unsure of a learner's abilities the forecast should be, calibrated at the fit;
- `fresh`: the probability of a question met fresh (readiness, forecast), calibrated at the fit;
- `forecast`: readiness per topic and the pass likelihood of a mock exam;
- `plan`: the study plan to an exam date and the pass likelihood projected on that day;
- `learning_gain`: how much a practice answer teaches, fitted on real logs (PFA);
- `evaluation`: learner logs read, split and replayed through the model, and scored;
- `simulation`: simulated learners with known abilities, to check the forecast's calibration;
- `plan_simulation`: simulated learners following the plan against even practice.
"""
