"""An endpoint's answer as decoded bytes, decompressed here a bounded step at a time.

httpx decompresses each chunk that arrives whole: 64 KiB of gzip can stand for 64 MiB,
and 64 KiB of zstd for gigabytes, all in memory before the caller can count a byte. So the
gateway asks only for gzip or deflate (`ACCEPT_ENCODING`), reads the raw bytes and
inflates them at most `STEP` bytes at a time: a cap on the answer's size
(`RemoteBackend.max_body`) counts decoded bytes and is met within one step. An answer in
an encoding that was not asked for is refused rather than decoded.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import httpx2

from gateway.errors import Truncated, UpstreamError

ACCEPT_ENCODING = "gzip, deflate"
STEP = 1 << 20
"""Decoded bytes made from compressed input at a time, at most."""
_GZIP_OR_ZLIB = zlib.MAX_WBITS | 32  # zlib reads either header


def decoded(response: httpx2.Response, host: str) -> Iterator[bytes]:
    """The body of `response` as it was before its content encoding, in chunks of at most
    `STEP` bytes for compressed input (raw chunks as they come otherwise)."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        yield from response.iter_raw()
        return
    if encoding not in ("gzip", "x-gzip", "deflate"):
        # The header is the endpoint's text: shown only when it is a short token.
        shown = encoding if len(encoding) <= 20 and encoding.replace("-", "").isalnum() else "an unknown one"
        raise UpstreamError(f"{host} answered in the content encoding {shown!r}, which the gateway did not ask "
                            f"for (it asks for {ACCEPT_ENCODING})")
    inflater = _Inflater(host, deflate=encoding == "deflate")
    for raw in response.iter_raw():
        yield from inflater.feed(raw)
    yield from inflater.finish()


class _Inflater:
    """gzip (several members too) or deflate (zlib-wrapped, or raw as some servers send it)."""

    def __init__(self, host: str, *, deflate: bool) -> None:
        self.host = host
        self.deflate = deflate
        self.started = False
        self._decompressor = zlib.decompressobj(zlib.MAX_WBITS if deflate else _GZIP_OR_ZLIB)

    def feed(self, data: bytes) -> Iterator[bytes]:
        while data:
            if self._decompressor.eof:
                if self.deflate or not data.strip(b"\0"):
                    return  # what follows the stream is padding, not more answer
                self._decompressor = zlib.decompressobj(_GZIP_OR_ZLIB)  # the next gzip member
            try:
                out = self._decompressor.decompress(data, STEP)
            except zlib.error:
                if self.deflate and not self.started:  # raw deflate, without zlib's header
                    self._decompressor = zlib.decompressobj(-zlib.MAX_WBITS)
                    self.started = True
                    continue
                raise UpstreamError(f"{self.host} sent a compressed answer that does not decompress") from None
            self.started = True
            if out:
                yield out
            # Input not yet inflated (the step was full), or what follows the end of the stream.
            data = self._decompressor.unconsumed_tail or (self._decompressor.unused_data if self._decompressor.eof else b"")

    def finish(self) -> Iterator[bytes]:
        if not self.started:
            return
        if not self._decompressor.eof:
            raise Truncated(f"{self.host} sent a compressed answer that stops mid-stream (the answer is incomplete)")
        rest = self._decompressor.flush()
        if rest:
            yield rest
