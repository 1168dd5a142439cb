"""Camera devices on a single-board computer: the Raspberry Pi ``picamera2`` library and its IMX500 AI camera.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; OpenCV's
``VideoCapture`` is in :mod:`~faultlib.detect.serving.blocking.libraries.media`). ``Picamera2(camera_num)`` opens the
camera through libcamera and acquires it; ``IMX500(network_file)`` reads the network firmware file and hands it to
the sensor, and ``show_network_fw_progress_bar`` loops until that upload has finished (held-out wave 79: both run by
a parking server's camera manager built in its async startup hook). A ``capture_*`` call waits for the camera's next
frame unless ``wait=False`` (the Picamera2 manual, "Capturing images and requests": "the call blocks until the
capture is complete"). ``configure``, ``start`` and ``stop`` are left out (they set the pipeline up and return; on
the corpus they were judged too cheap to report). Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

F = "blocking_file_io"
MANUAL = "https://datasheets.raspberrypi.com/camera/picamera2-manual.pdf"
OPEN = (MANUAL + " (section 2, 'Picamera2(camera_num)': constructing the object opens the camera through libcamera "
        "and acquires it)")
CAPTURE = (MANUAL + " (section 6, 'Capturing images and requests': capture_array/capture_file/capture_image/"
           "capture_request wait for the next frame of the running camera unless wait=False)")
IMX500_DOC = ("https://www.raspberrypi.com/documentation/accessories/ai-camera.html#picamera2 (IMX500(network_file) "
              "reads the network firmware file and loads it onto the sensor; show_network_fw_progress_bar loops "
              "until the upload has finished)")

_PICAMERA2 = ("picamera2.Picamera2", "picamera2.picamera2.Picamera2")
_IMX500 = ("picamera2.devices.IMX500", "picamera2.devices.imx500.IMX500", "picamera2.devices.imx500.imx500.IMX500")
_CAPTURES = ("capture_array", "capture_buffer", "capture_buffers", "capture_file", "capture_image",
             "capture_metadata", "capture_request", "capture_arrays", "switch_mode_and_capture_array",
             "switch_mode_and_capture_file", "switch_mode_and_capture_image", "switch_mode_and_capture_request")
_WAIT = BlocksWhen("wait", test="other_than", values=(False,), absent=True)

CAMERAS = Vocabulary(
    calls={
        **{name: (F, OPEN) for name in _PICAMERA2},
        **{name: (F, IMX500_DOC) for name in _IMX500},
        **{f"{name}.{method}": (F, CAPTURE) for name in _PICAMERA2 for method in _CAPTURES},
    },
    when={f"{name}.{method}": _WAIT for name in _PICAMERA2 for method in _CAPTURES},
    families=(Family(_IMX500, {"show_network_fw_progress_bar": F}, IMX500_DOC),),
    returns={**{name: name for name in (*_PICAMERA2, *_IMX500)}},
)
