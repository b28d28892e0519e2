"""Build the generated protobuf code: messages, gRPC stubs and mypy stubs, next to the .proto files, and
manaforge/descriptors.binpb, every file's descriptor with its source info (the comments), which reflection serves
so that `grpcurl describe` documents each field (the descriptors inside the _pb2 modules have no comments).

python -m deploy.protogen proto          # generate
python -m deploy.protogen --check proto  # fail when the generated files are stale
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import sys
import tempfile
from pathlib import Path

from grpc_tools import protoc

GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi", ".binpb")
DESCRIPTOR_SET = Path("manaforge") / "descriptors.binpb"  # under the root, as services/reflection.py reads it


def generate(root: Path, out: Path) -> None:
    protos = sorted(str(p.relative_to(root)) for p in root.rglob("*.proto"))
    include = Path(protoc.__file__).parent / "_proto"
    args = [
        "protoc",
        f"-I{root}",
        f"-I{include}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        f"--descriptor_set_out={out / DESCRIPTOR_SET}",
        "--include_source_info",
        "--include_imports",
        *protos,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")


def generated_files(root: Path) -> set[Path]:
    return {p.relative_to(root) for p in root.rglob("*") if p.name.endswith(GENERATED_SUFFIXES)}


def check(root: Path) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        generate(root, fresh)
        want, have = generated_files(fresh), generated_files(root)
        problems = [f"missing: {p}" for p in sorted(want - have)]
        problems += [f"left over (no .proto): {p}" for p in sorted(have - want)]
        problems += [f"stale: {p}" for p in sorted(want & have) if not filecmp.cmp(fresh / p, root / p, shallow=False)]
        return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", type=Path)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    bin_dir = str(Path(sys.executable).parent)  # protoc-gen-mypy lives beside this interpreter
    os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    if args.check:
        problems = check(args.root)
        if problems:
            print("generated protobuf code is stale; run `make proto`:\n  " + "\n  ".join(problems))
            raise SystemExit(1)
        print("generated protobuf code is up to date")
        return
    for stale in generated_files(args.root):
        (args.root / stale).unlink()
    generate(args.root, args.root)
    shutil.rmtree(args.root / "__pycache__", ignore_errors=True)


if __name__ == "__main__":
    main()
