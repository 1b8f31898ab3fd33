"""Entry point of the frozen application (PyInstaller runs this file; see build/smllab.spec).

Same command line as ``python -m app``.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a no-op unless a library starts worker processes
    from app.__main__ import main

    sys.exit(main())
