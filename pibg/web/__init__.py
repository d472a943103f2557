"""The live web page: the referee's board, the camera's view, calibration and the records.

The main loop holds a :class:`LiveView` and calls ``view.update(step, frame, obs)`` after each
referee step; a :class:`WebServer` serves the page from it (see ``pibg/web/README.md``).
"""

from pibg.web.server import ACTIONS, WebServer
from pibg.web.view import LiveView

__all__ = ["ACTIONS", "LiveView", "WebServer"]
