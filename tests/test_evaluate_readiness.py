"""`manage.py evaluate_readiness`: the shared logs, a train and a test file, a log split by
learner, the site's own attempts, several seeds with their mean, and every bad input refused
with its reason."""

import json
import random
import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from progress.practice.models import Attempt, Source
from tests.factories import UserFactory
from tests.kt_logs import HEADER, KT_DATA, synthetic_log


def evaluate(*args: str) -> str:
    out = StringIO()
    call_command("evaluate_readiness", *args, stdout=out)
    return out.getvalue()


def test_command_on_a_slice_of_statics(tmp_path):
    if not (KT_DATA / "statics_train.tsv").exists():
        pytest.skip(f"the shared logs are not at {KT_DATA}")
    # The first 100 learners of the statics training log, their first 150 answers each.
    lines = (KT_DATA / "statics_train.tsv").read_text().splitlines(keepends=True)
    counts = {}
    kept = [lines[0]]
    for line in lines[1:]:
        learner = line.split("\t", 1)[0]
        if learner not in counts and len(counts) == 100:
            continue
        counts[learner] = counts.get(learner, 0) + 1
        if counts[learner] <= 150:
            kept.append(line)
    log = tmp_path / "statics_slice.tsv"
    log.write_text("".join(kept))

    output = evaluate("--train", str(log), "--split-learners", "0.8", "--seed", "0")

    lines = output.strip().splitlines()
    assert "AUC" in output
    scores = json.loads(lines[-1])
    assert set(scores) == {"n", "auc", "rmse", "logloss", "ece", "fresh"}
    assert scores["n"] > 1000
    assert scores["auc"] > 0.70
    assert scores["ece"] < 0.05
    # The readiness of a question met fresh promises about what the first answers gave.
    fresh = scores["fresh"]
    assert 0 < fresh["n"] < scores["n"]
    assert abs(fresh["readiness"] - fresh["right"]) < 0.03
    assert "a question met fresh, on the test learners'" in output
    # Run again on the same file, the same figures to the last digit printed: nothing in
    # the fit or the replay depends on the time it takes.
    again = evaluate("--train", str(log), "--split-learners", "0.8", "--seed", "0")
    assert again.strip().splitlines()[-1] == lines[-1]


def train_and_test_files(tmp_path, *, train_learners: int = 40) -> tuple[str, str]:
    """A train and a test file of learners on the same questions: 10 test learners."""
    learners = list(
        synthetic_log(random.Random(5), learners=train_learners + 10, answers=20).items()
    )
    train, test = tmp_path / "train.tsv", tmp_path / "test.tsv"
    for path, part in ((train, learners[:train_learners]), (test, learners[train_learners:])):
        rows = [
            f"{learner}\t{item}\t0\t{int(correct)}\t{skill}\n"
            for learner, answers in part
            for item, skill, correct in answers
        ]
        path.write_text(HEADER + "".join(rows))
    return str(train), str(test)


def test_command_with_train_and_test_files(tmp_path):
    train, test = train_and_test_files(tmp_path)
    scores = json.loads(evaluate("--train", train, "--test", test).splitlines()[-1])
    assert scores["n"] == 200
    # The yardstick on the same files: no filtered abilities or profiles, other predictions.
    output = evaluate("--train", train, "--test", test, "--yardstick")
    assert "filter ability_variance 0, topic_variance 0, profile_variance 0" in output
    yardstick = json.loads(output.splitlines()[-1])
    assert yardstick["n"] == 200
    assert "fresh" in scores
    assert "fresh" not in yardstick  # the yardstick has no readiness to check
    assert yardstick["logloss"] != scores["logloss"]


