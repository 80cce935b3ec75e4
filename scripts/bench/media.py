"""The media the benchmarks upload: the same tiny fast-start MP4 and JPEG as
Sources/PreviewTestSupport/TestMedia.swift.

Python 3 standard library only.
"""


def _be32(value):
    return value.to_bytes(4, "big")


def _box(kind, payload):
    return _be32(8 + len(payload)) + kind.encode() + payload


def _pattern(count, seed):
    return bytes((i * 31 + seed * 7 + (i >> 8)) & 0xFF for i in range(count))


def test_mp4(size=2048, duration_ms=10000, width=640, height=360):
    ftyp = _box("ftyp", b"isom" + bytes([0, 0, 2, 0]) + b"isommp41")
    mvhd = bytearray(100)
    mvhd[12:16], mvhd[16:20], mvhd[20:24], mvhd[96:100] = _be32(1000), _be32(duration_ms), _be32(0x10000), _be32(2)
    tkhd = bytearray(84)
    tkhd[0:4], tkhd[12:16], tkhd[20:24] = _be32(3), _be32(1), _be32(duration_ms)
    tkhd[76:80], tkhd[80:84] = _be32(width << 16), _be32(height << 16)
    hdlr = bytes(8) + b"vide" + bytes(13)
    # One H.264 sample entry (avc1, its avcC Constrained Baseline level 3.0), as commit requires.
    entry = bytearray(78)
    entry[7] = 1
    entry[24:28] = bytes([width >> 8, width & 0xFF, height >> 8, height & 0xFF])
    entry[28:32], entry[32:36], entry[41], entry[74:78] = _be32(0x480000), _be32(0x480000), 1, b"\x00\x18\xff\xff"
    avcc = bytes([1, 0x42, 0xE0, 0x1E, 0xFF, 0xE0, 0x00])
    stsd = bytes(4) + _be32(1) + _box("avc1", bytes(entry) + _box("avcC", avcc))
    minf = _box("minf", _box("stbl", _box("stsd", stsd)))
    trak = _box("trak", _box("tkhd", bytes(tkhd)) + _box("mdia", _box("hdlr", hdlr) + minf))
    head = ftyp + _box("moov", _box("mvhd", bytes(mvhd)) + trak)
    return head + _box("mdat", _pattern(max(0, size - len(head) - 8), 0))


def test_jpeg(size=512):
    head = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + b"JFIF" + bytes([0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
    return head + _pattern(max(0, size - len(head) - 2), 0) + bytes([0xFF, 0xD9])


MOVIE = test_mp4()
THUMBNAIL = test_jpeg()
