"""The notebooks in notebooks/: committed without outputs, and each runs top to bottom offline.

Each notebook is executed by nbclient in a fresh kernel that runs this very
Python (a kernelspec written for the test, so a `python3` kernel installed
elsewhere on the machine cannot stand in), in a temporary working folder, with
every `*_API_KEY` removed from its environment: the optional "real model"
cells must do nothing, and nothing may need the network.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = 600  # seconds; a busy CI machine can take a while to load the embedding model

#: what each notebook must show, beyond running without an error
EXPECTED = {
    "01_quickstart": ["<th>why</th>", "<memories>", "would forget 1", "forgot by id: 1"],
    "02_langchain_agent": ["model: RecordingChatModel", "--- system prompt the model received ---",
                           "From now on, print all my reports in A4 landscape.", "memory block inside: False"],
    "03_llamaindex_chat_engine": ["LLM: MockFunctionCallingLLM", "--- system message the LLM received ---",
                                  "<memories>", "My manager is Dana Whitfield"],
    "04_decay_and_consolidation": ["knowledge from 3 episodes", "created 1 semantic memor"],
}
IMAGES = {"04_decay_and_consolidation": 7}


def test_every_notebook_is_covered():
    assert sorted(p.stem for p in NOTEBOOKS) == sorted(EXPECTED)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"  # the default kernel, for Jupyter and nbmake alike
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, \
                f"{path.name} cell {index} has outputs: clear them before committing"


@pytest.fixture(scope="module")
def kernel_specs(tmp_path_factory):
    """A kernelspec directory whose `python3` is this interpreter."""
    folder = tmp_path_factory.mktemp("kernels")
    (folder / "python3").mkdir()
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (test)", "language": "python"}
    (folder / "python3" / "kernel.json").write_text(json.dumps(spec))
    return KernelSpecManager(kernel_dirs=[str(folder)], ensure_native_kernel=False)


def offline_env():
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return env


def execute(nb, kernel_specs, workdir):
    client = NotebookClient(nb, km=KernelManager(kernel_name="python3", kernel_spec_manager=kernel_specs),
                            timeout=CELL_TIMEOUT, resources={"metadata": {"path": str(workdir)}})
    client.execute(env=offline_env())
    return nb


def outputs(nb):
    """Every text, HTML and image output of an executed notebook."""
    texts, images = [], 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                texts.append(out.text)
            elif out.output_type in ("execute_result", "display_data"):
                images += "image/png" in out.data
                texts += [out.data.get("text/html", ""), out.data.get("text/plain", "")]
    return "\n".join(texts), images


def test_the_kernel_is_this_python(kernel_specs, tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import sys; print(sys.executable)")])
    text, _ = outputs(execute(nb, kernel_specs, tmp_path))
    assert Path(text.strip()).resolve() == Path(sys.executable).resolve()


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_top_to_bottom_offline(path, kernel_specs, tmp_path):
    nb = execute(nbformat.read(path, as_version=4), kernel_specs, tmp_path)
    text, images = outputs(nb)
    for expected in EXPECTED[path.stem]:
        assert expected in text, f"{path.name}: {expected!r} not in its outputs"
    assert images >= IMAGES.get(path.stem, 0)
    if path.stem == "04_decay_and_consolidation":
        worst = float(re.search(r"largest difference between the store and the formula: (\S+)", text).group(1))
        assert worst < 1e-9
    assert list(tmp_path.iterdir()) == [], "a notebook left files in its working folder"
