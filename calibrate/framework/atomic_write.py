"""Writing a file so that a failed run leaves nothing half-written: a temporary file in the
same directory, renamed over the target only when complete."""

import os
import tempfile


def write_atomically(path, text):
    """Writes `text` to `path` through a temporary file beside it."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
