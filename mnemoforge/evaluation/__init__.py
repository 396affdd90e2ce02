"""Evaluate memory systems on a frozen release: methods, models, scoring, judges, tables.

``evaluate(release, method, model, out)`` (:mod:`.runner`) is what ``mnemoforge evaluate`` runs;
``run_matrix`` (:mod:`.matrix`) runs methods × models. Methods read the agent view only
(:mod:`.methods`); scorers and judges read the evaluator keys (:mod:`.keys`).
"""
