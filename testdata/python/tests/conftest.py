"""Test setup: where the generated packages and the shared fixtures are.

* The shipped bindings are ``out/python`` (package ``dshproto``), imported
  from the work tree unless DSHGEN_PY_INSTALLED=1 (then the installed copy).
* The case bindings (one package ``caseNN`` per testdata/cases/NN-*) are the
  golden files, testdata/golden/<case>/<schema>/python (``go test ./gen/emit``
  checks that they are what the emitter prints).
* The second protocol (testdata/second-protocol/mcp.schema.json, an MCP
  subset) is generated into DSHGEN_PY_CASES, or into a temporary directory
  with ``go build ./gen/emit/python/internal/pygen`` when it is unset, as
  package ``mcp``.
* ../shared (the fixtures and cases) is found beside the repository, or at
  DSHGEN_SHARED.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[3]
HERE = pathlib.Path(__file__).resolve().parent
CASES = ROOT / "testdata" / "cases"
GOLDEN = ROOT / "testdata" / "golden"
SHARED = pathlib.Path(os.environ.get("DSHGEN_SHARED", ROOT.parent / "shared"))
FIXTURES = SHARED / "fixtures"

if os.environ.get("DSHGEN_PY_INSTALLED") != "1":
    sys.path.insert(0, str(ROOT / "out" / "python"))


def _generate(dest: pathlib.Path) -> None:
    exe = dest / "pygen"
    subprocess.run(["go", "build", "-o", str(exe), "./gen/emit/python/internal/pygen"], cwd=ROOT, check=True)
    mcp = ROOT / "testdata" / "second-protocol" / "mcp.schema.json"
    if mcp.exists():
        subprocess.run(
            [str(exe), "-schema", str(mcp), "-out", str(dest / "second-protocol"), "-package", "mcp", "-version", "test"],
            cwd=ROOT,
            check=True,
        )


for _d in sorted(GOLDEN.glob("*/*/python")):
    sys.path.insert(0, str(_d))
_cases_out = os.environ.get("DSHGEN_PY_CASES")
if not _cases_out:
    _cases_out = tempfile.mkdtemp(prefix="dshgen-py-cases-")
    _generate(pathlib.Path(_cases_out))
CASES_OUT = pathlib.Path(_cases_out)
for _d in sorted(CASES_OUT.iterdir()):
    if (_d / "python").is_dir():
        sys.path.insert(0, str(_d / "python"))
