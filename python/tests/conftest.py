"""Session fixtures: the seisfd outputs the tests read, made once by running the binary (or
taken from $SEISFD_TEST_OUTPUTS, where ctest's python.outputs fixture made them)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package, uninstalled

import support  # noqa: E402


@pytest.fixture(scope="session")
def _outputs(tmp_path_factory):
    return support.outputs(tmp_path_factory.mktemp)


@pytest.fixture(scope="session")
def quick(_outputs):
    """Output directory of the small quickstart run (gathers, snapshots, model, report)."""
    return _outputs[0]


@pytest.fixture(scope="session")
def rtm(_outputs):
    """(born data directory with two shots, migrated image directory) of the tiny rtm_layers."""
    return _outputs[1]
