"""tap.py - the reporting the Python test scripts share, kept in one place so that they
print the same lines and exit with the same codes: `ok - WHAT` / `not ok - WHAT` for each
check, a closing summary (`# N failed` unless the script says otherwise), and the exit
status CTest reads: 0 passed, 1 failed, 77 skipped (the tests' SKIP_RETURN_CODE).

A script imports it by the test/ folder's path, computed from its own file:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import tap"""
import ctypes
import importlib
import sys

SKIPPED = 77


class Checks:
    """The checks of one script: prints a line for each and keeps the failed ones.  quiet
    prints only the failures (for a script that makes a thousand checks)."""

    def __init__(self, quiet=False):
        self.quiet = quiet
        self.failures = []
        self.count = 0

    def check(self, ok, what):
        self.count += 1
        if not (ok and self.quiet):
            print(("ok - " if ok else "not ok - ") + what, flush=True)
        if not ok:
            self.failures.append(what)  # one append: threads may check at once

    def finish(self, summary=None):
        """Prints the summary line (by default `# N failed`); returns the exit status."""
        print(f"# {len(self.failures)} failed" if summary is None else summary)
        return 1 if self.failures else 0


def skip(why):
    """Ends the script as skipped, saying why."""
    print("skipped: " + why)
    sys.exit(SKIPPED)


def require_torch(hint=""):
    """Skips the script unless PyTorch, and the NumPy the checks compute with, import;
    hint (" (apt-get install ...)") follows the message."""
    try:
        for module in ("numpy", "torch"):  # in this order, as the scripts import them
            importlib.import_module(module)
    except ImportError:
        skip("PyTorch is not installed" + hint)


def have_onednn():
    """Whether oneDNN's library, libdnnl.so.2, loads in this process."""
    try:
        ctypes.CDLL("libdnnl.so.2")
    except OSError:
        return False
    return True


def require_onednn():
    """Skips the script unless oneDNN's library loads."""
    if not have_onednn():
        skip("libdnnl.so.2 is not installed (apt-get install libdnnl2)")
