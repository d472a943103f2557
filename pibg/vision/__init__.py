"""pibg's vision: one overhead camera frame in, a :class:`~pibg.observation.BoardObservation`
out.

Stages (pure functions, :mod:`pibg.vision.board`, :mod:`pibg.vision.cube`,
:mod:`pibg.vision.dice`) work on a canonical top-down view (:mod:`pibg.vision.geometry`);
:class:`~pibg.vision.pipeline.Vision` is the one orchestrator, built from a calibration
(:mod:`pibg.vision.calibrate`, a TOML file learnt from a frame of the starting position).
:mod:`pibg.vision.motion` tells stable frames from moving ones on a low-resolution stream.

Import the parts you need (``from pibg.vision.pipeline import Vision``): this package does
not import OpenCV until a stage is used.
"""
