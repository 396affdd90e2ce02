"""The plugin registry (issue 32): one mechanism, entry-point groups, built-ins registered the
same way as an installed package's."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from mnemoforge import registry
from mnemoforge.evaluation.methods import METHODS, get_method
from mnemoforge.exporters.peers.formats import PeerFormat
from mnemoforge.family import Family
from mnemoforge.generators.families import get_family

ROOT = Path(__file__).resolve().parents[1]


def test_the_builtin_table_is_what_pyproject_registers() -> None:
    eps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert set(eps) == set(registry.GROUPS)
    for group in registry.GROUPS:
        assert eps[group] == registry.BUILTIN[group], group


def test_every_builtin_loads_as_its_group_says() -> None:
    kinds = {registry.FAMILIES_GROUP: Family, registry.EXPORTERS_GROUP: PeerFormat}
    for group in registry.GROUPS:
        for name in registry.BUILTIN[group]:
            obj = registry.load(group, name)
            assert isinstance(obj, kinds[group]) if group in kinds else callable(obj), (group, name)
    assert get_family("smm").name == "smm"
    assert [get_method(m) for m in METHODS] == list(METHODS.values())


def test_an_unknown_name_is_a_clear_error() -> None:
    with pytest.raises(
        registry.UnknownPlugin, match=r"'diary' is not registered in mnemoforge.families; known"
    ):
        registry.load(registry.FAMILIES_GROUP, "diary")
    with pytest.raises(KeyError, match="unknown family 'diary'"):
        get_family("diary")


def test_a_registration_that_is_not_a_family_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    table = {**registry.BUILTIN, registry.FAMILIES_GROUP: {"bogus": "mnemoforge.registry:GROUPS"}}
    monkeypatch.setattr(registry, "BUILTIN", table)
    registry.targets.cache_clear()
    try:
        with pytest.raises(TypeError, match="is not a mnemoforge.family.Family instance"):
            get_family("bogus")
    finally:
        monkeypatch.undo()
        registry.targets.cache_clear()


def test_an_image_backend_registers_like_any_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemoforge.backends.image.procedural import ProceduralImageBackend
    from mnemoforge.backends.registry import image_backend
    from mnemoforge.schemas.build_settings import RenderSpec

    with pytest.raises(ValueError, match="unknown image backend 'sketch'; registered: diffusers, gemini"):
        RenderSpec(image="sketch")
    assert isinstance(image_backend(RenderSpec()), ProceduralImageBackend)  # the built-in, by its entry
    groups = {**registry.BUILTIN}
    groups[registry.IMAGE_BACKENDS_GROUP] = {
        **groups[registry.IMAGE_BACKENDS_GROUP],
        "sketch": "mnemoforge.backends.registry:procedural_images",
    }
    monkeypatch.setattr(registry, "BUILTIN", groups)
    registry.targets.cache_clear()
    try:
        spec = RenderSpec(image="sketch")  # a registered name is a valid theme setting
        assert isinstance(image_backend(spec), ProceduralImageBackend)
    finally:
        monkeypatch.undo()
        registry.targets.cache_clear()


def test_the_schema_and_reference_list_the_builtin_choices() -> None:
    from mnemoforge.schema_docs import field_docs
    from mnemoforge.schemas.build_settings import RenderSpec
    from mnemoforge.schemas.theme import Theme

    assert Theme.model_json_schema()["properties"]["family"]["enum"] == ["icm", "smm", "memeye"]
    docs = {f.name: f.type for f in field_docs(RenderSpec)}
    assert docs["image"] == "'procedural' | 'diffusers' | 'gemini' | 'openai'"
    assert docs["video"] == "'ffmpeg' | 'veo'"
    voice = Theme.model_json_schema()["$defs"]["VoiceSpec"]["properties"]["engine"]
    assert voice["enum"] == ["espeak", "piper", "coqui"]


def _with(monkeypatch: pytest.MonkeyPatch, group: str, name: str, target: str) -> None:
    """Register ``name`` in ``group`` as an installed package would (undone by the caller)."""
    monkeypatch.setattr(
        registry, "BUILTIN", {**registry.BUILTIN, group: {**registry.BUILTIN[group], name: target}}
    )
    registry.targets.cache_clear()


def test_video_speech_and_text_backends_register_like_image_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnemoforge.backends.registry import SpeechBackends, video_backend
    from mnemoforge.backends.speech import EspeakBackend, get_backend
    from mnemoforge.backends.text.openai_compat import OpenAICompatBackend
    from mnemoforge.backends.text.registry import make_text_backend, providers
    from mnemoforge.schemas.build_settings import RenderSpec
    from mnemoforge.schemas.theme import VoiceSpec

    with pytest.raises(ValueError, match="unknown video backend 'sora'; registered: ffmpeg, veo"):
        RenderSpec(video="sora")
    with pytest.raises(ValueError, match="unknown speech engine 'kokoro'; registered: coqui, espeak, piper"):
        VoiceSpec(engine="kokoro")
    with pytest.raises(ValueError, match="unknown text provider 'local'"):
        make_text_backend({"provider": "local", "model": "m"})
    assert video_backend(RenderSpec()) is None  # ffmpeg: camera moves, no clip generator
    assert isinstance(SpeechBackends(RenderSpec())["espeak"], EspeakBackend)
    try:
        _with(monkeypatch, registry.VIDEO_BACKENDS_GROUP, "sora", "mnemoforge.backends.registry:ffmpeg_video")
        _with(
            monkeypatch,
            registry.SPEECH_BACKENDS_GROUP,
            "kokoro",
            "mnemoforge.backends.registry:espeak_speech",
        )
        _with(
            monkeypatch,
            registry.TEXT_BACKENDS_GROUP,
            "local",
            "mnemoforge.backends.text.openai_compat:OpenAICompatBackend",
        )
        spec = RenderSpec(video="sora")  # a registered name is a valid theme setting
        assert video_backend(spec) is None
        assert VoiceSpec(engine="kokoro").engine == "kokoro"
        assert isinstance(get_backend("kokoro"), EspeakBackend)
        assert isinstance(SpeechBackends(spec)["kokoro"], EspeakBackend)
        assert "local" in providers()
        backend = make_text_backend(
            {"provider": "local", "model": "m", "base_url": "http://127.0.0.1:9/v1", "api_key": "x"}
        )
        assert isinstance(backend, OpenAICompatBackend)
    finally:
        monkeypatch.undo()
        registry.targets.cache_clear()
