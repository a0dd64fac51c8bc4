#version 450
// atomicAnd / atomicOr / atomicXor (uint) on block members: building occupancy and parity masks.
layout(local_size_x = 32) in;

layout(set = 0, binding = 0) buffer Masks {
    uint occupied;
    uint cleared;
    uint parity;
} masks;

void main() {
    uint bit = 1u << gl_LocalInvocationID.x;
    atomicOr(masks.occupied, bit);
    atomicAnd(masks.cleared, ~bit);
    uint before = atomicXor(masks.parity, bit | 1u);
    if ((before & bit) != 0u) {
        atomicOr(masks.occupied, 0x80000000u);
    }
}
// run: --groups 3 --buffer Masks=u32:[0,4294967295,305419896]
