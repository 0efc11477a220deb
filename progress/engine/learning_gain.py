"""How much a learner learns from one more answer on a topic, fitted on real learner logs. Plain
Python, no Django: the study plan (`plan`) projects learning with it, and the plan simulation
(`plan_simulation`) makes its simulated learners learn with it.

The model is Performance Factors Analysis (Pavlik, Cen & Koedinger, 2009) with a learner term:
for learner u answering item i of skill s, with w and f the learner's earlier right and wrong
answers on s,

    logit P(correct) = b[s] + d[i] + a[u] + k[u] * (win * log(1 + w) + fail * log(1 + f))

- b[s] is the skill's easiness, d[i] the item's offset from it and a[u] the learner's
  ability, the last two random effects whose variances are estimated with the rest (Laplace
  EM: each variance becomes the mean of the squared estimates plus their posterior
  variances), so an item or a learner with few answers stays near the average.
- win and fail are the gains on the logit scale of the log-counts: one more right answer on
  a skill already answered right w times moves the logit by win * (log(2 + w) - log(1 + w)),
  so each answer teaches less than the one before (diminishing returns, as in PFA).
- The learner term matters: without a[u], `win` also picks up that stronger learners have
  more right answers, which is a difference between learners, not learning. With it, win and
  fail measure how a learner's own success changes as they practise.
- The gains are kept at 0 or above, as DataShop's Additive Factors Model keeps its learning
  rates. Unconstrained, `fail` comes out negative on both logs (about -0.3): a wrong answer
  is followed by lower success, because it reveals a learner weaker on that skill than their
  overall ability says, not because it unteaches. That is evidence, which the readiness
  model's filter already takes from each answer; the plan needs the learning alone. (A
  learner-skill random effect would take the evidence, but its variance, estimated, shrinks
  towards 0 over hundreds of rounds and `fail` with it stays negative.) With the bound, both
  logs give fail = 0: the learning shows in the right answers.
- k[u] is how fast this learner learns compared with the typical one (k = 1). It is what
  makes a projection of someone's learning uncertain: its spread across learners, `spread`,
  is estimated after the rest, from each learner's own estimate of k (with a[u], by a few
  2 x 2 Newton steps) and its standard error, by the method of moments of DerSimonian &
  Laird (1986) for random effects: the observed variance of the estimates minus the part
  their sampling noise explains.

The fit is penalised maximum likelihood by block-coordinate Newton: the items, the skills and
the learners are each a block whose parameters touch disjoint rows (each row has one item, one
skill and one learner), so each block's Newton step is exact per parameter and costs one pass
over the rows. The two gains step jointly with the learner block (the 2 x 2 system left once
the block is eliminated, its Schur complement): stepped apart, they zig-zag against the
abilities for hundreds of rounds. Rounds go on until the gains and the variances move by less
than `tolerance` in a round. No numpy: the project does not
depend on it, and a pass over 400,000 rows takes a fraction of a second in plain Python.

    .venv/bin/python -m progress.engine.learning_gain /work/shared/data/kt/*_train.tsv

refits FITTED_GAIN (see its comment for the figures).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from progress.engine.learner_model import Answer


@dataclass(frozen=True)
class LearningGain:
    """Per-opportunity learning on the logit scale (see the module docstring): `win` and `fail`
    multiply log(1 + right answers) and log(1 + wrong answers) on a topic; `spread` is the
    standard deviation across learners of the multiplier k of both (mean 1)."""

    win: float
    fail: float
    spread: float = 0.0

    def shift(self, wins: float, fails: float) -> float:
        """The logit a learner has gained on a topic after this many right and wrong answers
        (counts may be fractional: expected counts in a projection), for k = 1."""
        return self.win * math.log1p(wins) + self.fail * math.log1p(fails)

    def step(self, wins: float, fails: float, correct: bool) -> float:
        """What one more answer adds to the logit, after `wins` and `fails` answers."""
        if correct:
            return self.win * (math.log1p(wins + 1.0) - math.log1p(wins))
        return self.fail * (math.log1p(fails + 1.0) - math.log1p(fails))


# Fitted on the training learners of both logs in /work/shared/data/kt (ASSISTments 2009 and
# OLI Statics, pooled; their item and skill ids kept apart), reproduced by
#     .venv/bin/python -m progress.engine.learning_gain \
#         /work/shared/data/kt/assistments09_train.tsv /work/shared/data/kt/statics_train.tsv
# which prints (about 6 minutes for the three fits):
#     assistments09: win 0.3966 (se 0.0072), fail 0 (held at 0), spread 0.4985 (1,629 learners)
#     statics:       win 0.1963 (se 0.0098), fail 0 (held at 0), spread 0.4605 (218 learners)
#     pooled:        win 0.3457 (se 0.0057), fail 0 (held at 0), spread 0.3887 (1,847 learners);
#                    375,767 answers of 2,716 learners, log-loss 0.4472, 146 rounds
# So a learner's first right answer on a topic adds 0.35 x log 2 = 0.24 to the logit, the
# tenth 0.035; a typical learner learns at 1 +- 0.39 times that.
FITTED_GAIN = LearningGain(win=0.3457, fail=0.0, spread=0.3887)


@dataclass(frozen=True)
class GainFit:
    """A fit and its figures: standard errors of the two gains (from the curvature of the
    penalised likelihood, the other parameters held at their estimates), the learners used
    for the spread, the mean log-loss, Newton rounds and seconds."""

    gain: LearningGain
    win_se: float
    fail_se: float
    answers: int
    learners: int
    spread_learners: int
    variances: tuple[float, ...]  # of the item offsets and of the learner abilities
    logloss: float
    rounds: int
    seconds: float

    def summary(self) -> str:
        g = self.gain
        variances = ", ".join(f"{v:.3f}" for v in self.variances)
        return (
            f"win {g.win:.4f} (se {self.win_se:.4f}), fail {g.fail:.4f} "
            f"(se {self.fail_se:.4f}), spread {g.spread:.4f} "
            f"({self.spread_learners:,} learners); variances of items, learners {variances}; "
            f"{self.answers:,} answers of {self.learners:,} learners, "
            f"log-loss {self.logloss:.4f}, {self.rounds} rounds, {self.seconds:.1f} s"
        )


# Priors (precisions) of the item offsets and learner abilities, and a weak one on the skill
# easiness and the gains that only keeps Newton's steps finite when a skill is all right.
MIN_VARIANCE = 0.01
WEAK_PRECISION = 1e-3
# Learners with fewer answers say almost nothing about their own k.
MIN_SPREAD_ANSWERS = 20


def _sigmoid_list(zs: list[float]) -> list[float]:
    exp = math.exp
    return [1.0 / (1.0 + exp(-z)) if z > -35.0 else 6e-16 for z in zs]


def _block_step(
    groups: list[int],
    n_groups: int,
    ps: list[float],
    ys: list[float],
    values: list[float],
    precision: float,
) -> tuple[list[float], list[float]]:
    """One Newton step for parameters each touching its own rows, under a N(0, 1/precision)
    prior: step = -(gradient) / (curvature), per parameter; and the curvatures."""
    grad = [precision * v for v in values]
    hess = [precision] * n_groups
    for g, p, y in zip(groups, ps, ys, strict=True):
        grad[g] += p - y
        hess[g] += p * (1.0 - p)
    return [-gr / h for gr, h in zip(grad, hess, strict=True)], hess


def _joint_step(
    groups: list[int],
    values: list[float],
    precision: float,
    zs: list[float],
    ys: list[float],
    xw: list[float],
    xf: list[float],
    win: float,
    fail: float,
    joint: bool,
) -> tuple[list[float], list[float], float, float, list[list[float]]]:
    """One Newton step for a block of parameters each touching its own rows, under a
    N(0, 1/precision) prior, jointly with the two gains when `joint` (else they stay): the
    gains' step solves the 2 x 2 system left once the block is eliminated (its Schur
    complement), then each parameter's step follows. Returns the block's steps and
    curvatures, the gains' steps, and the gains' curvature with the block eliminated."""
    n_groups = len(values)
    grad = [precision * v for v in values]
    hess = [precision] * n_groups
    cross_w = [0.0] * n_groups
    cross_f = [0.0] * n_groups
    g_w = WEAK_PRECISION * win
    g_f = WEAK_PRECISION * fail
    h_ww = h_ff = WEAK_PRECISION
    h_wf = 0.0
    exp = math.exp
    for g, z, y, u, v in zip(groups, zs, ys, xw, xf, strict=True):
        p = 1.0 / (1.0 + exp(-z)) if z > -35.0 else 6e-16
        r = p - y
        h = p * (1.0 - p)
        grad[g] += r
        hess[g] += h
        hu, hv = h * u, h * v
        cross_w[g] += hu
        cross_f[g] += hv
        g_w += r * u
        g_f += r * v
        h_ww += hu * u
        h_wf += hu * v
        h_ff += hv * v
    s_w = s_f = 0.0
    if joint:
        for g in range(n_groups):
            cw, cf, inv = cross_w[g], cross_f[g], 1.0 / hess[g]
            g_w -= cw * grad[g] * inv
            g_f -= cf * grad[g] * inv
            h_ww -= cw * cw * inv
            h_wf -= cw * cf * inv
            h_ff -= cf * cf * inv
        det = h_ww * h_ff - h_wf * h_wf
        s_w = -(h_ff * g_w - h_wf * g_f) / det
        s_f = -(h_ww * g_f - h_wf * g_w) / det
        # Learning is never negative (see the module docstring): a gain that would go below
        # 0 is held at 0 and the other takes its Newton step alone.
        if fail + s_f < 0.0:
            s_f = -fail
            s_w = -(g_w + h_wf * s_f) / h_ww
        if win + s_w < 0.0:
            s_w = -win
            s_f = max(-(g_f + h_wf * s_w) / h_ff, -fail)
    steps = [-(grad[g] + cross_w[g] * s_w + cross_f[g] * s_f) / hess[g] for g in range(n_groups)]
    return steps, hess, s_w, s_f, [[h_ww, h_wf], [h_wf, h_ff]]


def fit_gain_report(
    sequences: Sequence[Sequence[Answer]],
    *,
    tolerance: float = 1e-4,
    max_rounds: int = 500,
) -> GainFit:
    """Fit the model of the module docstring on learners' answer sequences (each in the order
    answered; a skill is the answer's topic). Deterministic. Raises ValueError on no answers."""
    started = time.perf_counter()
    items: dict[str, int] = {}
    skills: dict[str, int] = {}
    row_item: list[int] = []
    row_skill: list[int] = []
    row_learner: list[int] = []
    xw: list[float] = []
    xf: list[float] = []
    ys: list[float] = []
    n_learners = 0
    for answers in sequences:
        if not answers:
            continue
        counts: dict[str, list[float]] = {}
        for item_id, skill_id, score in answers:
            c = counts.get(skill_id)
            if c is None:
                c = counts[skill_id] = [0, 0]
            row_item.append(items.setdefault(item_id, len(items)))
            row_skill.append(skills.setdefault(skill_id, len(skills)))
            row_learner.append(n_learners)
            xw.append(math.log1p(c[0]))
            xf.append(math.log1p(c[1]))
            # A partly right answer: a fractional target, counted as its share right (as
            # the learner model counts it).
            ys.append(float(score))
            c[0] += score
            c[1] += 1 - score
        n_learners += 1
    n = len(ys)
    if n == 0:
        raise ValueError("no answers to fit the learning gain on.")

    b = [0.0] * len(skills)
    d = [0.0] * len(items)
    a = [0.0] * n_learners
    win = fail = 0.0
    # The variances of the random effects (item offsets, learner abilities), estimated.
    variances = [1.0, 1.0]
    zs = [0.0] * n
    rounds = 0
    info = [[WEAK_PRECISION, 0.0], [0.0, WEAK_PRECISION]]
    s_w = s_f = 0.0
    for rounds in range(1, max_rounds + 1):  # noqa: B007 - reported after the loop
        before = (win, fail, *variances)
        steps, _ = _block_step(row_skill, len(b), _sigmoid_list(zs), ys, b, WEAK_PRECISION)
        for g, s in enumerate(steps):
            b[g] += s
        zs = [z + steps[g] for z, g in zip(zs, row_skill, strict=True)]
        for k, (groups, values) in enumerate(((row_item, d), (row_learner, a))):
            precision = 1.0 / variances[k]
            # The gains move with the learners, which they are entangled with: stepping
            # them apart zig-zags for hundreds of rounds.
            joint = k > 0
            steps, hess, s_w, s_f, info = _joint_step(
                groups, values, precision, zs, ys, xw, xf, win, fail, joint
            )
            for g, s in enumerate(steps):
                values[g] += s
            # Laplace EM: the variance is the mean of the squared estimates plus their
            # posterior variances.
            variances[k] = max(
                (sum(v * v for v in values) + sum(1.0 / h for h in hess)) / len(values),
                MIN_VARIANCE,
            )
            win += s_w
            fail += s_f
            zs = [
                z + steps[g] + s_w * u + s_f * v
                for z, g, u, v in zip(zs, groups, xw, xf, strict=True)
            ]
        # Converged when the gains and the variances settle (thousands of item offsets
        # would keep moving by tiny amounts long after what is reported has stopped).
        if (
            max(abs(x - y) for x, y in zip((win, fail, *variances), before, strict=True))
            < tolerance
        ):
            break
    det = info[0][0] * info[1][1] - info[0][1] ** 2
    win_se = math.sqrt(info[1][1] / det)
    fail_se = math.sqrt(info[0][0] / det)

    ps = _sigmoid_list(zs)
    logloss = -sum(
        math.log(max(p if y else 1.0 - p, 1e-15)) for p, y in zip(ps, ys, strict=True)
    ) / max(n, 1)
    spread, spread_learners = _learner_spread(
        zs, ys, xw, xf, row_learner, a, win, fail, 1.0 / variances[1]
    )
    return GainFit(
        gain=LearningGain(win=win, fail=fail, spread=spread),
        win_se=win_se,
        fail_se=fail_se,
        answers=n,
        learners=n_learners,
        spread_learners=spread_learners,
        variances=tuple(variances),
        logloss=logloss,
        rounds=rounds,
        seconds=time.perf_counter() - started,
    )


