"""Widgets shared by the labs: run bar, parameter form, point canvas, decision map,
metric curves and the maths panel."""
