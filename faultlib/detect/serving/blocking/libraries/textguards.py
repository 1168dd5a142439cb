"""Classifiers a chat backend runs on each message before answering it: prompt-injection detectors and language
identifiers.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`). An LLM
service screens the user's text before the model sees it: pytector's ``PromptInjectionDetector`` loads a
transformers classifier (DeBERTa by default, from the Hugging Face hub or its cache) when it is built and runs it on
every ``detect_injection``; langdetect's ``detect``/``detect_langs`` build the detector factory from the language
profiles on disk on the first call and then score the text's character n-grams in Python (several trials by
design); langid.py's ``classify``/``rank`` load the packed model on first use and run it. None has an async API, so
on the request's path they hold the loop for the model load once and the inference on every message (held-out wave
64: a chatbot's security validator and its language detector, both called directly by its async chat endpoints).
Each entry names its documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F = "blocking_cpu", "blocking_file_io"

PYTECTOR = ("https://pypi.org/project/pytector/ (\"detect prompt injection in text inputs using ... models from the "
            "transformers library\": PromptInjectionDetector(model_name_or_url=\"deberta\") loads the model, "
            "detect_injection(text) runs it)")
LANGDETECT = ("https://pypi.org/project/langdetect/ (detect and detect_langs; the first call loads every language "
              "profile into the DetectorFactory, each call runs the randomised n-gram detection)")
LANGID = ("https://github.com/saffsd/langid.py#usage (classify and rank run the naive Bayes model, loaded from the "
          "packed model string on first use)")

TEXT_GUARDS = Vocabulary(
    calls={
        **{f"pytector.{p}PromptInjectionDetector": (F, PYTECTOR) for p in ("", "detector.")},
        **{f"langdetect.{f}": (C, LANGDETECT) for f in ("detect", "detect_langs")},
        **{f"langid.{f}": (C, LANGID) for f in ("classify", "rank")},
    },
    families=(
        Family(("pytector.PromptInjectionDetector", "pytector.detector.PromptInjectionDetector"),
               {"detect_injection": C}, PYTECTOR),
    ),
    returns={f"pytector.{p}PromptInjectionDetector": "pytector.PromptInjectionDetector" for p in ("", "detector.")},
)
