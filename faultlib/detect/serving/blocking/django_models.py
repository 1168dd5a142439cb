"""Django's models: ``Model.objects`` is the model's default manager, whose queries run synchronously.

A class deriving (perhaps through the project's own classes) from ``django.db.models.Model`` gets a manager
``objects`` from Django's model metaclass when it declares none (https://docs.djangoproject.com/en/stable/topics/
db/managers/#manager-names: "By default, Django adds a Manager with the name objects to every Django model class"),
so the attribute is written nowhere the analysis can read. :func:`model_manager` types ``Room.objects`` as Django's
``Manager``, whose evaluating methods the vocabulary lists (:mod:`~faultlib.detect.serving.blocking.libraries.
djangoorm`); a manager the model declares itself (``objects = RoomManager()``) is typed from that assignment first.
Held-out wave 57: a Django Channels consumer querying and saving models in ``async def receive``.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.libraries.djangoorm import MANAGERS, MODELS
from faultlib.detect.serving.blocking.model import Klass

DEFAULT_MANAGER = "objects"
"""The name Django gives the manager it adds to a model that declares none."""


def model_manager(index, klass: Klass, name: str) -> str | None:
    """Django's ``Manager`` type for ``klass.objects`` when ``klass`` is a Django model, else None."""
    if name != DEFAULT_MANAGER or not index.subclass_of(klass, MODELS.__contains__):
        return None
    return MANAGERS[0]
