"""Benchmark of one study plan (progress.engine.plan.plan_study), the figure the readiness page
recomputes on every view.

    .venv/bin/python bench/study_plan.py [--topics 8] [--days 60] [--items 200] [--runs 30]

An exam of `--topics` topics (65 questions split over them), `--items` published questions a
topic, each with a difficulty and an 8-dimension profile as a fitted model gives them; a
learner who has answered 300 questions over the topics, with reviews due on some days. Plans
`--days` days at 20 and at 50 questions a day, `--runs` times each, and prints the median and
the slowest time in milliseconds and the ratio of the median to the 50 ms budget (at most 1
is the target); then the median of `plan_days` for today alone (what the plan simulation
asks for every simulated day). It only prints; it never fails on time. The machine is shared
and noisy.
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from progress.engine.forecast import largest_remainder
from progress.engine.learner_model import (
    PROFILE_SIZE,
    ItemState,
    LearnerState,
    ModelParams,
    ReadinessModel,
    TopicParams,
)
from progress.engine.plan import PlanTopic, plan_days, plan_study

BUDGET_MS = 50.0
QUESTIONS = 65


def build(
    topics: int, items: int, seed: int = 0
) -> tuple[ReadinessModel, list[PlanTopic], LearnerState]:
    rng = random.Random(seed)
    topic_ids = [str(100 + k) for k in range(topics)]
    params = ModelParams(
        topics={t: TopicParams(rng.gauss(0, 0.5), 0.1, -0.05) for t in topic_ids},
        ability_variance=0.3,
        topic_variance=0.2,
        profile_variance=0.1,
        slope=0.9,
        intercept=0.05,
    )
    states = {
        t: [
            (
                f"{t}-{j}",
                ItemState(
                    difficulty=rng.gauss(0, 1),
                    variance=0.05,
                    answers=50,
                    profile=[rng.gauss(0, 0.2) for _ in range(PROFILE_SIZE)],
                ),
            )
            for j in range(items)
        ]
        for t in topic_ids
    }
    for pairs in states.values():
        params.items.update(pairs)
    model = ReadinessModel(params)
    learner = model.new_learner()
    answered = {t: 0 for t in topic_ids}
    for _ in range(300):
        t = rng.choice(topic_ids)
        item_id, _state = rng.choice(states[t])
        model.update(learner, t, item_id, rng.random() < 0.65, learn_item=False)
        answered[t] += 1
    from decimal import Decimal

    drawn = largest_remainder(QUESTIONS, [Decimal(rng.randint(5, 20)) for _ in topic_ids])
    plan_topics = [
        PlanTopic(t, n, states[t], available=items - answered[t])
        for t, n in zip(topic_ids, drawn, strict=True)
    ]
    return model, plan_topics, learner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, default=8)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    model, topics, learner = build(args.topics, args.items)
    reviews = {d: {topics[d % len(topics)].topic_id: 3} for d in range(0, args.days, 4)}
    print(
        f"{args.topics} topics, {args.items} questions each, {QUESTIONS}-question exam, "
        f"{args.days} days"
    )
    for per_day in (20, 50):
        times = []
        plan = None
        for _ in range(args.runs):
            started = time.perf_counter()
            plan = plan_study(model, learner, topics, 70.0, args.days, per_day, reviews)
            times.append(1000.0 * (time.perf_counter() - started))
        median = statistics.median(times)
        assert plan is not None
        print(
            f"{per_day} a day: median {median:.1f} ms, slowest {max(times):.1f} ms, "
            f"ratio to the {BUDGET_MS:.0f} ms budget {median / BUDGET_MS:.2f} "
            f"(pass now {plan.pass_now:.3f}, on the exam day {plan.pass_on_exam_day:.3f})"
        )
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            today = plan_days(model, learner, topics, 1, per_day, reviews)
            times.append(1000.0 * (time.perf_counter() - started))
        assert today == plan.days[:1]
        print(f"{per_day} a day, today alone (plan_days): median {statistics.median(times):.1f} ms")


if __name__ == "__main__":
    main()
