"""The source-distributed family (SMMBench): sources, evidence injection, tasks, the concentrated twin."""
