"""The readiness model in the tests: one written by hand with round numbers, the worker's
batch that moves the questions' difficulties, run at once, and every stored state read back
to compare."""

from progress.engine import learner_model
from progress.engine.learner_model import (
    FEATURES,
    ItemState,
    ModelParams,
    ReadinessModel,
    TopicParams,
)
from progress.practice.models import Attempt
from progress.readiness.batches import apply_question_batch
from progress.readiness.models import ExamAbility, QuestionReadiness, TopicReadiness


def hand_model(**changes) -> ReadinessModel:
    """Topic t (difficulty 0.5), question q of it (difficulty -0.5, variance 0.5); one history
    weight: 1 on log(1 + earlier right answers to the question); the pattern "right" 0.25."""
    weights = [0.0] * len(FEATURES)
    weights[FEATURES.index("item_wins")] = 1.0
    patterns = [0.0] * learner_model.N_PATTERNS
    patterns[0b11] = 0.25
    params = ModelParams(
        bias=0.0,
        weights=weights,
        pattern_weights=patterns,
        topics={"t": TopicParams(difficulty=0.5)},
        items={"q": ItemState(difficulty=-0.5, variance=0.5, answers=10)},
        ability_variance=1.0,
        topic_variance=0.5,
        profile_variance=0.0,
        ability_drift=0.1,
        topic_drift=0.0,
        item_variance=1.0,
    )
    for name, value in changes.items():
        setattr(params, name, value)
    return ReadinessModel(params)


def run_batch():
    """What the worker does after answers: move the questions' difficulties."""
    return apply_question_batch(Attempt.objects)


def snapshot():
    """Every stored state, comparable."""
    return (
        list(Attempt.objects.order_by("pk").values_list("pk", "learner_logit")),
        {
            (r.learner_id, r.exam_id): (r.state, r.answers, r.movers)
            for r in ExamAbility.objects.all()
        },
        {
            (r.learner_id, r.topic_id): (
                r.state,
                r.answers,
                r.ability,
                r.variance,
                round(r.difficulty_sum, 9),
            )
            for r in TopicReadiness.objects.all()
        },
        {
            r.question_id: (r.difficulty, r.variance, r.answers, r.profile)
            for r in QuestionReadiness.objects.all()
        },
    )
