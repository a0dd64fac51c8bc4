#version 450
// atomicAnd / atomicOr / atomicXor (int) on elements of a runtime-sized int array.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) buffer Flags {
    int words[];
} flags;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint word = i / 32u;
    int bit = int(1u << (i % 32u));
    int before = atomicOr(flags.words[word], bit);
    if ((before & bit) != 0) {
        atomicXor(flags.words[word + 8u], bit);
    }
    atomicAnd(flags.words[word + 16u], ~bit);
}
// run: --groups 4 --buffer Flags=i32:[1431655765,-1431655766,255,-256,65535,-65536,123456789,-123456789,7,8,9,10,11,12,13,14,-1,-2,1073741824,-2147483648,99,100,101,102,555]
