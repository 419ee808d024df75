"""A second model's opinion on the hook's candidates, where a model can stay loaded.

The default model (``use``) misses paraphrases whose words it has not seen together
("when does the on-call shift change?" → "The on-call rotation is weekly, with the
handover on Monday": cosine 0.28, inside the range of unrelated prompts), so no
threshold on it alone separates them. multilingual-e5-small ranks many of those right,
but its cosines are packed together (unrelated texts at 0.8), it takes ~190 ms to load
(too much for a fresh hook process) and it embeds passages slowly. The hook server keeps
it loaded and re-scores the candidates the first model found: the fused score is
``cosine + weight * (second cosine - center)`` with the fused gate's weight and center
(``_context.GATES``), calibrated by ``bench hook-relevance``.

Both cosines are taken **language-centred**: multilingual models put a Japanese text
near other Japanese texts whatever they say (e5 ranks English notes 100th or lower for
short Japanese questions about them), and that shared part is mostly each language's
mean direction. Each vector has its language's mean subtracted before the cosine — for
memories, the mean of the database's memories in that language together with a fixed
**reference bank** of ``BANK`` plausible one-fact notes (a third in Japanese); for prompts,
the mean of the chatter sentences (``_chatter.CHATTER``, prompts of both languages) — the
usual centring of multilingual embeddings for cross-lingual retrieval. The first model's
memory vectors are those the process has loaded when ``start`` runs: after the server's
warm-up (``_server.warm_up``) no project's, so its memory means are the bank's alone — the
centring the gates were calibrated on (hk26, docs/benchmarks.md).

Why the bank: the mean of a database's own memories is that memory when there is one, so
centring erased it (cosine 0 with every prompt), and a small project got nothing from the
hook server until it held about six memories per language, while the hook alone found
them. With the bank, a project of 1, 3 or 10 memories is centred as the calibration set
(300 such notes and 32 of a project) was, and the fused gate answers it as calibrated.
The bank's passages are embedded first by the background thread (and kept in the file
with the others); until they are, the first model decides alone.

Passage vectors are computed ahead, never while a prompt waits: a background thread
embeds every memory's first chunk once (candidates a prompt needed first), and keeps them
in a file beside the server's socket for the next server. A prompt whose candidates are
not all embedded yet is decided by the first model alone. The database's own vectors stay
those of the first model.

Work per new passage does not grow with the project: the language means are kept as
running sums (``LanguageMeans``: one vector added, never all re-averaged), and the file
takes appends (``_passage_file``), rewritten whole only when its journal outgrows it. Both
used to be redone over every passage after each one embedded — at 10,000 memories ~9 ms
of averaging on the next prompt's path and a 16 MB rewrite per new memory a prompt met.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..memory import Embedder, Hit, load_embedder
from ..memory._embedders import Matrix, Vector
from ..memory._text import CJK, chunks
from ._chatter import CHATTER
from ._passage_file import PassageFile, Passages

log = logging.getLogger(__name__)

SECOND_MODEL = "e5"  # the embedder name, when its extra (shitsuji[e5]) is installed
BATCH = 8  # passages per background embedding call
SAVE_EVERY = 2000  # passages embedded between two saves of the file
BANK = 300  # reference notes in every language mean of the memories (see the module doc)
BANK_KEY = "bank:"


def reference_bank() -> list[tuple[str, str]]:
    """(key, text) of the reference notes: synthetic one-fact notes about people, food and places."""
    from ..bench.latency import synthetic_memories  # the bench's generator, seeded apart from its sets

    return [(f"{BANK_KEY}{i}", text) for i, text in enumerate(synthetic_memories(BANK, seed=2027))]


FirstVectors = Callable[[list[str]], dict[str, Vector]]  # the first model's vectors of memory ids


def passage_key(memory_id: str, chunk: int = 0) -> str:
    return f"{memory_id}:{chunk}"


def _unit(v: Matrix) -> Matrix:
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    out: Matrix = v / np.maximum(norms, 1e-12)
    return out


def _japanese(text: str) -> bool:
    return CJK.search(text) is not None


class LanguageMeans:
    """The mean vector of each language over the vectors added (and not removed) so far, kept as
    float64 sums and counts: adding or removing a vector costs one addition (see the module doc)."""

    def __init__(self) -> None:
        self._sums: dict[bool, npt.NDArray[np.float64]] = {}
        self._counts = {True: 0, False: 0}
        self.added = 0  # vectors added into the sums over this object's life (tests: work per prompt)

    def add(self, vectors: Matrix, japanese: Sequence[bool], sign: int = 1) -> None:
        """Add (``sign`` -1: remove) the rows of ``vectors``, each of the language its flag says."""
        flags = np.asarray(japanese, dtype=bool)
        for ja in (True, False):
            rows = vectors[flags == ja]
            if len(rows):
                total = self._sums.get(ja, np.zeros(vectors.shape[1], np.float64))
                self._sums[ja] = total + sign * rows.sum(axis=0, dtype=np.float64)
                self._counts[ja] += sign * len(rows)
        self.added += len(flags)

    def means(self, dim: int) -> dict[bool, Vector]:
        """Each language's mean; a language with no vector gets zeros."""
        return {
            ja: (self._sums[ja] / self._counts[ja]).astype(np.float32)
            if self._counts[ja]
            else np.zeros(dim, np.float32)
            for ja in (True, False)
        }


