"""The Gaussian-process lab: functions from a prior, a posterior that tightens where you click, the evidence."""
