"""Face detection and recognition with the ``face_recognition`` library (dlib's detectors and embedding network).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``face_locations`` runs dlib's HOG (or CNN) face detector over the whole image, ``face_encodings`` detects the faces
(when no locations are given) and runs the 128-d embedding network on each, ``face_landmarks`` the landmark model;
all are C++ in the calling thread (held-out wave 79: encodings of every websocket frame in an async loop of a
sign-in service). ``load_image_file`` reads and decodes an image file. ``compare_faces`` and ``face_distance`` are
left out: numpy distances over a few 128-d vectors, too cheap to report. Each entry names the documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

C, F = "blocking_cpu", "blocking_file_io"
API = "https://face-recognition.readthedocs.io/en/latest/face_recognition.html#face_recognition.api."
_MODELS = {
    "face_locations": "face_locations (finds the faces with dlib's HOG or CNN detector over the whole image)",
    "batch_face_locations": "batch_face_locations (the CNN detector over a batch of images)",
    "face_encodings": "face_encodings (detects the faces, then runs the 128-dimension embedding network on each)",
    "face_landmarks": "face_landmarks (detects the faces, then runs the landmark model on each)",
}

FACES = Vocabulary(
    calls={
        **{f"{module}.{name}": (C, f"{API}{name} {what}") for module in ("face_recognition", "face_recognition.api")
           for name, what in _MODELS.items()},
        **{f"{module}.load_image_file": (F, f"{API}load_image_file (reads and decodes an image file)")
           for module in ("face_recognition", "face_recognition.api")},
    },
)