def _means(vectors: dict[str, Vector], japanese: set[str]) -> dict[bool, Vector]:
    """The mean vector of each language among ``vectors`` (by key); a language with none gets zeros."""
    keys = list(vectors)
    dim = len(vectors[keys[0]]) if keys else 1
    sums = LanguageMeans()
    if keys:
        sums.add(np.vstack([vectors[k] for k in keys]), [k in japanese for k in keys])
    return sums.means(dim)


class SecondOpinion:
    """A second embedder and its passage vectors, filled by a background thread (see the module doc)."""

    def __init__(self, embedder: Embedder, file: Path | None = None) -> None:
        self.embedder = embedder
        self.file = PassageFile(file, embedder.model_id) if file is not None else None
        self._passages: dict[str, Vector] = {}
        self._queue: dict[str, str] = {}  # key -> text, asked for by a prompt: embedded first
        self._backlog: list[tuple[str, str]] = []
        self._cond = threading.Condition()
        self._stopping = False
        self._worker: threading.Thread | None = None
        self._unsaved: list[str] = []  # keys embedded since the last save
        self._saving = threading.Lock()  # one save at a time (the worker's, ``stop``'s)
        self._in_flight = 0  # passages taken by the worker, not stored yet
        self._japanese: set[str] = set()  # keys of Japanese passages
        self._second_sums = LanguageMeans()  # of every passage held (bank included)
        self._first_means: dict[bool, Vector] | None = None
        self._prompt_means: tuple[dict[bool, Vector], dict[bool, Vector]] | None = None
        self._first_vectors: FirstVectors | None = None
        self._bank: list[str] = []  # keys of the reference notes, in every memory mean
        self._bank_ready = False
        self._ahead: ThreadPoolExecutor | None = None  # embeds a prompt while the first model searches
        self._load()

    @property
    def model_id(self) -> str:
        return self.embedder.model_id

    def query_ahead(self, prompt: str) -> Future[Vector] | None:
        """Start embedding ``prompt`` on a thread of its own, to hand to ``cosines`` later; None before
        ``start``, for a blank prompt, or while the memories are still being embedded (their candidates
        often are not, and then no fused answer uses it: ``cosines`` embeds the prompt itself when needed).

        Why: embedding the prompt is most of a served prompt's work (~17 ms of CPU for a short
        one at 10,000 memories, the first model's embedding and search ~6 ms: docs/benchmarks.md,
        hk23e). The engine's C code releases the GIL, so it runs beside the first model's search
        instead of after it. ``relevant_hits`` asks for it once the first model has embedded the
        prompt and found it is not chatter (chatter is answered with nothing, and its embedding was
        spent for nothing: hk23f), and cancels it if the first model then decides alone.
        """
        if not prompt.strip():
            return None
        with self._cond:
            if self._backlog or not self._bank_embedded():
                return None
            if self._ahead is None:
                self._ahead = ThreadPoolExecutor(1, thread_name_prefix="hook-prompt-second")
            ahead = self._ahead
        try:
            return ahead.submit(self.embedder.embed_query, prompt)
        except RuntimeError:  # stopped meanwhile
            return None

    def _bank_embedded(self) -> bool:
        """Under ``_cond``: every reference note is embedded (remembered once true); False before ``start``
        (the bank is not known yet)."""
        if self._first_means is None:
            return False
        self._bank_ready = self._bank_ready or all(key in self._passages for key in self._bank)
        return self._bank_ready

    def cosines(
        self, prompt: str, hits: Sequence[Hit], vector: Vector, ahead: Future[Vector] | None = None
    ) -> dict[str, tuple[float, float]] | None:
        """Language-centred cosines of the prompt (first model's ``vector``) with each hit, by memory id:
        (first model's, second model's). None when some passage is not embedded yet (it is queued, and
        the first model decides this prompt alone) or before ``start``. ``ahead``: the prompt's vector
        from ``query_ahead``, already on its way."""
        keys = [passage_key(h.memory.id, h.chunk) for h in hits]
        with self._cond:
            missing = {k: h.excerpt for k, h in zip(keys, hits, strict=True) if k not in self._passages}
            if missing:
                self._queue.update(missing)
                self._cond.notify()
                return None
            if not self._bank_embedded():
                return None
            if self._first_means is None or self._prompt_means is None or self._first_vectors is None:
                return None
            if not keys:
                return {}
            second = np.vstack([self._passages[k] for k in keys])
            langs = [k in self._japanese for k in keys]
            first_means, second_means, (first_prompt, second_prompt) = (
                self._first_means,
                self._second_sums.means(second.shape[1]),
                self._prompt_means,
            )
        firsts = self._first_vectors([h.memory.id for h in hits])
        if len(firsts) != len(hits):
            return None
        ja = _japanese(prompt)
        first_q = _unit(vector - first_prompt[ja])
        asked = ahead.result() if ahead is not None else self.embedder.embed_query(prompt)
        second_q = _unit(asked - second_prompt[ja])
        first_m = _unit(
            np.vstack([firsts[h.memory.id] - first_means[j] for h, j in zip(hits, langs, strict=True)])
        )
        second_m = _unit(second - np.vstack([second_means[j] for j in langs]))
        return {
            h.memory.id: (float(a), float(b))
            for h, a, b in zip(hits, first_m @ first_q, second_m @ second_q, strict=True)
        }

    def start(
        self, memories: Sequence[tuple[str, str]], first: Embedder, first_vectors: FirstVectors
    ) -> None:
        """Take the language means (the first model's over ``memories``' vectors, both models' over the
        chatter sentences), then embed the ``(memory id, content)`` pairs not embedded yet in a
        background thread."""
        langs = {mid: _japanese(content) for mid, content in memories}
        vectors = first_vectors(list(langs))
        bank = reference_bank()
        vectors.update(
            zip((key for key, _ in bank), first.embed_documents([t for _, t in bank]), strict=True)
        )
        langs.update((key, _japanese(text)) for key, text in bank)
        first_means = _means(vectors, {mid for mid, ja in langs.items() if ja})
        japanese = {s for s in CHATTER if _japanese(s)}
        first_bank = {s: first.embed_query(s) for s in CHATTER}
        second_bank = {s: self.embedder.embed_query(s) for s in CHATTER}
        with self._cond:
            self._first_vectors = first_vectors
            self._first_means = first_means
            self._prompt_means = (_means(first_bank, japanese), _means(second_bank, japanese))
            self._bank = [key for key, _ in bank]
            self._backlog = [
                (key, text) for key, text in bank if key not in self._passages
            ] + [  # the bank first: no fused answer before it is in the means
                (passage_key(mid), text)
                for mid, content in memories
                if passage_key(mid) not in self._passages and (text := (chunks(content) or [""])[0])
            ]
            self._backlog.reverse()  # popped from the end: oldest memories first
        self._worker = threading.Thread(target=self._run, name="hook-second-model", daemon=True)
        self._worker.start()

    def pending(self) -> int:
        """Passages still to embed."""
        with self._cond:
            return len(self._queue) + len(self._backlog) + self._in_flight

    def wait_idle(self, timeout: float) -> bool:
        """Wait until nothing is left to embed or to save (tests, benches); False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._busy() and not self._unsaved, timeout)

    def _busy(self) -> bool:
        return bool(self._queue or self._backlog or self._in_flight)

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            ahead, self._ahead = self._ahead, None
        if ahead is not None:
            ahead.shutdown(wait=True, cancel_futures=True)
        if self._worker is not None:
            self._worker.join(10)
        self._save()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stopping or bool(self._queue or self._backlog))
                if self._stopping:
                    return
                batch = list(self._queue.items())[:BATCH]
                for key, _ in batch:
                    del self._queue[key]
                while len(batch) < BATCH and self._backlog:
                    key, text = self._backlog.pop()
                    if key not in self._passages:
                        batch.append((key, text))
                self._in_flight = len(batch)
            try:
                vectors = self.embedder.embed_documents([text for _, text in batch]) if batch else None
            except Exception as exc:  # leave those to the first model
                log.warning("second model failed on %d passages: %s", len(batch), exc)
                vectors = None
            with self._cond:
                if vectors is not None:
                    self._hold([key for key, _ in batch], vectors, [_japanese(text) for _, text in batch])
                    if self.file is not None:
                        self._unsaved += [key for key, _ in batch]
                self._in_flight = 0
                idle, unsaved = not self._busy(), len(self._unsaved)
            if unsaved >= SAVE_EVERY or (idle and unsaved):
                self._save()
            if idle:
                with self._cond:
                    self._cond.notify_all()

    def _hold(self, keys: list[str], vectors: Matrix, japanese: list[bool]) -> None:
        """Keep passages (under ``_cond``) and move the language sums by them: a key embedded again
        (asked for while in flight) replaces its vector in the sums."""
        latest = {key: row for row, key in enumerate(keys)}  # a key twice in one batch: its last row
        keys, rows = list(latest), list(latest.values())
        again = [k for k in keys if k in self._passages]
        if again:
            old = np.vstack([self._passages[k] for k in again])
            self._second_sums.add(old, [k in self._japanese for k in again], sign=-1)
            self._japanese.difference_update(again)
        kept, flags = np.asarray(vectors, np.float32)[rows], [japanese[r] for r in rows]
        self._passages.update(zip(keys, kept, strict=True))
        self._japanese.update(k for k, ja in zip(keys, flags, strict=True) if ja)
        self._second_sums.add(kept, flags)

    def _load(self) -> None:
        found = self.file.load() if self.file is not None else None
        if found is not None:
            keys, vectors, japanese = found
            with self._cond:
                self._hold(keys, vectors, [k in japanese for k in keys])

    def _save(self) -> None:
        """Append what was embedded since the last save (``_passage_file``: the whole file is rewritten
        only when its journal outgrows it)."""
        if self.file is None:
            return
        with self._saving:
            with self._cond:
                keys, self._unsaved = self._unsaved, []
                vectors = np.vstack([self._passages[k] for k in keys]) if keys else None
                japanese = [k in self._japanese for k in keys]
            if vectors is None:
                return
            try:
                self.file.save(keys, vectors, japanese, self._everything)
            except OSError as exc:
                log.info("second-model vectors not saved: %s", exc)

    def _everything(self) -> Passages:
        with self._cond:
            keys = list(self._passages)
            return keys, np.vstack([self._passages[k] for k in keys]), set(self._japanese)

    @property
    def averaged(self) -> int:
        """Vectors added into the language means so far (each passage once when it arrives)."""
        return self._second_sums.added

    @property
    def bytes_written(self) -> int:
        """Bytes this server has written to its passage file and journal."""
        return self.file.written if self.file is not None else 0


def load_second_opinion(name: str = SECOND_MODEL, file: Path | None = None) -> SecondOpinion | None:
    """The second model, or None when it is not installed or cannot run (the first model decides alone)."""
    try:
        embedder = load_embedder(name)
        embedder.embed_query("warm up")  # maps its weights now, not on the first prompt
    except Exception as exc:  # an optional extra: the hook works without it
        log.info("no second model for the hook (%s): %s", name, exc)
        return None
    return SecondOpinion(embedder, file)
