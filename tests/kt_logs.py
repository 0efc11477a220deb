"""Knowledge-tracing logs for the tests of the readiness model: where the shared logs are,
the header of the log format, and a synthetic log of learners who learn as they answer."""

import random
from pathlib import Path

from progress.engine import evaluation, learner_model
from progress.engine.learner_model import Answer

KT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "kt"


HEADER = "user_id\titem_id\ttimestamp\tcorrect\tskill_id\n"


def synthetic_log(
    rng: random.Random, *, learners: int, answers: int, learning: float = 0.05
) -> evaluation.Log:
    """Learners of varied ability on 5 topics of 8 questions of varied difficulty, each answer
    raising the logit by `learning`."""
    difficulty = {f"i{k}": rng.gauss(0, 1) for k in range(40)}
    log: evaluation.Log = {}
    for learner in range(learners):
        ability = rng.gauss(0, 1)
        sequence = []
        for n in range(answers):
            item = f"i{rng.randrange(40)}"
            p = learner_model.sigmoid(ability - difficulty[item] + learning * n)
            sequence.append(Answer(item, f"s{int(item[1:]) // 8}", rng.random() < p))
        log[f"u{learner}"] = sequence
    return log
