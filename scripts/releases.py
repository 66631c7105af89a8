"""The releases of native/core/rules/releases.json, for the Python generators.

RELEASES: (release, Slurm tag, bit) in the catalogue's order; a release's
bit is 1 << its index there, as releaseBit() in the core computes it.
"""
import json
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "native", "core", "rules", "releases.json")) as _f:
    RELEASES = [(r, v["tag"], 1 << i) for i, (r, v) in enumerate(json.load(_f)["releases"].items())]
