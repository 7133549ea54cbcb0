"""HDF5's metadata checksum (Bob Jenkins' lookup3 hashlittle, initval 0, as
H5_checksum_lookup3 computes it), to damage checksummed metadata so that
only the damage meant is left for the reader to find."""
import struct

M = 0xFFFFFFFF


def _rot(x, k):
    return ((x << k) | (x >> (32 - k))) & M


def lookup3(data):
    n, i = len(data), 0
    a = b = c = (0xDEADBEEF + n) & M
    while n > 12:
        x, y, z = struct.unpack_from("<III", data, i)
        a, b, c = (a + x) & M, (b + y) & M, (c + z) & M
        a = (a - c) & M; a ^= _rot(c, 4); c = (c + b) & M
        b = (b - a) & M; b ^= _rot(a, 6); a = (a + c) & M
        c = (c - b) & M; c ^= _rot(b, 8); b = (b + a) & M
        a = (a - c) & M; a ^= _rot(c, 16); c = (c + b) & M
        b = (b - a) & M; b ^= _rot(a, 19); a = (a + c) & M
        c = (c - b) & M; c ^= _rot(b, 4); b = (b + a) & M
        n -= 12
        i += 12
    if n == 0:
        return c
    x, y, z = struct.unpack("<III", bytes(data[i:i + n]) + bytes(12 - n))
    a, b, c = (a + x) & M, (b + y) & M, (c + z) & M
    c ^= b; c = (c - _rot(b, 14)) & M
    a ^= c; a = (a - _rot(c, 11)) & M
    b ^= a; b = (b - _rot(a, 25)) & M
    c ^= b; c = (c - _rot(b, 16)) & M
    a ^= c; a = (a - _rot(c, 4)) & M
    b ^= a; b = (b - _rot(a, 14)) & M
    c ^= b; c = (c - _rot(b, 24)) & M
    return c


def block_of(d, at):
    """The checksummed block of undamaged bytes d that holds byte at: an
    object header's first chunk ("OHDR") or a fractal heap direct block
    ("FHDB", its checksum computed with its own field zeroed), as
    (start, end, where the checksum is). Raises when there is none."""
    oh, fh = d.rfind(b"OHDR", 0, at), d.rfind(b"FHDB", 0, at)
    if oh > fh:
        flags = d[oh + 5]
        pre = 6 + (16 if flags & 0x20 else 0) + (4 if flags & 0x10 else 0)
        nsize = 1 << (flags & 0x03)
        end = oh + pre + nsize + int.from_bytes(d[oh + pre:oh + pre + nsize], "little")
        if oh < at < end and lookup3(bytes(d[oh:end])) == struct.unpack_from("<I", d, end)[0]:
            return oh, end, end
    elif fh >= 0:
        # Its size and the place of its checksum (after the heap header's
        # address and a block offset of 1-8 bytes): the pair whose checksum
        # the block holds.
        for osize in range(1, 9):
            cs = fh + 5 + 8 + osize
            for size in (1 << k for k in range(9, 21)):
                if fh + size > len(d) or not fh < at < fh + size:
                    continue
                blk = bytearray(d[fh:fh + size])
                blk[cs - fh:cs - fh + 4] = bytes(4)
                if lookup3(bytes(blk)) == struct.unpack_from("<I", d, cs)[0]:
                    return fh, fh + size, cs
    raise ValueError(f"byte {at}: no checksummed block found around it")


def reseal(d, block):
    """Writes the checksum of block (block_of) into bytearray d."""
    start, end, cs = block
    blk = bytearray(d[start:end])
    if cs < end:
        blk[cs - start:cs - start + 4] = bytes(4)
    struct.pack_into("<I", d, cs, lookup3(bytes(blk)))
