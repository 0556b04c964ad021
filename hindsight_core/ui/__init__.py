"""`hindsight ui`: a memory inspector in the browser, served by the process that holds the store.

Pages are rendered on the server from escaped markup (`markup`), with no script; `security` says who may use them.

    with InspectorServer(memory, port=0) as server:   # 127.0.0.1, any free port
        print(server.login_url)
"""

from .app import InspectorApp
from .security import Guard, UnsafeExposureError, check_exposure
from .server import InspectorServer

__all__ = ["Guard", "InspectorApp", "InspectorServer", "UnsafeExposureError", "check_exposure"]
