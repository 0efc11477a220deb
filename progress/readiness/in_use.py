"""The learner model in use: the newest fit's parameters (ReadinessFit), or the starting ones
before the site has a fit, parsed once per process."""

import json
from dataclasses import dataclass
from datetime import datetime

from progress.engine import learner_model
from progress.readiness.models import ReadinessFit


def starting_params() -> learner_model.ModelParams:
    """The parameters before the site has attempts to fit on: an Elo / Rasch model with
    uncertainty (Glicko-like), with priors from the item-response literature rather than from
    any data set: abilities and question difficulties spread by about one logit, topic offsets
    by about 0.7, a little drift so that learners can learn, and a typical practice accuracy
    of about 62% (bias 0.5). No history weights: `rebuild_readiness` fits them once the site
    has enough attempts."""
    return learner_model.ModelParams(
        bias=0.5,
        ability_variance=1.0,
        topic_variance=0.5,
        profile_variance=0.0,
        ability_drift=0.003,
        topic_drift=0.003,
        item_variance=1.0,
    )


@dataclass(frozen=True)
class ModelInUse:
    fit_id: int | None
    model: learner_model.ReadinessModel
    last_attempt_id: int
    fitted_items: frozenset[str]

    def learns_from(self, attempt_id: int, question_id: int | None) -> bool:
        """Whether this answer still moves the question's difficulty (see ReadinessFit)."""
        if question_id is None:
            return False
        return attempt_id > self.last_attempt_id or str(question_id) not in self.fitted_items

    def new_item(self) -> learner_model.ItemState:
        return learner_model.ItemState(0.0, self.model.params.item_variance, 0)

    def starting_item(self, question_id: int) -> learner_model.ItemState:
        """A question's state before its first answer: as fitted, or a new average one."""
        fitted = self.model.params.items.get(str(question_id))
        return learner_model.ItemState.from_dict(fitted.to_dict()) if fitted else self.new_item()


_MODELS: dict[tuple[int, datetime] | None, ModelInUse] = {}


def current_model() -> ModelInUse:
    """The model in use. One query (`model_of` says which fit that is)."""
    return model_of(ReadinessFit.objects.order_by("-pk").values_list("pk", "created_at").first())


def model_of(newest: tuple[int, datetime] | None) -> ModelInUse:
    """The model of the newest fit (its id and creation time; None: no fit yet). The parsed
    parameters are kept per process, keyed by both (SQLite may give a deleted fit's id to the
    next one): a query only when a new fit has been stored. Nobody changes them: callers pass
    their own ItemState copies to the model."""
    in_use = _MODELS.get(newest)
    if in_use is None:
        if newest is None:
            in_use = ModelInUse(
                None, learner_model.ReadinessModel(starting_params()), 0, frozenset()
            )
        else:
            fit = ReadinessFit.objects.get(pk=newest[0])
            params = learner_model.ModelParams.from_json(json.dumps(fit.params))
            in_use = ModelInUse(
                fit.pk, learner_model.ReadinessModel(params), fit.last_attempt_id,
                frozenset(params.items),
            )  # fmt: skip
        _MODELS[newest] = in_use
    return in_use