def test_several_seeds_print_each_run_and_their_mean(tmp_path):
    """A fit's figures move with its seed: --seeds runs it several times and prints each
    run (as a run alone with that seed would) and their mean, the figure to compare."""
    train, test = train_and_test_files(tmp_path, train_learners=60)
    output = evaluate("--train", train, "--test", test, "--seed", "4", "--seeds", "3")
    assert "--- seed 5 (2 of 3)" in output
    summary = json.loads(output.splitlines()[-1])
    assert summary["seeds"] == [4, 5, 6]
    runs = summary["runs"]
    assert [run["seed"] for run in runs] == [4, 5, 6]
    alone = json.loads(evaluate("--train", train, "--test", test, "--seed", "5").splitlines()[-1])
    assert {k: v for k, v in runs[1].items() if k != "seed"} == alone
    aucs = [run["auc"] for run in runs]
    assert len(set(aucs)) > 1, "the seeds should give different fits"
    assert summary["mean"]["auc"] == pytest.approx(sum(aucs) / 3, abs=1e-6)
    mean_row = next(line for line in output.splitlines() if line.startswith("mean"))
    assert f"{summary['mean']['auc']:.4f}" in mean_row
    range_row = next(line for line in output.splitlines() if line.startswith("range"))
    assert f"{max(aucs) - min(aucs):.4f}" in range_row
    # Each run's row says the passes each of its two merged fits kept.
    seed_row = next(line for line in output.splitlines() if line.startswith("5 "))
    assert re.search(r"\d of \d \+ \d of \d", seed_row)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--train", "/nonexistent/train.tsv", "--split-learners", "0.8"], "cannot be read"),
        (["--train", "{bad}", "--split-learners", "0.8"], "the header lacks"),
        (["--train", "{good}", "--split-learners", "1.5"], "strictly between 0 and 1"),
        (["--train", "{good}", "--split-learners", "0"], "strictly between 0 and 1"),
        (["--test", "{good}"], "--test needs --train"),
        (["--train", "{good}"], "give --split-learners"),
        (["--train", "{good}", "--test", "{good}", "--split-learners", "0.8"], "single log"),
        (["--train", "{one_learner}", "--split-learners", "0.5"], "two learners or more"),
        (["--train", "{good}", "--split-learners", "0.5", "--seeds", "0"], "1 or more, not 0"),
    ],
)
def test_command_errors(tmp_path, args, message):
    files = {
        "bad": "learner\tquestion\n1\t2\n",
        "good": HEADER + "u1\ti1\t0\t1\ts1\nu2\ti1\t0\t0\ts1\n",
        "one_learner": HEADER + "u1\ti1\t0\t1\ts1\n",
    }
    paths = {}
    for name, text in files.items():
        paths[name] = tmp_path / f"{name}.tsv"
        paths[name].write_text(text)
    args = [arg.format(**{k: str(v) for k, v in paths.items()}) for arg in args]
    with pytest.raises(CommandError, match=message):
        evaluate(*args)


@pytest.mark.django_db
def test_command_without_files_needs_enough_site_attempts():
    learner = UserFactory()
    Attempt.objects.create(
        learner=learner, question_uid="q-1", chosen=[], is_correct=True, source=Source.PAGE
    )
    with pytest.raises(CommandError, match="Too few attempts on the site"):
        evaluate()


@pytest.mark.django_db
def test_command_replays_the_site_attempts():
    rng = random.Random(2)
    start = timezone.now() - timedelta(days=1)
    attempts = []
    for number, answers in enumerate(synthetic_log(rng, learners=15, answers=20).values()):
        learner = UserFactory()
        for k, (item, _skill, correct) in enumerate(answers):
            attempts.append(
                Attempt(
                    learner=learner,
                    question_uid=item,
                    chosen=[],
                    is_correct=correct,
                    source=Source.QUIZ,
                    answered_at=start + timedelta(minutes=100 * number + k),
                )
            )
    Attempt.objects.bulk_create(attempts)
    output = evaluate()
    assert "site attempts" in output
    scores = json.loads(output.splitlines()[-1])
    assert scores["n"] == 3 * 20  # 80% of 15 learners fit on, the other 3 replayed
