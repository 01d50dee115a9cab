"""Evaluation: BEIR and tree runs, question sets, metrics, reports."""
