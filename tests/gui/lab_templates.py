"""The template labs in the generic suites, listed once.

The registry skips the templates (their folders start with ``_``, see ``app/registry.py``), yet
every suite that runs over all labs checks them too: it parametrizes over :data:`CHECKED` (or
:data:`PACKAGES`), and a window asked for a template by the ``make_window`` fixture
(``conftest.py``) finds it in the registry for that test (:func:`register`). A new template is
one more row of :data:`TEMPLATES`.
"""

from __future__ import annotations

from app import registry

#: id -> package of each template lab
TEMPLATES = {"example": "app.labs._example", "example_points": "app.labs._example_points"}
#: the ids of the registered labs
REGISTERED = [info.id for info in registry.discover()]
#: the ids of every lab a generic suite checks: the registered ones, then the templates
CHECKED = [*REGISTERED, *TEMPLATES]
#: the packages of those labs, in the same order
PACKAGES = [*(info.package for info in registry.discover()), *TEMPLATES.values()]


def register(lab_ids, monkeypatch) -> None:
    """Add the templates among ``lab_ids`` to the registry until the test ends."""
    known = {info.id for info in registry.discover()}
    wanted = [registry.LabInfo.of(TEMPLATES[i]) for i in lab_ids or () if i in TEMPLATES and i not in known]
    if wanted:
        monkeypatch.setattr(registry, "_cache", [*registry.discover(), *wanted])
