"""The container images, built with podman (`make image`): Manaforge's (deploy/Dockerfile) and a Redis 7.

    python -m deploy.images            # build what is missing; the Manaforge image always (its layers are cached)
    python -m deploy.images --local    # make the bases from Debian's packages without trying to pull the official ones

deploy/Dockerfile takes its Python bases as build arguments whose defaults are the official `python` images. Where
those cannot be pulled (a machine that reaches Debian's package archive but no container registry), the bases are
made here from Debian bookworm's own packages: `mmdebstrap` writes a root filesystem with Debian's Python 3.11 and
`podman import` makes it an image. The Redis image is made the same way from Debian's `redis-server` (Redis 7.0)
where the official `redis` image cannot be pulled. Every image is tagged under `localhost/` (IMAGES).

Manaforge's image is tagged with what it is, from deploy/releases.py: its version and commit (`0.3.0.dev0-d9b7c8ccf0ff`;
a recorded release's own commit also gets the bare version, `0.2.0`, which no other build is given), and
`current`, the image this machine built last, which the one-machine deployment (deploy/single-host) runs. The
version and commit are also its labels (org.opencontainers.image.version, .revision) and MANAFORGE_COMMIT inside.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from deploy import releases

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
REPOSITORY = "localhost/manaforge"
MANAFORGE = f"{REPOSITORY}:current"  # the latest build on this machine (deploy/single-host/manaforge.yaml runs it)
# A build behind a TLS-inspecting proxy trusts the proxy through the host's bundle, mounted over the image's own for
# the build's RUN steps only (it is not copied into a layer).
HOST_CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")


# An imported root has no environment: the PATH Debian's own base images set.
DEBIAN_PATH = "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True)
class Base:
    """An image that is the official one where it can be pulled, else made from Debian's packages."""

    official: str
    local: str
    packages: tuple[str, ...]  # what the Debian root has besides the minimal base (apt, passwd, ...)
    changes: tuple[str, ...] = ()  # Dockerfile instructions for `podman import --change`
    hook: str = ""  # a shell command run on the finished root ("$1" is its path): mmdebstrap --customize-hook


PYTHON = Base(
    "docker.io/library/python:3.11.14-slim-bookworm",
    "localhost/manaforge-python:3.11-bookworm",
    ("python3.11", "python3", "python-is-python3", "ca-certificates"),
    ('CMD ["python3"]',),
)
PYTHON_BUILD = Base(
    "docker.io/library/python:3.11.14-bookworm",
    "localhost/manaforge-python-build:3.11-bookworm",
    (*PYTHON.packages, "python3.11-venv", "python3.11-dev", "gcc", "libc6-dev"),
    ('CMD ["python3"]',),
)
REDIS = Base(
    "docker.io/library/redis:7.0.15-bookworm",
    "localhost/manaforge-redis:7.0-bookworm",
    ("redis-server",),
    ("USER redis", "WORKDIR /data", "EXPOSE 6379", 'CMD ["redis-server"]'),
    hook='mkdir -p "$1/data" && chroot "$1" chown redis:redis /data',
)
IMAGES = (MANAFORGE, PYTHON.local, PYTHON_BUILD.local, REDIS.local)


class ImageError(Exception):
    """An image could not be built; the message says which step failed."""


def podman(*args: str, check: bool = True, quiet: bool = False) -> subprocess.CompletedProcess[str]:
    if not shutil.which("podman"):
        raise ImageError("podman is not installed: run `make podman`")
    out = subprocess.DEVNULL if quiet else None
    done = subprocess.run(["podman", *args], stdout=out, stderr=out, text=True, check=False)
    if check and done.returncode != 0:
        raise ImageError(f"podman {' '.join(args[:3])} ... failed (exit {done.returncode})")
    return done


def exists(image: str) -> bool:
    return podman("image", "exists", image, check=False).returncode == 0


def pulled(image: str) -> bool:
    """Whether the image is here, pulled now if need be (a registry that cannot be reached fails in milliseconds)."""
    return exists(image) or podman("pull", "--quiet", image, check=False, quiet=True).returncode == 0


def debian_image(base: Base) -> None:
    """A bookworm root of `base.packages` (with bookworm's updates and security archives) imported as `base.local`."""
    if not shutil.which("mmdebstrap"):
        raise ImageError("mmdebstrap is not installed: run `make podman`")
    with tempfile.TemporaryDirectory(prefix="manaforge-image-") as tmp:
        tar = Path(tmp) / "root.tar"
        command = ["mmdebstrap", "--quiet", "--variant=minbase", f"--include={','.join(base.packages)}"]
        if base.hook:
            command.append(f"--customize-hook={base.hook}")
        if subprocess.run([*command, "bookworm", str(tar)], check=False).returncode != 0:
            raise ImageError(f"mmdebstrap failed for {base.local}")
        changes = [arg for change in (DEBIAN_PATH, *base.changes) for arg in ("--change", change)]
        podman("import", "--quiet", *changes, str(tar), base.local, quiet=True)


def base_image(base: Base, local: bool) -> str:
    """The official image where it can be pulled (unless `local`), else the one made from Debian's packages."""
    if not local and pulled(base.official):
        return base.official
    if not exists(base.local):
        started = time.monotonic()
        print(f"making {base.local} from Debian bookworm's packages: {' '.join(base.packages)}", flush=True)
        debian_image(base)
        print(f"  {base.local} made in {time.monotonic() - started:.0f} s", flush=True)
    return base.local


def build(local: bool = False) -> None:
    runtime, build_base = base_image(PYTHON, local), base_image(PYTHON_BUILD, local)
    redis = base_image(REDIS, local)
    if redis != REDIS.local:  # the deployment test names one tag whichever image it is
        podman("tag", redis, REDIS.local)
    mounts = ["--volume", f"{HOST_CA_BUNDLE}:{HOST_CA_BUNDLE}:ro"] if HOST_CA_BUNDLE.is_file() else []
    started = time.monotonic()
    tags = [MANAFORGE, *(f"{REPOSITORY}:{tag}" for tag in releases.image_tags())]
    print(f"building {', '.join(tags)} from deploy/Dockerfile on {runtime} (build stage {build_base})", flush=True)
    podman(
        "build",
        *(arg for tag in tags for arg in ("--tag", tag)),
        *("--file", str(DOCKERFILE), "--layers"),
        *("--build-arg", f"PYTHON_IMAGE={runtime}", "--build-arg", f"BUILD_IMAGE={build_base}"),
        *("--build-arg", f"VERSION={releases.version()}", "--build-arg", f"COMMIT={releases.head()}"),
        *mounts,
        str(ROOT),
    )
    print(f"  {', '.join(tags)} built in {time.monotonic() - started:.0f} s; Redis: {REDIS.local}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--local", action="store_true", help="make the bases from Debian's packages, never pull")
    args = parser.parse_args()
    try:
        build(local=args.local)
    except ImageError as error:
        sys.exit(str(error))


if __name__ == "__main__":
    main()
