from courseiva.http import HtmxHttpRequest
from progress.accounts.models import User


class AuthenticatedHttpRequest(HtmxHttpRequest):
    """The request of a view behind `login_required`: its user is signed in, so views read
    `request.user` as a User without checking it again."""

    user: User
