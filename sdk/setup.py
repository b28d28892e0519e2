"""The SDK's build: the package `manaforge_sdk` (src/), plus the protobuf modules it talks with (`manaforge.v1`,
messages, gRPC stubs and their typing stubs), generated here from the repository's proto/ by grpcio-tools and
mypy-protobuf, as `make proto` generates them for the platform. Build it from a checkout of the repository
(`pip install ./sdk`): the schema lives beside it, in ../proto."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PROTO = Path(__file__).resolve().parent.parent / "proto"


class BuildWithProtos(build_py):
    def run(self) -> None:
        super().run()
        shutil.rmtree(Path(self.build_lib) / "manaforge", ignore_errors=True)  # nothing left from an older schema
        generate(PROTO, Path(self.build_lib))


def generate(root: Path, out: Path) -> None:
    from grpc_tools import protoc  # a build requirement (pyproject.toml)

    protos = sorted(str(p.relative_to(root)) for p in root.rglob("*.proto"))
    if not protos:
        raise SystemExit(f"no .proto files under {root}: build the SDK from a checkout of the Manaforge repository")
    mypy_plugin = shutil.which("protoc-gen-mypy")
    mypy_grpc_plugin = shutil.which("protoc-gen-mypy_grpc")
    if not mypy_plugin or not mypy_grpc_plugin:
        raise SystemExit("protoc-gen-mypy not found: mypy-protobuf is a build requirement (pyproject.toml)")
    include = Path(protoc.__file__).parent / "_proto"
    args = [
        "protoc",
        f"-I{root}",
        f"-I{include}",
        f"--plugin=protoc-gen-mypy={mypy_plugin}",
        f"--plugin=protoc-gen-mypy_grpc={mypy_grpc_plugin}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        *protos,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for package in {Path(p).parent for p in protos} | {Path("manaforge")}:
        (out / package / "__init__.py").touch()
    (out / "manaforge" / "py.typed").touch()  # PEP 561: the generated .pyi stubs are the modules' types


setup(cmdclass={"build_py": BuildWithProtos})
