"""The progress line that long commands write to stderr while they go through the attempts."""

from collections.abc import Callable

from django.core.management.base import OutputWrapper


def progress_line(
    stderr: OutputWrapper, verb: str, total: int, shown: bool
) -> Callable[[int], None]:
    """A callback for `done` answers out of `total`: rewrites "… replayed 10,000 of 50,000
    answers (20%)" on one line (nothing when `shown` is false, e.g. at verbosity 0)."""

    def report(done: int) -> None:
        if shown:
            share = 100 * done / total if total else 100
            stderr.write(f"\r… {verb} {done:,} of {total:,} answers ({share:.0f}%)", ending="")
            stderr.flush()

    return report
