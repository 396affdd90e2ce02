"""The documentation site builds strictly, and its generated pages follow the code."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mnemoforge.schema_docs import walk
from mnemoforge.schemas.theme import Theme

ROOT = Path(__file__).resolve().parents[1]


def _hook():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "hooks" / "generate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_theme_reference_lists_every_field_of_every_model() -> None:
    page = _hook().theme_reference()
    docs = walk(Theme)
    assert docs[0].model is Theme and len(docs) > 10
    for doc in docs:
        assert f"## {doc.model.__name__}" in page
        for field in doc.fields:
            assert f"| `{field.name}` |" in page, (doc.model.__name__, field.name)
    # limits come from the schema's own constraints
    assert "| `clips` | integer | `24` | ≥ 2, ≤ 5000 |" in page


def test_cli_reference_lists_every_command_and_no_machine_path() -> None:
    page = _hook().cli_reference()
    commands = ("build", "freeze", "gate", "verify", "push", "export", "evaluate", "theme check", "theme new")
    for command in commands:
        assert f"## `mnemoforge {command}`" in page
    assert "`--seed`" in page and "`--outputs`" in page
    assert str(ROOT) not in page and "/home/" not in page


@pytest.mark.skipif(
    importlib.util.find_spec("material") is None, reason="extra `docs` (mkdocs-material) not installed"
)
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "site" / "reference" / "theme" / "index.html").is_file()
    assert (tmp_path / "site" / "performance" / "index.html").is_file()


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [p for x in nav for p in _nav_pages(x)]
    if isinstance(nav, dict):
        return [p for x in nav.values() for p in _nav_pages(x)]
    return []


def _mkdocs_config() -> dict:
    class Loader(yaml.SafeLoader):  # mkdocs.yml may hold !!python/name tags; none are needed here
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)  # noqa: S506


def test_every_nav_page_exists_or_is_generated() -> None:
    generated = set(_hook().PAGES)
    pages = _nav_pages(_mkdocs_config()["nav"])
    assert len(pages) > 20 and len(set(pages)) == len(pages), pages
    missing = [p for p in pages if p not in generated and not (ROOT / "docs" / p).is_file()]
    assert not missing, f"nav pages with no file under docs/: {missing}"
    # and every page under docs/ is in the nav (mkdocs --strict says so too, but only with the extra)
    written = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert not written - set(pages) - {"hooks"}, sorted(written - set(pages))


MACHINE_PATHS = re.compile(r"(\.\./shared|/work/|/home/|/root/|/Users/|[A-Z]:\\\\)")


def test_docs_and_readme_name_no_path_outside_the_repository() -> None:
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert str(ROOT) not in text, path
        found = MACHINE_PATHS.findall(text)
        assert not found, (path.relative_to(ROOT).as_posix(), found)


def test_generated_pages_name_no_path_outside_the_repository() -> None:
    hook = _hook()
    assert hook._rel("/elsewhere/checkout/.venv/bin/ffmpeg") == "…/ffmpeg"
    assert hook._rel(f"{ROOT}/outputs") == "outputs" and hook._rel("https://x.org/a/b") == "https://x.org/a/b"
    for uri, make in hook.PAGES.items():
        page = make()
        assert str(ROOT) not in page, uri
        assert not MACHINE_PATHS.findall(page), (uri, MACHINE_PATHS.findall(page))


def test_readme_is_short_and_its_relative_links_resolve() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert any(link.startswith("docs/") for link in local)
    for link in local:
        assert (ROOT / link).exists(), f"README links to {link}, which is not in the repository"


def test_readme_test_command_is_the_ci_command() -> None:
    """The README's test command installs and runs the default suite as `.ci/run` does first."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    install = next(line for line in ci if line.startswith(".venv/bin/pip install -q -e "))
    pytest_line = next(line for line in ci if line.startswith(".venv/bin/python -m pytest"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    command = next(" ".join(b.replace("\\\n", " ").split()) for b in blocks if "pytest" in b)
    assert command == f"python3 -m venv .venv && {install} && {pytest_line}", command
    assert pytest_line == ".venv/bin/python -m pytest -q -p no:cacheprovider"  # the default suite
    integration = (
        '.venv/bin/python -m pytest -q -p no:cacheprovider -m "integration and not slow and not network"'
    )
    assert integration in ci and integration in readme  # CI adds the integration tests, and says so


def _readme_theme() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return next(b for b in re.findall(r"```yaml\n(.*?)```", readme, flags=re.S) if "activities" in b)


def test_readme_theme_is_ten_lines_that_pass_theme_check(tmp_path: Path) -> None:
    from mnemoforge.theme_checks import check_theme
    from mnemoforge.theme_io import ThemeError

    text = _readme_theme()
    assert len(text.splitlines()) == 10
    assert text in (ROOT / "docs" / "themes.md").read_text(encoding="utf-8")  # the guide shows the same
    good = tmp_path / "rowing_club.yaml"
    good.write_text(text, encoding="utf-8")
    theme = check_theme(good)
    assert (theme.name, theme.family, len(theme.cast)) == ("rowing_club", "icm", 3)
    # the error the README shows is the one this theme gives with an unknown place
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("places: [boathouse, river]", "places: [boathouse, lake]"), encoding="utf-8")
    with pytest.raises(ThemeError) as e:
        check_theme(bad)
    assert e.value.problems == [("activities.0.places.1", "unknown place 'lake'")]
    shown = "  - activities.0.places.1: unknown place 'lake'"
    assert shown in (ROOT / "README.md").read_text(encoding="utf-8")


def test_changelog_page_is_the_changelog() -> None:
    assert _hook().changelog() == (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
