#!/usr/bin/python3
"""parquet_filters.py: the Bloom filters of a Parquet file, read from its footer.

    parquet_filters.py FILE

prints one tab-separated line per column chunk that has a filter:

    row group, column path (dotted), physical type, offset, length, hex

where hex is the filter as it sits in the file: its Thrift BloomFilterHeader
followed by the bitset.  Written from the Parquet format specification
(parquet.thrift, and the Thrift compact protocol) with the standard library
alone: FileMetaData.row_groups (4) -> RowGroup.columns (1) ->
ColumnChunk.meta_data (3) -> ColumnMetaData.type (1), path_in_schema (3),
bloom_filter_offset (14), bloom_filter_length (15).  A writer that leaves
bloom_filter_length out is handled by reading the header at the offset for
its numBytes (field 1).
"""
import struct
import sys

TYPES = ['BOOLEAN', 'INT32', 'INT64', 'INT96', 'FLOAT', 'DOUBLE', 'BYTE_ARRAY',
         'FIXED_LEN_BYTE_ARRAY']


class Compact:
    """A reader of the Thrift compact protocol: structs become dicts of
    field id to value."""

    def __init__(self, data, pos=0):
        self.data = data
        self.pos = pos

    def byte(self):
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self):
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                return result

    def zigzag(self):
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, ctype):
        if ctype in (1, 2):          # boolean (as a field: the type is the value)
            return ctype == 1
        if ctype == 3:
            return struct.unpack('b', bytes([self.byte()]))[0]
        if ctype in (4, 5, 6):       # i16, i32, i64
            return self.zigzag()
        if ctype == 7:
            v = struct.unpack('<d', self.data[self.pos:self.pos + 8])[0]
            self.pos += 8
            return v
        if ctype == 8:               # binary / string
            n = self.varint()
            v = self.data[self.pos:self.pos + n]
            self.pos += n
            return v
        if ctype in (9, 10):         # list, set
            h = self.byte()
            size, etype = h >> 4, h & 0x0f
            if size == 15:
                size = self.varint()
            if etype in (1, 2):      # booleans in a list: one byte each
                return [self.byte() == 1 for _ in range(size)]
            return [self.value(etype) for _ in range(size)]
        if ctype == 11:              # map
            size = self.varint()
            if size == 0:
                return {}
            h = self.byte()
            return dict((self.value(h >> 4), self.value(h & 0x0f)) for _ in range(size))
        if ctype == 12:
            return self.struct()
        raise ValueError('unknown compact type %d at %d' % (ctype, self.pos))

    def struct(self):
        fields = {}
        last = 0
        while True:
            h = self.byte()
            if h == 0:
                return fields
            delta, ctype = h >> 4, h & 0x0f
            fid = last + delta if delta else self.zigzag()
            fields[fid] = self.value(ctype)
            last = fid


def filters(data):
    if data[-4:] != b'PAR1' or data[:4] != b'PAR1':
        raise ValueError('not a Parquet file')
    (footer_len,) = struct.unpack('<i', data[-8:-4])
    meta = Compact(data, len(data) - 8 - footer_len).struct()
    for rg, group in enumerate(meta.get(4, [])):
        for chunk in group.get(1, []):
            md = chunk.get(3)
            if md is None or 14 not in md:
                continue
            offset = md[14]
            length = md.get(15)
            if length is None:
                reader = Compact(data, offset)
                header = reader.struct()
                length = reader.pos - offset + header[1]
            path = '.'.join(p.decode() for p in md[3])
            yield rg, path, TYPES[md[1]], offset, length, data[offset:offset + length]


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: parquet_filters.py FILE')
    with open(sys.argv[1], 'rb') as f:
        data = f.read()
    for rg, path, ptype, offset, length, raw in filters(data):
        print('\t'.join([str(rg), path, ptype, str(offset), str(length), raw.hex()]))


if __name__ == '__main__':
    main()
