"""Feature configs (``serving.feature_skew``): two versions of a feature pipeline's config that differ.

- :func:`load_feature_config` (:mod:`.config`): a config read through the hardened YAML/JSON reader;
- :func:`diff_feature_configs` (:mod:`.diff`): added, removed, changed and moved features, each classified
  (``faultlib check features``);
- :func:`attribute_predictions` (:mod:`.attribution`): which change moved which prediction.
"""

from faultlib.lazy import lazy_exports

_EXPORTS = {
    "Feature": "config", "FeatureConfig": "config", "load_feature_config": "config", "parse_feature_config": "config",
    "Change": "diff", "FeatureConfigDiff": "diff", "diff_feature_configs": "diff",
    "Attribution": "attribution", "attribute_predictions": "attribution",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
