"""Clip copies that carry nothing but the audio: no tags naming an encoder, engine or voice.

Listeners must not learn which system made a clip. Engines and providers may write their name
into a file (a WAV ``LIST/INFO`` chunk, ID3 or Vorbis comments), so a copy keeps only the
audio: a WAV keeps its ``fmt `` and ``data`` chunks, any other container is remuxed packet by
packet with PyAV with no metadata. The samples are never re-encoded or otherwise changed.
"""

from __future__ import annotations

import io
import struct

import av

# Chunks a WAV needs to play: the format, the samples, and ``fact`` for compressed WAV formats.
_WAV_KEEP = (b"fmt ", b"fact", b"data")
_FORMAT_OPTIONS: dict[str, dict[str, str]] = {"mp3": {"id3v2_version": "0", "write_xing": "0"}}


class AnonymizeError(ValueError):
    """A clip whose audio could not be copied without its metadata."""


def is_wav(data: bytes) -> bool:
    return len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WAVE"


def bare_wav(data: bytes) -> bytes:
    """The WAV with every chunk but ``fmt ``, ``fact`` and ``data`` dropped, sizes rewritten.

    A streaming writer's placeholder ``data`` size (larger than what follows) is cut to the
    bytes actually present.
    """
    chunks: list[tuple[bytes, bytes]] = []
    offset = 12
    while offset + 8 <= len(data):
        chunk_id = data[offset : offset + 4]
        (size,) = struct.unpack("<I", data[offset + 4 : offset + 8])
        body = data[offset + 8 : offset + 8 + size]
        if chunk_id in _WAV_KEEP:
            chunks.append((chunk_id, body))
        offset += 8 + size + (size & 1)  # chunks are padded to an even length
    if not any(cid == b"fmt " for cid, _ in chunks) or not any(cid == b"data" for cid, _ in chunks):
        raise AnonymizeError("WAV without a fmt and a data chunk")
    out = io.BytesIO()
    for chunk_id, body in chunks:
        out.write(chunk_id + struct.pack("<I", len(body)) + body + (b"\0" if len(body) & 1 else b""))
    payload = out.getvalue()
    return b"RIFF" + struct.pack("<I", 4 + len(payload)) + b"WAVE" + payload


def remuxed(data: bytes) -> bytes:
    """The audio stream of any container PyAV reads, copied packet by packet into the same format, no tags."""
    try:
        with av.open(io.BytesIO(data), mode="r") as source:
            if not source.streams.audio:
                raise AnonymizeError("no audio stream")
            stream_in = source.streams.audio[0]
            out = io.BytesIO()
            fmt = source.format.name.split(",")[0]
            # bitexact: the muxer writes no encoder name or version; MP3 also gets no ID3 tag and
            # no Xing frame (which names the encoder).
            options = {"fflags": "+bitexact", **_FORMAT_OPTIONS.get(fmt, {})}
            with av.open(out, mode="w", format=fmt, options=options) as sink:
                stream_out = sink.add_stream_from_template(stream_in)
                stream_out.metadata.clear()
                for packet in source.demux(stream_in):
                    if packet.dts is None:
                        continue
                    packet.stream = stream_out
                    sink.mux(packet)
        return out.getvalue()
    except av.error.FFmpegError as exc:
        raise AnonymizeError(f"could not copy the audio without its tags: {exc}") from exc


def anonymous_audio(data: bytes) -> bytes:
    """The clip as listeners receive it: the same audio, nothing else."""
    return bare_wav(data) if is_wav(data) else remuxed(data)
