"""Orchestration. flows.pipeline runs the stages in-process (CLI, eval); flows.ingest wraps the same
stages as Prefect tasks and is the only module here that imports Prefect."""
