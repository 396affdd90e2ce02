"""What each xdist group of the test suite costs, for ``tests/conftest.py``'s scheduling order."""

# CPU seconds of each group's tests on one worker, builds included (benchmarks/suite_cpu.py under
# commit f238260's README command, the default suite re-measured at 82f0844, see docs/testing.md;
# groups under 1 CPU-s left out):
# GROUP_COST for the default-suite tests, and INTEGRATION_GROUP_COST for its `integration` tests
# (subprocess builds, Prefect, Dask, the full-size build), counted when any of them is selected.
# The scheduler hands out the costliest groups first and the last to start are small ones
# (longest processing time first), so the two workers finish together. An unlisted group counts
# ``TEST_COST`` a test, ``INTEGRATION_TEST_COST`` an integration test.
GROUP_COST = {
    "tiny": 34.4,  # tiny_build and its readers
    "smm": 25.8,
    "world": 20.3,  # glassworks_world (three families), a variants re-freeze, evaluations
    "variants": 12.3,
    "plans": 11.2,  # shipped icm themes planned, their items generated (tests/icm_plans.py)
    "memeye": 10.5,
    "tests/test_memeye_no_items.py": 7.0,
    "tests/test_weekday_programs.py": 6.5,
    "tests/test_video.py": 3.8,
    "tests/test_icm_dropped_slots.py": 3.5,
    "tests/test_second_theme.py": 3.3,
    "tests/test_memeye_units.py": 3.1,
    "tests/test_paraphrase.py": 2.7,
    "tests/test_speech.py": 2.7,
    "tests/test_concurrency.py": 2.7,
    "tests/test_docs_site.py": 2.6,
    "tests/test_minilm.py": 2.4,
    "tests/test_smm_units.py": 2.3,
    "tests/test_render_pool.py": 2.2,  # three small clips rendered twice: one at a time and pipelined
    "tests/test_model_shots.py": 2.1,
    "tests/test_gate_failures.py": 2.0,
    "tests/test_layering.py": 2.0,
    "tests/test_icm_album.py": 1.7,
    "ferry": 1.6,
    "tests/test_shortfall.py": 1.5,
    "tests/test_theme_text_fields.py": 1.4,
    "tests/test_family_boundary.py": 1.4,
    "tests/test_memeye_drawables.py": 1.4,
    "tests/test_icm_dialogue_model.py": 1.4,
    "bakery": 1.3,
    "tests/test_theme_limits.py": 1.1,
    "tests/test_memeye_map.py": 1.1,
    "tests/test_render_speed.py": 1.1,
}
INTEGRATION_GROUP_COST = {
    "tiny": 54.0,  # flow builds, task runners, kills, the worker's Prefect server
    "default": 29.2,  # the full-size default build, then load/push/LoCoMo and MemEye exports/report
    "tests/test_deploy.py": 20.0,  # Prefect server, work pool, worker and deployment on loopback
    "world": 14.5,  # the families theme's Prefect flow build
    "tests/test_plugin_family.py": 14.4,
    "tests/test_paid_build.py": 12.8,
    "tests/test_variant_extension.py": 16.0,  # an 8-clip album extended 8x, twice
    "text_share": 14.6,  # 170 items planned at 120 clips, with and without the text share
    "tests/test_planning_shares.py": 11.4,  # 170 items planned at 120 clips
    "tests/test_icm_parts.py": 9.8,
    "smm": 9.8,
    "fjord": 8.4,  # fjord_hut_memeye (shared) and the other unseen-world themes' builds
    "tests/test_image_diffusers.py": 12.5,  # torch and diffusers: tiny pipelines, a build, MiniLM live
    "ferry": 6.3,
    "tests/test_fjord_vet_icm.py": 6.3,
    "memeye": 5.1,
    "tests/test_places_animals.py": 5.0,
    "tests/test_release_identity.py": 4.7,
    "tests/test_render_pool.py": 4.5,  # the same clips in one process and on two spawned workers
    "tests/test_names_scripts.py": 4.6,
    "tests/test_review_store.py": 2.2,
    "tests/test_answerers.py": 1.6,
    "tests/test_env_faults.py": 1.5,
    "tests/test_memeye_drawn.py": 1.1,
    "tests/test_memeye_map.py": 1.1,
}

TEST_COST = 0.03  # the unlisted groups: under a second each, most tests a few milliseconds
INTEGRATION_TEST_COST = 3.0  # an unlisted group's integration test: a subprocess or a small build
