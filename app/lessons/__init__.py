"""Lessons: prepared scenarios a teacher steps through (``.smllesson`` files).

``format`` reads, checks and writes lesson files (Qt-free); ``player`` shows a lesson over
the labs (the lesson bar, locks, reveals, the clicker keys); ``author`` is the dialog that
edits one step; ``menu`` puts the Lesson menu in the main window.
"""
