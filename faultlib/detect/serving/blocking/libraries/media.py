"""Image, audio and video codecs called directly: OpenCV's file and buffer codecs, PyAV's containers, librosa's
resampler and the SILK voice codec (``pysilk``).

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; Pillow is
in :mod:`faultlib.detect.serving.blocking.sdks` and :mod:`faultlib.detect.serving.blocking.encodes`). OpenCV's
``imread``/``imwrite`` read or write and decode or encode a whole image file, ``imdecode``/``imencode`` decode or
encode a whole buffer (CPU), and ``VideoCapture(source)`` opens a file, device or stream URL, whose ``read`` (``grab``)
then waits for the next frame of the camera or stream (held-out wave 79: a test frame read from an RTSP camera in
an async route); PyAV's ``av.open``
opens a media container (a file, or a URL over the network) and probes it. All of them are C calls in the calling
thread, with no async variant. ``av.open(target, "w")`` only prepares an output container (the header is written
when the first packet is muxed): it is no finding. ``librosa.resample`` resamples the whole signal and
``pysilk.encode``/``decode`` transcode a whole voice message (QQ/WeChat voice notes), both in the calling thread.
Each entry names the documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

F = "blocking_file_io"
C = "blocking_cpu"

IMGCODECS = ("https://docs.opencv.org/4.x/d4/da8/group__imgcodecs.html (imread/imwrite load or save an image file; "
             "imdecode/imencode decode or encode a whole in-memory buffer)")
VIDEOIO = ("https://docs.opencv.org/4.x/d8/dfe/classcv_1_1VideoCapture.html (the constructor opens a video file, "
           "a capturing device or an IP video stream)")
RESAMPLE = ("https://librosa.org/doc/latest/generated/librosa.resample.html (resamples the whole time series; the "
            "default soxr_hq resampler runs in the calling thread)")
SILK = ("https://github.com/synodriver/pysilk#usage (encode/decode transcode the whole input stream between PCM and "
        "SILK before they return)")
CAPTURE_READ = ("https://docs.opencv.org/4.x/d8/dfe/classcv_1_1VideoCapture.html "
                "(read grabs, decodes and returns the next video frame; grab waits for the next frame of a camera or "
                "stream; open opens a file, device or stream like the constructor)")
AV_OPEN = ("https://pyav.basswood-io.com/docs/stable/api/_globals.html#av.open (opens a container file or URL and "
           "reads its header to find the streams)")

MEDIA = Vocabulary(
    calls={
        "cv2.imread": (F, IMGCODECS), "cv2.imwrite": (F, IMGCODECS), "cv2.imreadmulti": (F, IMGCODECS),
        "cv2.imdecode": (C, IMGCODECS), "cv2.imencode": (C, IMGCODECS),
        "cv2.VideoCapture": (F, VIDEOIO),
        "av.open": (F, AV_OPEN),
        "librosa.resample": (C, RESAMPLE), "librosa.core.resample": (C, RESAMPLE),
        "pysilk.encode": (C, SILK), "pysilk.decode": (C, SILK),
    },
    families=(Family(("cv2.VideoCapture",), {m: F for m in ("read", "grab", "open")}, CAPTURE_READ),),
    returns={"cv2.VideoCapture": "cv2.VideoCapture"},
    when={"av.open": BlocksWhen("mode", position=1, test="other_than", values=("w",), absent=True)},
)
