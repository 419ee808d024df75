"""Pictures in the web chat: ``POST /api/chat/picture`` takes a message with up to four photos.

A photo goes the way a LINE photo goes: checked by its bytes against what every model accepts
(``llm.image_block`` with the conservative row: JPEG, PNG, GIF or WebP, 5 MB, 8,000 pixels a side,
not damaged), then to ``ChatService.begin(images=…)``, which makes the turn untrusted (words in a
picture are outside text, so any write it leads to waits on a card). The picture is shown to the model
for this turn and not stored.

This is the one path with a large body limit (``PICTURE_BODY``, four pictures at the API's per-image
limit plus the form); every other path keeps the 64 KiB one. Each refusal is a ``Refusal`` in the
member's language, raised before anything is stored, so the typed words and the pictures stay in the
composer to be sent again.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.responses import StreamingResponse

from .._offload import off_loop
from ..agent._assistant import MAX_MESSAGE_CHARS
from ..llm import CONSERVATIVE, Block, ImageRefused, image_block
from ._api import Key, Signed, begun, stream_turn
from ._locale import Refusal

router = APIRouter(prefix="/api")

PICTURE_PATH = "/api/chat/picture"
MAX_PICTURES = 4
PICTURE_BODY = MAX_PICTURES * CONSERVATIVE.image_max_bytes + 64 * 1024  # the form's words and framing

#: ``ImageRefused.reason`` -> the words table's key
_REFUSALS = {
    "type": "picture_type",
    "size": "picture_size",
    "side": "picture_side",
    "corrupt": "picture_corrupt",
}


@router.post(
    "/chat/picture",
    tags=["chat"],
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "Server-sent events"}},
)
async def chat_with_pictures(
    member: Signed,
    request: Request,
    pictures: Annotated[list[UploadFile], File(description="1-4 JPEG, PNG, GIF or WebP, 5 MB each")],
    message: Annotated[str, Form(max_length=MAX_MESSAGE_CHARS)] = "",
    conversation: Annotated[str | None, Form(max_length=64)] = None,
    key: Annotated[Key | None, Form()] = None,
) -> StreamingResponse:
    """Say something with pictures (multipart form); the reply streams as ``POST /api/chat``'s does.

    400 with ``message`` in the member's language for a picture of another type, too large, too
    many pixels, damaged, or more than four; 413 for a body over the limit. Nothing is stored then.
    """
    if len(pictures) > MAX_PICTURES:
        raise Refusal("picture_many", f"at most {MAX_PICTURES} pictures at once", limit=MAX_PICTURES)
    blocks = [await _block(picture) for picture in pictures]
    # a photo alone says what LINE says for one (in the member's words, read once in the worker)
    turn, t = await off_loop(
        begun, request, member, message.strip(), conversation, key=key, images=blocks, alone="picture_said"
    )
    return stream_turn(request, member, turn, t)


async def _block(picture: UploadFile) -> Block:
    """The upload as an image block (read whole: the body limit bounds it), or a ``Refusal``."""
    data = await picture.read()
    try:
        return await off_loop(image_block, data, CONSERVATIVE)  # a PNG's pixel data is inflated: off the loop
    except ImageRefused as exc:
        values: dict[str, Any] = {"name": picture.filename or "", **exc.values}
        raise Refusal(_REFUSALS[exc.reason], str(exc), **values) from exc
