"""Lessons: prepared scenarios a teacher steps through (``.smllesson`` files).

``format`` reads, checks and writes lesson files (Qt-free); ``player`` shows a lesson over
the labs (locks, reveals, the clicker keys) in the panel of ``bar``; ``author`` is the dialog
that edits one step; ``locks`` names the controls a step may lock or hide (both use it);
``menu`` puts the Lesson menu in the main window.
"""
