"""Which way the prompt hook answers for a store of each embedder: by meaning (a gate exists) or by words alone."""

import tempfile
from pathlib import Path

from shitsuji.hooks._context import GATES, prompt_vector
from shitsuji.memory import MemoryEngine, load_embedder, open_store

for name in ["use", "e5", "use+e5"]:
    with tempfile.TemporaryDirectory() as d:
        engine = MemoryEngine(open_store(Path(d) / "m.db"), load_embedder(name))
        model = engine.embedder.model_id
        fused = any(
            key.startswith(f"{model}+") for key in GATES
        )  # hooks.__main__: the server loads e5 only then
        vector = prompt_vector(engine, "how do I run the tests?")
        print(
            f"{name:7} model={model!r} gate={model in GATES} server_second_model={fused} prompt_vector={'yes' if vector is not None else 'None -> words only'}"
        )
