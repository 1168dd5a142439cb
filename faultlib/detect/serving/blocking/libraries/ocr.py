"""Optical character recognition: Tesseract through ``pytesseract``, EasyOCR, PaddleOCR and Surya.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; building an
``easyocr.Reader`` is among the model loaders of :mod:`faultlib.detect.serving.blocking.sdks`). ``pytesseract`` is a
wrapper around the ``tesseract`` program: each ``image_to_*`` call writes the image to a temporary file, runs the
program as a child process and waits for it (``run_and_get_output`` -> ``run_tesseract`` -> ``subprocess.Popen`` then
``proc.wait``), so it blocks for the whole recognition. An EasyOCR ``Reader``'s ``readtext``/``detect``/``recognize``
and a PaddleOCR engine's ``ocr``/``predict`` run the detection and recognition networks in the calling thread;
building a ``PaddleOCR`` loads (or downloads) its models. Surya's predictors (``LayoutPredictor``,
``RecognitionPredictor``, ``DetectionPredictor``...; held-out wave 44, marker's PDF server) load their checkpoint when
built and run the network when called. Each entry names the documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

C, F, P = "blocking_cpu", "blocking_file_io", "blocking_subprocess"

PYTESSERACT = ("https://github.com/madmaze/pytesseract#usage (\"Python-tesseract is a wrapper for Google's "
               "Tesseract-OCR Engine\": every function runs the tesseract binary as a subprocess and waits)")
EASYOCR = "https://www.jaided.ai/easyocr/documentation/ (readtext runs the detector and the recognizer)"
PADDLEOCR = ("https://paddlepaddle.github.io/PaddleOCR/main/en/version3.x/pipeline_usage/OCR.html (PaddleOCR() "
             "loads or downloads the models; ocr/predict run them)")
SURYA = ("https://github.com/datalab-to/surya#usage (a predictor loads its model when built, "
         "`RecognitionPredictor(foundation_predictor)`, and runs it when called, `predictor([image])`)")

OCR = Vocabulary(
    calls={
        **names(P, PYTESSERACT, "pytesseract", "image_to_string", "image_to_boxes", "image_to_data",
                "image_to_osd", "image_to_pdf_or_hocr", "image_to_alto_xml", "run_and_get_output",
                "run_tesseract", "get_languages", "get_tesseract_version"),
        **names(P, PYTESSERACT, "pytesseract.pytesseract", "image_to_string", "image_to_boxes", "image_to_data",
                "image_to_osd", "image_to_pdf_or_hocr", "image_to_alto_xml", "run_and_get_output",
                "run_tesseract"),
        **names(F, PADDLEOCR, "paddleocr", "PaddleOCR"),
    },
    families=(
        Family(("easyocr.Reader", "easyocr.easyocr.Reader"),
               {m: C for m in ("readtext", "readtextlang", "readtext_batched", "detect", "recognize")}, EASYOCR),
        Family(("paddleocr.PaddleOCR",), {"ocr": C, "predict": C}, PADDLEOCR),
        Family(("surya.",), {"__init__": F, "__call__": C}, SURYA, prefix=True, suffix="Predictor"),
    ),
    returns={"paddleocr.PaddleOCR": "paddleocr.PaddleOCR"},
)
