"""One sub-package per lab; each defines ``LAB``, its :class:`app.lab.Lab` subclass."""
