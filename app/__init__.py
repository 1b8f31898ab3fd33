"""SML Lab: the Qt application (shell, runner, shared widgets and one folder per lab)."""

__version__ = "0.1.0"
APP_NAME = "SML Lab"
