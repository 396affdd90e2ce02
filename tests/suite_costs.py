"""What each xdist group of the test suite costs, for ``tests/conftest.py``'s scheduling order."""

# CPU seconds of each group's tests on one worker, builds included (benchmarks/suite_cpu.py under
# the README command, commit a0640ba, see docs/testing.md): GROUP_COST for the default-suite tests,
# and INTEGRATION_GROUP_COST for its `integration` tests (subprocess builds, Prefect, Dask, the
# full-size build), counted when any of them is selected. The scheduler hands out the costliest
# groups first and the last to start are small ones (longest processing time first), so the two
# workers finish together. An unlisted group counts ``TEST_COST`` a test, ``INTEGRATION_TEST_COST``
# an integration test.
GROUP_COST = {
    "tiny": 37.8,
    "smm": 30.7,
    # tests/test_cross_family*.py: the glassworks_world build (three families, one World), load_dataset,
    # a re-freeze with length variants, evaluations and a report (estimated from test_cross_family's 14.6)
    "world": 30.0,
    "variants": 13.2,  # tests/test_variants.py: an icm and an smm build with length variants
    "memeye": 11.3,
    "tests/test_memeye_no_items.py": 8.5,
    "tests/test_image_diffusers.py": 5.1,  # diffusers build, torch tests
    "tests/test_wording.py": 3.9,
    "tests/test_smm_units.py": 3.9,
    "tests/test_memeye_units.py": 3.8,
    "tests/test_icm_dropped_slots.py": 3.6,
    "tests/test_icm_album.py": 3.6,
    "tests/test_speech.py": 3.2,
    "tests/test_video.py": 3.2,
    "tests/test_second_theme.py": 3.0,
    "tests/test_minilm.py": 2.7,
    "tests/test_docs_site.py": 2.7,
    "tests/test_concurrency.py": 2.5,
    "tests/test_paraphrase.py": 2.3,
    "tests/test_world_questions.py": 2.3,
    "tests/test_layering.py": 2.1,
    "tests/test_model_shots.py": 2.1,
    "tests/test_family_boundary.py": 1.9,
    "tests/test_panel_gates.py": 1.9,
    "tests/test_icm_retrieval_items.py": 1.8,
    "tests/test_gate_failures.py": 1.7,
    "tests/test_shortcut_rules.py": 1.6,
    "tests/test_memeye_drawables.py": 1.6,
    "tests/test_gate_indexes.py": 1.5,
    "tests/test_icm_dialogue_model.py": 1.5,
    "tests/test_theme_limits.py": 1.3,
    "tests/test_theme_text_fields.py": 1.3,
    "tests/test_render_speed.py": 1.3,
    "tests/test_memeye_map.py": 1.2,
    "bakery": 1.2,
    "tests/test_item_validity.py": 1.2,
    "tests/test_yaml_io.py": 1.1,
    "tests/test_shortfall.py": 1.1,
    "tests/test_sign_ocr.py": 1.1,
    "tests/test_fair_items.py": 1.1,
    "tests/test_answerers.py": 1.0,
}
INTEGRATION_GROUP_COST = {
    "tiny": 77.9,  # flow builds, runners, kills, a Prefect server
    "default": 32.7,  # the full-size default build, then load/push/LoCoMo and MemEye exports/report
    "tests/test_deploy.py": 31.2,  # Prefect server, work pool, worker and deployment on loopback
    "memeye": 16.3,  # with its Prefect flow build and the worker's Prefect server
    "tests/test_paid_build.py": 15.1,
    "smm": 12.1,  # with tests/test_harness_exports.py's inspect runs
    "tests/test_plugin_family.py": 11.1,
    "tests/test_icm_parts.py": 10.9,
    "ferry": 7.7,  # the smm Prefect flow build (tests/test_family_releases.py)
    "tests/test_fjord_vet_icm.py": 7.5,
    "tests/test_image_diffusers.py": 7.3,  # diffusers build, torch tests
    "tests/test_names_scripts.py": 5.8,
    "tests/test_places_animals.py": 5.6,
    "tests/test_release_identity.py": 5.3,
    "tests/test_memeye_declared.py": 4.6,
    "tests/test_unseen_worlds.py": 4.5,
    "tests/test_review_store.py": 3.0,
    "tests/test_answerers.py": 2.1,
    "tests/test_media_backends.py": 2.0,
    "tests/test_env_faults.py": 1.8,
    "tests/test_memeye_map.py": 1.4,
    "tests/test_memeye_drawn.py": 1.3,
    "tests/test_memeye_ocr.py": 1.2,
}

TEST_COST = 0.03  # the unlisted groups: under a second each, most tests a few milliseconds
INTEGRATION_TEST_COST = 3.0  # an unlisted group's integration test: a subprocess or a small build
