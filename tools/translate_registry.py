"""The table of ``hlokit-translate``'s modes and the decorator that fills it.

A mode is one flag of ``hlokit-translate`` (``--serialize``, ``--indexing-maps``, ...) and the function
that runs it. Each ``tools/translate_<mode>.py`` module registers its modes with
:func:`register_translate_mode`; ``tools/hlokit_translate.py`` imports those modules by name (its
``MODE_MODULES`` tuple) and builds its command line from :data:`TRANSLATE_MODES`. Adding a mode is one
module with one decorated ``run`` function, plus its name in that tuple.

This module holds only the table so that the mode modules and the tool import it without importing
each other.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from typing import Callable

__all__ = ["TranslateMode", "TRANSLATE_MODES", "register_translate_mode"]

RunMode = Callable[[argparse.Namespace], int]
AddArguments = Callable[[argparse.ArgumentParser], None]

_FLAG = re.compile(r"--[a-z0-9]+(-[a-z0-9]+)*")


@dataclass(frozen=True)
class TranslateMode:
    """One mode of ``hlokit-translate``.

    ``flag`` is the long option that selects it (``"--indexing-maps"``; ``-indexing-maps`` is accepted
    too, as upstream ``stablehlo-translate`` does); ``help`` its line in ``--help``; ``run(args)`` runs it
    on the parsed command line and returns the exit code; ``add_arguments(parser)``, when given, adds
    the options only this mode reads; ``module`` is the module that registered it.
    """

    flag: str
    help: str
    run: RunMode
    add_arguments: AddArguments | None
    module: str

    @property
    def dest(self) -> str:
        """The attribute of the parsed arguments that is true when this mode was chosen."""
        return "mode_" + self.flag[2:].replace("-", "_")


#: flag -> mode, in registration order.
TRANSLATE_MODES: dict[str, TranslateMode] = {}


def register_translate_mode(flag: str, *, help: str, add_arguments: AddArguments | None = None) -> Callable[[RunMode], RunMode]:
    """Decorator: make ``run(args) -> int`` the mode ``flag`` of ``hlokit-translate``.

    ``flag`` is a long option of lowercase words joined by ``-`` (``"--stablehlo-to-hlo-text"``).
    Raises ``ValueError`` for a malformed flag and when ``flag`` already belongs to another mode (two
    modules must not both claim a flag); the table is unchanged then.
    """
    if not _FLAG.fullmatch(flag):
        raise ValueError(f"translate mode flag '{flag}' is not of the form --word[-word...]")

    def deco(run: RunMode) -> RunMode:
        old = TRANSLATE_MODES.get(flag)
        if old is not None and old.run is not run:
            raise ValueError(
                f"translate mode '{flag}' registered twice ({old.module}.{old.run.__qualname__} and "
                f"{run.__module__}.{run.__qualname__})"
            )
        TRANSLATE_MODES[flag] = TranslateMode(flag, help, run, add_arguments, run.__module__)
        return run

    return deco
