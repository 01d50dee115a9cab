"""Ranking policy: fusion, per-corpus calibration, abstaining."""
