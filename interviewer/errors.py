"""The project's small error hierarchy; edges (CLI, app) translate these into messages."""


class InterviewerError(Exception):
    """Base class: anything the user can act on."""


class InputError(InterviewerError):
    """A file, row, answer or audio clip that cannot be used as given."""


class IndexMissingError(InterviewerError):
    """No index has been built yet."""


class LLMError(InterviewerError):
    """The LLM endpoint failed or answered with something unusable."""


class StaleSessionError(InterviewerError):
    """A save from a session that was changed elsewhere since it was loaded (another answer to
    the same turn, from another request or another app instance)."""


class StorageError(InterviewerError):
    """The sessions database cannot be reached or written right now."""


class DependencyError(InterviewerError):
    """An optional heavy dependency is not installed."""


def require(module: str, extra: str) -> None:
    """Raise a clear install hint when an optional dependency is missing."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise DependencyError(
            f"'{module}' is not installed; install it with: pip install 'interviewer[{extra}]'"
        )