def _learner_spread(
    zs: list[float],
    ys: list[float],
    xw: list[float],
    xf: list[float],
    row_learner: list[int],
    abilities: list[float],
    win: float,
    fail: float,
    precision: float,
) -> tuple[float, int]:
    """The standard deviation across learners of k (see the module docstring): each learner's
    (a[u], k[u]) fitted by a few 2 x 2 Newton steps with the rest held, then DerSimonian and
    Laird's moment estimate from the k's and their standard errors."""
    n_learners = len(abilities)
    learned = [win * u + fail * v for u, v in zip(xw, xf, strict=True)]
    # The logit without the learner's own terms.
    base = [z - abilities[g] - c for z, g, c in zip(zs, row_learner, learned, strict=True)]
    a = list(abilities)
    k = [1.0] * n_learners
    curvature = [[0.0, 0.0, 0.0] for _ in range(n_learners)]
    for _ in range(8):
        grad = [[precision * a[g], WEAK_PRECISION * (k[g] - 1.0)] for g in range(n_learners)]
        curvature = [[precision, 0.0, WEAK_PRECISION] for _ in range(n_learners)]
        for z0, g, c, y in zip(base, row_learner, learned, ys, strict=True):
            z = z0 + a[g] + k[g] * c
            p = 1.0 / (1.0 + math.exp(-z)) if z > -35.0 else 6e-16
            r = p - y
            h = p * (1.0 - p)
            gr = grad[g]
            gr[0] += r
            gr[1] += r * c
            cu = curvature[g]
            cu[0] += h
            cu[1] += h * c
            cu[2] += h * c * c
        for g in range(n_learners):
            h_aa, h_ak, h_kk = curvature[g]
            g_a, g_k = grad[g]
            det = h_aa * h_kk - h_ak * h_ak
            a[g] -= (h_kk * g_a - h_ak * g_k) / det
            k[g] -= (h_aa * g_k - h_ak * g_a) / det
    answers = [0] * n_learners
    for g in row_learner:
        answers[g] += 1
    estimates: list[tuple[float, float]] = []  # (k, its variance)
    for g in range(n_learners):
        if answers[g] < MIN_SPREAD_ANSWERS:
            continue
        h_aa, h_ak, h_kk = curvature[g]
        det = h_aa * h_kk - h_ak * h_ak
        variance = h_aa / det
        if det > 0.0 and variance < 100.0:  # no information on k (e.g. all right): left out
            estimates.append((k[g], variance))
    if len(estimates) < 2:
        return 0.0, len(estimates)
    weights = [1.0 / v for _, v in estimates]
    total = sum(weights)
    mean = sum(w * kk for w, (kk, _) in zip(weights, estimates, strict=True)) / total
    q = sum(w * (kk - mean) ** 2 for w, (kk, _) in zip(weights, estimates, strict=True))
    denominator = total - sum(w * w for w in weights) / total
    tau2 = max(0.0, (q - (len(estimates) - 1)) / denominator)
    return math.sqrt(tau2), len(estimates)


def fit_learning_gain(sequences: Sequence[Sequence[Answer]]) -> LearningGain:
    """The gain fitted on these sequences (see `fit_gain_report` for the figures)."""
    return fit_gain_report(sequences).gain


def read_logs(paths: Sequence[str]) -> list[list[Answer]]:
    """The learners of one or more logs (evaluation.read_log's format), their item and skill
    ids prefixed with the file's position so that two logs' ids never collide."""
    from progress.engine.evaluation import read_log  # the reader and its error messages

    sequences: list[list[Answer]] = []
    for position, path in enumerate(paths):
        for answers in read_log(path).values():
            sequences.append(
                [
                    Answer(
                        f"{position}:{answer.item_id}",
                        f"{position}:{answer.topic_id}",
                        answer.score,
                    )
                    for answer in answers
                ]
            )
    return sequences


def main(argv: Sequence[str]) -> int:
    if not argv:
        print("usage: python -m progress.engine.learning_gain LOG.tsv [LOG.tsv ...]")
        return 2
    for path in argv:
        print(f"{path}: {fit_gain_report(read_logs([path])).summary()}")
    if len(argv) > 1:
        print(f"pooled: {fit_gain_report(read_logs(argv)).summary()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
